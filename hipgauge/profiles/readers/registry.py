"""The profile formats: every module in this package that declares ``FORMATS`` is a reader.

A reader module declares, once, each format it reads::

    FORMATS = (
        Format(NAME, read=read_mine, sniff=_sniff_mine, files=(("*mine_trace.csv", 50),)),
    )

- ``name``: what ``--format`` takes and what ``Profile.source_format`` says.
- ``read(path, max_bytes=None) -> Profile``: the reader (finish with ``finish.finish_profile``).
- ``sniff(head: Head) -> float | bool | None``: how sure the format is that a file is its own, from
  the file's first MiB (``Head`` offers the bytes, the decoded text, the CSV header lines and the
  SQLite table names). The highest score wins; a tie goes to the format declared first. Text
  formats score with ``Head.csv_score`` so that the earliest header line wins.
- ``files``: (glob, rank) pairs naming the file to pick in a tool's output folder (lower rank first).
- ``role``: ``"profile"`` (a kernel profile, loadable by ``load_profile``) or another word for files
  that are recognised but read elsewhere (the per-iteration ``latency`` CSV).

Discovery imports every module of this package (and of any folder added to its ``__path__``) and
collects their ``FORMATS``, so adding a format touches only its reader module. Nothing here knows a
format by name. A reader that finds more than kernels (a CPU timeline, counters) puts the extra
tables in ``Profile.attachments`` through ``finish_profile``: the registry does not change.
"""

from __future__ import annotations

import csv
import importlib
import pkgutil
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from hipgauge.profiles import readers

from .files import head_bytes

SQLITE_MAGIC = b"SQLite format 3\x00"
HEAD_BYTES = 1 << 20
#: header lines a CSV sniffer looks at
CSV_HEADER_LINES = 200

PROFILE = "profile"


@dataclass(frozen=True)
class Format:
    name: str
    read: Callable[..., Any]
    sniff: Callable[[Head], float | bool | None]
    files: tuple[tuple[str, int], ...] = ()
    role: str = PROFILE
    #: for a role other than "profile": the one-line error ``load_profile`` gives when handed such a file
    not_a_profile: str | None = None


class Head:
    """What a sniffer sees of one file: its first MiB (decompressed), decoded lazily."""

    def __init__(self, path: Path, data: bytes):
        self.path = Path(path)
        self.bytes = data

    @classmethod
    def of(cls, path: Path) -> Head:
        return cls(path, head_bytes(Path(path), HEAD_BYTES))

    @cached_property
    def stripped(self) -> bytes:
        return self.bytes.lstrip(b"\xef\xbb\xbf \t\r\n")

    @property
    def is_sqlite(self) -> bool:
        return self.bytes.startswith(SQLITE_MAGIC)

    @property
    def is_json(self) -> bool:
        return not self.is_sqlite and self.stripped[:1] in (b"{", b"[")

    @property
    def is_text(self) -> bool:
        return bool(self.bytes) and not self.is_sqlite and not self.is_json

    @property
    def complete(self) -> bool:
        """False when the head is cut at the 1 MiB limit (the file goes on)."""
        return len(self.bytes) < HEAD_BYTES

    def has(self, *needles: bytes) -> bool:
        return any(n in self.bytes for n in needles)

    def search(self, pattern: bytes) -> bool:
        return re.search(pattern, self.bytes) is not None

    @cached_property
    def text(self) -> str:
        try:
            return self.bytes.decode("utf-8-sig")
        except UnicodeDecodeError:
            return self.bytes.decode("latin-1")

    @cached_property
    def csv_headers(self) -> list[list[str]]:
        """Candidate header rows (fields stripped), one per line of the first ``CSV_HEADER_LINES`` that is
        a comma-separated record (not an ``==PROF==`` line); an empty list for a line that is not."""
        if not self.is_text:
            return []
        out: list[list[str]] = []
        for line in self.text.splitlines()[:CSV_HEADER_LINES]:
            s = line.strip()
            out.append(header_fields(s) if s and not s.startswith("==") and "," in s else [])
        return out

    def csv_score(self, is_header: Callable[[list[str]], bool]) -> float | None:
        """A score for the first line whose fields ``is_header`` accepts: earlier lines score higher."""
        for i, fields in enumerate(self.csv_headers):
            if fields and is_header(fields):
                return 1.0 - i / (10 * CSV_HEADER_LINES)
        return None

    @cached_property
    def sqlite_tables(self) -> set[str]:
        """Table and view names of an SQLite file (empty when it is not one or cannot be opened)."""
        if not self.is_sqlite:
            return set()
        try:
            con = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        except sqlite3.Error:
            return set()
        try:
            return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table','view')")}
        except sqlite3.Error:
            return set()
        finally:
            con.close()


def header_fields(line: str) -> list[str]:
    try:
        return [f.strip() for f in next(csv.reader([line]))]
    except (csv.Error, StopIteration):
        return []


_registry: dict[str, Format] | None = None


def formats() -> dict[str, Format]:
    """name → Format, in declaration order (modules by name, then each module's ``FORMATS`` order)."""
    global _registry
    if _registry is None:
        found: dict[str, Format] = {}
        for info in sorted(pkgutil.iter_modules(readers.__path__), key=lambda m: m.name):
            if info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{readers.__name__}.{info.name}")
            for fmt in getattr(module, "FORMATS", ()):
                if fmt.name in found:
                    raise RuntimeError(f"profile format {fmt.name!r} declared twice ({module.__name__})")
                found[fmt.name] = fmt
        _registry = found
    return _registry


def refresh() -> None:
    """Forget the discovered formats (the next call to ``formats()`` discovers them again)."""
    global _registry
    _registry = None


def profile_formats() -> dict[str, Format]:
    return {n: f for n, f in formats().items() if f.role == PROFILE}


def profile_format_names() -> tuple[str, ...]:
    return tuple(profile_formats())


def get(name: str) -> Format | None:
    return formats().get(name)
