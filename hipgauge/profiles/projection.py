"""Slack per kernel group against a latency target, and what-if projections, from one baseline profile.

With L the baseline's end-to-end latency at the percentile (``profiles.percentiles``), T the target
and t_g a group's kernel time per iteration, the group alone may run ``1 + (T − L) / t_g`` times
slower before the projected latency reaches T (all else equal, gaps between kernels unchanged).
When L > T the target is already missed and there is no slack (``max_ratio`` None).

``--assume PATTERN=RATIO`` applies ratios (fnmatch patterns over group names, or over kernel
names/keys; a kernel pattern beats a group pattern, a later pattern beats an earlier one of the
same kind) and projects ``L + Σ_k t_k (r_k − 1)``.
"""

from __future__ import annotations

import fnmatch
import math
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from hipgauge.errors import InputError
from hipgauge.model import GroupSlack, Profile, Projection, Provenance
from hipgauge.profiles.library_priors import library_priors
from hipgauge.profiles import intervals as iv
from hipgauge.profiles import percentiles as pct
from hipgauge.profiles.grouping import GROUP_COLUMN, add_groups
from hipgauge.profiles.whatif import project_with_replay

SCHEMA = "hipgauge.project/1"


def parse_assume(items: list[str] | None) -> dict[str, float]:
    """``['conv*=1.4', 'gemm=0.9']`` → ``{'conv*': 1.4, 'gemm': 0.9}``; InputError on a bad item."""
    out: dict[str, float] = {}
    for item in items or []:
        if "=" not in item:
            raise InputError(f"--assume {item!r}: expected PATTERN=RATIO, e.g. 'conv*=1.4'")
        pattern, _, value = item.rpartition("=")
        pattern = pattern.strip()
        if not pattern:
            raise InputError(f"--assume {item!r}: the pattern is empty")
        try:
            ratio = float(value.strip().rstrip("xX×"))
        except ValueError:
            raise InputError(f"--assume {item!r}: {value.strip()!r} is not a number") from None
        if not (ratio > 0 and math.isfinite(ratio)):
            raise InputError(f"--assume {item!r}: the ratio must be a positive number")
        out[pattern] = ratio
    return out


