"""Per-kernel and per-operator parity of two profiles of the same workload, and the end-to-end projection.

``compare_profiles`` pairs the kernels (``profiles.match``), sums each matched unit on both sides,
lists what stayed unmatched on either side (never dropped), and projects the end-to-end latency at a
percentile (``profiles.percentiles``): measured on the candidate when it has its own latencies, else
estimated as the baseline's measured latency plus the per-iteration kernel-time delta.

Times are per iteration when both profiles mark iterations (totals divided by each side's iteration
count, and the result says so); otherwise totals over each profile. The table's totals add up:
Σ rows + Σ unmatched = the analysed kernel time on each side (to the ns per row: per-iteration means are
rounded to whole ns, the unit of every time in the result).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import polars as pl

from hipgauge.kernel_names import strip_vendor_words
from hipgauge.model import (
    MatchLevel,
    ParityRow,
    Profile,
    Projection,
    Provenance,
    TimedOnBothSides,
)
from hipgauge.profiles import intervals as iv
from hipgauge.profiles import percentiles as pct
from hipgauge.profiles.stability import assess
from hipgauge.profiles.counters import attach_to_rows
from hipgauge.profiles.grouping import classify
from hipgauge.profiles.kernel_work import abbreviate
from hipgauge.profiles.libraries import attach_to_rows as attach_libraries
from hipgauge.profiles.libraries import coverage as library_coverage
from hipgauge.profiles.libraries import device_arch, side_table
from hipgauge.profiles.library_advice import library_section
from hipgauge.profiles.match import MatchResult, UserMap, match_kernels
from hipgauge.profiles.outliers import Outlier, find_outliers, guard, signature_lists
from hipgauge.profiles.signatures import decode
from hipgauge.profiles.whatif import STRATEGY_OWN, compare_projection

SCHEMA = "hipgauge.compare/1"
ROW_ID = "__kernel_row"  # a kernel's row in its profile's table, carried while counters are being joined
NO_OPERATOR = "(no operator)"


@dataclass
class UnmatchedEntry:
    """Kernels of one side that found no partner, aggregated by name and operator."""

    label: str
    names: list[str]
    ns: int  # per iteration when the comparison is per iteration (rounded to whole ns)
    count: int
    share: float  # of this side's analysed kernel time
    operator: str | None = None
    signatures: list[dict[str, Any]] = field(default_factory=list)  # per launching-call signature, as on rows

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "names": self.names, "ns": self.ns, "count": self.count,
                "share": self.share, "operator": self.operator, "signatures": self.signatures}


@dataclass
class OperatorRow(TimedOnBothSides):
    """All kernel time launched by one operator name on each side (independent of kernel matching)."""

    operator: str
    baseline_ns: int
    candidate_ns: int
    baseline_count: int
    candidate_count: int
    share: float  # of baseline kernel time
    group: str = ""
    candidate_operator: str | None = None  # set when the candidate names the same work differently
    baseline_calls: int | None = None  # operator calls (per iteration; None when the profile has no call ids)
    candidate_calls: int | None = None

    @property
    def label(self) -> str:
        return self.operator if not self.candidate_operator else f"{self.operator} ↔ {self.candidate_operator}"

    def to_dict(self) -> dict[str, Any]:
        return {"operator": self.operator, "candidate_operator": self.candidate_operator or self.operator,
                "label": self.label, "group": self.group, "baseline_ns": self.baseline_ns,
                "candidate_ns": self.candidate_ns, "ratio": self.ratio, "delta_ns": self.delta_ns,
                "baseline_count": self.baseline_count, "candidate_count": self.candidate_count, "share": self.share,
                "baseline_calls": self.baseline_calls, "candidate_calls": self.candidate_calls}


@dataclass
class SideSummary:
    path: str
    source_format: str
    vendor: str
    device: str | None
    kernels: int  # analysed kernels
    kernel_ns: int  # analysed kernel time (total, not per iteration)
    iterations: int  # 0 when unknown
    excluded_kernels: int = 0  # outside every iteration
    excluded_ns: int = 0
    metadata: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class ComparisonResult:
    """What ``compare_profiles`` returns; ``to_dict()`` is its one document (``hipgauge compare --json`` and the
    assessment's ``parity`` section). Times are whole ns (per iteration when ``per_iteration``, the means
    rounded to the ns; shares and coverage use the exact sums); renderers scale them.
    Row order, the same everywhere: ``rows`` and ``operators`` by |delta_ns| descending, then baseline_ns
    descending, then label; unmatched entries by ns descending, then label."""

    baseline: SideSummary
    candidate: SideSummary
    rows: list[ParityRow]
    operators: list[OperatorRow]
    unmatched_baseline: list[UnmatchedEntry]
    unmatched_candidate: list[UnmatchedEntry]
    coverage: dict[str, Any]
    projection: Projection
    baseline_latency: pct.LatencyEstimate
    candidate_latency: pct.LatencyEstimate
    per_iteration: bool
    totals: dict[str, Any]
    model: str = ""  # how projected_ms was obtained, in words
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    user_map: str | None = None
    outliers: list[Outlier] = field(default_factory=list)
    overall_ratio: float | None = None  # matched candidate ÷ baseline kernel time (the outliers' expectation)
    counters: dict[str, Any] | None = None  # per side: counter source, part limits, what to collect (profiles/counters.py)
    replay: Any = None  # whatif.CompareProjection: the replay (or labelled additive) projection and model check
    #: the library fast path: per-side library coverage, hot library rows, advice (profiles/library_advice.py)
    libraries: dict[str, Any] | None = None
    interval: Any = None  # intervals.ProjectionInterval around the projected (or measured) candidate figure

    @property
    def total_delta_ns(self) -> int:
        return self.totals["candidate_ns"] - self.totals["baseline_ns"]

    @property
    def absolute_change_ns(self) -> float:
        """Σ |Δ| over the matched rows plus all unmatched time on both sides: every change, none cancelling."""
        return float(sum(abs(r.delta_ns) for r in self.rows) + self.totals["baseline_unmatched_ns"]
                     + self.totals["candidate_unmatched_ns"])

    def contribution(self, delta_ns: float) -> float | None:
        """A delta as a signed share of the absolute change (bounded by ±1, unlike a share of the net delta,
        which explodes when gains and losses cancel); None when nothing changed."""
        total = self.absolute_change_ns
        return None if total == 0 else delta_ns / total

    def verdict(self) -> str:
        p = self.projection
        if p.projected_ms is None:
            return "no projection: the profiles hold no latency and no kernels"
        if p.target_ms is None:
            return "no target given"
        if self.interval is not None:
            return self.interval.verdict(p.target_ms)[2]
        return p.target_margin()

    def to_dict(self) -> dict[str, Any]:
        base_total = self.totals["baseline_ns"]
        rows = []
        for r in self.rows:
            d = r.to_dict()
            d["contribution"] = self.contribution(r.delta_ns)
            d["delta_share_of_baseline"] = (r.delta_ns / base_total) if base_total else None
            rows.append(d)
        ops = []
        for o in self.operators:
            d = o.to_dict()
            d["contribution"] = self.contribution(o.delta_ns)
            ops.append(d)
        proj = self.projection.to_dict() | {"verdict": self.verdict(), "model": self.model}
        if self.replay is not None:
            proj["method"] = self.replay.method
            proj["model_check"] = self.replay.model_check
        proj |= iv.interval_fields(self.interval, self.projection.target_ms)
        return {
            "schema": SCHEMA,
            "baseline": self.baseline.to_dict(),
            "candidate": self.candidate.to_dict(),
            "per_iteration": self.per_iteration,
            "time_unit": "ns per iteration" if self.per_iteration else "ns over the whole profile",
            "rows": rows,
            "operators": ops,
            "unmatched_baseline": [u.to_dict() for u in self.unmatched_baseline],
            "unmatched_candidate": [u.to_dict() for u in self.unmatched_candidate],
            "coverage": self.coverage,
            "projection": proj,
            "latency": {"baseline": self.baseline_latency.to_dict(), "candidate": self.candidate_latency.to_dict()},
            "totals": self.totals,
            "user_map": self.user_map,
            "replay": self.replay.to_dict() if self.replay is not None else None,
            "counters": self.counters,
            "libraries": self.libraries,
            "notes": self.notes,
            "warnings": self.warnings,
            "outliers": [o.to_dict() for o in self.outliers],
            "overall_ratio": self.overall_ratio,
            "contribution_basis": "signed share of the absolute change (Σ|Δ| of the matched rows + all unmatched time)",
        }


# --------------------------------------------------------------------------------------------


def _summary(profile: Profile, view: pct.IterationView) -> SideSummary:
    return SideSummary(
        path=profile.path, source_format=profile.source_format, vendor=profile.vendor, device=profile.device,
        kernels=view.kernels.height, kernel_ns=int(view.kernels["duration_ns"].sum() or 0) if view.kernels.height else 0,
        iterations=view.iterations, excluded_kernels=view.excluded_count, excluded_ns=view.excluded_ns,
        metadata=dict(profile.metadata),
    )


def _names_by_time(names: list[str], durs: list[int]) -> list[str]:
    t: dict[str, int] = defaultdict(int)
    for n, d in zip(names, durs):
        t[n] += d or 0
    return [n for n, _ in sorted(t.items(), key=lambda kv: (-kv[1], kv[0]))]


def _unmatched(idx: list[int], names: list[str], ops: list[str | None], durs: list[int], div: int,
               total: float, sigs: list[str | None], op_ids: list[Any]) -> list[UnmatchedEntry]:
    """``total``: the side's analysed kernel time in the same unit as the entries (per iteration when ``div`` > 1)."""
    agg: dict[tuple[str, str | None], list[int]] = defaultdict(list)
    for i in idx:
        agg[(names[i], ops[i])].append(i)
    out = []
    for (name, op), rows in agg.items():
        ns = sum(durs[i] or 0 for i in rows) / div
        out.append(UnmatchedEntry(name, [name], round(ns), len(rows), (ns / total) if total else 0.0, op,
                                  signature_lists(rows, sigs, op_ids, durs, div)[0]))
    out.sort(key=lambda u: (-u.ns, u.label))
    return out


