"""A kernel's block size when the source fixes it: ``__launch_bounds__(N)`` or every launch of it in the file
with the same literal block (``k<<<grid, 64>>>``). Used where an index is a data layout in a block of known
size rather than a warp index (``tid / 32`` in a 64-thread block picks one of two halves)."""

from __future__ import annotations

from typing import Any

from hipgauge.rules.syntax import function_name


def fixed_block_threads(ctx: Any, node: Any) -> int | None:
    """The most threads the block of the kernel enclosing ``node`` can have, when the source fixes it."""
    fn = ctx.function_of(node)
    if fn is None:
        return None
    rec = ctx.kernel_record(fn)
    if rec is not None and rec.launch_bounds:
        bound = ctx.fold(rec.launch_bounds[0])
        if bound:
            return bound
    name = rec.name if rec is not None else function_name(fn)
    sizes = set()
    for site in getattr(ctx.inventory, "launch_sites", None) or ():
        if site.kernel and site.kernel.split("::")[-1] == name:
            sizes.add(ctx.fold(site.block) if site.block else None)
    if sizes and None not in sizes:
        return max(s for s in sizes if s is not None)
    return None
