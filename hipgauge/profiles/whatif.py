"""End-to-end projections from a timeline replay (``profiles.replay``), for ``compare`` and ``project``.

How the replay and the measured latency distribution combine (``replay.combine``):

1. the baseline's host time is calibrated (α) so its replayed median iteration equals the median of
   its latency CSV (without a CSV: α = 1, host time as profiled, against the profiled iteration spans);
2. the candidate is replayed with the same α: its own timeline when it has one (``compare`` with a
   Kineto / Nsight Systems candidate), else the baseline's timeline with each kernel's duration
   replaced by its matched candidate duration (``compare``) or by baseline × ratio (``project --assume``);
3. the projected percentile is ``rule_words(rule)``, the rule chosen by validation on H200 pairs
   (docs/matching.md).

Profiles without a timeline keep the additive model, and say so.
"""

from __future__ import annotations

import math

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hipgauge.profiles import intervals as iv
from hipgauge.profiles import percentiles as pct
from hipgauge.profiles import replay as rp
from hipgauge.profiles.spell_ratio import SpellRatio, transfer_factors

STRATEGY_OWN = "candidate's own timeline"
STRATEGY_MATCHED = "baseline timeline, each kernel at its matched candidate duration"
STRATEGY_ASSUMED = "baseline timeline, kernels at baseline × assumed ratio"
#: a baseline replay whose host share of the critical path is below this (GPU-bound: replay.MIN_HOST_SHARE) hides
#: its host speed (α is only bounded above), and a candidate replay whose host share is at least
#: UNIDENTIFIED_CAND_HOST_SHARE moves with it: then the projection is a range (``projected_low_ms``). On an H200 run
#: ConvNeXt-T fp32 (host share 0.01) -> bf16 (1.00) was projected at 11.5 ms for 5.15 measured with α at its bound
#: (tests/data/h200/harness/rounds6); a weakly GPU-bound baseline (EfficientNet-B0 fp32, host share 0.10 -> fp16
#: channels_last 1.00: +15%) is not caught by this and is left to the model's error
UNIDENTIFIED_BASE_HOST_SHARE = rp.MIN_HOST_SHARE
UNIDENTIFIED_CAND_HOST_SHARE = 0.5
ADDITIVE_CAVEAT = ("additive model (no timeline in the profile): gaps between kernels are assumed unchanged, so on a "
                   "launch-bound workload a kernel speed-up reaches latency only partly and this over-states it")


