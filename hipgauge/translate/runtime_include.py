"""The runtime include nvcc adds by itself: which files of a tree need ``#include <hip/hip_runtime.h>``, and where.

nvcc includes the CUDA runtime in every ``.cu``; hipcc does not. A translated ``.cu`` that uses device code,
launches or the runtime API and reaches no runtime include (directly or through the tree's own headers) gets
one, and so does a header that uses them when every file that includes it (transitively) is a ``.cu``/``.cuh``
or nothing includes it: a header also reached from a host ``.cpp`` relied on its includer, and stays as it is.

The include goes on a line of its own without moving any other line: the last blank line (else the first line
of a comment block, the comment kept after the directive) at the file's top level (include guards count as top
level) before the first ``#include "…"`` (a project header may rely on its includer), else before the first
code. A file with no such line gets it as a new first line followed by
``#line 1`` (so the compiler's line numbers stay the CUDA ones) and a note saying so.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Callable

from hipgauge.translate.target import device_symbols_in

INCLUDE = "#include <hip/hip_runtime.h>"
# headers that declare the device built-ins and the runtime API (CUDA names and their HIP names)
_RUNTIME_HEADERS = frozenset({"cuda_runtime.h", "cuda.h", "hip/hip_runtime.h"})
_STRIP = re.compile(rb"""//(?:[^\\\n]|\\.)*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'""", re.S)
#: device code, launches and runtime types/calls (plain substring tests: C speed, no regex alternation)
_USE_WORDS = (b"__global__", b"__device__", b"__shared__", b"__constant__", b"__managed__", b"threadIdx", b"blockIdx",
              b"blockDim", b"gridDim", b"__syncthreads", b"dim3", b"<<<")
_CUDA_API = re.compile(rb"\bcuda[A-Z]")  # cudaMalloc, cudaStream_t… (literal-led: fast)
# literal-led (``#``) so the engine skips ahead; the line start is checked after
_INCLUDE = re.compile(rb"""#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]""")


def _uses(code: bytes) -> bool:
    return any(w in code for w in _USE_WORDS) or (b"cuda" in code and _CUDA_API.search(code) is not None)


def _includes(data: bytes) -> list[tuple[str, str]]:
    found = []
    for m in _INCLUDE.finditer(data):
        start = m.start()
        if data[data.rfind(b"\n", 0, start) + 1:start].strip(b" \t"):
            continue  # not at a line start
        found.append((m.group(1).decode(), m.group(2).decode("utf-8", "replace").strip()))
    return found
_HOST_SUFFIXES = (".cpp", ".cc", ".cxx", ".c", ".c++", ".cp")


@dataclass
class TreeFacts:
    """What the tree-wide pre-pass found: files that get the runtime include, headers left alone (and why),
    and the tree's ``__device__``/``__constant__`` variable names (for ``HIP_SYMBOL``)."""

    include_files: frozenset[str] = frozenset()
    relies_on_includer: dict[str, str] = field(default_factory=dict)  # header → a host file that includes it
    device_symbols: frozenset[str] = frozenset()


def collect_tree_facts(entries: list[Any], read: Callable[[Any], bytes | None]) -> TreeFacts:
    """One lexical pass over the tree's source files (``read(entry)`` → bytes or None). Comments and strings are
    blanked only in the files where it can matter: those whose raw text shows device code and that reach no runtime
    include, and, when some file calls a symbol API, those that declare device variables."""
    by_display: dict[str, Any] = {}
    maybe_uses: set[str] = set()
    declares: list[Any] = []
    symbol_api = False
    direct: dict[str, bool] = {}
    includes: dict[str, list[tuple[str, str]]] = {}
    symbols: set[str] = set()
    for e in entries:
        if e.kind not in ("cuda", "cpp", "header"):
            continue
        data = read(e)
        if data is None:
            continue
        by_display[e.display] = e
        if _uses(data):
            maybe_uses.add(e.display)
        inc = _includes(data) if b"include" in data else []
        includes[e.display] = inc
        direct[e.display] = any(name in _RUNTIME_HEADERS for _, name in inc)
        if b"Symbol" in data:
            symbol_api = True
        if b"__constant__" in data or b"__device__" in data or b"__managed__" in data:
            declares.append(e)
    if symbol_api:
        for e in declares:
            data = read(e)
            if data is not None:
                symbols |= device_symbols_in(_code(data).decode("utf-8", "replace"))
    resolve = _resolver(list(by_display))
    edges: dict[str, list[str]] = {d: [t for q, n in inc if (t := resolve(d, n, q)) is not None]
                                   for d, inc in includes.items()}
    reaches: dict[str, bool] = {}

    def reach(d: str, seen: set[str]) -> bool:
        if d in reaches:
            return reaches[d]
        if direct.get(d):
            reaches[d] = True
            return True
        seen.add(d)
        ok = any(reach(t, seen) for t in edges.get(d, []) if t not in seen)
        reaches[d] = ok
        return ok

    includers: dict[str, set[str]] = {}
    for d, targets in edges.items():
        for t in targets:
            includers.setdefault(t, set()).add(d)
    chosen: set[str] = set()
    relies: dict[str, str] = {}
    for d, e in by_display.items():
        if d not in maybe_uses or reach(d, set()):
            continue
        data = read(e)
        if data is None or not _uses(_code(data)):
            continue  # the device words were in comments or strings only
        if e.kind == "cuda":
            chosen.add(d)
        elif e.kind == "header":
            host = _host_includer(d, includers)
            if host is None:
                chosen.add(d)
            else:
                relies[d] = host
    return TreeFacts(frozenset(chosen), relies, frozenset(symbols))


