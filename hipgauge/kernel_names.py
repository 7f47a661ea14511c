"""Kernel identity: one place that knows how kernel names are spelled and compared.

Every stage that names a kernel goes through here: the profile readers (``name`` and ``key`` of each
row), the toolchain (symbols in compiler output), parity and the store (keys that stay stable
across vendors and runs), the decision (source kernels found in a profile) and the reports (short
names that fit a table or a chart).

- ``demangle(name)``: an Itanium-mangled ``_Z…`` symbol (with or without AMD's ``.kd`` code-object
  suffix) in its readable form; readable names unchanged.
- ``normalize_key(name)``: the stable short key for matching across vendors and builds. It drops the
  return type, the argument list, template arguments, ``[clone .kd]`` / ``.kd`` suffixes,
  ``(anonymous namespace)`` and lambda noise; for generic wrapper kernels whose identity *is* the
  template argument (``cutlass::Kernel<Op>``, ``cutlass::device_kernel<Op>``) it is the wrapped
  operator's key instead.
- ``key_or_name(name)``: ``normalize_key``, or the name itself when it has no key or cannot be parsed.
- ``base_name(name)``: the key without namespaces, lower-cased: where a source kernel
  (``warp_softmax_kernel``) meets its profiled name (``void warp_softmax_kernel<float>(float const*, …)``).
- ``unqualified_name(demangled)``: the kernel's own identifier from a demangled compiler symbol, case kept.
- ``vendor_neutral(demangled)``: HIP's vector types spelled as CUDA's (``HIP_vector_type<float, 4u>`` →
  ``float4``), so one kernel compiled by nvcc and by hipcc has one name.
- ``display_name(name)``: what a terminal table shows (the key when it is informative, else the name).
- ``short_name(name, limit)``: a chart label (no arguments, templates as ``<…>``, cut in the middle).
- ``VENDOR_WORDS`` / ``strip_vendor_words(op)``: the library and runtime words that differ between
  vendors' spellings of one operator (``aten::cudnn_convolution`` ↔ ``aten::miopen_convolution``).
"""

from __future__ import annotations

import re
from functools import lru_cache

import cxxfilt

__all__ = ["KD_SUFFIX", "VENDOR_WORDS", "base_name", "demangle", "display_name", "key_or_name", "normalize_key",
           "short_name", "strip_vendor_words", "unqualified_name", "vendor_neutral"]

#: the code-object suffix AMD symbols carry (``_Z…Pfi.kd``), as a regular expression
KD_SUFFIX = r"\.kd$"
_KD_RE = re.compile(KD_SUFFIX)


# --------------------------------------------------------------------------------------------
# Demangling
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=65536)
def demangle(name: str) -> str:
    """Readable name: demangles ``_Z…`` symbols (dropping an AMD ``.kd`` code-object suffix); other names unchanged."""
    if not name:
        return name
    stripped = name.strip()
    if stripped.startswith("_Z") or stripped.startswith("__Z"):
        base = _KD_RE.sub("", stripped)
        try:
            return cxxfilt.demangle(base)
        except Exception:  # noqa: BLE001 - cxxfilt raises on names it cannot parse; keep them as they are
            return stripped
    return stripped


# --------------------------------------------------------------------------------------------
# The matching key
# --------------------------------------------------------------------------------------------

_CLONE_RE = re.compile(r"\s*\[clone [^\]]*\]")
_ANON_RE = re.compile(r"\(anonymous namespace\)::|::\(anonymous namespace\)|\(anonymous namespace\)")
_SPACE_RE = re.compile(r"\s+")

#: Kernels that are thin wrappers around a template argument naming the real work.
_WRAPPERS = frozenset({"cutlass::Kernel", "cutlass::Kernel2", "cutlass::device_kernel", "cute::device_kernel"})


def _split_template(text: str) -> tuple[str, str | None]:
    """``a::b<x, y>`` → (``a::b``, ``x, y``); the first top-level template argument list only."""
    start = text.find("<")
    if start < 0:
        return text, None
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
            if depth == 0:
                return text[:start], text[start + 1 : i]
    return text[:start], text[start + 1 :]


def _strip_nested(text: str) -> str:
    """Remove every ``<…>`` and ``{…}`` group (template arguments, lambda markers) from ``text``."""
    out: list[str] = []
    depth = 0
    for c in text:
        if c in "<{":
            depth += 1
        elif c in ">}" and depth > 0:
            depth -= 1
        elif depth == 0:
            out.append(c)
    return "".join(out)


def _cut_arguments(text: str) -> str:
    """Drop the argument list: everything from the first ``(`` outside template/brace nesting."""
    depth = 0
    for i, c in enumerate(text):
        if c in "<{[":
            depth += 1
        elif c in ">}]" and depth > 0:
            depth -= 1
        elif c == "(" and depth == 0:
            if text.startswith("(anonymous namespace)", i):
                continue
            # "operator()" is part of a name, not an argument list
            if text.endswith("operator", 0, i) and text.startswith("()", i):
                continue
            return text[:i]
    return text


