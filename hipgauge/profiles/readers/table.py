"""CSV tables as profilers write them: preamble lines before the header, quoted names with commas,
trailing commas, a units row (ncu raw page), thousands separators and unit suffixes.

``read_table(path, is_header)`` finds the header row with ``is_header(fields)`` and returns a
``Table`` of ``(line_number, fields)`` rows; lines that are not CSV records of the header's width
(``==PROF==`` lines, the application's own output) are skipped and counted.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hipgauge.errors import InputError

from .files import read_text

_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")
_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+$")

#: time unit names as profilers spell them → nanoseconds
TIME_UNITS = {
    "ns": 1.0, "nsec": 1.0, "nsecond": 1.0, "nanosecond": 1.0, "nanoseconds": 1.0,
    "us": 1e3, "usec": 1e3, "usecond": 1e3, "µs": 1e3, "microsecond": 1e3, "microseconds": 1e3,
    "ms": 1e6, "msec": 1e6, "msecond": 1e6, "millisecond": 1e6, "milliseconds": 1e6,
    "s": 1e9, "sec": 1e9, "second": 1e9, "seconds": 1e9,
}
#: byte unit names → bytes (ncu spells KB as Kbyte, and MB in nsys is 2**20)
BYTE_UNITS = {"byte": 1, "bytes": 1, "b": 1, "kbyte": 1024, "kb": 1024, "kib": 1024, "mbyte": 1 << 20, "mb": 1 << 20, "mib": 1 << 20}


@dataclass
class Table:
    path: Path
    header: list[str]
    header_line: int
    rows: list[tuple[int, list[str]]] = field(default_factory=list)
    skipped_lines: int = 0

    def col(self, *names: str) -> int | None:
        """Index of the first column whose name is one of ``names`` (exact, then case-insensitive)."""
        for n in names:
            if n in self.header:
                return self.header.index(n)
        low = [h.lower() for h in self.header]
        for n in names:
            if n.lower() in low:
                return low.index(n.lower())
        return None

    def col_prefix(self, prefix: str) -> int | None:
        for i, h in enumerate(self.header):
            if h.startswith(prefix):
                return i
        return None


def number(cell: str | None, path: Path | None = None, line: int | None = None, what: str = "value") -> float | None:
    """A numeric cell: ``""`` → None; ``"1,234.5"`` → 1234.5; ``"8.1E+14"`` ok; decimal comma → InputError."""
    if cell is None:
        return None
    s = cell.strip().strip('"')
    if s == "" or s.lower() in ("n/a", "nan", "-", "none", "null"):
        return None
    try:
        value = float(s)
    except ValueError:
        value = None
    if value is not None:
        if value != value or value in (float("inf"), float("-inf")):
            raise InputError(f"{what} {s!r} is not a finite number", path, line)
        return value
    if _THOUSANDS.match(s):
        return float(s.replace(",", ""))
    if _DECIMAL_COMMA.match(s):
        raise InputError(f"{what} {s!r} uses a decimal comma; re-export with '.' as the decimal mark", path, line)
    raise InputError(f"{what} {s!r} is not a number", path, line)


def read_table(path: Path, is_header: Callable[[list[str]], bool], max_bytes: int | None = None,
               what: str = "profile CSV", min_fields: Callable[[list[str]], int] | None = None) -> Table:
    """``min_fields(header)``: rows with at least that many fields are padded to the header's
    width (ncu leaves the trailing rule columns off metric rows)."""
    path = Path(path)
    text = read_text(path, max_bytes)
    if not text.strip():
        raise InputError("is empty", path)
    lines = text.splitlines()
    header_at = None
    header: list[str] = []
    for i, line in enumerate(lines):
        if "," not in line:
            continue
        fields = _split(line)
        if fields and is_header([f.strip() for f in fields]):
            header_at = i
            header = [f.strip() for f in fields]
            break
    if header_at is None:
        first = next((ln for ln in lines if ln.strip()), "")
        if ";" in first and "," not in first:
            raise InputError(f"semicolon-separated CSV (a decimal-comma locale?): not a {what}", path, 1)
        raise InputError(f"no {what} header row found", path)
    while header and header[-1] == "":  # trailing comma on the header
        header.pop()
    width = len(header)
    pad_from = min_fields(header) if min_fields else width
    table = Table(path=path, header=header, header_line=header_at + 1)
    for n, line in enumerate(lines[header_at + 1 :], start=header_at + 2):
        if not line.strip() or line.startswith("=="):
            table.skipped_lines += 1 if line.strip() else 0
            continue
        fields = _split(line)
        while len(fields) > width and fields[-1].strip() == "":
            fields.pop()
        if pad_from <= len(fields) < width:
            fields = fields + [""] * (width - len(fields))
        if len(fields) != width:
            if "," in line and (line.lstrip().startswith('"') or line.count(",") >= width - 1) and len(fields) > width:
                raise InputError(
                    f"{len(fields)} fields where the header has {width} (decimal commas or an unquoted name?)", path, n
                )
            table.skipped_lines += 1  # the application's own output, mixed in
            continue
        if [f.strip() for f in fields] == header:
            continue  # a repeated header (several processes profiled)
        table.rows.append((n, fields))
    return table


def _split(line: str) -> list[str]:
    try:
        return next(csv.reader(io.StringIO(line)))
    except (csv.Error, StopIteration):
        return []
