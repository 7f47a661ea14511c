"""Rules inside ``#define`` bodies: a lexical look where the syntax tree has only raw text.

tree-sitter keeps a macro body as one ``preproc_arg`` leaf, so the engine's syntax detectors never see
``#define WARP_REDUCE(v) v += __shfl_xor_sync(0xffffffff, v, 16)``. When an anchor lands in such a leaf,
the engine hands it here: the enclosing macro is found with the inventory's lexical macro pass
(``hipgauge.source.macros``), its body is blanked of comments and string literals, and a rule that defines
``check_macro(body, at, end, macro, ctx)`` looks at the text around the anchor. Offsets in ``body`` are
relative to the macro's ``start``; ``check_macro`` returns ``(offset_in_body, detail)`` pairs.
Findings from macro bodies say "in macro NAME" and carry medium confidence (the macro may never be
expanded in device code, or be expanded with arguments that change its meaning).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from hipgauge.source import macros as mac


class MacroBodies:
    """The macros of one file, found once and blanked on demand."""

    def __init__(self, data: bytes, inventory: Any = None):
        self.data = data
        found = getattr(inventory, "macros", None)
        self.macros: list[mac.Macro] = list(found) if found is not None else mac.find_macros(data)
        self.starts = [m.start for m in self.macros]
        self._blank: dict[int, bytes] = {}

    def at(self, offset: int) -> mac.Macro | None:
        """The macro whose body holds ``offset`` (not its name or parameter list)."""
        i = bisect_right(self.starts, offset) - 1
        if i < 0:
            return None
        m = self.macros[i]
        return m if m.body_start <= offset < m.end else None

    def blanked(self, m: mac.Macro) -> bytes:
        """``data[m.start:m.end]`` with comments and string/char literals blanked (same length)."""
        hit = self._blank.get(m.start)
        if hit is None:
            hit = self._blank[m.start] = mac.blank_comments_and_strings(self.data[m.start:m.end])
        return hit

    def code_anchor(self, start: int, end: int) -> tuple[mac.Macro, bytes] | None:
        """``(macro, blanked text)`` when ``data[start:end]`` is code in a macro body, else None."""
        m = self.at(start)
        if m is None:
            return None
        body = self.blanked(m)
        if body[start - m.start:end - m.start] != self.data[start:end]:
            return None  # in a comment or a string literal of the body
        return m, body


def left_operand(body: bytes, at: int, lo: int = 0, limit: int = 64) -> str:
    """The text of ``body[lo:at]`` back to the nearest ``; { } = ,`` (at most ``limit`` bytes), unbalanced
    leading ``(`` dropped: the left side of an operator, read lexically."""
    lo = max(lo, at - limit)
    chunk = body[lo:at]
    cut = max(chunk.rfind(c) for c in (b";", b"{", b"}", b"=", b","))
    s = " ".join(chunk[cut + 1:].decode("latin-1").replace("\\", " ").split())
    while s.startswith("(") and s.count("(") > s.count(")"):
        s = s[1:].lstrip()
    return s
