"""Byte-range edits applied to a source buffer without changing its line structure.

Every replacement keeps the number of newlines of the text it replaces (missing newlines are appended to the
replacement, extra ones refused), so line N of the output is always line N of the input.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Edit:
    """Replace bytes ``start:end`` with ``text``."""

    start: int
    end: int
    text: bytes


class EditList:
    def __init__(self) -> None:
        self._edits: list[Edit] = []
        self._taken: list[tuple[int, int]] = []

    def __len__(self) -> int:
        return len(self._edits)

    def overlaps(self, start: int, end: int) -> bool:
        for s, e in self._taken:
            if start < e and s < end:
                return True
            if start == end == s:  # two insertions at one point keep their order; not an overlap
                continue
        return False

    def replace(self, start: int, end: int, text: str | bytes, original: bytes) -> bool:
        """Replace ``original[start:end]`` by ``text``; False (and nothing recorded) when it overlaps an edit
        already made or would add lines."""
        new = text.encode("utf-8") if isinstance(text, str) else text
        old_nl = original.count(b"\n", start, end)
        new_nl = new.count(b"\n")
        if new_nl > old_nl:
            return False
        if new_nl < old_nl:
            new += b"\n" * (old_nl - new_nl)
        if self.overlaps(start, end):
            return False
        self._edits.append(Edit(start, end, new))
        self._taken.append((start, end))
        return True

    def apply(self, data: bytes) -> bytes:
        if not self._edits:
            return data
        out: list[bytes] = []
        pos = 0
        for e in sorted(self._edits, key=lambda x: (x.start, x.end)):
            out.append(data[pos:e.start])
            out.append(e.text)
            pos = e.end
        out.append(data[pos:])
        return b"".join(out)