def _first_template_arg(args: str) -> str:
    depth = 0
    for i, c in enumerate(args):
        if c in "<({[":
            depth += 1
        elif c in ">)}]":
            depth -= 1
        elif c == "," and depth == 0:
            return args[:i]
    return args


@lru_cache(maxsize=65536)
def normalize_key(name: str) -> str:
    """Stable short key for a kernel name (see the module docstring)."""
    if not name:
        return ""
    text = demangle(name)
    text = _CLONE_RE.sub("", text).strip()
    text = _KD_RE.sub("", text)
    text = _ANON_RE.sub("", text)
    if text.startswith("["):  # "[CUDA memcpy HtoD]" and similar runtime pseudo-names
        return _SPACE_RE.sub(" ", text)
    text = _cut_arguments(text).strip()
    _, targs = _split_template(text)
    base = _strip_nested(text)
    # return type and qualifiers: the name is the last space-separated token outside nesting
    base = base.strip().split(" ")[-1] if base.strip() else base
    base = base.strip(":& *")
    if base in _WRAPPERS and targs:
        inner = _first_template_arg(targs).strip()
        inner_key = normalize_key(inner) if inner else ""
        if inner_key:
            return inner_key
    base = _SPACE_RE.sub("", base)
    return base or _SPACE_RE.sub(" ", text)


def key_or_name(name: str) -> str:
    """``normalize_key(name)``, or ``name`` itself when it has no key or cannot be parsed."""
    try:
        return normalize_key(name) or name
    except Exception:  # noqa: BLE001 - an odd name keeps its own identity rather than failing the caller
        return name


# --------------------------------------------------------------------------------------------
# Source ↔ profile, compiler ↔ compiler
# --------------------------------------------------------------------------------------------


def base_name(name: str) -> str:
    """``void ns::k<float>(float*) [clone .kd]`` → ``k`` (lower-cased), for matching source to profile."""
    if not name:
        return ""
    try:
        key = normalize_key(name)
    except Exception:  # noqa: BLE001 - matching still works on the plain text
        key = name
    key = key.strip()
    if key.startswith("void "):
        key = key[5:]
    for ch in "(<[":
        pos = key.find(ch)
        if pos > 0:
            key = key[:pos]
    key = key.rsplit("::", 1)[-1].strip()
    return key.lower()


def unqualified_name(demangled: str) -> str:
    """``void ns::k<float>(float*)`` → ``k``: the identifier of a demangled compiler symbol, case kept."""
    name = demangled.split("(")[0]
    name = re.sub(r"<.*>$", "", name).strip()
    name = name.split(" ")[-1]
    return name.split("::")[-1]


_HIP_VECTOR = re.compile(r"HIP_vector_type<((?:unsigned )?(?:long long|char|short|int|long|float|double)), (\d)u>")
_VECTOR_STEM = {"unsigned char": "uchar", "unsigned short": "ushort", "unsigned int": "uint", "unsigned long": "ulong",
                "unsigned long long": "ulonglong", "long long": "longlong"}


def vendor_neutral(name: str) -> str:
    """A demangled kernel name with HIP's vector types spelled as CUDA's (``HIP_vector_type<float, 4u>`` → ``float4``),
    so one kernel compiled by nvcc and by hipcc lands on one row."""
    return _HIP_VECTOR.sub(lambda m: _VECTOR_STEM.get(m.group(1), m.group(1)) + m.group(2), name)


#: library and runtime words that differ between vendors' names for the same operator
VENDOR_WORDS = re.compile(r"(cudnn|miopen|cublaslt|hipblaslt|cublas|hipblas|rocblas|cuda|rocm|hip)_?")


def strip_vendor_words(name: str) -> str:
    """``aten::cudnn_convolution`` and ``aten::miopen_convolution`` → ``aten::convolution``."""
    return VENDOR_WORDS.sub("", name)


# --------------------------------------------------------------------------------------------
# Display
# --------------------------------------------------------------------------------------------


def display_name(name: str) -> str:
    """A kernel name as the tables show it: the normalized key (no return type, arguments or template
    noise) when it is informative, else the name."""
    try:
        key = normalize_key(name)
    except Exception:  # noqa: BLE001 - display only
        key = ""
    return key if key and len(key) >= 4 else name


def short_name(name: str, limit: int = 44) -> str:
    """A readable short form: drop the argument list and template arguments, then cut the middle."""
    text = name.strip()
    if text.startswith("void "):
        text = text[5:]
    depth = 0
    out: list[str] = []
    for ch in text:
        if ch == "(" and depth == 0 and out:
            break
        if ch == "<":
            depth += 1
            if depth == 1:
                out.append("<…>")
            continue
        if ch == ">" and depth:
            depth -= 1
            continue
        if depth == 0:
            out.append(ch)
    text = "".join(out).strip() or name
    if len(text) > limit:
        keep = limit - 1
        text = text[: keep - keep // 3] + "…" + text[-(keep // 3):]
    return text