def _pair_vendor_operators(only_base: list[str], only_cand: list[str], ab: dict[str, tuple[int, int, str]],
                           ac: dict[str, tuple[int, int, str]]) -> dict[str, str]:
    """Operators that exist on one side only but are the same work under a vendor's name
    (``aten::cudnn_convolution`` ↔ ``aten::miopen_convolution``): first by name with the vendor words
    removed, then one-to-one within a kernel group when each side has exactly one such operator left."""
    pairs: dict[str, str] = {}
    by_plain: dict[str, list[str]] = {}
    for op in only_cand:
        by_plain.setdefault(strip_vendor_words(op), []).append(op)
    for op in only_base:
        cands = by_plain.get(strip_vendor_words(op), [])
        if len(cands) == 1 and op != NO_OPERATOR:
            pairs[op] = cands[0]
    left_b = [o for o in only_base if o not in pairs and o != NO_OPERATOR]
    left_c = [o for o in only_cand if o not in pairs.values() and o != NO_OPERATOR]
    groups_b: dict[str, list[str]] = {}
    groups_c: dict[str, list[str]] = {}
    for op in left_b:
        groups_b.setdefault(classify(ab[op][2], op), []).append(op)
    for op in left_c:
        groups_c.setdefault(classify(ac[op][2], op), []).append(op)
    for group, ops in groups_b.items():
        other = groups_c.get(group, [])
        if group not in ("", "custom") and len(ops) == 1 and len(other) == 1:
            pairs[ops[0]] = other[0]
    return pairs


