"""Names the scanned tree defines itself: a cheap lexical pre-pass over every source file.

``CUDA_CHECK``, ``CUDNN_CHECK`` or ``cublasCheck`` look like CUDA API names to the mapping's prefix rules
(``CUDA_*``, ``CUDNN_*``, ``cublas*``) but are the project's own macros and helpers. Files are scanned
independently (in a pool, or on a Dask cluster), so a file cannot see the header that defines a name it
uses; this pass collects, before the scan, every ``#define NAME`` and every function definition
(``type name(params) {``) in the tree whose name starts like a CUDA library name, and the scan leaves
those names out of prefix-rule matches and library rules. Exact names of the HIPIFY tables are never
left out (a tree that wraps ``cudaMalloc`` still calls it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from hipgauge.source.walk import SourceEntry, read_text_bytes
from hipgauge.source.macros import call_args_at

SOURCE_KINDS = frozenset({"cuda", "cpp", "header"})
#: first two characters of every name a prefix rule or a library rule can match (tests check this)
LIBRARY_STARTS = ("cu", "CU", "nv", "NV", "nc", "NC")
_START = "|".join(LIBRARY_STARTS)
_DEFINE = re.compile(rb"#[ \t]*define[ \t]+((?:" + _START.encode() + rb")\w*)")
#: ``name(params) {`` (one level of nested parentheses in the parameters), optionally const/noexcept/override
_FUNCTION = re.compile(rb"(?:" + _START.encode() + rb")\w*\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)"
                       rb"\s*(?:(?:const|noexcept|override|final)\b\s*)*\{")
_WORD = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_NOT_A_TYPE = frozenset({b"return", b"else", b"do", b"case", b"goto", b"throw", b"new", b"delete", b"sizeof",
                         b"co_return", b"co_yield", b"co_await", b"if", b"while", b"for", b"switch",
                         b"operator"})  # ``operator cudaStream_t() const {`` converts, it defines no cudaStream_t


def defined_in(data: bytes) -> set[str]:
    """Names that ``data`` defines (``#define NAME`` at a line start, ``type NAME(params) {``), among those that
    start like a CUDA library name."""
    names: set[str] = set()
    if b"define" in data:
        for dm in _DEFINE.finditer(data):
            start = dm.start()
            line_start = data.rfind(b"\n", 0, start) + 1
            if line_start == start or not data[line_start:start].strip(b" \t"):
                names.add(dm.group(1).decode("ascii"))
    search = _FUNCTION.search
    m = search(data)
    while m is not None:
        start = m.start()
        if start > 0 and data[start - 1] in _WORD:  # not the start of a word: look again one byte on
            m = search(data, start + 1)
            continue
        if _after_type(data, start):
            names.add(data[start:data.index(b"(", start)].rstrip().decode("ascii"))
        m = search(data, start + 1)
    return names


_CUDA_NAMESPACE = re.compile(rb"\bnamespace\s+cuda\s*\{")
_DECLARED = re.compile(rb"\b([A-Za-z_]\w*)\s*\(")
#: a type or constant the namespace declares: ``struct plus {``, ``using device_type = …``, ``constexpr dim_t max_blocks =``
_TYPE_DECLARED = re.compile(rb"\b(?:struct|class|union|enum(?:\s+class)?)\s+([A-Za-z_]\w*)|\busing\s+([A-Za-z_]\w*)\s*=|"
                            rb"\bconst(?:expr)?\s+[\w:<>]+\s+([A-Za-z_]\w*)\s*=")


def project_cuda_namespace(data: bytes, limit: int = 200_000) -> set[str]:
    """``cuda::NAME`` for the functions and types a project declares in its own ``namespace cuda { … }``
    (TransformerEngine's ``cuda::sm_count`` in util/cuda_runtime.h, CTranslate2's ``cuda::plus`` and
    ``cuda::device_type`` in src/cuda/helpers.h): the project's, not libcu++'s."""
    out: set[str] = set()
    for m in _CUDA_NAMESPACE.finditer(data):
        depth, i, end = 1, m.end(), min(len(data), m.end() + limit)
        while i < end and depth:
            c = data[i]
            depth += 1 if c == 123 else -1 if c == 125 else 0
            i += 1
        body = data[m.end():i]
        for t in _TYPE_DECLARED.finditer(body):
            out.add("cuda::" + (t.group(1) or t.group(2) or t.group(3)).decode("ascii"))
        for d in _DECLARED.finditer(body):
            if _after_type(body, d.start()) and d.group(1) not in (b"if", b"for", b"while", b"switch", b"return",
                                                                     b"sizeof", b"decltype", b"static_assert"):
                out.add("cuda::" + d.group(1).decode("ascii"))
    return out


def _after_type(data: bytes, start: int) -> bool:
    """True when what precedes ``start`` can end a return type (``void``, ``T*``, ``X&``, ``vector<T>``, ``ns::``)."""
    i = start - 1
    while i >= 0 and data[i] in b" \t\r\n":
        i -= 1
    if i < 0:
        return False
    c = data[i]
    if c in b"*&>:":
        return True
    if c not in _WORD:
        return False
    j = i
    while j >= 0 and data[j] in _WORD:
        j -= 1
    return data[j + 1:i + 1] not in _NOT_A_TYPE


def tree_defined_names(entries: Iterable[SourceEntry], keep: Callable[[str], bool] | None = None,
                       max_bytes: int = 8 * 1024 * 1024) -> frozenset[str]:
    """Names the source files among ``entries`` define (see ``defined_in``), those for which ``keep`` is true.
    Unreadable files are passed over (the scan reports them)."""
    names: set[str] = set()
    for data in _source_bytes(entries, max_bytes):
        names |= defined_in(data)
        if b"namespace" in data and b"cuda" in data:
            names |= project_cuda_namespace(data)
    return frozenset(n for n in names if keep is None or keep(n))


def _source_bytes(entries: Iterable[SourceEntry], max_bytes: int) -> Iterator[bytes]:
    """The bytes of each readable, non-binary source file among ``entries`` (unreadable ones are passed over:
    the scan reports them)."""
    for e in entries:
        if e.kind not in SOURCE_KINDS or e.size > max_bytes:
            continue
        data = read_text_bytes(e, max_bytes)
        if data is not None:
            yield data


# ---------------------------------------------------------------------------------------------
# Qualifier macros: ``#define KERNEL __global__``, ``#define CUB_DETAIL_KERNEL_ATTRIBUTES CCCL_DETAIL_KERNEL_ATTRIBUTES``
# ---------------------------------------------------------------------------------------------

#: what a qualifier macro may stand for (``__launch_bounds__`` alone makes no kernel, but its bounds are kept)
QUALIFIER_WORDS = ("__global__", "__device__", "__host__", "__forceinline__", "__noinline__", "__launch_bounds__")
_QUALIFIER_BYTES = frozenset(q.encode() for q in QUALIFIER_WORDS)
#: a ``#define`` with its continuation lines, from its ``#``: name, parameter list, body
_ANY_DEFINE = re.compile(rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)(\([^)\n]*\))?((?:[^\n]*\\\r?\n)*[^\n]*)")
_IDENT = re.compile(rb"[A-Za-z_]\w*")
_COMMENT = re.compile(rb"//[^\n]*|/\*.*?(?:\*/|\Z)", re.S)
_BOUNDS = re.compile(rb"__launch_bounds__\s*\(")
MAX_INDIRECTION = 8  # chains of qualifier macros followed this deep (CUB_… → CCCL_… → __global__ is two)


@dataclass(frozen=True)
class QualifierMacro:
    """A macro that stands for CUDA function qualifiers, directly or through other qualifier macros."""

    name: str
    qualifiers: tuple[str, ...]  # in ``QUALIFIER_WORDS`` order; the union over every definition in the tree
    params: tuple[str, ...] | None = None  # a function-like macro's parameters
    launch_bounds: tuple[str, ...] = ()  # ``__launch_bounds__`` arguments of its body, as written (parameters unsubstituted)


@dataclass(frozen=True)
class MacroBody:
    """One ``#define``: its name, parameters, the identifiers of its body and its ``__launch_bounds__`` arguments."""

    name: str
    params: tuple[str, ...] | None
    idents: frozenset[bytes]
    launch_bounds: tuple[str, ...] = ()


def macro_bodies(data: bytes) -> list[MacroBody]:
    """Every ``#define`` (at a line start) of ``data`` whose body names at least one identifier."""
    out: list[MacroBody] = []
    if b"define" not in data:
        return out
    search = _ANY_DEFINE.search
    m = search(data)
    while m is not None:
        start = m.start()
        line_start = data.rfind(b"\n", 0, start) + 1
        if line_start != start and data[line_start:start].strip(b" \t"):
            m = search(data, start + 1)
            continue
        body = m.group(3)
        if b"/" in body:
            body = _COMMENT.sub(b" ", body)
        idents = frozenset(_IDENT.findall(body))
        if idents:
            params = None
            if m.group(2) is not None:
                params = tuple(p.strip().decode("latin-1") for p in m.group(2)[1:-1].split(b",") if p.strip())
            bounds: tuple[str, ...] = ()
            if b"__launch_bounds__" in idents:
                b = _BOUNDS.search(body)
                if b is not None:
                    args = call_args_at(body, b.end() - 1)
                    bounds = tuple(" ".join(a.split()) for a in args or ())
            out.append(MacroBody(m.group(1).decode("ascii"), params, idents, bounds))
        m = search(data, m.end())
    return out


def qualifier_macros(bodies: Iterable[MacroBody]) -> dict[str, QualifierMacro]:
    """The qualifier macros among ``bodies``: those whose body holds a CUDA function qualifier, or names a
    qualifier macro (followed ``MAX_INDIRECTION`` levels deep). Several definitions of one name (``#if``
    branches) give the union of their qualifiers; a definition with an empty body adds nothing."""
    candidates: dict[str, list[MacroBody]] = {}
    quals: dict[str, set[str]] = {}
    for b in bodies:
        candidates.setdefault(b.name, []).append(b)
        direct = b.idents & _QUALIFIER_BYTES
        if direct:
            quals.setdefault(b.name, set()).update(q.decode() for q in direct)
    for _ in range(MAX_INDIRECTION):
        known = {n.encode(): q for n, q in quals.items()}
        grew = False
        for name, defs in candidates.items():
            for b in defs:
                for ident in b.idents & known.keys():
                    if ident == name.encode():
                        continue
                    mine = quals.setdefault(name, set())
                    if not known[ident] <= mine:
                        mine |= known[ident]
                        grew = True
        if not grew:
            break
    out: dict[str, QualifierMacro] = {}
    for name, q in quals.items():
        defs = candidates[name]
        params = next((b.params for b in defs if b.params is not None), None)
        bounds = next((b.launch_bounds for b in defs if b.launch_bounds), ())
        if not bounds:  # through another macro (``#define LB256 MY_BOUNDS(256)`` is not followed; a plain alias is)
            for b in defs:
                for ident in b.idents:
                    other = candidates.get(ident.decode("ascii"))
                    if other and ident != name.encode():
                        bounds = next((o.launch_bounds for o in other if o.launch_bounds and o.params is None), ())
                        if bounds:
                            break
                if bounds:
                    break
        out[name] = QualifierMacro(name, tuple(w for w in QUALIFIER_WORDS if w in q), params, bounds)
    return out


def tree_names(entries: Iterable[SourceEntry], keep: Callable[[str], bool] | None = None,
               max_bytes: int = 8 * 1024 * 1024) -> tuple[frozenset[str], tuple[QualifierMacro, ...]]:
    """One pass over the source files among ``entries``: the names they define (``tree_defined_names``) and
    their qualifier macros (``qualifier_macros``, sorted by name)."""
    names: set[str] = set()
    bodies: list[MacroBody] = []
    for data in _source_bytes(entries, max_bytes):
        names |= defined_in(data)
        if b"namespace" in data and b"cuda" in data:
            names |= project_cuda_namespace(data)
        bodies.extend(b for b in macro_bodies(data) if _may_qualify(b))
    macros = qualifier_macros(bodies)
    return (frozenset(n for n in names if keep is None or keep(n)),
            tuple(macros[n] for n in sorted(macros)))


def _may_qualify(b: MacroBody) -> bool:
    """Keep only bodies short enough to be a declaration's qualifiers (a whole function in a macro is not)."""
    return len(b.idents) <= 12
