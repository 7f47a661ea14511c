"""Per-iteration end-to-end latency: a plain ``iteration,latency_ms`` CSV (header required), with an optional
``round`` column (the timing round each iteration belongs to, as ``hipgauge capture torch`` writes it) and an
optional ``host_ms`` column (how long the iteration's forward call ran on the host, unprofiled, before the wait
for the device: ``hipgauge capture torch`` writes it too)."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from hipgauge.errors import InputError

from .files import read_text
from .registry import Format, Head


def read_latency(path: str | Path, max_bytes: int | None = None) -> list[float]:
    """Latencies in ms, in iteration order. Bad rows → InputError naming the line."""
    return read_latency_rounds(path, max_bytes)[0]


def read_latency_rounds(path: str | Path, max_bytes: int | None = None) -> tuple[list[float], list[int] | None]:
    """Latencies in ms in (round, iteration) order, and each one's round (None without a ``round`` column)."""
    values, rounds, _ = read_latency_series(path, max_bytes)
    return values, rounds


def read_latency_series(path: str | Path, max_bytes: int | None = None
                        ) -> tuple[list[float], list[int] | None, list[float] | None]:
    """Latencies in ms in (round, iteration) order, each one's round (None without a ``round`` column) and its
    host time in ms (None without a ``host_ms`` column, or when a row leaves it empty)."""
    path = Path(path)
    text = read_text(path, max_bytes)
    rows = list(csv.reader(io.StringIO(text)))
    start = None
    for i, row in enumerate(rows):
        cells = [c.strip().lower() for c in row]
        if "latency_ms" in cells:
            start = i
            break
        if any(c for c in cells):
            break
    if start is None:
        raise InputError("no 'iteration,latency_ms' header", path, 1)
    header = [c.strip().lower() for c in rows[start]]
    li = header.index("latency_ms")
    ii = header.index("iteration") if "iteration" in header else None
    ri = header.index("round") if "round" in header else None
    hi = header.index("host_ms") if "host_ms" in header else None
    out: list[tuple[float, float, float, float]] = []
    for n, row in enumerate(rows[start + 1 :], start=start + 2):
        if not any(c.strip() for c in row):
            continue
        while len(row) > len(header) and not row[-1].strip():
            row = row[:-1]  # trailing commas
        if len(row) > len(header):
            raise InputError(f"{len(row)} fields where the header has {len(header)} (a decimal comma? use '.')", path, n)
        if len(row) <= li:
            raise InputError(f"expected {len(header)} columns, found {len(row)}", path, n)
        cell = row[li].strip()
        try:
            value = float(cell)
        except ValueError:
            hint = " (decimal comma? use '.')" if "," in cell or (len(row) > len(header)) else ""
            raise InputError(f"latency_ms {cell!r} is not a number{hint}", path, n) from None
        if not math.isfinite(value) or value < 0:
            raise InputError(f"latency_ms {cell!r} must be a finite, non-negative number", path, n)
        order = float(n)
        if ii is not None:
            try:
                order = float(row[ii])
            except ValueError:
                raise InputError(f"iteration {row[ii]!r} is not a number", path, n) from None
        rnd = 0.0
        if ri is not None:
            cell = row[ri].strip() if len(row) > ri else ""
            try:
                rnd = float(cell)
            except ValueError:
                raise InputError(f"round {cell!r} is not a number", path, n) from None
            if not math.isfinite(rnd):
                raise InputError(f"round {cell!r} is not a number", path, n)
        host = math.nan
        if hi is not None:
            cell = row[hi].strip() if len(row) > hi else ""
            try:
                host = float(cell) if cell else math.nan
            except ValueError:
                raise InputError(f"host_ms {cell!r} is not a number", path, n) from None
            if host < 0 or math.isinf(host):
                raise InputError(f"host_ms {cell!r} must be a finite, non-negative number", path, n)
        out.append((rnd, order, value, host))
    if not out:
        raise InputError("no latency rows", path)
    out.sort(key=lambda t: (t[0], t[1]))
    hosts = [h for _, _, _, h in out]
    return ([v for _, _, v, _ in out], ([int(r) for r, _, _, _ in out] if ri is not None else None),
            hosts if hi is not None and not any(math.isnan(h) for h in hosts) else None)


def _sniff(head: Head) -> float | None:
    return head.csv_score(lambda f: {"iteration", "latency_ms"} <= {x.lower() for x in f})


#: recognised so that ``load_profile`` can say what the file is; read through ``--latency-csv``
FORMATS = (Format("latency-csv", read_latency, _sniff, role="latency",
                  not_a_profile="is a per-iteration latency CSV, not a kernel profile: give it with --latency-csv"),)