def _operator_rows(bdf: pl.DataFrame, cdf: pl.DataFrame, bdiv: int, cdiv: int, base_total: float) -> list[OperatorRow]:
    def agg(df: pl.DataFrame) -> dict[str, tuple[int, int, str]]:
        if df.height == 0:
            return {}
        g = (df.with_columns(pl.col("operator").fill_null(NO_OPERATOR))
             .group_by("operator", maintain_order=True)
             .agg(pl.col("duration_ns").sum().alias("t"), pl.len().alias("n"), pl.col("name").first().alias("nm")))
        return {o: (int(t or 0), int(n), nm or "") for o, t, n, nm in g.iter_rows()}

    def calls(df: pl.DataFrame, div: int) -> dict[str, int | None]:
        """Operator calls per operator per iteration (distinct call ids), None where a kernel lacks one."""
        if df.height == 0 or "operator_id" not in df.columns:
            return {}
        g = (df.with_columns(pl.col("operator").fill_null(NO_OPERATOR))
             .group_by("operator").agg(pl.col("operator_id").n_unique().alias("u"),
                                       pl.col("operator_id").null_count().alias("z")))
        return {o: (round(u / div) if z == 0 else None) for o, u, z in g.iter_rows()}

    ab, ac = agg(bdf), agg(cdf)
    nb, nc = calls(bdf, bdiv), calls(cdf, cdiv)
    pairs = _pair_vendor_operators([o for o in ab if o not in ac], [o for o in ac if o not in ab], ab, ac)
    rows = []
    for op in sorted((set(ab) | set(ac)) - set(pairs) - set(pairs.values())):
        bt, bn, bname = ab.get(op, (0, 0, ""))
        ct, cn, cname = ac.get(op, (0, 0, ""))
        group = classify(bname or cname, None if op == NO_OPERATOR else op)
        rows.append(OperatorRow(op, round(bt / bdiv), round(ct / cdiv), bn, cn, (bt / bdiv / base_total) if base_total else 0.0,
                                group, baseline_calls=nb.get(op), candidate_calls=nc.get(op)))
    for bop, cop in sorted(pairs.items()):
        bt, bn, bname = ab[bop]
        ct, cn, cname = ac[cop]
        group = classify(bname, bop)
        rows.append(OperatorRow(bop, round(bt / bdiv), round(ct / cdiv), bn, cn,
                                (bt / bdiv / base_total) if base_total else 0.0, group, candidate_operator=cop,
                                baseline_calls=nb.get(bop), candidate_calls=nc.get(cop)))
    rows.sort(key=lambda r: (-abs(r.delta_ns), -r.baseline_ns, r.operator))
    return rows