def _code(data: bytes) -> bytes:
    """``data`` with comments and string/char literals blanked (each to one space)."""
    return _STRIP.sub(b" ", data) if (b"/" in data or b'"' in data or b"'" in data) else data


def _host_includer(header: str, includers: dict[str, set[str]]) -> str | None:
    """A host source file (``.cpp``…) that includes ``header`` directly or through other headers, or None."""
    stack, seen = [header], {header}
    while stack:
        cur = stack.pop()
        for inc in sorted(includers.get(cur, ())):
            if inc in seen:
                continue
            seen.add(inc)
            if inc.lower().endswith(_HOST_SUFFIXES):
                return inc
            stack.append(inc)
    return None


def _resolver(displays: list[str]) -> Callable[[str, str, str], str | None]:
    known = set(displays)
    by_suffix: dict[str, list[str]] = {}
    for d in displays:
        parts = d.split("/")
        for i in range(len(parts)):
            by_suffix.setdefault("/".join(parts[i:]), []).append(d)

    def resolve(includer: str, name: str, quote: str) -> str | None:
        if quote == '"':
            here = PurePosixPath(includer).parent / name
            cand = os.path.normpath(str(here)).replace("\\", "/")
            if cand in known:
                return cand
        if name in known:
            return name
        hits = by_suffix.get(name.lstrip("./"), [])
        return hits[0] if len(hits) == 1 else None

    return resolve


# ---------------------------------------------------------------------------------------------------------
# Insertion
# ---------------------------------------------------------------------------------------------------------

_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(\w+)(.*)$")


def insert_runtime_include(text: str) -> tuple[str, int, bool]:
    """(new text, the 1-based line the include is on, whether the lines kept their numbers)."""
    lines = text.split("\n")
    in_comment = False
    depth = 0
    guard: str | None = None
    guard_depth = 0
    first_directive = True
    blanks: list[int] = []
    comments: list[int] = []
    cont = False
    local_at: tuple[int, int] | None = None  # candidates found before the first #include "…"
    for i, line in enumerate(lines):
        stripped = line.strip()
        if in_comment:
            if "*/" in line:
                in_comment = False
                rest = line.split("*/", 1)[1].strip()
                if rest and not rest.startswith("//"):
                    break
            continue
        if cont:  # a continued directive or // comment: part of the line above
            cont = line.rstrip().endswith("\\")
            continue
        cont = line.rstrip().endswith("\\")
        top = depth == 0 or (guard is not None and depth == guard_depth)
        if not stripped:
            if top:
                blanks.append(i)
            continue
        if stripped.startswith("//"):
            if top and not cont and not (i and lines[i - 1].strip().startswith("//")):
                comments.append(i)  # the first line of a // block, so the directive never splits a comment
            continue
        if stripped.startswith("/*"):
            if top:
                comments.append(i)
            body = stripped[2:]
            if "*/" not in body:
                in_comment = True
                continue
            rest = body.split("*/", 1)[1].strip()
            if not rest or rest.startswith("//"):
                continue
            break
        d = _DIRECTIVE.match(line)
        if d is None:
            break  # the first code
        word, rest = d.group(1), d.group(2).strip()
        if word in ("if", "ifdef", "ifndef"):
            depth += 1
            if first_directive and word == "ifndef":
                guard, guard_depth = rest.split()[0] if rest.split() else "", depth
        elif word == "endif":
            depth -= 1
        elif word == "include" and rest.startswith('"') and local_at is None:
            local_at = (len(blanks), len(comments))
        elif word == "define" and guard is not None and guard_depth == depth:
            pass
        first_directive = False
    if local_at is not None and (local_at[0] or local_at[1]):
        blanks, comments = blanks[:local_at[0]], comments[:local_at[1]]
    if blanks:
        at = blanks[-1]
        lines[at] = INCLUDE + ("\r" if lines[at].endswith("\r") else "")
        return "\n".join(lines), at + 1, True
    if comments:
        at = comments[-1]
        lines[at] = f"{INCLUDE} {lines[at].strip()}" + ("\r" if lines[at].endswith("\r") else "")
        return "\n".join(lines), at + 1, True
    return f"{INCLUDE}\n#line 1\n{text}", 1, False