@dataclass
class ProjectionResult:
    profile: str
    groups: list[GroupSlack]
    projection: Projection
    latency: pct.LatencyEstimate
    kernel_ms_per_iteration: float
    iterations: int  # of the kernel profile, 0 when unknown
    assume: dict[str, float] = field(default_factory=dict)
    unmatched_patterns: list[str] = field(default_factory=list)
    model: str = ""
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    replay: dict[str, Any] | None = None  # whatif.ReplayProjection.to_dict() when a timeline was replayed
    slack_method: str = "linear: 1 + (T − L) / t_group"
    #: (group, ratio) -> projected ms by the timeline replay; None without a timeline (then L + t_g (r − 1))
    group_at: Any = field(default=None, repr=False)
    #: the library-backed hot operators with their priors (prior, not measured: profiles/library_priors.py)
    library_priors: dict[str, Any] | None = None
    #: the interval around the projected figure (``profiles.intervals``); None without a latency CSV
    interval: iv.ProjectionInterval | None = None
    #: group → the max slowdown that still meets the target at the upper end of the interval
    sure_ratio: dict[str, float | None] = field(default_factory=dict)
    #: the target less the interval's upper half-width (a what-if's model error included): the slack's sure target
    sure_target_ms: float | None = None
    #: the baseline percentile's stability (bootstrap interval) the intervals are made from; None without a CSV
    stability: Any = field(default=None, repr=False)

    def what_if(self, group: str, ratio: float) -> dict[str, Any]:
        """The latency at the percentile when only ``group`` runs ``ratio``× slower, with its interval: the
        baseline percentile's sampling and the what-if model's error on the change (``assumed`` with a timeline
        replay, else ``assumed-additive``), as ``--assume GROUP=RATIO`` would print it."""
        L, T = self.latency.value_ms, self.projection.target_ms
        if self.group_at is not None:
            projected, method = self.group_at(group, ratio), iv.METHOD_ASSUMED
        else:
            g = next((g for g in self.groups if g.name == group), None)
            projected = None if L is None or g is None else L + g.time_ms * (ratio - 1)
            method = iv.METHOD_ASSUMED_ADDITIVE
        row: dict[str, Any] = {"ratio": ratio, "projected_ms": projected,
                               "meets_target": None if projected is None or T is None else projected <= T}
        fields = iv.interval_fields(iv.interval_for(projected, self.stability, method,
                                                    self.projection.percentile, L), T)
        return row | {"interval_ms": fields["interval_ms"], "target_verdict": fields["target_verdict"]} | (
            {"meets_target": fields["meets_target"]} if "meets_target" in fields else {})

    def verdict(self) -> str:
        p = self.projection
        if p.projected_ms is None:
            return "no latency: the profile holds no kernels and no latencies"
        if p.target_ms is None:
            return "no target given"
        what = "projected" if (self.assume or p.projected_ms != self.latency.value_ms) else "baseline"
        if self.interval is not None:
            return f"{what} {p.projected_ms:.3f} ms {self.interval.verdict(p.target_ms)[2]}"
        return f"{what} {p.projected_ms:.3f} ms {p.target_margin()}"

    def _group_dict(self, g: GroupSlack) -> dict[str, Any]:
        d = g.to_dict()
        L = self.latency.value_ms
        d["share_of_latency"] = (g.time_ms / L) if L else None
        d["max_ratio_at_interval"] = self.sure_ratio.get(g.name)
        return d

    def to_dict(self) -> dict[str, Any]:
        proj = self.projection.to_dict() | {"verdict": self.verdict(), "model": self.model}
        proj |= iv.interval_fields(self.interval, self.projection.target_ms)
        T, X = self.projection.target_ms, self.projection.projected_ms
        proj["slack_ms"] = (T - X) if T is not None and X is not None else None
        proj["slack_interval_ms"] = ([T - self.interval.hi_ms, T - self.interval.lo_ms]
                                     if T is not None and self.interval is not None else None)
        proj["sure_target_ms"] = self.sure_target_ms
        return {
            "schema": SCHEMA,
            "profile": self.profile,
            "iterations": self.iterations,
            "kernel_ms_per_iteration": self.kernel_ms_per_iteration,
            "latency": self.latency.to_dict(),
            "groups": [self._group_dict(g) for g in self.groups],
            "projection": proj,
            "assume": self.assume,
            "unmatched_patterns": self.unmatched_patterns,
            "slack_method": self.slack_method,
            "replay": self.replay,
            "library_priors": self.library_priors,
            "notes": self.notes,
            "warnings": self.warnings,
        }


def _ratio_for(name: str, key: str, group: str, assume: dict[str, float], used: set[str]) -> float | None:
    kernel_hit = group_hit = None
    for pattern, ratio in assume.items():
        p = pattern.lower()
        if fnmatch.fnmatchcase(name.lower(), p) or fnmatch.fnmatchcase(key.lower(), p):
            kernel_hit = (pattern, ratio)
        elif fnmatch.fnmatchcase(group.lower(), p):
            group_hit = (pattern, ratio)
    hit = kernel_hit or group_hit
    if hit is None:
        return None
    used.add(hit[0])
    return hit[1]


