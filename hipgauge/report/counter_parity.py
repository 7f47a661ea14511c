"""The trio per hot kernel (duration ratio, achieved occupancy, memory throughput) as every renderer shows it.

Works on the plain documents only (a compare ``--json`` document's rows, or the assessment's parity rows):
each row's ``counters`` (``{"baseline": {...}, "candidate": {...}, "diagnosis": ...}``, profiles/counters.py)
becomes short cells such as ``71% → 24%`` and the diagnosis line. Figures are hardware-counter readings
(ncu: measured) or derived from AMD counters by stated formulas (estimated); the document's ``counters``
section says which, per side.
"""

from __future__ import annotations

from typing import Any

#: rows shown in a "hot kernels" table: the largest shares of baseline time
HOT_ROWS = 10


def _pct(v: Any) -> str:
    return "—" if v is None else f"{v:.0f}%"


def _gbps(v: Any) -> str:
    return "—" if v is None else f"{v:.0f}"


def pair(counters: dict[str, Any] | None, key: str, fmt: Any = _pct) -> str:
    """``b → c`` for one figure of a row's counters ("—" where a side lacks it; "" when the row has none)."""
    if not counters:
        return ""
    b = (counters.get("baseline") or {}).get(key)
    c = (counters.get("candidate") or {}).get(key)
    if b is None and c is None:
        return "—"
    return f"{fmt(b)} → {fmt(c)}"


def occupancy_cell(counters: dict[str, Any] | None) -> str:
    """Achieved occupancy b → c, with the candidate's theoretical occupancy (build-check) when known."""
    s = pair(counters, "achieved_occupancy_pct")
    theo = ((counters or {}).get("candidate") or {}).get("theoretical_occupancy_pct")
    if theo is not None:
        s += f" (theor. {theo:.0f}%)"
    return s


def dram_cell(counters: dict[str, Any] | None) -> str:
    return pair(counters, "dram_throughput_pct_of_peak")


def has_counters(rows: list[dict[str, Any]]) -> bool:
    return any(r.get("counters") for r in rows)


def hot_rows(rows: list[dict[str, Any]], n: int = HOT_ROWS) -> list[dict[str, Any]]:
    """The rows with the largest share of baseline time that carry counters on at least one side."""
    with_c = [r for r in rows if r.get("counters")]
    return sorted(with_c, key=lambda r: -(r.get("share") or 0.0))[:n]


def trio(row: dict[str, Any]) -> dict[str, Any]:
    """One hot kernel's trio, as display strings and raw figures."""
    c = row.get("counters") or {}
    b, k = c.get("baseline") or {}, c.get("candidate") or {}
    return {
        "label": row.get("label"), "share": row.get("share"), "ratio": row.get("ratio"),
        "occupancy": occupancy_cell(c), "dram_pct": dram_cell(c), "dram_gbps": pair(c, "dram_gbps", _gbps),
        "l2_hit": pair(c, "l2_hit_pct"), "diagnosis": c.get("diagnosis"),
        "baseline": {k2: b.get(k2) for k2 in ("achieved_occupancy_pct", "dram_throughput_pct_of_peak", "dram_gbps",
                                              "l2_hit_pct", "theoretical_occupancy_pct")},
        "candidate": {k2: k.get(k2) for k2 in ("achieved_occupancy_pct", "dram_throughput_pct_of_peak", "dram_gbps",
                                               "l2_hit_pct", "theoretical_occupancy_pct")},
    }


def side_notes(section: dict[str, Any] | None) -> list[str]:
    """One line per side: where its counters came from, the part's peak, and what to collect for absent figures."""
    if not section:
        return []
    out = []
    for side in ("baseline", "candidate"):
        s = section.get(side) or {}
        src = s.get("source") or {}
        part = s.get("part") or {}
        head = f"{side}: " + (f"{src.get('format')} ({s.get('launches_with_counters')} of {s.get('launches')} launches)"
                              if s.get("launches_with_counters") else "no hardware counters")
        if part.get("peak_dram_gbps"):
            head += f"; peak DRAM {part['peak_dram_gbps']:g} GB/s ({part.get('name') or part.get('arch') or 'part'}, " \
                    f"from {str(part.get('peak_source')).split(': http')[0]})"
        basis = s.get("basis") or {}
        kinds = sorted({b.split(":")[0] for b in basis.values()})
        if kinds:
            head += f"; figures {'/'.join(kinds)}"
        if s.get("collect"):
            head += f"; to fill the gaps {s['collect']}"
        out.append(head)
    return out
