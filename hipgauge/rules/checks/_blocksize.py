"""A kernel's block size when the source fixes it: ``__launch_bounds__(N)`` or every launch of it in the file
with the same literal block (``k<<<grid, 64>>>``). Used where an index is a data layout in a block of known
size rather than a warp index (``tid / 32`` in a 64-thread block picks one of two halves)."""

from __future__ import annotations

import re
from typing import Any

from hipgauge.rules.syntax import function_name
from hipgauge.source.macros import split_top_level


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
            sizes.add(_threads(ctx, site.block) if site.block else None)
    if sizes and None not in sizes:
        return max(s for s in sizes if s is not None)
    return None


def _threads(ctx: Any, block: str) -> int | None:
    """Threads of a launch's block argument: ``64``, ``dim3(64)``, ``dim3(32, 2, 1)`` (None when it does not fold)."""
    m = re.fullmatch(r"\s*(?:dim3\s*)?[({]\s*(.*?)\s*[)}]\s*", block)
    if m is None:
        return ctx.fold(block)
    total = 1
    for part in split_top_level(m.group(1)):
        value = ctx.fold(part)
        if value is None:
            return None
        total *= value
    return total
