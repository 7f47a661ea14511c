"""The CUDA → HIP name mapping (data: ``hipgauge/data/hipify_mapping.tsv`` + ``mapping_extra.tsv``).

``hipify_mapping.tsv`` is generated from the public HIPIFY tables by ``scripts/gen_mapping.py``;
``mapping_extra.tsv`` is hand-written (headers, NCCL, CUB, Thrust, CUTLASS, TensorRT, NVTX) and may hold
prefix rules (``cub::*``, ``cublasLt*``) that classify names the tables do not list.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import repeat
from typing import Any, NamedTuple

from hipgauge.datafiles import cached_data, read_data_text

LIBRARIES = (
    "runtime", "driver", "device", "cublas", "cublaslt", "cudnn", "cufft", "cusparse", "curand", "cusolver",
    "nccl", "cub", "thrust", "cutlass", "nvtx", "nvrtc", "tensorrt", "complex", "other",
)
STATUSES = ("mapped", "deprecated", "unsupported", "unknown")
#: mapping families that are the CUDA platform itself (runtime, driver, device code, complex numbers), not a
#: library with a ROCm counterpart of its own
NON_LIBRARY = {"runtime", "driver", "device", "complex"}


class MappingEntry(NamedTuple):
    """One CUDA name and its HIP counterpart (a named tuple: ~9,000 are made at every start, and a tuple is
    several times cheaper to build than a frozen dataclass)."""

    cuda_name: str
    hip_name: str | None
    library: str
    kind: str  # function, type, enum, macro, header
    status: str  # mapped, deprecated, unsupported, unknown

    @property
    def has_counterpart(self) -> bool:
        return self.status in ("mapped", "deprecated")


@dataclass(frozen=True)
class _Prefix:
    """A prefix rule of ``mapping_extra.tsv`` (``cub::*``): classifies names the tables do not list."""

    prefix: str
    hip: str | None
    library: str
    kind: str
    status: str
    strict: bool  # the rest must start with an upper-case letter or a digit

    def apply(self, name: str) -> MappingEntry | None:
        if not name.startswith(self.prefix) or len(name) == len(self.prefix):
            return None
        rest = name[len(self.prefix):]
        if self.strict and not (rest[0].isupper() or rest[0].isdigit()):
            return None
        hip = self.hip.replace("*", rest) if self.hip else None
        kind = self.kind
        if kind == "function" and name.endswith("_t"):
            kind = "type"  # ncclComm_t, cudnnFooDescriptor_t
        return MappingEntry(name, hip, self.library, kind, self.status)


@dataclass
class Mapping:
    """Every CUDA name hipgauge knows, with its HIP counterpart."""

    entries: dict[str, MappingEntry] = field(default_factory=dict)
    headers: dict[str, MappingEntry] = field(default_factory=dict)  # cuda header → entry (hip_name = header)
    prefixes: list[_Prefix] = field(default_factory=list)  # identifiers, longest first
    header_prefixes: list[_Prefix] = field(default_factory=list)

    _prefix_cache: dict[str, MappingEntry | None] = field(default_factory=dict, repr=False)
    _plain_names: tuple[int, frozenset[bytes]] | None = field(default=None, repr=False)

    def lookup(self, name: str) -> MappingEntry | None:
        """The entry for an identifier (``cudaMalloc``, ``cub::BlockReduce``), exact first, then prefix rules."""
        entry = self.entries.get(name)
        if entry is not None:
            return entry
        if name in self._prefix_cache:
            return self._prefix_cache[name]
        if name.startswith("::"):
            found = self.lookup(name[2:])
        else:
            found = None
            for rule in self.prefixes:
                found = rule.apply(name)
                if found is not None:
                    break
        if len(self._prefix_cache) < 200_000:
            self._prefix_cache[name] = found
        return found

    def lookup_header(self, header: str) -> MappingEntry | None:
        """The entry for an ``#include`` path as written (``cublas_v2.h``, ``cub/block/block_reduce.cuh``)."""
        header = header.strip().strip('<>"').strip()
        entry = self.headers.get(header)
        if entry is not None:
            return entry
        for rule in self.header_prefixes:
            if header.startswith(rule.prefix):
                return MappingEntry(header, rule.hip.replace("*", header[len(rule.prefix):]) if rule.hip else None,
                                    rule.library, "header", rule.status)
        return None

    def library_of(self, name: str) -> str | None:
        entry = self.lookup(name)
        return entry.library if entry else None

    def plain_names(self) -> frozenset[bytes]:
        """Every exact name without ``::`` (``cudaMalloc``, not ``cub::BlockReduce``) as bytes, the form the
        scanners look tokens up in; made once (one join, encode and split instead of 9,000 ``encode`` calls)."""
        cached = self._plain_names
        if cached is None or cached[0] != len(self.entries):
            names = [n for n in self.entries if "::" not in n]
            found = frozenset("\n".join(names).encode().split(b"\n")) if names else frozenset()
            cached = self._plain_names = (len(self.entries), found)
        return cached[1]

    def first_chars(self) -> frozenset[str]:
        """Characters a mapped identifier can start with (a cheap pre-filter for scanners)."""
        chars = {n[0] for n in self.entries}
        chars.update(p.prefix[0] for p in self.prefixes)
        return frozenset(chars)

    def __len__(self) -> int:
        return len(self.entries) + len(self.headers)