def _projection(base: Profile, cand: Profile, p: float, target_ms: float | None, delta_ms_per_iter: float,
                per_iteration: bool) -> tuple[Projection, pct.LatencyEstimate, pct.LatencyEstimate, str, list[str]]:
    notes: list[str] = []
    if cand.latency_ms:
        bl = pct.iteration_latency(base, p)
        cl = pct.iteration_latency(cand, p, pct.METHOD_CSV)
        model = "measured: the candidate's own per-iteration latencies"
        if bl.method != pct.METHOD_CSV:
            notes.append(f"baseline latency from {bl.method}, candidate from its latency CSV: different methods")
        source = Provenance.MEASURED
        projected = cl.value_ms
        enough, n, note = cl.enough_iterations, cl.iterations, cl.note
    elif base.latency_ms:
        bl = pct.iteration_latency(base, p, pct.METHOD_CSV)
        cl = pct.iteration_latency(cand, p)
        model = (f"estimated: baseline {bl.statistic} latency ({bl.value_ms:.3f} ms, latency CSV) + the mean "
                 f"per-iteration kernel-time delta ({delta_ms_per_iter:+.3f} ms); gaps between kernels assumed unchanged")
        if not per_iteration:
            notes.append("iterations are not marked in both profiles: the kernel-time delta is over the whole "
                         "profiles, treated as one iteration")
        source = Provenance.ESTIMATED
        projected = None if bl.value_ms is None else bl.value_ms + delta_ms_per_iter
        enough, n, note = bl.enough_iterations, bl.iterations, bl.note
    else:
        bm, cm = pct.available_methods(base), pct.available_methods(cand)
        method = pct.METHOD_SPANS if (pct.METHOD_SPANS in bm and pct.METHOD_SPANS in cm) else pct.METHOD_KERNEL_SUM
        bl = pct.iteration_latency(base, p, method)
        cl = pct.iteration_latency(cand, p, method)
        if method == pct.METHOD_SPANS:
            model = "measured: per-iteration GPU spans of each profile's kernels (gaps between kernels counted)"
            source = Provenance.MEASURED
        else:
            model = ("estimated: per-iteration kernel time of each profile (no latency CSV, no iteration spans on "
                     "both sides); kernel time is not latency, gaps between kernels are not counted")
            source = Provenance.ESTIMATED
        projected = cl.value_ms
        enough = bl.enough_iterations and cl.enough_iterations
        n = min(bl.iterations, cl.iterations)
        note = "; ".join(x for x in (("baseline: " + bl.note) if bl.note else "",
                                     ("candidate: " + cl.note) if cl.note else "") if x)
    proj = Projection(percentile=p, baseline_ms=bl.value_ms, projected_ms=projected, target_ms=target_ms,
                      source=source, iterations=n, enough_iterations=enough, note=note)
    return proj, bl, cl, model, notes


