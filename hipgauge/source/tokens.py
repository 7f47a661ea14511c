"""The identifiers of one file, tokenized once and shared by the inventory, the rules and the share.

Every stage asks the same two questions of a file's bytes: "which identifiers occur?" (a set, one
C-level ``findall``) and "where does this identifier occur as a whole word?" (``bytes.find`` loops,
C-speed substring search, cached per name). Answering them once per file replaces one full-text regex
pass per stage. Positions are byte offsets, the same offsets tree-sitter uses; a whole-word occurrence
is one with no ``[A-Za-z0-9_]`` byte on either side (regex ``\\b``, bytes mode).
"""

from __future__ import annotations

import re
from typing import Any, Iterable

IDENT_RE = re.compile(rb"\b[A-Za-z_]\w*")
WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


#: every byte that cannot be part of an identifier, mapped to a space (``bytes.translate``)
_SPLIT_TABLE = bytes(c if c in WORD_BYTES else 32 for c in range(256))
_DIGITS = frozenset(b"0123456789")


def identifiers(data: bytes) -> frozenset[bytes]:
    """The distinct identifiers of ``data``: the same set as ``IDENT_RE.findall`` (words that start with a digit,
    numbers and ``1ull``, are not identifiers), from ``translate`` + ``split`` (C-speed, ~40% faster on CCCL)."""
    words = set(data.translate(_SPLIT_TABLE).split())
    words.difference_update([w for w in words if w[0] in _DIGITS])
    return frozenset(words)


class FileTokens:
    """Distinct identifiers of ``data`` and, on demand, the byte offsets of each one."""

    __slots__ = ("data", "idents", "_at")

    def __init__(self, data: bytes):
        self.data = data
        self.idents: frozenset[bytes] = identifiers(data)
        self._at: dict[bytes, list[int]] = {}

    def positions(self, name: bytes) -> list[int]:
        """Offsets where ``name`` (an identifier) occurs as a whole word, in file order."""
        found = self._at.get(name)
        if found is not None:
            return found
        found = []
        if name in self.idents:
            data, find, word, n, size = self.data, self.data.find, WORD_BYTES, len(name), len(self.data)
            i = find(name)
            while i >= 0:
                j = i + n
                if (i == 0 or data[i - 1] not in word) and (j >= size or data[j] not in word):
                    found.append(i)
                i = find(name, j)
        self._at[name] = found
        return found

    def occurrences(self, names: Iterable[bytes]) -> list[tuple[int, bytes]]:
        """``(offset, name)`` of every whole-word occurrence of ``names``, in file order."""
        out: list[tuple[int, bytes]] = []
        for name in names:
            out.extend((p, name) for p in self.positions(name))
        out.sort()
        return out


def file_tokens(pf: Any) -> FileTokens:
    """The ``FileTokens`` of a parsed file (or any object with ``data``), computed once and kept on it."""
    ft = getattr(pf, "_tokens", None)
    if ft is None or ft.data is not pf.data:
        data = pf.data if getattr(pf, "data", None) is not None else pf.text.encode("utf-8")
        ft = FileTokens(data)
        try:
            pf._tokens = ft
        except AttributeError:  # a slotted or frozen stand-in: recompute next time
            pass
    return ft