def _rows(filename: str) -> list[list[str]]:
    text = read_data_text(filename)
    lines = [line for line in text.splitlines() if line and line[0] != "#"][1:]  # [0] is the column-name line
    rows = [line.split("\t") for line in lines]
    for cols in rows:
        if len(cols) < 5:
            cols += [""] * (5 - len(cols))
    return rows


def _table(filename: str) -> dict[str, MappingEntry]:
    """``name -> entry`` of a generated table (comment lines, the column-name line, then five columns on every
    line), built with C-level splits and ``tuple.__new__``: about 9,000 entries in a few milliseconds, where a
    Python loop over the lines takes three times as long at every start. Any other shape (a short line, a comment
    among the rows, CRLF) goes through ``_rows``."""
    text = read_data_text(filename)
    start = 0
    while text.startswith("#", start):
        start = text.find("\n", start) + 1 or len(text)
    body = text[text.find("\n", start) + 1 if "\n" in text[start:] else len(text):].rstrip("\n")
    cells = body.replace("\n", "\t").split("\t")
    if not body or "\r" in body or "\n#" in body or "\n\n" in body or len(cells) != 5 * (body.count("\n") + 1):
        return {cols[0]: MappingEntry(cols[0], cols[1] or None, cols[2], cols[3], cols[4]) for cols in _rows(filename)}
    names = cells[0::5]
    rows = zip(names, [h or None for h in cells[1::5]], cells[2::5], cells[3::5], cells[4::5])
    return dict(zip(names, map(tuple.__new__, repeat(MappingEntry), rows)))


#: the form ``_plain_form`` makes (part of its cache key: change it when that form changes)
_FORM = "mapping-2"


def _plain_form() -> tuple[list[tuple[str, ...]], list[tuple[str, ...]], list[tuple[Any, ...]], list[tuple[Any, ...]],
                           frozenset[bytes]]:
    """The mapping as tuples, the form ``hipgauge.datafiles.cached_data`` keeps between runs (loading it takes
    about a third of parsing the tables again); the library, kind and status words interned, so the kept form
    stores each once; and ``Mapping.plain_names()``, which every scan and translate needs."""
    m = _parse()
    intern = sys.intern

    def row(e: MappingEntry) -> tuple[Any, ...]:
        return (e.cuda_name, e.hip_name, intern(e.library), intern(e.kind), intern(e.status))

    def rule(p: _Prefix) -> tuple[Any, ...]:
        return (p.prefix, p.hip, p.library, p.kind, p.status, p.strict)

    return ([row(e) for e in m.entries.values()], [row(e) for e in m.headers.values()],
            [rule(p) for p in m.prefixes], [rule(p) for p in m.header_prefixes], m.plain_names())


def _build() -> Mapping:
    """The mapping, from the form an earlier run kept when the data files have not changed since."""
    entries, headers, prefixes, header_prefixes, plain = cached_data(
        "mapping", ("hipify_mapping.tsv", "mapping_extra.tsv"), _FORM, _plain_form)
    m = Mapping()
    make = tuple.__new__
    m.entries = dict(zip([r[0] for r in entries], map(make, repeat(MappingEntry), entries)))
    m.headers = dict(zip([r[0] for r in headers], map(make, repeat(MappingEntry), headers)))
    m.prefixes = [_Prefix(*p) for p in prefixes]
    m.header_prefixes = [_Prefix(*p) for p in header_prefixes]
    m._plain_names = (len(m.entries), plain)
    return m


def _parse() -> Mapping:
    """The mapping, from the data files."""
    m = Mapping()
    m.entries = _table("hipify_mapping.tsv")
    for cuda, hip, lib, kind, status, *_ in _rows("mapping_extra.tsv"):
        if cuda.endswith("*"):
            prefix = cuda[:-1]
            rule = _Prefix(prefix, hip or None, lib, kind, status, strict=prefix[-1].islower())
            (m.header_prefixes if kind == "header" else m.prefixes).append(rule)
        elif kind == "header":
            m.headers[cuda] = MappingEntry(cuda, hip or None, lib, kind, status)
        elif cuda not in m.entries:  # the generated tables win
            m.entries[cuda] = MappingEntry(cuda, hip or None, lib, kind, status)
    m.prefixes.sort(key=lambda r: -len(r.prefix))
    m.header_prefixes.sort(key=lambda r: -len(r.prefix))
    return m


@lru_cache(maxsize=1)
def load_mapping() -> Mapping:
    """The mapping, read once per process."""
    return _build()
