"""Lexical pre-check for the rewriter: which names in a file could matter, and where they are.

The rewriter only ever acts on (a) identifiers whose name the mapping knows, (b) qualified names whose first
segment could start a mapped name (``cub::``, ``cuda::``, ``CUDA_X::``), (c) the warp-sync calls of the safe
rewrites, (d) ``#include`` paths of known headers, (e) ``<<<`` launches and (f) ``asm`` statements. All of
these are visible in the bytes. One C-speed pass collects the file's distinct identifier tokens and intersects
them with the mapping's names (a set) and its prefix rules (one regex over the joined tokens), so:

* a file with none of (a)–(f) needs no syntax tree at all: it is copied as is, with no CUDA lines;
* otherwise only the occurrences of the candidate tokens are looked up in the tree
  (``descendant_for_byte_range``), instead of visiting every identifier node in Python.

The check over-approximates (a token inside a comment still counts as a candidate); the tree then decides,
exactly as a full visit would. Files the byte-level tokens cannot describe exactly (non-ASCII bytes, ``$`` or
universal-character names in identifiers) are left to the full visit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from hipgauge.knowledge.mapping import Mapping, load_mapping
from hipgauge.translate.safe_rewrites import load_safe_rewrites

IDENT = re.compile(rb"\b[A-Za-z_]\w*")
ASM_TOKENS = frozenset({b"asm", b"__asm__", b"__asm"})
_WORD = bytes(1 if (chr(b).isascii() and (chr(b).isalnum() or chr(b) == "_")) else 0 for b in range(256))
_UCN = re.compile(rb"\w\\[uU]|\\[uU][0-9A-Fa-f]{4}\w")
# every byte that cannot be part of an identifier becomes a space: ``split()`` then yields the word runs (the
# identifiers ``IDENT`` finds, plus number-like runs such as ``0x1f`` that no mapping name or rule can match)
_WORDS_ONLY = bytes(b if _WORD[b] else 32 for b in range(256))


@dataclass(frozen=True)
class MappingIndex:
    """Lookup aids derived once from the mapping."""

    exact: frozenset[bytes]  # every exact identifier name (no ``::``)
    prefix_re: re.Pattern[bytes] | None  # prefix rules (strictness applied), over newline-joined tokens
    qual_re: re.Pattern[bytes] | None  # tokens that could be the first segment of a mapped qualified name
    qual_heads: frozenset[bytes]  # first segments of ``::`` prefix rules and ``::`` exact names
    warp: frozenset[bytes]  # warp-sync names of the safe rewrites (``__shfl_sync`` …, ``__syncwarp``)
    header_needles: tuple[bytes, ...]  # every known header name and header prefix


_INDEX: dict[int, tuple[Mapping, MappingIndex]] = {}


def mapping_index(mapping: Mapping | None = None) -> MappingIndex:
    mapping = mapping or load_mapping()
    hit = _INDEX.get(id(mapping))
    if hit is not None and hit[0] is mapping:
        return hit[1]
    exact = mapping.plain_names()
    heads = {n.split("::")[0].encode() for n in mapping.entries if "::" in n}
    simple, loose = [], []
    for rule in mapping.prefixes:
        if "::" in rule.prefix:
            heads.add(rule.prefix.split("::")[0].encode())
            continue
        p = re.escape(rule.prefix.encode())
        simple.append(p + (rb"[A-Z0-9]" if rule.strict else rb"[A-Za-z0-9_]"))
        loose.append(p)
    prefix_re = re.compile(rb"^(?:" + rb"|".join(simple) + rb")\w*$", re.M) if simple else None
    qual_re = re.compile(rb"^(?:" + rb"|".join(loose) + rb")\w*$", re.M) if loose else None
    safe = load_safe_rewrites()
    warp = frozenset(n.encode() for n in [*safe.warp_sync, safe.syncwarp_cuda])
    needles = tuple(sorted({h.encode() for h in mapping.headers} | {r.prefix.encode() for r in mapping.header_prefixes}))
    index = MappingIndex(exact, prefix_re, qual_re, frozenset(heads), warp, needles)
    _INDEX[id(mapping)] = (mapping, index)
    return index


@dataclass
class Candidates:
    """What the pre-check found in one file's bytes."""

    ids: frozenset[bytes] = frozenset()  # tokens the mapping knows (exactly or by a prefix rule)
    quals: frozenset[bytes] = frozenset()  # tokens that may start a mapped qualified name
    warp: frozenset[bytes] = frozenset()  # warp-sync names present
    asm: bool = False
    launch: bool = False
    headers: bool = False  # a known header name appears somewhere (checked only when nothing else needs the tree)
    exact_only: bool = True  # False: tokens cannot describe the identifiers exactly; visit the whole tree
    tokens: frozenset[bytes] = field(default_factory=frozenset)

    @property
    def needs_tree(self) -> bool:
        return (not self.exact_only or bool(self.ids or self.quals or self.warp) or self.asm or self.launch
                or self.headers)


def find_candidates(data: bytes, mapping: Mapping | None = None) -> Candidates:
    """The candidate tokens of one file (see the module docstring)."""
    idx = mapping_index(mapping)
    tokens = frozenset(data.translate(_WORDS_ONLY).split())
    ids: set[bytes] = set(tokens & idx.exact)
    quals: set[bytes] = set(tokens & idx.qual_heads)
    if idx.prefix_re is not None or idx.qual_re is not None:
        joined = b"\n".join(tokens)
        if idx.prefix_re is not None:
            ids.update(idx.prefix_re.findall(joined))
        if idx.qual_re is not None:
            quals.update(idx.qual_re.findall(joined))
    exact_only = data.isascii() and b"$" not in data and (b"\\u" not in data and b"\\U" not in data
                                                         or _UCN.search(data) is None)
    cands = Candidates(ids=frozenset(ids), quals=frozenset(quals), warp=tokens & idx.warp,
                       asm=bool(tokens & ASM_TOKENS), launch=b"<<<" in data, exact_only=exact_only, tokens=tokens)
    if not cands.needs_tree:  # only then does it matter whether a known header is named
        cands.headers = any(n in data for n in idx.header_needles)
    return cands


def occurrences(data: bytes, token: bytes) -> list[int]:
    """Start offsets of ``token`` as a whole word in ``data``."""
    found: list[int] = []
    n, size, word = len(token), len(data), _WORD
    i = data.find(token)
    while i >= 0:
        if (i == 0 or not word[data[i - 1]]) and (i + n >= size or not word[data[i + n]]):
            found.append(i)
        i = data.find(token, i + n)
    return found
