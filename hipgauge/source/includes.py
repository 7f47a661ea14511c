"""The preprocessor per build across files: what each project header defines in the CUDA and the HIP build, which
build reaches each header, and which names a build never defines.

``tree_macros(files, defines)`` reads every source file of the tree once:

* **includes**: ``#include "x.h"`` (and ``<x.h>`` when the tree has it) resolved to a tree file: relative to the
  includer, then to each folder above it, then to the tree's ``include/`` folders, then by a unique path suffix;
* **exports**: per header, what including it does to each build's macros (``#define``/``#undef`` under the
  header's own conditions, and what its own includes bring), three-valued: defined (with its value), undefined,
  unknown. ``common.cuh`` includes ``vendors/hip.h`` only under ``GGML_USE_HIP``: the shim's
  ``#define __CUDA_ARCH__ 1300`` and ``#define CDNA`` reach the HIP build only. Only the names a conditional
  directive of the tree can read are carried (``condition_names``): the others decide no branch;
* **reach**: whether each build compiles each header at all: a compiled source (``.cu``/``.cpp``) or a header no
  file includes is reached by both; another header is reached where an including line is (``vendors/cuda.h``,
  included under ``#else`` of ``GGML_USE_HIP``: CUDA build only);
* **never**: names the tree defines only where one build never looks (``#if !defined(GGML_USE_HIP) && __CUDA_ARCH__
  >= 750`` / ``#define TURING_MMA_AVAILABLE``): undefined in that build, in every file, whatever it includes.
  Toolkit and reserved names (``__CUDA_ARCH__``, ``CUDART_VERSION``, ``cudaStream_t``) and names a build file or
  ``-D`` passes are never put there: the compiler or the build may define them.

``hipgauge.source.dualtarget`` feeds these into each file's evaluation (``conditions.visibility``'s ``entry`` and
``include``).
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from hipgauge.source.conditions import (
    NO,
    YES,
    Defines,
    Exports,
    IncludeHook,
    Visibility,
    visibility,
)

#: sources a compiler is given (roots of the include graph)
COMPILED_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c++", ".c")
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>)', re.M)
#: names a compiler, a toolkit or a vendor's headers may define: never "undefined because the tree never does"
_NOT_PROJECT = re.compile(r"^(?:_[_A-Z]|(?:CUDA|CUDART|CUBLAS|CUDNN|NCCL|NV|HIP|ROCM|HIPBLAS|RCCL|TORCH|AT|C10)_|"
                          r"(?:cuda|cublas|cusparse|cusolver|curand|cufft|cudnn|nccl|nvrtc|cub|cute|cutlass|hip|roc|"
                          r"rccl|miopen)[A-Z_a-z]|cu[A-Z]|CU[a-z]|CU_|nv_|__nv|NVTX)")
#: rounds of the tree pass, at most: most trees settle in two (the names a build never defines, then the views with
#: them). A round whose ``never`` leaves the defines as they were is the last: the next would read the same defines
#: and find the same
ROUNDS = 3
#: a conditional directive's expression, and an object-like ``#define``'s value (continuation lines included)
_CONDITION = re.compile(rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef)\b([^\n]*(?:\\\n[^\n]*)*)", re.M)
_OBJECT_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])([^\n]*(?:\\\n[^\n]*)*)", re.M)
_IDENT = re.compile(rb"[A-Za-z_]\w*")


@dataclass(frozen=True)
class TreeMacros:
    """Macros per build across the tree's files (see the module docstring). Plain data: sent to scan workers."""

    #: file -> include text -> tree file it resolves to
    includes: dict[str, dict[str, str]] = field(default_factory=dict)
    #: header -> (cuda, hip) name -> value / None (undefined) / ``UNKNOWN``
    exports: dict[str, Exports] = field(default_factory=dict)
    #: file -> (cuda, hip) YES / MAYBE / NO; a file absent is reached by both
    reach: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: per build (cuda, hip): names the tree defines only where that build never looks
    never: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())

    def defines(self, base: Defines) -> Defines:
        """``base`` with the ``never`` names undefined (a name ``base`` decides keeps its value)."""
        return base.with_undefined(*self.never)

    def hook(self, file: str) -> IncludeHook | None:
        """What an ``#include`` in ``file`` does, for ``conditions.visibility``."""
        table = self.includes.get(file)
        if not table:
            return None
        exports = self.exports

        def look(text: str) -> Exports | None:
            target = table.get(text)
            return exports.get(target) if target is not None else None
        return look

    def entry(self, file: str) -> tuple[int, int]:
        return self.reach.get(file, (YES, YES))

    def view(self, file: str, data: bytes, defines: Defines) -> Visibility:
        """``file`` as each build sees it, with what its includes define and whether each build reaches it
        (``defines``: the tree's, ``never`` names included: ``defines(base)``)."""
        return visibility(data, defines, entry=self.entry(file), include=self.hook(file))

    def to_dict(self) -> dict[str, object]:
        headers = sorted(f for f, r in self.reach.items() if r != (YES, YES))
        return {"cuda_only_headers": [f for f in headers if self.reach[f][1] == NO and self.reach[f][0] != NO],
                "hip_only_headers": [f for f in headers if self.reach[f][0] == NO and self.reach[f][1] != NO],
                "undefined_in_hip": sorted(self.never[1]), "undefined_in_cuda": sorted(self.never[0])}