def compare_profiles(base: Profile, cand: Profile, user_map: UserMap | None = None, percentile: float = 99.0,
                     target_ms: float | None = None, base_timeline: Any = None, cand_timeline: Any = None,
                     launch_overhead_us: float = 0.0, timeline_notes: list[str] | None = None) -> ComparisonResult:
    """Per-kernel and per-operator parity of ``cand`` against ``base``, and the projection at ``percentile``."""
    with_counters = base.counters is not None or cand.counters is not None
    if with_counters:  # carry each kernel's row through the iteration view, to find its counters again
        bview = pct.iteration_view(replace(base, kernels=base.kernels.with_row_index(ROW_ID)))
        cview = pct.iteration_view(replace(cand, kernels=cand.kernels.with_row_index(ROW_ID)))
    else:
        bview, cview = pct.iteration_view(base), pct.iteration_view(cand)
    per_iteration = bview.known and cview.known
    notes: list[str] = []
    if per_iteration:
        bdiv, cdiv = bview.divisor, cview.divisor
        notes.append(f"times are per iteration: baseline totals ÷ {bdiv} iteration{'s' if bdiv != 1 else ''}, "
                     f"candidate totals ÷ {cdiv}")
    else:
        bdiv = cdiv = 1
        if bview.known != cview.known:
            notes.append("iterations are marked in one profile only: times are totals over each whole profile")
        else:
            notes.append("no iteration markers: times are totals over each whole profile")
    for side, view in (("baseline", bview), ("candidate", cview)):
        if view.inferred_period:
            notes.append(f"{side}: no iteration markers; iterations inferred from the repeating launch sequence "
                         f"({view.inferred_period} launches per iteration, {view.iterations} complete; estimated)")
        if view.excluded_count:
            notes.append(f"{side}: {view.excluded_count} kernels ({view.excluded_ns / 1e6:.3f} ms) outside every "
                         f"iteration left out")

    bdf, cdf = bview.kernels, cview.kernels
    result: MatchResult = match_kernels(bdf, cdf, user_map)

    bnames = [n or r or "" for n, r in zip(bdf["name"].to_list(), bdf["raw_name"].to_list())]
    cnames = [n or r or "" for n, r in zip(cdf["name"].to_list(), cdf["raw_name"].to_list())]
    bdur = [int(d or 0) for d in bdf["duration_ns"].to_list()]
    cdur = [int(d or 0) for d in cdf["duration_ns"].to_list()]
    bops = bdf["operator"].to_list()
    cops = cdf["operator"].to_list()
    bsigs, csigs = _optional(bdf, "operator_signature"), _optional(cdf, "operator_signature")
    bids, cids = _optional(bdf, "operator_id"), _optional(cdf, "operator_id")
    signed = [any(x is not None for x in sigs) for sigs in (bsigs, csigs)]
    if signed[0] != signed[1]:
        side, other = ("candidate", "baseline") if signed[0] else ("baseline", "candidate")
        notes.append(f"the {side} has no operator call signatures (a CUDA-graph replay, or a trace recorded without "
                     f"record_shapes): kernels pair by name, not per call, and a row holding several of the {other}'s "
                     "signatures says 'mixed signatures'")
    btotal_raw, ctotal_raw = sum(bdur), sum(cdur)
    btotal, ctotal = btotal_raw / bdiv, ctotal_raw / cdiv

    rows: list[ParityRow] = []
    for u in result.units:
        bns = sum(bdur[i] for i in u.baseline) / bdiv
        cns = sum(cdur[i] for i in u.candidate) / cdiv
        bsl, bcalls = signature_lists(u.baseline, bsigs, bids, bdur, bdiv)
        csl, ccalls = signature_lists(u.candidate, csigs, cids, cdur, cdiv)
        sig = decode(u.signature)
        rows.append(ParityRow(
            level=u.level, label=u.label,
            baseline_names=_names_by_time([bnames[i] for i in u.baseline], [bdur[i] for i in u.baseline]),
            candidate_names=_names_by_time([cnames[i] for i in u.candidate], [cdur[i] for i in u.candidate]),
            baseline_ns=round(bns), candidate_ns=round(cns),
            baseline_count=len(u.baseline), candidate_count=len(u.candidate),
            share=(bns / btotal) if btotal else 0.0, operator=u.operator, per_iteration=per_iteration,
            signature=sig.to_dict() if sig else None, signature_scope=u.scope if sig else None,
            mixed_signatures=u.mixed if u.mixed > 1 else 0, baseline_signatures=bsl, candidate_signatures=csl,
            signature_match=("dims" if u.relaxed else "full") if sig else None,
            baseline_calls=bcalls, candidate_calls=ccalls,
        ))
        rows[-1].flags = guard(rows[-1])
    counters = None
    if with_counters:
        counters = attach_to_rows(((r, u.baseline, u.candidate) for r, u in zip(rows, result.units)), base, cand,
                                  [int(i) for i in bdf[ROW_ID].to_list()], [int(i) for i in cdf[ROW_ID].to_list()])
    barch, carch = device_arch(base.metadata, base.device), device_arch(cand.metadata, cand.device)
    attach_libraries(((r, u.baseline, u.candidate) for r, u in zip(rows, result.units)),
                     side_table(bdf, bdiv, barch), side_table(cdf, cdiv, carch))
    rows.sort(key=lambda r: (-abs(r.delta_ns), -r.baseline_ns, r.label))

    ub = _unmatched(result.unmatched_baseline(), bnames, bops, bdur, bdiv, btotal_raw / bdiv, bsigs, bids)
    uc = _unmatched(result.unmatched_candidate(), cnames, cops, cdur, cdiv, ctotal_raw / cdiv, csigs, cids)

    matched_b = sum(r.baseline_ns for r in rows)
    matched_c = sum(r.candidate_ns for r in rows)
    by_level: dict[str, float] = {lvl.value: 0.0 for lvl in MatchLevel if lvl != MatchLevel.UNMATCHED}
    by_level_c: dict[str, float] = dict(by_level)
    for r in rows:
        by_level[r.level.value] += (r.baseline_ns / btotal) if btotal else 0.0
        by_level_c[r.level.value] += (r.candidate_ns / ctotal) if ctotal else 0.0
    bexcl = _excluded(base, bview)
    cexcl = _excluded(cand, cview)
    coverage = {
        "basis": "in-iteration kernel time" if per_iteration else "kernel time of the whole profile",
        "baseline_excluded_ns": bview.excluded_ns, "candidate_excluded_ns": cview.excluded_ns,
        "baseline_excluded_kernels": bview.excluded_count, "candidate_excluded_kernels": cview.excluded_count,
        "baseline_excluded_before_ns": bexcl[0], "baseline_excluded_after_ns": bexcl[1],
        "candidate_excluded_before_ns": cexcl[0], "candidate_excluded_after_ns": cexcl[1],
        "baseline_file_kernel_ns": btotal_raw + bview.excluded_ns, "candidate_file_kernel_ns": ctotal_raw + cview.excluded_ns,
        "baseline_in_iteration_share_of_file": (btotal_raw / (btotal_raw + bview.excluded_ns)) if btotal_raw + bview.excluded_ns else None,
        "candidate_in_iteration_share_of_file": (ctotal_raw / (ctotal_raw + cview.excluded_ns)) if ctotal_raw + cview.excluded_ns else None,
        "baseline_time_matched": (matched_b / btotal) if btotal else 0.0,
        "candidate_time_matched": (matched_c / ctotal) if ctotal else 0.0,
        "baseline_kernels_matched": sum(r.baseline_count for r in rows),
        "candidate_kernels_matched": sum(r.candidate_count for r in rows),
        "baseline_by_level": by_level,
        "candidate_by_level": by_level_c,
    }
    totals = {
        "baseline_ns": round(btotal), "candidate_ns": round(ctotal),
        "baseline_kernels": bdf.height, "candidate_kernels": cdf.height,
        "baseline_matched_ns": matched_b, "candidate_matched_ns": matched_c,
        "baseline_unmatched_ns": sum(u.ns for u in ub), "candidate_unmatched_ns": sum(u.ns for u in uc),
        "delta_ns": round(ctotal) - round(btotal),
        "ratio": (ctotal / btotal) if btotal else None,
        "per_iteration": per_iteration,
        "baseline_iterations": bview.iterations, "candidate_iterations": cview.iterations,
    }
    delta_ms = (ctotal - btotal) / 1e6
    proj, bl, cl, model, pnotes = _projection(base, cand, percentile, target_ms, delta_ms, per_iteration)
    warnings = pct.noise_warnings(bl, cl) + list(base.warnings) + list(cand.warnings)
    replay = _replay_projection(base, cand, percentile, bdf, result, bdur, cdur, bdiv, cdiv, delta_ms, base_timeline,
                                cand_timeline, launch_overhead_us, timeline_notes)
    if replay is not None:
        if not cand.latency_ms:
            proj.projected_ms = replay.projected_ms
            model = replay.model
        pnotes += replay.notes
        warnings += replay.warnings
    interval = _interval(proj, bl, cl, replay, base, cand, p=percentile)
    warnings += _flag_warnings(rows)
    cand_label = cand.device or cand.vendor
    outliers, overall = find_outliers(rows, ctotal, cand_label, cand.vendor)
    lib_coverage = {"baseline": library_coverage(bdf) | {"device_arch": barch},
                    "candidate": library_coverage(cdf) | {"device_arch": carch}}
    return ComparisonResult(
        baseline=_summary(base, bview), candidate=_summary(cand, cview), rows=rows,
        operators=_operator_rows(bdf, cdf, bdiv, cdiv, btotal),
        unmatched_baseline=ub, unmatched_candidate=uc, coverage=coverage, projection=proj,
        baseline_latency=bl, candidate_latency=cl, per_iteration=per_iteration, totals=totals, model=model,
        notes=notes + pnotes, warnings=warnings, user_map=user_map.path if user_map else None, replay=replay,
        outliers=outliers, overall_ratio=overall,
        counters=counters, libraries=library_section(rows, outliers, ctotal, lib_coverage), interval=interval,
    )


