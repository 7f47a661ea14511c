"""Building blocks the rule modules share (anchors and the simple "this name is used here" detector)."""

from __future__ import annotations

from hipgauge.rules.syntax import parent as parent_of

import re
from typing import Any

from hipgauge.model import Confidence
from hipgauge.rules.hit import HIGH, Hit
from hipgauge.rules.syntax import ancestor, text

USAGE_TYPES = frozenset({"identifier", "type_identifier", "namespace_identifier", "field_identifier",
                         "preproc_include", "qualified_identifier", "template_type", "statement_identifier"})


#: ``REQUIRES`` of a rule that only fires in device code: ``in_device_code`` needs one of these tokens in the file,
#: or a kernel or device function the inventory found through a qualifier macro (the engine then counts them present)
DEVICE_CODE = (b"__global__", b"__device__")


class Words(bytes):
    """An anchor on whole identifiers. ``inner`` is the identifier regex; the engine matches it against
    the distinct identifiers of a file (a set lookup), not by scanning the text with it."""

    inner: bytes


def words(*patterns: str) -> Words:
    """An anchor matching whole identifiers (each pattern a regex for the full identifier)."""
    inner = b"(?:" + "|".join(patterns).encode() + b")"
    w = Words(rb"\b" + inner + rb"\b")
    w.inner = inner
    return w


def include(*prefixes: str) -> bytes:
    """An anchor matching ``#include <prefix...>`` / ``#include "prefix..."`` (the whole header name)."""
    return rb'#[ \t]*include[ \t]*[<"](?:' + "|".join(prefixes).encode() + rb')[\w./+-]*'


def any_of(*anchors: bytes | tuple) -> tuple:
    """Several anchors (word anchors and text anchors) for one rule."""
    out: list = []
    for a in anchors:
        out.extend(a if isinstance(a, tuple) else (a,))
    return tuple(out)


def usage(node: Any, ctx: Any, confidence: Confidence | None = None, detail: str = "") -> list[Hit]:
    """A hit on an identifier / include token that is real code (not the name a macro defines)."""
    if node.type not in USAGE_TYPES and node.is_named:
        return []
    parent = parent_of(node)
    if parent is not None and parent.type == "preproc_def" and parent.child_by_field_name("name") == node:
        return []
    return [Hit(node, confidence, detail)]


def named_usage(node: Any, ctx: Any, confidence: Confidence | None = None) -> list[Hit]:
    """``usage`` with the token itself, in backticks, as the detail."""
    return usage(node, ctx, confidence, f"`{text(node)}`")


def asm_text(node: Any) -> str:
    """The template string(s) of a ``gnu_asm_expression`` (PTX text), '' when absent."""
    asm = ancestor(node, "gnu_asm_expression", limit=3)
    if asm is None:
        return ""
    parts = [text(c) for c in asm.children if c.type in ("string_literal", "concatenated_string")]
    return " ".join(parts)


ASM = words("asm", "__asm__", "__asm")


def asm_hit(node: Any, pattern: re.Pattern[str], detail_prefix: str = "") -> list[Hit]:
    asm = ancestor(node, "gnu_asm_expression", limit=3)
    if asm is None:
        return []
    m = pattern.search(asm_text(asm))
    if not m:
        return []
    return [Hit(asm, HIGH, f"{detail_prefix}`{m.group(0)}`" if detail_prefix else f"`{m.group(0)}`")]


def reference_kind(node: Any) -> str:
    """How a library name is used: "call" (the callee of a call expression, ``ns::f(…)`` and ``f<T>(…)``
    included), "include" (an ``#include`` anchor) or "reference" (a type, enum, constant, pointer to it…)."""
    if node.type == "preproc_include" or node.text[:1] == b"#":
        return "include"
    parent = parent_of(node)
    if parent is not None and parent.type in ("template_function", "qualified_identifier") \
            and parent.child_by_field_name("name") == node:
        node, parent = parent, parent_of(parent)
    if parent is not None and parent.type == "call_expression" and parent.child_by_field_name("function") == node:
        return "call"
    return "reference"


def library_usage(node: Any, ctx: Any, detail: str, confidence: Confidence | None = None) -> list[Hit]:
    """``usage`` for a folding library rule: the hit carries its ``reference_kind``."""
    return [Hit(h.node, h.confidence, h.detail, reference_kind(node)) for h in usage(node, ctx, confidence, detail)]


def asm_or_usage(node: Any, ctx: Any, pattern: re.Pattern[str]) -> list[Hit]:
    """For a rule anchored on ``ASM`` and on names: the PTX ``pattern`` in an ``asm`` statement, else a
    HIGH usage of the name."""
    if node.type in ("asm", "__asm__", "__asm"):
        return asm_hit(node, pattern)
    return usage(node, ctx)


_TILE = re.compile(r"\b(?:tiled_partition|thread_block_tile)\s*<\s*([^<>,]+?)\s*[,>]")
_RAW_SHUFFLE = re.compile(r"\b__(?:shfl|ballot|any|all|activemask|match|reduce_\w+)\w*\s*\(|__syncwarp")


def tiles_of_32(node: Any, ctx: Any) -> str | None:
    """The function around ``node`` works in cooperative-group tiles of 32 threads (``thread_block_tile<32>``,
    ``tiled_partition<WARP_SIZE>`` with WARP_SIZE 32) and does every warp-level exchange through them (no raw
    ``__shfl``, vote or ``__syncwarp``): its 32-lane arithmetic (``threadIdx.x >> 5``, ``blockDim.x >> 5``) is the
    tile's, and HIP runs a 32-thread tile as half of a 64-lane wavefront, so it stays correct there.
    Returns None when not; ``""`` when every tile size folds to 32; the size's name when it is a name this file
    does not define (``WARP_SIZE`` from a header: the tile's arithmetic if that is 32, for review)."""
    fn = ctx.function_of(node)
    if fn is None:
        return None
    body = re.sub(r"//[^\n]*|/\*.*?\*/", " ", text(fn), flags=re.S)
    sizes = [m.group(1) for m in _TILE.finditer(body)]
    if not sizes or _RAW_SHUFFLE.search(body):
        return None
    unknown = ""
    for size in sizes:
        value = ctx.fold(size)
        if value is None and re.fullmatch(r"[A-Za-z_]\w*", size):
            unknown = size
        elif value != 32:
            return None
    return unknown