def units_reaching(includes: dict[str, dict[str, str]], files: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """For each of ``files``, the compiled units (``COMPILED_SUFFIXES``) whose include closure holds it, sorted; a
    compiled unit is its own; a header no unit includes, none. The kernels a header's code belongs to."""
    out: dict[str, set[str]] = {f: ({f} if f.endswith(COMPILED_SUFFIXES) else set()) for f in files}
    for unit in sorted(f for f in includes if f.endswith(COMPILED_SUFFIXES)):  # a unit with no includes reaches none
        seen = {unit}
        stack = [unit]
        while stack:
            for target in includes.get(stack.pop(), {}).values():
                if target not in seen:
                    seen.add(target)
                    stack.append(target)
                    if target in out and not target.endswith(COMPILED_SUFFIXES):
                        out[target].add(unit)
    return {f: tuple(sorted(u)) for f, u in out.items()}


def resolve_includes(files: dict[str, bytes]) -> dict[str, dict[str, str]]:
    """Per file, its ``#include`` texts that name a tree file, and that file (see the module docstring)."""
    known = set(files)
    include_dirs = sorted({"/".join(f.split("/")[:i + 1]) for f in known
                           for i, part in enumerate(f.split("/")[:-1]) if part == "include"})
    by_tail: dict[str, list[str]] = defaultdict(list)
    for f in known:
        parts = f.split("/")
        for i in range(len(parts)):
            by_tail["/".join(parts[i:])].append(f)
    out: dict[str, dict[str, str]] = {}
    for f, data in files.items():
        if b"include" not in data:
            continue
        folder = posixpath.dirname(f)
        table: dict[str, str] = {}
        for m in _INCLUDE.finditer(data):
            quoted = m.group(1) is not None
            text = (m.group(1) or m.group(2)).decode("latin-1").strip()
            if text in table:
                continue
            hit = _resolve(text, folder, quoted, known, include_dirs, by_tail)
            if hit is not None and hit != f:
                table[text] = hit
        if table:
            out[f] = table
    return out


def _resolve(text: str, folder: str, quoted: bool, known: set[str], include_dirs: list[str],
             by_tail: dict[str, list[str]]) -> str | None:
    if text.startswith("/"):
        return None
    tried = []
    if quoted:
        here = folder
        while True:  # the includer's folder, then each folder above it (a -I at a parent is the common case)
            tried.append(posixpath.normpath(posixpath.join(here, text)))
            if not here:
                break
            here = posixpath.dirname(here)
    tried += [posixpath.normpath(posixpath.join(d, text)) for d in include_dirs]
    for t in tried:
        if t in known:
            return t
    candidates = by_tail.get(posixpath.normpath(text), [])
    if len(candidates) == 1:
        return candidates[0]
    if candidates and quoted:  # the nearest one to the includer
        return max(candidates, key=lambda c: len(posixpath.commonprefix([c, folder + "/"])))
    return None


def tree_macros(files: dict[str, bytes], base: Defines, passed: Iterable[str] = (), builds: Any = None
                ) -> tuple[TreeMacros, dict[str, Visibility]]:
    """The tree's ``TreeMacros`` and each file's view with them, less its final macros (``_lines``) (``files``:
    display -> bytes of the tree's C/C++/CUDA sources and headers; ``base``: the switches and ``-D`` items;
    ``passed``: names a build file defines; ``builds``: the build scripts' selection, when read: in a tree with a
    HIP build, a compiled source only one build compiles reaches its headers for that build alone)."""
    includes = resolve_includes(files)
    included: set[str] = {t for table in includes.values() for t in table.values()}
    roots = {f for f in files if f.endswith(COMPILED_SUFFIXES) or f not in included}
    root_reach: dict[str, tuple[int, int]] = {}
    if builds is not None and getattr(builds, "has_hip_build", False):  # a CUDA-only tree: every file is the port's
        for f in roots:
            got = builds.builds_for(f) if f.endswith(COMPILED_SUFFIXES) else None
            if got is not None:
                root_reach[f] = (YES if "cuda" in got else NO, YES if "hip" in got else NO)
    passed = set(passed) | set(base.cuda) | set(base.hip) | base.cuda_undefined | base.hip_undefined
    macros = TreeMacros(includes=includes)
    views: dict[str, Visibility] = {}
    tested = condition_names(files)
    defs = base
    for _round in range(ROUNDS):
        views, macros = {}, TreeMacros(includes=includes)  # the last round's go: this one reads only ``defs``
        header_views: dict[str, Visibility] = {}
        exports = _exports(files, includes, defs, tested, header_views)
        plain = TreeMacros(includes, exports)
        views = {f: header_views[f] if f in header_views else _lines(visibility(data, defs, include=plain.hook(f)))
                 for f, data in files.items()}
        reach = _reach(views, includes, roots, root_reach)
        never = _never(views, reach, passed)
        macros = TreeMacros(includes, exports, {f: r for f, r in reach.items() if r != (YES, YES)}, never)
        following = macros.defines(base)
        if following == defs:  # a round reads nothing but ``defs``: the next would repeat this one
            break
        defs = following
    defs = macros.defines(base)
    views = {f: (_lines(macros.view(f, data, defs)) if macros.entry(f) != (YES, YES) else v) for f, (data, v)
             in ((f, (files[f], views[f])) for f in files)}
    return macros, views


def _lines(vis: Visibility) -> Visibility:
    """``vis`` without the macros each build has at its end (``final``, ``touched``): the exports were made of them,
    and a tree's worth of them (CCCL: ~1,000 names per header and build) is most of the pass's memory."""
    return replace(vis, final=(), touched=())


def condition_names(files: dict[str, bytes]) -> frozenset[str]:
    """The names a conditional directive of the tree tests, and those their object-like values are made of
    (transitively): the only names whose value can decide a branch. A header's exports keep just these: a
    config-heavy tree (CCCL: 1,700 headers, thousands of macros each reaches) otherwise carries every macro through
    every include."""
    tested: set[bytes] = set()
    values: dict[bytes, set[bytes]] = defaultdict(set)
    for data in files.values():
        if b"#" not in data:
            continue
        for m in _CONDITION.finditer(data):
            tested.update(_IDENT.findall(m.group(1)))
        for m in _OBJECT_DEFINE.finditer(data):
            values[m.group(1)].update(_IDENT.findall(m.group(2)))
    work = list(tested)
    while work:
        for name in values.get(work.pop(), ()):
            if name not in tested:
                tested.add(name)
                work.append(name)
    return frozenset(n.decode("latin-1") for n in tested)


def _exports(files: dict[str, bytes], includes: dict[str, dict[str, str]], defs: Defines,
             tested: frozenset[str] | None = None, views: dict[str, Visibility] | None = None) -> dict[str, Exports]:
    """What including each header does, per build (memoised; an include cycle contributes nothing); ``tested``:
    the only names kept (``condition_names``), all when None. ``views``: filled with each header's view, the one
    ``TreeMacros.hook`` would give it less its final macros (``_lines``; not for a header whose evaluation met an
    include cycle: there the cycle's include counted as nothing)."""
    memo: dict[str, Exports] = {}
    busy: list[str] = []
    cyclic: set[str] = set()
    targets = {t for table in includes.values() for t in table.values()}

    def of(f: str) -> Exports | None:
        if f in memo:
            return memo[f]
        if f in busy:
            cyclic.update(busy)
            return None
        if f not in files:
            return None
        busy.append(f)
        table = includes.get(f, {})
        hook = (lambda text: of(table[text]) if text in table else None) if table else None
        vis = visibility(files[f], defs, include=hook)
        got = vis.exported(tested)
        busy.pop()
        memo[f] = got
        if views is not None and f not in cyclic:
            views[f] = _lines(vis)
        return got

    for t in sorted(targets):
        of(t)
    return {f: e for f, e in memo.items() if e[0] or e[1]}


def _reach(views: dict[str, Visibility], includes: dict[str, dict[str, str]], roots: set[str],
           root_reach: dict[str, tuple[int, int]] | None = None) -> dict[str, tuple[int, int]]:
    """Per file, whether each build compiles it (a fixed point over the include graph from the roots; a root is
    compiled by both builds unless ``root_reach`` says otherwise)."""
    at = root_reach or {}
    reach: dict[str, list[int]] = {f: (list(at.get(f, (YES, YES))) if f in roots else [NO, NO]) for f in views}
    edges: dict[str, list[tuple[str, int, int]]] = defaultdict(list)
    for f, v in views.items():
        table = includes.get(f, {})
        for _line, kind, text, c, h in v.sites:
            if kind != "include":
                continue
            m = re.match(r'^(?:"([^"]+)"|<([^>]+)>)', text)
            target = table.get((m.group(1) or m.group(2)).strip()) if m else None
            if target is not None and target in reach:
                edges[f].append((target, c, h))
    work = sorted(f for f in views if f in roots)
    while work:
        f = work.pop()
        r = reach[f]
        for target, c, h in edges.get(f, ()):
            t = reach[target]
            new = [max(t[0], min(r[0], c)), max(t[1], min(r[1], h))]
            if new != t:
                reach[target] = new
                work.append(target)
    return {f: (r[0], r[1]) for f, r in reach.items()}


def _never(views: dict[str, Visibility], reach: dict[str, tuple[int, int]], passed: set[str]
           ) -> tuple[frozenset[str], frozenset[str]]:
    """Per build, project names every ``#define`` of which that build never compiles."""
    seen: list[set[str]] = [set(), set()]
    defined: set[str] = set()
    for f, v in views.items():
        r = reach.get(f, (YES, YES))
        for _line, kind, name, c, h in v.sites:
            if kind != "define":
                continue
            defined.add(name)
            for i, s in enumerate((c, h)):
                if min(r[i], s) != NO:
                    seen[i].add(name)
    candidates = {n for n in defined if not _NOT_PROJECT.match(n) and n not in passed}
    return frozenset(candidates - seen[0]), frozenset(candidates - seen[1])