def _interval(proj: Projection, bl: pct.LatencyEstimate, cl: pct.LatencyEstimate, replay: Any, base: Profile,
              cand: Profile, p: float) -> Any:
    """The interval around the candidate figure: its own latency CSV's bootstrap interval when measured, else the
    baseline's carried through the projection with the model's own error (``profiles.intervals``)."""
    if cand.latency_ms and cl.method == pct.METHOD_CSV:
        if not cl.enough_iterations:  # the figure is the maximum, not the percentile: no interval for it
            return None
        return iv.interval_for(proj.projected_ms, cl.stability(), iv.METHOD_MEASURED, p)
    if replay is None or bl.method != pct.METHOD_CSV or not bl.enough_iterations:
        return None
    if replay.method != "timeline-replay" or replay.replay is None:
        method = iv.METHOD_ADDITIVE
    else:
        method = iv.METHOD_OWN if replay.replay.strategy == STRATEGY_OWN else iv.METHOD_MATCHED
    low = replay.replay.projected_low_ms if replay.replay is not None else None
    host_st = None
    cal = replay.replay.calibration if replay.replay is not None else None
    host = base.attachments.get("latency_host_ms")
    if cal is not None and cal.anchor == "host" and host and p > 50.0:
        host_st = assess(host, p, bl.rounds)
    span = replay.replay.host_ratio_span_ms if replay.replay is not None else None
    factors = replay.replay.host_ratio_factors if replay.replay is not None else None
    rounds = replay.replay.host_ratio_rounds if replay.replay is not None else None
    return iv.interval_for(proj.projected_ms, bl.stability(), method, p, bl.value_ms, low_bound_ms=low,
                           host_stability=host_st, host_ratio_span_ms=span, host_ratio_factors=factors,
                           host_ratio_rounds=rounds)


