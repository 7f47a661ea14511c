"""The "library fast path" section of a comparison: per hot library row, which library, family and tile ran on each
side, the layout-conversion time around it, and a diagnosis with advice from ``hipgauge/data/library_advice.toml``.

Every advice line separates what the profiles *measured* from what is *advised* (a suggestion to measure, never a
measurement) and names its sources. Lines are ordered outliers first (``profiles.outliers``), then by the row's
|Δ|. The per-row classes come from ``profiles.libraries`` (set on each ``ParityRow.library`` by
``compare_profiles``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from hipgauge.datafiles import load_data_toml
from hipgauge.kernel_names import display_name, short_name
from hipgauge.model import ParityRow
from hipgauge.profiles.outliers import Outlier, describe_dict

#: hot library rows listed in the section (the rest counted)
ROWS_LISTED = 15
_GEMM_LIBS = ("Tensile/hipBLASLt", "rocBLAS", "Composable Kernel")


@dataclass
class LibraryAdvice:
    id: str
    label: str  # the row's label
    signature: str | None  # the call signature the row was paired on, described
    side: str  # "baseline" | "candidate"
    measured: str
    advised: str
    sources: list[str] = field(default_factory=list)
    outlier: bool = False
    delta_ns: int = 0
    basis: str = "measured (kernel names and times of the profiles); the advice is a suggestion to measure"

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@lru_cache(maxsize=1)
def load_advice() -> dict[str, Any]:
    return load_data_toml("library_advice.toml")


def _ms(ns: float | None) -> str:
    if ns is None:
        return "?"
    return f"{ns / 1e3:.1f} µs" if abs(ns) < 1e6 else f"{ns / 1e6:.3f} ms"


def _row_key(r: ParityRow) -> str:
    return describe_dict(r.signature) if r.signature and r.mixed_signatures <= 1 else r.label


def _fill(text: str, side: str, lib: dict[str, Any], row: ParityRow) -> str:
    ratio = f"{row.ratio:.2f}×" if row.ratio is not None else "?"
    values = {
        "side": side, "library": lib.get("library") or "?", "family": lib.get("family") or "?",
        "kernel": short_name(display_name(lib.get("kernel") or ""), 60),
        "kernel_short": short_name(display_name(lib.get("kernel") or ""), 60),
        "tile": lib.get("tile") or "tile not named",
        "instruction": f", {lib['instruction']}" if lib.get("instruction") else "",
        "kernel_arch": lib.get("kernel_arch") or "?", "device_arch": lib.get("device_arch") or "?",
        "layout_time": _ms(lib.get("layout_conversion_ns")),
        "layout_share": f"{(lib.get('layout_conversion_share') or 0) * 100:.0f}%",
        "helpers": ", ".join(short_name(h, 40) for h in lib.get("layout_helpers") or []) or "?",
        "ratio": ratio,
    }
    return text.format(**values)


def _conditions(row: ParityRow, spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(condition, side, that side's library dict) that hold for one row."""
    lib = row.library or {}
    base, cand = lib.get("baseline"), lib.get("candidate")
    out: list[tuple[str, str, dict[str, Any]]] = []
    if cand and cand.get("path") == "generic":
        out.append(("generic_fallback", "candidate", cand))
    if base and base.get("path") == "generic":
        out.append(("generic_fallback", "baseline", base))
    for side, s in (("candidate", cand), ("baseline", base)):
        if s and s.get("layout_conversion_share") is not None:
            out.append(("layout_helpers", side, s))
    if cand and cand.get("library") in _GEMM_LIBS and "GEMM" in (cand.get("family") or ""):
        out.append(("tuned_gemm_slower", "candidate", cand))
    if base and base.get("older_arch"):
        out.append(("baseline_older_arch", "baseline", base))
    if cand and cand.get("older_arch"):
        out.append(("candidate_older_arch", "candidate", cand))
    return out


def _applies(adv: dict[str, Any], cond: str, side: str, side_lib: dict[str, Any], row: ParityRow) -> bool:
    if adv["when"] != cond or adv.get("side", side) != side:
        return False
    if adv.get("library") and adv["library"] != side_lib.get("library"):
        return False
    if cond == "layout_helpers":
        share = side_lib.get("layout_conversion_share") or 0.0
        return share >= float(adv.get("min_share", 0.1)) and bool(side_lib.get("layout_conversion_ns"))
    if cond == "tuned_gemm_slower":
        return row.ratio is not None and row.ratio >= float(adv.get("min_ratio", 1.3))
    return True


def _side_share(row: ParityRow, side: str, cand_total: float) -> float:
    if side == "baseline":
        return row.share
    return (row.candidate_ns / cand_total) if cand_total else 0.0


def library_section(rows: list[ParityRow], outliers: list[Outlier], candidate_total_ns: float,
                    coverage: dict[str, Any]) -> dict[str, Any]:
    """The section's document: per-side coverage, the hot library rows, and the advice (outliers first)."""
    spec = load_advice()
    hot = float(spec.get("hot_share", 0.01))
    listed = int(spec.get("listed", 12))
    outlier_keys = {o.signature for o in outliers}
    hot_rows = [r for r in rows if r.library and (r.share >= hot or _side_share(r, "candidate", candidate_total_ns) >= hot)
                and any((r.library.get(s) or {}).get("path") in ("tuned", "generic") for s in ("baseline", "candidate"))]
    advice: list[LibraryAdvice] = []
    for r in hot_rows:
        key = _row_key(r)
        seen: set[tuple[str, str]] = set()
        for cond, side, side_lib in _conditions(r, spec):
            for adv in spec.get("advice", []):
                if (adv["id"], side) in seen or not _applies(adv, cond, side, side_lib, r):
                    continue
                seen.add((adv["id"], side))
                advice.append(LibraryAdvice(
                    id=adv["id"], label=r.label, signature=describe_dict(r.signature) if r.signature else None, side=side,
                    measured=_fill(adv["measured"], side, side_lib, r), advised=_fill(adv["advised"], side, side_lib, r),
                    sources=list(adv.get("sources", [])), outlier=key in outlier_keys, delta_ns=r.delta_ns))
    advice.sort(key=lambda a: (not a.outlier, -abs(a.delta_ns), a.label, a.id))
    hot_rows.sort(key=lambda r: (_row_key(r) not in outlier_keys, -abs(r.delta_ns), -r.baseline_ns, r.label))
    table = []
    for r in hot_rows[:ROWS_LISTED]:
        lib = r.library or {}
        table.append({"label": r.label, "operator": r.operator,
                      "signature": describe_dict(r.signature) if r.signature else None,
                      "share": r.share, "ratio": r.ratio, "delta_ns": r.delta_ns, "outlier": _row_key(r) in outlier_keys,
                      "baseline": lib.get("baseline"), "candidate": lib.get("candidate")})
    return {
        "basis": ("measured: each side's library, family, path and tile read from its kernel names "
                  "(hipgauge/data/kernel_libraries.toml); layout_conversion_ns is measured helper-kernel time under "
                  "the row's operator calls; advice from hipgauge/data/library_advice.toml is a suggestion to measure"),
        "hot_share": hot,
        "coverage": coverage,
        "rows": table, "rows_more": max(0, len(hot_rows) - ROWS_LISTED),
        "advice": [a.to_dict() for a in advice[:listed]], "advice_more": max(0, len(advice) - listed),
    }
