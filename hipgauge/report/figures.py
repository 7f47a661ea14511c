"""How the renderers write a figure as text: shares, numbers, dollars ("—" for a missing one)."""

from __future__ import annotations

from typing import Any

MISSING = "—"


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