@dataclass
class ReplayProjection:
    """The candidate at a percentile from a replay, with what went into it."""

    percentile: float
    baseline_ms: float | None  # measured baseline at the percentile (the latency CSV), or the profiled spans
    projected_ms: float | None
    rule: str
    strategy: str
    calibration: rp.Calibration | None
    baseline_replay_ms: float
    candidate_replay_ms: float
    launch_overhead_us: float = 0.0
    baseline_host_share: float = 0.0
    candidate_host_share: float = 0.0
    baseline_median_ms: float | None = None  # measured (latency CSV)
    baseline_iterations: list[rp.IterationResult] = field(default_factory=list)
    candidate_iterations: list[rp.IterationResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: when the baseline is GPU-bound (its host speed unprofiled is only bounded) and the candidate host-paced: the
    #: projection with the candidate's host nearly free, the other end of what the data allow
    projected_low_ms: float | None = None
    #: the candidate's host scale when it was set by its own host time measured beside its trace
    candidate_calibration: rp.Calibration | None = None
    #: how the host was measured, in words, for the text outputs (the anchor of α; the candidate's host time)
    host_notes: list[str] = field(default_factory=list)
    #: the projection with the candidate's same-spell host ratio taken ``host_transfer`` lower and higher
    #: (``[host_transfer]`` of measurement.toml): how far the one spell's ratio can move the figure
    host_ratio_span_ms: tuple[float, float] | None = None
    #: the relative moves of the ratio behind that span (below, above): ``[host_transfer]``, or the ratio's own
    #: interval over the capture's rounds where that is wider (``spell_ratio.transfer_factors``)
    host_ratio_factors: tuple[float, float] | None = None
    host_ratio_rounds: int | None = None  # the rounds the same-spell ratio rests on (None: unknown)

    def model(self, base_stat: str) -> str:
        anchored = self.calibration is not None and self.calibration.anchor == "host" and self.rule == rp.RULE_HOST_TAIL
        words = (rp.HOST_ANCHORED_WORDS if anchored else rp.rule_words(self.rule, self.baseline_host_share))
        s = (f"estimated by timeline replay ({self.strategy}): {words}; "
             f"replayed medians "
             f"{self.baseline_replay_ms:.3f} → {self.candidate_replay_ms:.3f} ms, host share of the critical path "
             f"{self.baseline_host_share:.2f} → {self.candidate_host_share:.2f}; baseline {base_stat}")
        if self.calibration is not None:
            s += "; " + self.calibration.describe()
        else:
            s += "; host time as profiled (no latency CSV to calibrate against)"
        if self.launch_overhead_us:
            s += f"; launch cost {self.launch_overhead_us:+g} µs per launch (assumed)"
        return s

    def launch_bound_note(self) -> str | None:
        it = self.candidate_iterations or self.baseline_iterations
        if not it:
            return None
        share = float(np.median([r.idle_ns / r.replayed_ns for r in it if r.replayed_ns])) if it else 0.0
        if share >= 0.2:
            return (f"launch-bound: the GPU idles {100 * share:.0f}% of the replayed iteration waiting on the host, "
                    f"so kernel speed-ups reach latency only partly")
        return None

    def to_dict(self) -> dict[str, Any]:
        base_by_it = {r.iteration: r for r in self.baseline_iterations}
        iters = []
        for r in self.candidate_iterations or self.baseline_iterations:
            d: dict[str, Any] = {"iteration": r.iteration}
            b = base_by_it.get(r.iteration) if self.candidate_iterations else r
            if b is not None:
                d["baseline_replayed_ms"] = b.replayed_ns / 1e6
                d["baseline_gpu_idle_on_host_ms"] = b.idle_ns / 1e6
            if self.candidate_iterations:
                d.update({"candidate_" + k: v for k, v in r.to_dict().items() if k != "iteration"})
            else:
                d.update({k: v for k, v in r.to_dict().items() if k != "iteration"})
            iters.append(d)
        return {
            "model": "timeline-replay",
            "strategy": self.strategy,
            "rule": self.rule,
            "rule_words": (rp.HOST_ANCHORED_WORDS if self.calibration is not None and self.calibration.anchor == "host"
                           and self.rule == rp.RULE_HOST_TAIL else rp.rule_words(self.rule, self.baseline_host_share)),
            "percentile": self.percentile,
            "baseline_ms": self.baseline_ms,
            "projected_ms": self.projected_ms,
            "baseline_replay_median_ms": self.baseline_replay_ms,
            "candidate_replay_median_ms": self.candidate_replay_ms,
            "baseline_host_share": self.baseline_host_share,
            "candidate_host_share": self.candidate_host_share,
            "baseline_measured_median_ms": self.baseline_median_ms,
            "calibration": self.calibration.to_dict() if self.calibration else None,
            "candidate_calibration": self.candidate_calibration.to_dict() if self.candidate_calibration else None,
            "launch_overhead_us": self.launch_overhead_us,
            "launch_overhead_source": "assumed" if self.launch_overhead_us else None,
            "iterations": iters,
            "launch_bound": self.launch_bound_note(),
            "projected_low_ms": self.projected_low_ms,
            "host_ratio_span_ms": list(self.host_ratio_span_ms) if self.host_ratio_span_ms else None,
            "host_ratio_factors": list(self.host_ratio_factors) if self.host_ratio_factors else None,
            "host_ratio_rounds": self.host_ratio_rounds,
            "notes": self.notes,
        }


@dataclass
class Reference:
    """The baseline's measured value at the percentile and its median, and the host calibration."""

    value: float | None
    median: float | None
    calibration: rp.Calibration | None
    notes: list[str] = field(default_factory=list)
    #: the baseline's host time at the percentile over its median, less one (host_ms), when α is anchored on it
    host_tail: float | None = None
    #: what was decided about the host from its measured time, in words (also in ``notes``)
    host_notes: list[str] = field(default_factory=list)

    @property
    def host_anchored(self) -> bool:
        return self.calibration is not None and self.calibration.anchor == "host"


def baseline_reference(base_latency_ms: list[float] | None, graph: rp.ReplayGraph, p: float,
                       launch_ns: float = 0.0, host_ms: list[float] | None = None) -> Reference:
    """The baseline at the percentile and its median, and the calibration (None without a latency CSV). With the
    host time of each forward call (``host_ms``, unprofiled) the host scale α is anchored on it while the host
    finished clearly before the device (``rp.HOST_ANCHOR_MAX_SHARE``), else on the measured median latency."""
    if base_latency_ms:
        values = list(base_latency_ms)
        med = pct.percentile(values, 50.0)
        notes: list[str] = []
        if host_ms and len(host_ms) == len(values):
            host_med = pct.percentile(list(host_ms), 50.0)
            if host_med < rp.HOST_ANCHOR_MAX_SHARE * med:
                at_p = pct.summarize(list(host_ms), p)[0]
                tail = at_p / host_med - 1.0 if at_p is not None and host_med > 0 else None
                return Reference(pct.summarize(values, p)[0], med, rp.calibrate_host(graph, host_med, med, launch_ns),
                                 host_tail=tail)
            notes.append(f"the baseline's host time ({host_med:.3f} ms median, host_ms) is {host_med / med:.0%} of its "
                         f"latency: the host may have waited for the device, so α is set by the latency instead")
            return Reference(pct.summarize(values, p)[0], med, rp.calibrate(graph, med, launch_ns), notes,
                             host_notes=list(notes))
        return Reference(pct.summarize(values, p)[0], med, rp.calibrate(graph, med, launch_ns), notes)
    spans = [g.profiled_ns / 1e6 for g in graph.iterations]
    if not spans:
        return Reference(None, None, None)
    return Reference(pct.summarize(spans, p)[0], pct.percentile(spans, 50.0), None,
                     ["no latency CSV: the baseline is its profiled iteration spans (profiler overhead included)"])


def host_tail_ms(ref: Reference, graph: rp.ReplayGraph, durations: np.ndarray | None, alpha: float,
                 launch_ns: float, side: rp.Side) -> float | None:
    """A GPU-bound baseline anchored on its host time hides its host's jitter from its latency; a candidate meets
    it as far as a slower host reaches its critical path. The candidate's tail from it: its replayed median with the
    host as slow as the baseline's host time at the percentile (over its median), less its replayed median. The
    replay, not the candidate's host share at its median, says it: a candidate GPU-bound at its median turns
    host-paced in a spell twice as slow (VGG-16 TF32 on the H200)."""
    if not ref.host_anchored or ref.host_tail is None or ref.host_tail <= 0:
        return None
    slow = rp.replay_side(graph.sample(), durations, alpha * (1.0 + ref.host_tail), launch_ns)
    return max(slow.median_ms - side.median_ms, 0.0)


def project_replay(base_graph: rp.ReplayGraph, base_latency_ms: list[float] | None, p: float, *,
                   cand_graph: rp.ReplayGraph | None = None, durations: np.ndarray | None = None,
                   strategy: str = STRATEGY_OWN, launch_overhead_us: float = 0.0, rule: str = rp.DEFAULT_RULE,
                   reference: Reference | None = None, normalize_host: bool = True,
                   base_host_ms: list[float] | None = None, cand_host_ms: float | None = None,
                   cand_host_ratio: float | None = None) -> ReplayProjection:
    """Replay the baseline (measured durations) and the candidate (its own graph, or the baseline's graph
    with ``durations``) and combine them with the baseline's measured percentile. ``cand_host_ms`` is the host
    time of the candidate's forward call measured unprofiled beside its trace (capture.json): with it, the
    candidate's host scale is set by that measurement, not carried from the baseline. ``cand_host_ratio`` is the
    candidate's host time over the baseline's, measured alternately in the same spells of the host: the candidate's
    host time is then that ratio times the baseline latency CSV's ``host_ms`` median."""
    launch_ns = launch_overhead_us * 1000.0
    ref = reference or baseline_reference(base_latency_ms, base_graph, p, host_ms=base_host_ms)
    notes = list(ref.notes)
    alpha = ref.calibration.alpha if ref.calibration else 1.0
    base = rp.replay_side(base_graph, None, alpha)
    cand_cal = None
    host_notes = list(ref.host_notes)
    if cand_graph is not None and normalize_host and cand_host_ms:
        target, how = cand_host_ms, "its own median"
        if cand_host_ratio and base_host_ms:
            base_med = pct.percentile(list(base_host_ms), 50.0)
            target = cand_host_ratio * base_med
            how = (f"{cand_host_ratio:.3f}x the baseline's, timed in alternate blocks with it (median over rounds of "
                   f"the ratio of block medians), times the baseline latency CSV's host median ({base_med:.3f} ms)")
        cand_cal = rp.calibrate_host(cand_graph, target, math.nan, launch_ns)
        cand_alpha = cand_cal.alpha
        cand_note = (f"candidate host time scaled by α = {cand_alpha:.3f} so that its replayed host time is "
                     f"{target:.3f} ms: the host time of its forward call measured unprofiled beside its trace ({how}; "
                     f"capture.json). The profiler's own host cost differs between variants, 1.6x to 3.6x on the H200 "
                     f"captures, so it is measured, not carried from the baseline"
                     + ("; clamped at the end of its range" if cand_cal.clamped else ""))
        notes.append(cand_note)
        host_notes.append(cand_note)
        cand = rp.replay_side(cand_graph, None, cand_alpha, launch_ns)
    elif cand_graph is not None:
        cand_alpha = alpha
        if normalize_host:
            hb, hc = base_graph.host_ns_per_event(), cand_graph.host_ns_per_event()
            if hb and hc:
                cand_alpha = alpha * hb / hc
                notes.append(f"candidate host time scaled by α × {hb / hc:.3f}: the two traces ran the host at "
                             f"{hb / 1e3:.2f} and {hc / 1e3:.2f} µs per recorded host event (runtime calls and framework "
                             f"ops); traces taken at different times see different host speeds, so the candidate's "
                             f"host work is counted at the baseline's speed")
            else:
                notes.append("candidate host time scaled by the baseline's α as profiled (too few recorded host "
                             "events to compare the two traces' host speeds)")
        cand = rp.replay_side(cand_graph, None, cand_alpha, launch_ns)
    else:
        cand = rp.replay_side(base_graph, durations, alpha, launch_ns)
    projected = low = None
    if ref.value is not None and ref.median is not None:
        tail_ms = host_tail_ms(ref, cand_graph if cand_graph is not None else base_graph,
                               None if cand_graph is not None else durations, cand_alpha if cand_graph is not None
                               else alpha, launch_ns, cand)
        projected = rp.combine(ref.value, ref.median, base, cand, rule, ref.host_anchored, tail_ms)
        anchored = cand_cal is not None or ref.host_anchored
        if (not anchored and base.host_share < UNIDENTIFIED_BASE_HOST_SHARE
                and cand.host_share >= UNIDENTIFIED_CAND_HOST_SHARE):
            # a GPU-bound baseline hides its host: the calibration only bounds α from above, and a host-paced
            # candidate's projection moves with α; the other end is the candidate with its host nearly free
            scale = (cand_alpha / alpha) if cand_graph is not None else 1.0
            low_alpha = rp.ALPHA_RANGE[0] * scale
            low_side = (rp.replay_side(cand_graph, None, low_alpha, launch_ns) if cand_graph is not None
                        else rp.replay_side(base_graph, durations, low_alpha, launch_ns))
            low = rp.combine(ref.value, ref.median, base, low_side, rule, ref.host_anchored, tail_ms)
            if low < projected:
                notes.append(f"the baseline is GPU-bound (host share {base.host_share:.2f}), so its replay cannot "
                             f"tell how fast the host runs unprofiled (α ≤ {alpha:.3f}), and the candidate is "
                             f"host-paced (host share {cand.host_share:.2f}): its projection is only bounded, "
                             f"{low:.3f} ms with the host nearly free to {projected:.3f} ms with the host as profiled")
            else:
                low = None
    return ReplayProjection(percentile=p, baseline_ms=ref.value, projected_ms=projected, rule=rule, strategy=strategy,
                            calibration=ref.calibration, baseline_replay_ms=base.median_ms,
                            candidate_replay_ms=cand.median_ms, launch_overhead_us=launch_overhead_us,
                            baseline_host_share=base.host_share, candidate_host_share=cand.host_share,
                            baseline_median_ms=ref.median, baseline_iterations=base.results,
                            candidate_iterations=cand.results, projected_low_ms=low, candidate_calibration=cand_cal,
                            host_notes=host_notes, notes=notes + base_graph.notes
                            + (cand_graph.notes if cand_graph is not None else []))


def model_check(projected_ms: float | None, measured_ms: float | None, how: str) -> dict[str, Any] | None:
    """``model check: projected 15.2 ms, measured 14.94 ms, +1.7%``, as a dict."""
    if projected_ms is None or measured_ms is None or measured_ms <= 0:
        return None
    err = (projected_ms - measured_ms) / measured_ms
    return {"projected_ms": projected_ms, "measured_ms": measured_ms, "error": err, "model": how,
            "line": f"model check: projected {projected_ms:.3f} ms, measured {measured_ms:.3f} ms, {100 * err:+.1f}%"}


def slack_ratio(base_graph: rp.ReplayGraph, base_durations: np.ndarray, mask: np.ndarray, ref: Reference,
                target_ms: float, rule: str = rp.DEFAULT_RULE, max_ratio: float = 1000.0,
                launch_ns: float = 0.0) -> tuple[float | None, bool]:
    """The largest ratio r for the ops in ``mask`` (the others at their measured durations; every launch
    ``launch_ns`` dearer on the target runtime) whose projected latency stays ≤ target, by bisection on the
    replay; (None, False) when r = 1 already misses, (max_ratio, True) when even that fits."""
    if ref.value is None or ref.median is None:
        return None, False
    alpha = ref.calibration.alpha if ref.calibration else 1.0
    graph = base_graph.sample()
    base = rp.replay_side(graph, None, alpha)
    value, median = ref.value, ref.median

    def projected(r: float) -> float:
        d = np.where(mask, base_durations * r, base_durations)
        side = rp.replay_side(graph, d, alpha, launch_ns)
        return rp.combine(value, median, base, side, rule, ref.host_anchored,
                          host_tail_ms(ref, graph, d, alpha, launch_ns, side))

    if projected(1.0) > target_ms:
        return None, False
    hi = 2.0
    while projected(hi) <= target_ms:
        if hi >= max_ratio:
            return max_ratio, True
        hi = min(hi * 4, max_ratio)
    lo = 1.0
    while hi - lo > 1e-3 * lo:
        mid = 0.5 * (lo + hi)
        if projected(mid) <= target_ms:
            lo = mid
        else:
            hi = mid
    return lo, False


# --------------------------------------------------------------------------------------------
# compare: the candidate projected from the baseline's latency CSV
# --------------------------------------------------------------------------------------------


@dataclass
class CompareProjection:
    """What ``compare`` reports about the projection beyond the additive figure."""

    projected_ms: float | None  # the model's figure (replay, or additive when there is no timeline)
    model: str  # in words
    method: str  # "timeline-replay" | "additive"
    replay: ReplayProjection | None = None
    model_check: dict[str, Any] | None = None
    additive_ms: float | None = None
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "projected_ms": self.projected_ms, "additive_ms": self.additive_ms,
                "model": self.model, "replay": self.replay.to_dict() if self.replay else None,
                "model_check": self.model_check}


