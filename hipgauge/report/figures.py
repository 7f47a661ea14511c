"""How every renderer writes a figure as text (terminal, Markdown, HTML, charts): the one place.

Times arrive in integer nanoseconds (the unit of every model and document) or, for end-to-end latencies
read from a latency CSV, in milliseconds; they become µs/ms/s only here. ``MISSING`` ("—") stands for a
figure that is not there.
"""

from __future__ import annotations

from typing import Any

MISSING = "—"

NS_PER_US = 1_000
NS_PER_MS = 1_000_000
NS_PER_S = 1_000_000_000


def pct(x: Any, digits: int = 1) -> str:
    """A 0..1 share as a percentage."""
    return MISSING if x is None else f"{100 * float(x):.{digits}f}%"


def usd(x: Any) -> str:
    return MISSING if x is None else f"{float(x):,.0f} USD"


def num(x: Any, digits: int = 2, *, group_ints: bool = False) -> str:
    """A float to ``digits`` places with thousands separators, a bool as yes/no, an int as is (with
    separators when ``group_ints``), anything else as its text."""
    if x is None:
        return MISSING
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return f"{x:,.{digits}f}"
    if isinstance(x, int) and group_ints:
        return f"{x:,}"
    return str(x)


def ratio(x: float | None, digits: int = 2) -> str:
    """A candidate ÷ baseline ratio: ``1.25×``."""
    return MISSING if x is None else f"{float(x):.{digits}f}×"


def duration(ns: float | None, *, signed: bool = False) -> str:
    """A time in ns in the largest unit that keeps it ≥ 1 (ns, µs, ms, s), chosen by its magnitude so a
    negative time scales like a positive one: −2 ms is ``-2.000 ms``. ``signed``: a ``+`` before a positive
    (or zero) time, for deltas."""
    if ns is None:
        return MISSING
    a = abs(ns)
    if a >= NS_PER_S:
        text = f"{ns / NS_PER_S:.3f} s"
    elif a >= NS_PER_MS:
        text = f"{ns / NS_PER_MS:.3f} ms"
    elif a >= NS_PER_US:
        text = f"{ns / NS_PER_US:.1f} µs"
    else:
        text = f"{ns:.0f} ns"
    return "+" + text if signed and ns >= 0 else text


def ms_of_ns(ns: float | None, digits: int = 3) -> str:
    """A time in ns as a bare number of milliseconds, for a table whose header says "ms"."""
    return MISSING if ns is None else f"{ns / NS_PER_MS:,.{digits}f}"


def latency(ms: float | None, digits: int = 3) -> str:
    """An end-to-end latency (milliseconds, as latency CSVs and projections hold them): ``12.345 ms``."""
    return MISSING if ms is None else f"{float(ms):.{digits}f} ms"


def slack_sure_ratio(group: dict[str, Any]) -> str:
    """The clause after a slack group's "may be ≤ r× slower": the ratio that keeps the whole baseline interval
    under the target, when it reads differently from the point figure at two places."""
    sure, point = group.get("max_ratio_at_interval"), group.get("max_ratio")
    if sure is None or point is None or f"{float(sure):.2f}" == f"{float(point):.2f}":
        return ""
    return f" (≤ {float(sure):.2f}× for the whole interval to stay under the target)"
