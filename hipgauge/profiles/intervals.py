"""The interval around a projected (or measured) percentile, and the verdict against a target it allows.

Two things make a projected percentile uncertain:

* **sampling**: the baseline's percentile is an estimate from n iterations; its bootstrap interval
  (``profiles.stability``) is carried to the projection relatively (the projection moves with the baseline
  percentile it is made from);
* **the model**: the replay (or the additive model) has its own error, measured on the H200 pairs of
  docs/matching.md and kept in ``hipgauge/data/measurement.toml`` (``[[model_error]]``, per method and percentile).

When the candidate's host time was set from a ratio measured in one spell of the host (capture.json), a third
part is how far that ratio moves the projection (``[host_transfer]``: the candidate replayed with it lower and
higher, t_below and t_above). They are independent and combine in quadrature, each side separately:
``below = X·√(s_below² + e² + t_below²)``, ``above = X·√(s_above² + e² + t_above²)``.

That interval is for the candidate's percentile itself. A *measurement* of it (the candidate's own latency CSV,
as many iterations on the same host) samples the host again, independently: its **prediction interval** takes
the sampling part twice, ``X·√(2·s² + e² + t²)`` on each side. A measured candidate figure is checked against
that one (docs/measuring.md). A measured candidate (its own latency CSV) has
sampling only. The verdict against a target T is *meets* (the whole interval ≤ T), *misses* (all of it > T) or
*cannot tell at this sample size*; then the sampling part shrinks as 1/√n, so the iterations that settle it are
``n · (s / √((T − X)² − (e·X)²))²``, and none do when the model's error alone reaches the target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from hipgauge.datafiles import load_data_toml
from hipgauge.profiles.stability import Stability, iterations_to_settle

MEETS = "meets"
MISSES = "misses"
CANNOT_TELL = "cannot tell at this sample size"

#: how a projection was made → its row in ``[[model_error]]`` (measured has no model error)
METHOD_MEASURED = "measured"
METHOD_OWN = "own-timeline"
METHOD_MATCHED = "matched"
METHOD_ASSUMED = "assumed"
METHOD_ADDITIVE = "additive"
METHOD_ASSUMED_ADDITIVE = "assumed-additive"


@lru_cache(maxsize=1)
def _errors() -> dict[str, dict[str, Any]]:
    return {row["method"]: {"p50": float(row["p50"]), "p99": float(row["p99"]), "basis": row.get("basis", "total")}
            for row in load_data_toml("measurement.toml").get("model_error", [])}


def host_transfer_error() -> float:
    """How far a same-spell host ratio may be from the candidate's over a whole run, relative
    (``[host_transfer]`` of ``hipgauge/data/measurement.toml``, with how it was measured)."""
    return float(load_data_toml("measurement.toml").get("host_transfer", {}).get("relative", 0.0))


def error_basis(method: str) -> str:
    """``total`` (a share of the projected figure) or ``change`` (a share of the projected change)."""
    return "total" if method == METHOD_MEASURED else str(_errors()[method]["basis"])


def model_error(method: str, p: float) -> float:
    """The model's relative error at percentile p (linear between its P50 and P99 figures); 0 for measured."""
    if method == METHOD_MEASURED:
        return 0.0
    row = _errors()[method]
    if p <= 50.0:
        return row["p50"]
    if p >= 99.0:
        return row["p99"]
    return row["p50"] + (row["p99"] - row["p50"]) * (p - 50.0) / 49.0