def _host_ratio_span(bgraph: Any, cgraph: Any, base_latency_ms: list[float], p: float, launch_overhead_us: float,
                     base_host_ms: list[float], cand_host_ms: float | None, ratio: float,
                     factors: tuple[float, float]) -> tuple[float, float] | None:
    """The projection replayed with the same-spell ratio ``factors`` lower and higher: (low, high) ms."""
    if max(factors) <= 0:
        return None
    ends = [project_replay(bgraph, base_latency_ms, p, cand_graph=cgraph, strategy=STRATEGY_OWN,
                           launch_overhead_us=launch_overhead_us, base_host_ms=base_host_ms,
                           cand_host_ms=cand_host_ms, cand_host_ratio=ratio * f).projected_ms
            for f in (1 - factors[0], 1 + factors[1])]
    if any(x is None for x in ends):
        return None
    lo, hi = sorted(float(x) for x in ends if x is not None)
    return lo, hi


def compare_projection(base_latency_ms: list[float] | None, cand_latency_ms: list[float] | None, p: float,
                       additive_ms: float | None, additive_model: str, base_stat: str,
                       base_tl: Any | None, cand_tl: Any | None, base_kernels: Any = None,
                       unit_ratio: np.ndarray | None = None, launch_overhead_us: float = 0.0,
                       timeline_notes: list[str] | None = None, base_host_ms: list[float] | None = None,
                       cand_host_ms: float | None = None, cand_host_ratio: float | None = None,
                       cand_host_spell: SpellRatio | None = None) -> CompareProjection | None:
    """The projection of the candidate from the baseline's latency CSV: timeline replay when the baseline
    has a timeline, else the additive model (labelled); with the model check when the candidate's own
    latencies are known. None when the baseline has no latency CSV (nothing to project from)."""
    if not base_latency_ms:
        return None
    notes = list(timeline_notes or [])
    warnings: list[str] = []
    need = pct.required_iterations(p)
    if len(base_latency_ms) < need:
        warnings.append(f"the baseline latency CSV has {len(base_latency_ms)} iterations: P{p:g} needs ≥{need}; "
                        f"the projection uses the maximum")
    replay = None
    if base_tl is not None:
        bgraph = rp.build_graph(base_tl)
        if not bgraph.iterations:
            notes.append("the baseline timeline has no replayable iteration: the additive model is used")
        else:
            if cand_tl is not None:
                cgraph = rp.build_graph(cand_tl)
                if cgraph.iterations:
                    replay = project_replay(bgraph, base_latency_ms, p, cand_graph=cgraph, strategy=STRATEGY_OWN,
                                            launch_overhead_us=launch_overhead_us, base_host_ms=base_host_ms,
                                            cand_host_ms=cand_host_ms, cand_host_ratio=cand_host_ratio)
                    if cand_host_ratio and base_host_ms and replay.candidate_calibration is not None:
                        factors = transfer_factors(cand_host_spell, iv.host_transfer_error())
                        replay.host_ratio_span_ms = _host_ratio_span(bgraph, cgraph, base_latency_ms, p,
                                                                     launch_overhead_us, base_host_ms, cand_host_ms,
                                                                     cand_host_ratio, factors)
                        if replay.host_ratio_span_ms is not None:
                            replay.host_ratio_factors = factors
                            replay.host_ratio_rounds = cand_host_spell.rounds if cand_host_spell else None
            if replay is None and unit_ratio is not None and base_kernels is not None:
                durations = rp.durations_from_ratios(base_tl, base_kernels, unit_ratio)
                replay = project_replay(bgraph, base_latency_ms, p, durations=durations, strategy=STRATEGY_MATCHED,
                                        launch_overhead_us=launch_overhead_us, base_host_ms=base_host_ms)
                notes.append("candidate has no timeline: the baseline's timeline is replayed with each matched kernel "
                             "at its candidate duration (unmatched baseline kernels removed, unmatched candidate time "
                             "spread over the matched kernels)")
    if replay is not None:
        notes += replay.host_notes
        projected, model, method = replay.projected_ms, replay.model(base_stat), "timeline-replay"
        lb = replay.launch_bound_note()
        if lb:
            notes.append(lb)
    else:
        projected, model, method = additive_ms, additive_model + "; " + ADDITIVE_CAVEAT, "additive"
    check = None
    if cand_latency_ms:
        measured = pct.summarize(list(cand_latency_ms), p)[0]
        check = model_check(projected, measured, method)
    return CompareProjection(projected_ms=projected, model=model, method=method, replay=replay, model_check=check,
                             additive_ms=additive_ms, notes=notes, warnings=warnings)