#: flagged rows named one by one in the warnings; the rest are counted (their ``flags`` are in the rows)
FLAG_WARNINGS = 3


def _flag_warnings(rows: list[ParityRow]) -> list[str]:
    """One warning per flagged row (the largest changes first), at most ``FLAG_WARNINGS``, then a count."""
    flagged = [r for r in rows if r.flags]
    out = []
    for r in flagged[:FLAG_WARNINGS]:
        label = r.label
        if len(label) > 80:
            base, _, suffix = label.partition(" (mixed signatures")
            label = abbreviate(base, 60) + (f" (mixed signatures{suffix}" if suffix else "")
        ratio = f"; its ratio {r.ratio:.2f}× is not like for like" if r.ratio is not None else ""
        out.append(f"row {label!r} ({r.level.value}): {'; '.join(r.flags)}{ratio}")
    if len(flagged) > FLAG_WARNINGS:
        out.append(f"{len(flagged) - FLAG_WARNINGS} more rows are not like for like (mixed signatures, different call "
                   "counts or an extreme ratio with lopsided kernel counts): their 'flags' in --json say why")
    return out


def _optional(df: pl.DataFrame, col: str) -> list[Any]:
    """An optional kernel column (``model.OPTIONAL_KERNEL_COLUMNS``) as a list, all None when absent."""
    return df[col].to_list() if col in df.columns else [None] * df.height


