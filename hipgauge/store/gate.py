"""The CI gate: does any hot kernel regress past the threshold, or the projected latency cross the target?

The gate reads parity rows (from ``compare_profiles`` of two profiles, or built here from a candidate
profile against the last stored assessment) and decides pass/fail. A kernel is *hot* when it holds at
least ``hot_share`` of the baseline kernel time; it *regressed* when its ratio (candidate / baseline)
is above ``1 + max_regression``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from hipgauge.errors import InputError
from hipgauge.kernel_names import normalize_key
from hipgauge.model import Profile, Record
from hipgauge.profiles.percentiles import iteration_view
from hipgauge.store.record import AssessmentRecord, ParityEntry, parity_entries

_FRACTION = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(%?)\s*$")


def parse_fraction(text: str | float, option: str) -> float:
    """"5%" → 0.05, "0.05" → 0.05. A bare number of 1 or more is ambiguous and refused (write 5% or 0.05)."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value, percent = float(text), False
    else:
        match = _FRACTION.match(str(text))
        if not match:
            raise InputError(f"{option}: expected a percentage like 5% or a fraction like 0.05, got {text!r}")
        value, percent = float(match.group(1)), bool(match.group(2))
    if percent:
        value /= 100.0
    elif value >= 1.0:
        raise InputError(f"{option}: {text!r} is ambiguous; write {value:g}% or {value / 100:g}")
    if value < 0:
        raise InputError(f"{option}: must not be negative, got {text!r}")
    return value


@dataclass
class GateKernel(Record):
    label: str
    share: float | None
    baseline_ns: float | None
    candidate_ns: float | None
    ratio: float | None
    match: str | None
    hot: bool
    regressed: bool


@dataclass
class GateResult(Record):
    passed: bool
    mode: str  # "profiles" | "against-last"
    max_regression: float
    hot_share: float
    failures: list[str] = field(default_factory=list)  # one line per reason, naming the kernel
    regressed: list[str] = field(default_factory=list)  # labels of hot kernels past the threshold
    kernels: list[GateKernel] = field(default_factory=list)
    percentile: float | None = None
    projected_ms: float | None = None
    target_ms: float | None = None
    latency_source: str | None = None  # how projected_ms was obtained
    basis: str = ""  # what the per-kernel times are (totals, per iteration, per launch)
    against: str = ""  # what the baseline is (the two profiles, or the stored assessment)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        return {"schema": "hipgauge.gate/1", **d}


def evaluate(rows: list[ParityEntry], max_regression: float, hot_share: float, *, mode: str = "profiles",
             projected_ms: float | None = None, target_ms: float | None = None, percentile: float | None = None,
             latency_source: str | None = None, basis: str = "", against: str = "",
             notes: list[str] | None = None) -> GateResult:
    limit = 1.0 + max_regression
    result = GateResult(True, mode, max_regression, hot_share, percentile=percentile, projected_ms=projected_ms,
                        target_ms=target_ms, latency_source=latency_source, basis=basis, against=against,
                        notes=list(notes or []))
    for row in sorted(rows, key=lambda r: (-(r.share or 0.0), r.label)):
        hot = (row.share or 0.0) >= hot_share
        regressed = hot and row.ratio is not None and row.ratio > limit
        result.kernels.append(GateKernel(row.label, row.share, row.baseline_ns, row.candidate_ns, row.ratio,
                                         row.match, hot, regressed))
        if regressed:
            result.regressed.append(row.label)
            result.failures.append(f"{row.label}: {row.ratio:.3f}× (> {limit:.3f}×), {100 * (row.share or 0):.1f}% of baseline time")
    if target_ms is not None and projected_ms is not None and projected_ms > target_ms:
        pct = f"P{percentile:g}" if percentile is not None else "projected"
        result.failures.append(f"{pct} latency {projected_ms:.3f} ms > target {target_ms:g} ms")
    elif target_ms is not None and projected_ms is None:
        result.notes.append("no latency could be projected: the target was not checked")
    result.passed = not result.failures
    return result


def rows_from_comparison(doc: dict[str, Any]) -> list[ParityEntry]:
    return parity_entries(doc)


# --------------------------------------------------------------------------------------------
# Against the last stored assessment
# --------------------------------------------------------------------------------------------


def rows_against_last(last: AssessmentRecord, cand: Profile) -> tuple[list[ParityEntry], str, list[str]]:
    """Parity rows of ``cand`` against the candidate side of the last stored assessment.

    Times are per iteration when both the stored row and the candidate know iterations; else the mean
    per launch (total / launches), which makes profiles of different length comparable.
    Returns (rows, basis, notes). Share: the kernel's share of the last candidate's kernel time.
    """
    view = iteration_view(cand)
    df, divisor, per_iter = view.kernels, view.divisor, view.known
    by_key: dict[str, tuple[float, int]] = {}
    by_op: dict[str, tuple[float, int]] = {}
    if df.height:
        for key, total, count in df.group_by("key", maintain_order=True).agg(pl.col("duration_ns").sum(), pl.len()).iter_rows():
            if key is not None:
                by_key[key] = (float(total), int(count))
        ops = df.filter(pl.col("operator").is_not_null())
        for op, total, count in ops.group_by("operator", maintain_order=True).agg(pl.col("duration_ns").sum(), pl.len()).iter_rows():
            by_op[op] = (float(total), int(count))
    stored_total = sum(r.candidate_ns or 0.0 for r in last.parity)
    rows: list[ParityEntry] = []
    notes: list[str] = []
    missing: list[str] = []
    used: set[str] = set()
    bases: set[str] = set()
    for r in last.parity:
        if not r.candidate_ns:
            continue
        found: tuple[float, int] | None = None
        if r.match == "operator":
            found = by_op.get(r.operator or r.label)
        else:
            for k in [r.label, *r.candidate_names, *(normalize_key(n) for n in r.candidate_names)]:
                if k in by_key:
                    found = by_key[k]
                    used.add(k)
                    break
        if found is None:
            missing.append(r.label)
            continue
        total, count = found
        if r.per_iteration and per_iter:  # both per iteration: directly comparable
            old, new, basis = r.candidate_ns, total / divisor, "per iteration"
        elif not r.per_iteration and r.candidate_count and count:  # both totals: compare per launch
            old, new, basis = r.candidate_ns / r.candidate_count, total / count, "mean per launch"
        else:
            old, new = r.candidate_ns, (total / divisor if per_iter else total)
            basis = "mixed (stored per iteration, candidate total, or the reverse)"
        bases.add(basis)
        share = (r.candidate_ns / stored_total) if stored_total else None
        rows.append(ParityEntry(r.label, r.match, old, new, (new / old) if old else None, share,
                                r.candidate_count, count, per_iter, r.operator, r.candidate_names))
    if missing:
        notes.append(f"{len(missing)} kernel(s) of the last assessment not found in the candidate: "
                     + ", ".join(missing[:10]) + (" …" if len(missing) > 10 else ""))
    new_keys = [k for k in by_key if k not in used]
    if new_keys and not all(r.match == "operator" for r in last.parity):
        notes.append(f"{len(new_keys)} kernel(s) in the candidate that the last assessment did not have")
    if any(b.startswith("mixed") for b in bases):
        notes.append("the stored times and the candidate's are on different bases (per iteration vs total): "
                     "ratios may reflect profile length, not kernel speed")
    basis = ", ".join(sorted(bases)) + ", measured" if bases else "no kernels matched"
    return rows, basis, notes