# --------------------------------------------------------------------------------------------
# project: --assume ratios and slack per group on the baseline's own timeline
# --------------------------------------------------------------------------------------------


@dataclass
class ProjectReplay:
    projected_ms: float | None  # with --assume ratios (the reference without any)
    reference_ms: float | None
    max_ratio: dict[str, tuple[float | None, bool]]  # group → (max ratio, capped)
    replay: ReplayProjection
    model: str
    notes: list[str] = field(default_factory=list)
    group_at: Any = None  # (group, ratio) -> projected ms, by the same replay
    #: group → max ratio against ``sure_target_ms`` (the target less the interval's upper half-width)
    sure_ratio: dict[str, tuple[float | None, bool]] = field(default_factory=dict)


def project_with_replay(tl: Any, kernels: Any, group_column: str, p: float, base_latency_ms: list[float] | None,
                        target_ms: float | None, ratio_of_row: np.ndarray | list[float], base_stat: str,
                        launch_overhead_us: float = 0.0, rule: str = rp.DEFAULT_RULE,
                        sure_target_ms: float | None = None, base_host_ms: list[float] | None = None
                        ) -> ProjectReplay | None:
    """``project`` from a replay: the what-if with ``ratio_of_row`` (per row of ``kernels``, 1.0 = unchanged) and,
    per kernel group, the largest slow-down that keeps the projection within the target, by bisection (and within
    ``sure_target_ms``, when given: the slack that holds at the upper end of the projection's interval)."""
    graph = rp.build_graph(tl)
    if not graph.iterations:
        return None
    ref = baseline_reference(base_latency_ms, graph, p, host_ms=base_host_ms)
    table = rp.op_table(tl, kernels)
    base_dur = (tl.ops["end_ns"] - tl.ops["start_ns"]).to_numpy().astype(np.float64)
    krow = table["krow"].to_numpy(allow_copy=True)
    known = ~np.isnan(krow.astype(np.float64)) if krow.dtype.kind == "f" else np.ones(len(krow), bool)
    rows = np.where(known, np.nan_to_num(krow.astype(np.float64), nan=0), 0).astype(np.int64)
    groups = kernels[group_column].to_list()
    op_group = np.array([groups[r] if k else None for r, k in zip(rows, known)], dtype=object)
    ratios = np.where(known, np.asarray(ratio_of_row, dtype=np.float64)[rows], 1.0)
    assumed = base_dur * ratios
    durations = np.where(ratios != 1.0, assumed, np.nan)
    rep = project_replay(graph, base_latency_ms, p, durations=durations if np.any(ratios != 1.0) else None,
                         strategy=STRATEGY_ASSUMED, launch_overhead_us=launch_overhead_us, rule=rule, reference=ref)
    max_ratio: dict[str, tuple[float | None, bool]] = {}
    if target_ms is not None and ref.value is not None:
        for g in sorted({x for x in op_group if x is not None}):
            max_ratio[g] = slack_ratio(graph, base_dur, op_group == g, ref, target_ms, rule,
                                       launch_ns=launch_overhead_us * 1000.0)
    sure_ratio: dict[str, tuple[float | None, bool]] = {}
    if sure_target_ms is not None and ref.value is not None:
        for g in sorted({x for x in op_group if x is not None}):
            sure_ratio[g] = slack_ratio(graph, base_dur, op_group == g, ref, sure_target_ms, rule,
                                        launch_ns=launch_overhead_us * 1000.0)
    model = rep.model(base_stat)
    sampled = graph.sample()
    alpha = ref.calibration.alpha if ref.calibration else 1.0
    base_side = rp.replay_side(sampled, None, alpha)

    def group_at(group: str, ratio: float) -> float | None:
        """The projection with one group at ``ratio`` (the others measured), from the same replay."""
        if ref.value is None or ref.median is None:
            return None
        d = np.where(op_group == group, base_dur * ratio, base_dur)
        side = rp.replay_side(sampled, d, alpha, launch_overhead_us * 1000.0)
        return rp.combine(ref.value, ref.median, base_side, side, rule, ref.host_anchored,
                          host_tail_ms(ref, sampled, d, alpha, launch_overhead_us * 1000.0, side))

    return ProjectReplay(projected_ms=rep.projected_ms, reference_ms=ref.value, max_ratio=max_ratio, replay=rep,
                         model=model, notes=list(rep.notes), group_at=group_at, sure_ratio=sure_ratio)