@dataclass
class ProjectionInterval:
    """[lo, hi] around ``value_ms`` and what it is made of."""

    value_ms: float
    lo_ms: float
    hi_ms: float
    percentile: float
    method: str  # measured | own-timeline | matched | assumed | additive
    sampling: tuple[float, float]  # relative half-widths (below, above) from the percentile's bootstrap interval
    model_error: float  # relative to value_ms, both sides
    iterations: int  # of the latency CSV the sampling part comes from
    confidence: float
    drift: bool = False  # the CSV it rests on drifts: the interval is as wide as the data say, no wider
    low_bound_ms: float | None = None  # the model could only bound the figure from below at this (see whatif)
    host_sampling: bool = False  # the sampling part is the wider of the latency CSV's and its host_ms intervals
    #: relative (below, above): the projection's movement when the candidate's same-spell host ratio is taken
    #: ``[host_transfer]`` lower and higher (a host time measured in one spell of a drifting host)
    host_transfer: tuple[float, float] | None = None
    #: the ratio's moves behind ``host_transfer`` (below, above) and the capture rounds it rests on
    host_ratio_factors: tuple[float, float] | None = None
    host_ratio_rounds: int | None = None
    #: where a measurement of the candidate, as many iterations on the same host as the baseline's, would fall: the
    #: interval with the candidate's own sampling added (the baseline's relative sampling taken again); None when
    #: the figure is measured
    prediction_ms: tuple[float, float] | None = None
    #: the factor the bootstrap's tail side was widened by (``widening.tail_widening``: few iterations beyond the
    #: percentile); 1 when not
    tail_widening: float = 1.0

    @property
    def width_share(self) -> float:
        return (self.hi_ms - self.lo_ms) / self.value_ms if self.value_ms else math.inf

    def describe(self) -> str:
        parts = [f"{100 * self.confidence:.0f}% bootstrap interval of the {'measured' if self.method == METHOD_MEASURED else 'baseline'} "
                 f"P{self.percentile:g} ({self.iterations} iterations: −{100 * self.sampling[0]:.1f}% / "
                 f"+{100 * self.sampling[1]:.1f}%)"]
        if self.tail_widening > 1.0:
            parts[0] += (f", its {'upper' if self.percentile > 50.0 else 'lower'} side widened ×{self.tail_widening:.2f} "
                         f"since few iterations lie beyond the percentile (a bootstrap alone held a re-measurement of a "
                         f"P99 on 71–73% of splits, docs/measuring.md)")
        if self.host_sampling:
            parts[0] += (" or of the baseline's host time at that percentile (host_ms), whichever is wider on each side: "
                         "the candidate's tail comes from the host's jitter")
        if self.model_error:
            share = (f"{100 * model_error(self.method, self.percentile):.0f}% of the projected change"
                     if error_basis(self.method) == "change" else "from its validation on H200 pairs, docs/matching.md")
            parts.append(f"the {self.method} model's own error (±{100 * self.model_error:.1f}%; {share})")
        if self.host_transfer is not None:
            parts.append(f"the candidate's host time measured in one spell of the host (its same-spell ratio "
                         f"{self._ratio_moves()} moves the projection −{100 * self.host_transfer[0]:.1f}% / "
                         f"+{100 * self.host_transfer[1]:.1f}%)")
        text = " and ".join(parts) + (", combined in quadrature" if len(parts) > 1 else "")
        if self.low_bound_ms is not None:
            text += (f"; extended down to the projection with the candidate's host nearly free ({self.low_bound_ms:.3f} ms): "
                     f"a GPU-bound baseline does not show its host's speed")
        if self.drift:
            text += "; the latency CSV drifts, so even this interval is optimistic"
        return text

    def _ratio_moves(self) -> str:
        floor = host_transfer_error()
        f = self.host_ratio_factors or (floor, floor)
        if max(f) <= floor:
            return f"±{100 * floor:.0f}%"
        rounds = f" over {self.host_ratio_rounds} rounds" if self.host_ratio_rounds else ""
        return (f"−{100 * f[0]:.0f}% / +{100 * f[1]:.0f}%: its own interval{rounds}, wider than the "
                f"±{100 * floor:.0f}% a steady spell gives")

    def verdict(self, target_ms: float | None) -> tuple[str | None, int | None, str]:
        """(meets | misses | cannot tell…, iterations that would settle it, the sentence)."""
        if target_ms is None:
            return None, None, ""
        span = f"{self.lo_ms:.3f}–{self.hi_ms:.3f} ms"
        if self.hi_ms <= target_ms:
            return MEETS, None, f"meets the {target_ms:g} ms target: the whole interval ({span}) is below it"
        if self.lo_ms > target_ms:
            return MISSES, None, f"misses the {target_ms:g} ms target: the whole interval ({span}) is above it"
        need = self.iterations_to_settle(target_ms)
        model_ms = self.fixed_ms(target_ms >= self.value_ms)
        if need is None:
            what = "the model's own error" + (" and the host ratio's spread" if self.host_transfer else "")
            why = (f"{what} (±{model_ms:.3f} ms) {'reach' if self.host_transfer else 'reaches'} the target by "
                   f"{'themselves' if self.host_transfer else 'itself'}, so more iterations "
                   f"will not settle it: measure the candidate (its own latency CSV)" if model_ms else
                   "the estimate sits on the target")
        else:
            why = f"about {need} iterations (now {self.iterations}) would settle it, all else as measured"
        return CANNOT_TELL, need, f"cannot tell at this sample size against the {target_ms:g} ms target (interval {span}): {why}"

    def fixed_ms(self, upward: bool) -> float:
        """The part of the interval more iterations do not shrink (the model's error, the host ratio's spread), on
        the side towards a target above (``upward``) or below the figure."""
        t = (self.host_transfer[1] if upward else self.host_transfer[0]) if self.host_transfer else 0.0
        return self.value_ms * math.sqrt(self.model_error ** 2 + t * t)

    def iterations_to_settle(self, target_ms: float) -> int | None:
        gap = abs(target_ms - self.value_ms)
        model_ms = self.fixed_ms(target_ms >= self.value_ms)
        if gap <= model_ms:
            return None
        s = self.value_ms * (self.sampling[1] if target_ms >= self.value_ms else self.sampling[0])
        return iterations_to_settle(self.iterations, s, math.sqrt(gap * gap - model_ms * model_ms))

    def to_dict(self, target_ms: float | None = None) -> dict[str, Any]:
        status, need, sentence = self.verdict(target_ms)
        return {
            "interval_ms": [self.lo_ms, self.hi_ms],
            "method": self.method,
            "confidence": self.confidence,
            "sampling_below": self.sampling[0],
            "sampling_above": self.sampling[1],
            "model_error": self.model_error,
            "iterations": self.iterations,
            "width_share": self.width_share,
            "prediction_interval_ms": list(self.prediction_ms) if self.prediction_ms else None,
            "tail_widening": self.tail_widening,
            "host_transfer_below": self.host_transfer[0] if self.host_transfer else None,
            "host_transfer_above": self.host_transfer[1] if self.host_transfer else None,
            "host_ratio_factors": list(self.host_ratio_factors) if self.host_ratio_factors else None,
            "host_ratio_rounds": self.host_ratio_rounds,
            "drift": self.drift,
            "how": self.describe(),
            "target_verdict": status,
            "iterations_to_settle": need,
            "verdict": sentence or None,
        }


