"""Kernel names: demangle, and reduce to a stable short key for matching across vendors.

``demangle`` turns an Itanium-mangled name (``_Z…``, with or without a ``.kd`` code-object suffix)
into its readable form and leaves readable names alone. ``normalize_key`` drops what differs
between two builds of the same kernel: the return type, the argument list, template arguments,
``[clone .kd]`` / ``.kd`` suffixes, ``(anonymous namespace)`` and lambda noise. For generic
wrapper kernels whose identity *is* the template argument (``cutlass::Kernel<Op>``,
``cutlass::device_kernel<Op>``) the key is the wrapped operator's name instead.
"""

from __future__ import annotations

import re
from functools import lru_cache

from hipgauge.symbols import demangle

__all__ = ["demangle", "normalize_key"]

_CLONE_RE = re.compile(r"\s*\[clone [^\]]*\]")
_KD_RE = re.compile(r"\.kd$")
_ANON_RE = re.compile(r"\(anonymous namespace\)::|::\(anonymous namespace\)|\(anonymous namespace\)")
_SPACE_RE = re.compile(r"\s+")

#: Kernels that are thin wrappers around a template argument naming the real work.
_WRAPPERS = frozenset({"cutlass::Kernel", "cutlass::Kernel2", "cutlass::device_kernel", "cute::device_kernel"})

_OPEN = {"<": ">", "(": ")", "[": "]", "{": "}"}
_CLOSE = {v: k for k, v in _OPEN.items()}


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
