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
from typing import Callable, Iterable

from hipgauge.source.walk import SourceEntry

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
        for m in _DEFINE.finditer(data):
            start = m.start()
            line_start = data.rfind(b"\n", 0, start) + 1
            if line_start == start or not data[line_start:start].strip(b" \t"):
                names.add(m.group(1).decode("ascii"))
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
    for e in entries:
        if e.kind not in SOURCE_KINDS or e.size > max_bytes:
            continue
        try:
            with open(e.path, "rb") as fh:
                data = fh.read(max_bytes + 1)
        except OSError:
            continue
        if b"\x00" in data[:8192]:
            continue
        names |= defined_in(data)
    return frozenset(n for n in names if keep is None or keep(n))