def _excluded(profile: Profile, view: pct.IterationView) -> tuple[int, int]:
    """Kernel time outside every iteration: (before the first iteration's first kernel, after or between)."""
    if not view.excluded_count or not view.known or view.kernels.height == 0:
        return 0, int(view.excluded_ns)
    df = pct.kernels_with_iterations(profile)
    first = view.kernels["start_ns"].min()
    if first is None:
        return 0, int(view.excluded_ns)
    out = df.filter(pl.col("iteration").is_null())
    before = int(out.filter(pl.col("start_ns") < first)["duration_ns"].sum() or 0)
    return before, int(view.excluded_ns) - before


def _replay_projection(base: Profile, cand: Profile, p: float, bdf: pl.DataFrame, result: MatchResult,
                       bdur: list[int], cdur: list[int], bdiv: int, cdiv: int, delta_ms: float, base_tl: Any,
                       cand_tl: Any, launch_overhead_us: float, timeline_notes: list[str] | None) -> Any:
    """The timeline replay (or the labelled additive model) from the baseline's latency CSV (``profiles.whatif``)."""
    if not base.latency_ms:
        return None
    bl = pct.iteration_latency(base, p, pct.METHOD_CSV)
    additive = None if bl.value_ms is None else bl.value_ms + delta_ms
    additive_model = (f"estimated: baseline {bl.statistic} latency (latency CSV) + the mean per-iteration kernel-time "
                      f"delta ({delta_ms:+.3f} ms)")
    # per baseline kernel row: candidate ÷ baseline time of its matched unit (unmatched baseline work removed,
    # unmatched candidate work spread over the matched kernels)
    ratio = np.zeros(bdf.height)
    matched_c = sum(sum(cdur[i] for i in u.candidate) for u in result.units) / cdiv
    unmatched_c = sum(cdur[i] for i in result.unmatched_candidate()) / cdiv
    spread = (matched_c + unmatched_c) / matched_c if matched_c else 1.0
    for u in result.units:
        bns = sum(bdur[i] for i in u.baseline) / bdiv
        cns = sum(cdur[i] for i in u.candidate) / cdiv
        for i in u.baseline:
            ratio[i] = (cns / bns * spread) if bns else 1.0
    # the candidate's host time measured beside its trace, and the baseline's in the same spell when the capture
    # timed the two alternately (capture.json)
    bh, ch = base.attachments.get("trace_host"), cand.attachments.get("trace_host")
    paired = bool(ch and bh and ch.reference and ch.reference == bh.variant)
    same_spell = ch.same_spell_ratio if ch and paired else None
    return compare_projection(base.latency_ms, cand.latency_ms, p, additive, additive_model, bl.statistic, base_tl,
                              cand_tl, bdf, ratio, launch_overhead_us, timeline_notes,
                              base_host_ms=base.attachments.get("latency_host_ms"),
                              cand_host_ms=ch.unprofiled_ms if ch else None, cand_host_ratio=same_spell,
                              cand_host_spell=ch.same_spell if ch and paired else None)
