"""The kernel launches of the file being checked: the inventory's launch sites, or (a bare snippet) a lexical read."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from hipgauge.source import macros as mac


class Launch(NamedTuple):
    kernel: str | None
    grid: str | None
    block: str | None
    line: int


def launches(ctx: Any) -> list[Launch]:
    """Every launch of the file (computed once per file and kept on ``ctx``)."""
    found = getattr(ctx, "_launches", None)
    if found is not None:
        return found
    sites = getattr(ctx.inventory, "launch_sites", None)
    if sites is not None:
        found = [Launch(s.kernel, s.grid, s.block, s.line) for s in sites]
    else:
        found = []
        data = ctx.data
        if b"<<<" in data:
            blank = mac.blank_comments_and_strings(data)
            pos = blank.find(b"<<<")
            while pos >= 0:
                lex = mac.chevron_launch_at(blank, pos)
                if lex is not None and len(lex.config) >= 2:
                    name = lex.kernel.split("::")[-1] if lex.kernel else None
                    found.append(Launch(name, lex.config[0], lex.config[1], data.count(b"\n", 0, pos) + 1))
                pos = blank.find(b"<<<", pos + 3)
    ctx._launches = found
    return found


def launches_of(ctx: Any, kernel: str | None) -> list[Launch]:
    """The launches of one kernel (an index built once per file: a generated file with 70k kernels and as
    many launches stays linear)."""
    index = getattr(ctx, "_launches_by_kernel", None)
    if index is None:
        index = {}
        for launch in launches(ctx):
            index.setdefault(launch.kernel, []).append(launch)
        ctx._launches_by_kernel = index
    return index.get(kernel, [])


def _declared(ctx: Any, name: str) -> str | None:
    """The initialiser of ``dim3 name(…)`` / ``int name = …;`` in the file, as ``dim3(…)`` or the expression
    (one search of the file per name, kept on ``ctx``)."""
    cache = getattr(ctx, "_declared_cache", None)
    if cache is None:
        cache = ctx._declared_cache = {}
    if name not in cache:
        cache[name] = _declared_uncached(ctx, name)
    return cache[name]


def _declared_uncached(ctx: Any, name: str) -> str | None:
    rx = re.compile(rb"\b(dim3|int|unsigned|auto|size_t)\s+" + re.escape(name.encode()) + rb"\s*(?:=\s*([^;{}]+)|([({][^;]*[)}]))\s*;")
    m = rx.search(ctx.data)
    if m is None:
        return None
    if m.group(3):
        return "dim3" + m.group(3).decode("latin-1")
    return m.group(2).decode("latin-1").strip()


def block_threads(ctx: Any, block: str | None, depth: int = 0) -> int | None:
    """Threads per block of a launch's block argument (``256``, ``kThreads``, ``dim3(16, 16)``, a local
    ``dim3 block(128)`` or ``int threads = 128``), when it folds."""
    if not block or depth > 2:
        return None
    s = block.strip()
    if re.fullmatch(r"[A-Za-z_]\w*", s) and ctx.fold(s) is None:
        init = _declared(ctx, s)
        return block_threads(ctx, init, depth + 1) if init else None
    if s.startswith("dim3"):
        inner = s[4:].strip()
        if not (inner.startswith("(") or inner.startswith("{")) or not inner.endswith((")", "}")):
            return None
        total = 1
        for part in mac.split_top_level(inner[1:-1]):
            v = ctx.fold(part)
            if v is None:
                return None
            total *= v
        return total
    return ctx.fold(s)