def project_baseline(base: Profile, target_ms: float | None, percentile: float = 99.0,
                     assume: dict[str, float] | None = None, timeline: Any = None, launch_overhead_us: float = 0.0,
                     timeline_notes: list[str] | None = None) -> ProjectionResult:
    """Per-group share and slack of ``base`` against ``target_ms``, and the what-if projection; with the
    profile's ``timeline`` both come from a timeline replay (``profiles.whatif``), else from the additive model."""
    assume = dict(assume or {})
    latency = pct.iteration_latency(base, percentile)
    view = pct.iteration_view(base)
    df = add_groups(view.kernels)
    div = view.divisor
    notes: list[str] = []
    if view.known and view.inferred_period:
        notes.append(f"no iteration markers in the profile: iterations inferred from the repeating launch sequence "
                     f"({view.inferred_period} launches per iteration, {view.iterations} complete iterations; "
                     f"estimated); kernel times are per iteration")
    elif view.known:
        notes.append(f"kernel times are per iteration: totals ÷ {view.iterations} iterations of the profile")
    else:
        notes.append("no iteration markers in the profile: its whole kernel time is treated as one iteration")
    if view.excluded_count:
        notes.append(f"{view.excluded_count} kernels ({view.excluded_ns / 1e6:.3f} ms) outside every iteration left out")
    if latency.method != pct.METHOD_KERNEL_SUM:
        notes.append("kernel time is not latency: slack is measured against the end-to-end latency, and gaps "
                     "between kernels are assumed unchanged")

    total_ns = float(df["duration_ns"].sum() or 0) if df.height else 0.0
    kernel_ms = total_ns / div / 1e6
    L = latency.value_ms
    T = target_ms
    # the percentile's interval (not when the figure is the maximum of too few iterations)
    stability = latency.stability() if latency.method == pct.METHOD_CSV and latency.enough_iterations else None
    # the slack that holds at the upper end of the projection's interval (the baseline's sampling, and a what-if's
    # model error when --assume or a launch cost changes the projection)
    will_replay = timeline is not None and df.height > 0
    what_if = bool(assume) or (will_replay and bool(launch_overhead_us))
    method = (iv.METHOD_ASSUMED if will_replay else iv.METHOD_ASSUMED_ADDITIVE) if what_if else iv.METHOD_MEASURED
    pre_iv = iv.interval_for(L, stability, method, percentile, L)
    sure_T = iv.target_with_margin(pre_iv, T) if pre_iv is not None and T is not None else None

    # per-kernel (name, key, group) time, for groups and for --assume
    per_kernel = (
        df.with_columns(pl.col("name").fill_null(pl.col("raw_name")).fill_null(""), pl.col("key").fill_null(""))
        .group_by(["name", "key", GROUP_COLUMN], maintain_order=True).agg(pl.col("duration_ns").sum().alias("t"))
        if df.height else pl.DataFrame({"name": [], "key": [], GROUP_COLUMN: [], "t": []})
    )
    used: set[str] = set()
    group_t: dict[str, float] = {}
    group_weighted: dict[str, float] = {}
    group_kernels: dict[str, list[tuple[float, str]]] = {}
    extra_ms = 0.0
    row_ratio = None
    if timeline is not None and df.height:
        keys = df.with_columns(pl.col("name").fill_null(pl.col("raw_name")).fill_null(""), pl.col("key").fill_null(""))
        probe: set[str] = set()
        row_ratio = [(_ratio_for(n, k, g, assume, probe) or 1.0) if assume else 1.0
                     for n, k, g in keys.select("name", "key", GROUP_COLUMN).iter_rows()]
    for name, key, group, t in per_kernel.iter_rows():
        t_ms = float(t or 0) / div / 1e6
        group_t[group] = group_t.get(group, 0.0) + t_ms
        group_kernels.setdefault(group, []).append((t_ms, key or name))
        r = _ratio_for(name, key, group, assume, used) if assume else None
        ratio = 1.0 if r is None else r
        group_weighted[group] = group_weighted.get(group, 0.0) + t_ms * ratio
        extra_ms += t_ms * (ratio - 1.0)

    groups: list[GroupSlack] = []
    for g, t_ms in sorted(group_t.items(), key=lambda kv: (-kv[1], kv[0])):
        if L is None or T is None or t_ms <= 0:
            max_ratio = None
        elif L > T:
            max_ratio = None
        else:
            max_ratio = 1.0 + (T - L) / t_ms
        assumed = None
        if assume and t_ms > 0:
            w = group_weighted[g] / t_ms
            assumed = w if abs(w - 1.0) > 1e-12 else None
        kernels = [k for _, k in sorted(group_kernels[g], key=lambda x: (-x[0], x[1]))]
        groups.append(GroupSlack(name=g, share=(t_ms / kernel_ms) if kernel_ms else 0.0, time_ms=t_ms,
                                 max_ratio=max_ratio, kernels=kernels, assumed_ratio=assumed))
    if L is not None and T is not None and L > T:
        notes.append(f"the baseline {latency.statistic} ({L:.3f} ms) already misses the {T:g} ms target: no slack")

    unmatched = [p for p in assume if p not in used]
    warnings = pct.noise_warnings(latency) + list(base.warnings)
    for p in unmatched:
        warnings.append(f"--assume pattern {p!r} matches no kernel group or kernel name")

    if assume:
        projected = None if L is None else L + extra_ms
        source = Provenance.ESTIMATED
        model = (f"estimated: baseline {latency.statistic} ({'n/a' if L is None else f'{L:.3f} ms'}, {latency.method}) "
                 f"+ Σ t_k (r_k − 1) over the kernels --assume names ({extra_ms:+.3f} ms per iteration); "
                 f"ratios assumed, gaps between kernels unchanged")
    else:
        projected = L
        source = latency.source
        model = f"the baseline's own {latency.statistic} latency ({latency.method})"
    replay = None
    if row_ratio is not None:
        replay = project_with_replay(timeline, df, GROUP_COLUMN, percentile, base.latency_ms, T, row_ratio,
                                     latency.statistic, launch_overhead_us, sure_target_ms=sure_T,
                                     base_host_ms=base.attachments.get("latency_host_ms"))
    if replay is not None:
        for slack in groups:
            if slack.name in replay.max_ratio:
                slack.max_ratio = replay.max_ratio[slack.name][0]
        what_if = bool(assume) or bool(launch_overhead_us)
        if what_if:
            projected, source = replay.projected_ms, Provenance.ESTIMATED
        model = replay.model if what_if else model + "; slack per group by timeline replay (bisection)"
        notes = [n for n in notes if not n.startswith("kernel time is not latency")] + replay.notes
        lb = replay.replay.launch_bound_note()
        if lb:
            notes.append(lb)
    elif timeline_notes:
        notes += timeline_notes
    proj = Projection(percentile=percentile, baseline_ms=L, projected_ms=projected, target_ms=T, source=source,
                      iterations=latency.iterations, enough_iterations=latency.enough_iterations, note=latency.note)
    if not latency.enough_iterations and latency.value_ms is not None:
        warnings.append(f"{latency.iterations} iterations: {pct.percentile_label(percentile)} needs "
                        f"≥{pct.required_iterations(percentile)}; the figure is the {latency.statistic}")
    result = ProjectionResult(profile=base.path, groups=groups, projection=proj, latency=latency,
                              kernel_ms_per_iteration=kernel_ms, iterations=view.iterations, assume=assume,
                              unmatched_patterns=unmatched, model=model, notes=notes, warnings=warnings)
    result.library_priors = library_priors(view.kernels)
    result.replay = replay.replay.to_dict() if replay is not None else None
    result.group_at = replay.group_at if replay is not None else None
    result.slack_method = "timeline replay, bisection" if replay is not None else "linear: 1 + (T − L) / t_group"
    if what_if:
        method = iv.METHOD_ASSUMED if replay is not None else iv.METHOD_ASSUMED_ADDITIVE
    result.interval = iv.interval_for(projected, stability, method, percentile, L)
    result.stability = stability
    result.sure_target_ms = sure_T
    if sure_T is not None and L is not None:
        for slack in groups:
            if replay is not None and slack.name in replay.sure_ratio:
                result.sure_ratio[slack.name] = replay.sure_ratio[slack.name][0]
            elif slack.time_ms > 0:
                result.sure_ratio[slack.name] = (1.0 + (sure_T - L) / slack.time_ms) if sure_T >= L else None
    return result