def interval_for(value_ms: float | None, stability: Stability | None, method: str, p: float,
                 baseline_ms: float | None = None, low_bound_ms: float | None = None,
                 host_stability: Stability | None = None,
                 host_ratio_span_ms: tuple[float, float] | None = None,
                 host_ratio_factors: tuple[float, float] | None = None,
                 host_ratio_rounds: int | None = None) -> ProjectionInterval | None:
    """The interval around ``value_ms`` from the latency CSV's ``stability`` (the baseline's, or the candidate's
    when measured) and the ``method``'s model error (of the change from ``baseline_ms`` for a what-if); None without
    a value or a bootstrap interval."""
    if value_ms is None or value_ms <= 0 or stability is None:
        return None
    halves = stability.ci_half_widths()
    if halves is None:
        return None
    host_halves = host_stability.ci_half_widths() if host_stability is not None else None
    if host_halves is not None:
        # the projection's tail came from the baseline's host times (a GPU-bound baseline anchored on host_ms): the
        # wider of the two series' intervals, side by side
        halves = (max(halves[0], host_halves[0]), max(halves[1], host_halves[1]))
    e = model_error(method, p)
    if error_basis(method) == "change":
        e = e * abs(value_ms - (baseline_ms if baseline_ms is not None else value_ms)) / value_ms
    transfer = None
    if host_ratio_span_ms is not None:
        transfer = (max(0.0, value_ms - min(host_ratio_span_ms)) / value_ms,
                    max(0.0, max(host_ratio_span_ms) - value_ms) / value_ms)
    t_below, t_above = transfer or (0.0, 0.0)
    below = value_ms * math.sqrt(halves[0] ** 2 + e * e + t_below ** 2)
    above = value_ms * math.sqrt(halves[1] ** 2 + e * e + t_above ** 2)
    lo = value_ms - below
    if low_bound_ms is not None and low_bound_ms < value_ms:
        lo = min(lo, low_bound_ms * (1.0 - math.sqrt(halves[0] ** 2 + e * e)))
    prediction = None
    if method != METHOD_MEASURED:
        # a measured candidate percentile carries its own sampling, as large (relatively) as the baseline's at the
        # same iterations on the same host, and independent of it: twice the sampling variance
        p_lo = value_ms - value_ms * math.sqrt(2 * halves[0] ** 2 + e * e + t_below ** 2)
        if low_bound_ms is not None and low_bound_ms < value_ms:
            p_lo = min(p_lo, low_bound_ms * (1.0 - math.sqrt(2 * halves[0] ** 2 + e * e)))
        prediction = (max(0.0, p_lo), value_ms + value_ms * math.sqrt(2 * halves[1] ** 2 + e * e + t_above ** 2))
    return ProjectionInterval(value_ms=value_ms, lo_ms=max(0.0, lo), hi_ms=value_ms + above,
                              percentile=p, method=method, sampling=halves, model_error=e, iterations=stability.n,
                              confidence=stability.confidence, drift=stability.drift,
                              low_bound_ms=low_bound_ms if low_bound_ms is not None and low_bound_ms < value_ms else None,
                              host_sampling=host_halves is not None, host_transfer=transfer,
                              host_ratio_factors=host_ratio_factors if transfer else None,
                              host_ratio_rounds=host_ratio_rounds if transfer else None,
                              prediction_ms=prediction, tail_widening=stability.tail_widening)


def target_with_margin(interval: ProjectionInterval, target_ms: float) -> float:
    """The target less the interval's upper half-width: what the central figure must stay under for the whole
    interval to meet ``target_ms`` (slack that holds at the upper end of the interval)."""
    return target_ms - (interval.hi_ms - interval.value_ms)


def interval_fields(interval: ProjectionInterval | None, target_ms: float | None) -> dict[str, Any]:
    """``interval_ms``, ``interval`` (what it is made of), ``target_verdict`` and ``meets_target`` for a projection
    dict: meets_target is None when the interval straddles the target."""
    if interval is None:
        return {"interval_ms": None, "interval": None, "target_verdict": None}
    d = interval.to_dict(target_ms)
    status = d["target_verdict"]
    out: dict[str, Any] = {"interval_ms": d["interval_ms"], "interval": d, "target_verdict": status}
    if status is not None:
        out["meets_target"] = {MEETS: True, MISSES: False}.get(status)
    return out
