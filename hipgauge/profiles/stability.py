"""Is a per-iteration latency series steady enough to take a percentile of, and how sure is that percentile?

For one latency CSV (``iteration,latency_ms`` with an optional ``round`` column):

* **change points**: ruptures' PELT search with an L1 cost over the log latencies (a shift is relative; the L1
  cost does not chase single slow iterations), the penalty scaled by the series' own noise; adjacent segments
  closer than ``min_shift`` are merged, so what remains are shifts large enough to move a percentile;
* **warm-up**: a short, slower first segment (the first iterations, before caches, clocks and allocators settle);
* **trend**: Theil–Sen slope of the log latency over the run (scipy), counted when Kendall's tau says it is
  monotone and it moves the median by ``trend_change`` or more;
* **percentile interval**: scipy's bootstrap (percentile method, seeded) of the requested percentile.

``drift`` is true when a shift or a trend remains (a warm-up alone is reported, not called drift). The
thresholds live in ``hipgauge/data/measurement.toml`` with how they were calibrated. scipy and ruptures are
imported when a series is assessed, not when this module is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from hipgauge.datafiles import load_data_toml
from hipgauge.profiles.widening import tail_widening


@lru_cache(maxsize=1)
def settings() -> dict[str, Any]:
    """``[stability]`` of ``hipgauge/data/measurement.toml``."""
    return dict(load_data_toml("measurement.toml")["stability"])


@dataclass
class Segment:
    """A run of iterations at one level: ``start``..``end`` (0-based positions, end exclusive)."""

    start: int
    end: int
    median_ms: float
    kind: str = "level"  # level | warm-up
    rounds: list[int] = field(default_factory=list)  # the rounds it spans, when the CSV has a round column

    @property
    def n(self) -> int:
        return self.end - self.start

    def label(self) -> str:
        where = f"iterations {self.start}–{self.end - 1}"
        if self.rounds:
            lo, hi = min(self.rounds), max(self.rounds)
            where += f" (round {lo})" if lo == hi else f" (rounds {lo}–{hi})"
        return f"{where}: median {self.median_ms:.3f} ms" + (" (warm-up)" if self.kind == "warm-up" else "")

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "iterations": self.n, "median_ms": self.median_ms,
                "kind": self.kind, "rounds": self.rounds or None, "label": self.label()}


@dataclass
class Stability:
    """What ``assess`` found in one latency series."""

    n: int
    percentile: float
    drift: bool
    segments: list[Segment]
    percentile_ms: float | None
    percentile_ci_ms: tuple[float, float] | None
    confidence: float
    warmup_iterations: int = 0
    trend_change: float | None = None  # relative change of the median over the run (Theil–Sen), when monotone
    rounds: list[dict[str, Any]] = field(default_factory=list)  # per round: round, iterations, median_ms
    method: str = ""
    notes: list[str] = field(default_factory=list)
    tail_widening: float = 1.0  # the factor the bootstrap's interval was widened by (few iterations beyond the percentile)

    @property
    def shifts(self) -> list[Segment]:
        return [s for s in self.segments if s.kind == "level"]

    def ci_half_widths(self) -> tuple[float, float] | None:
        """(below, above) the percentile, relative to it; None without an interval."""
        if self.percentile_ci_ms is None or not self.percentile_ms:
            return None
        lo, hi = self.percentile_ci_ms
        return max(0.0, (self.percentile_ms - lo) / self.percentile_ms), max(0.0, (hi - self.percentile_ms) / self.percentile_ms)

    def warning(self, side: str) -> str | None:
        """The "measurement noise" line for the text output, or None when the series is steady."""
        if self.drift:
            parts = []
            if len(self.shifts) > 1:
                parts.append(f"{len(self.shifts)} levels: " + "; ".join(s.label() for s in self.shifts))
            if self.trend_change is not None:
                parts.append(f"a steady trend of {100 * self.trend_change:+.0f}% in the median over the run")
            return (f"measurement noise: the {side} latency CSV drifts ({'; '.join(parts)}); its percentiles mix "
                    f"these states: re-measure with the variants interleaved (hipgauge capture torch) before trusting "
                    f"the verdict")
        if self.warmup_iterations:
            first = self.segments[0]
            return (f"measurement noise: the {side} latency CSV starts with {self.warmup_iterations} warm-up "
                    f"iterations ({first.label()}); drop them or warm up longer")
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "drift": self.drift,
            "segments": [s.to_dict() for s in self.segments],
            "percentile_ci_ms": list(self.percentile_ci_ms) if self.percentile_ci_ms else None,
            "confidence": self.confidence,
            "n": self.n,
            "warmup_iterations": self.warmup_iterations,
            "trend_change": self.trend_change,
            "rounds": self.rounds or None,
            "method": self.method,
            "notes": self.notes,
            "tail_widening": self.tail_widening,
        }


def percentile_ci(values: np.ndarray, p: float, confidence: float | None = None,
                  resamples: int | None = None) -> tuple[float, float] | None:
    """The bootstrap interval (scipy.stats.bootstrap, percentile method, seed 0) of the p-th percentile; past
    ``max_bootstrap`` iterations the distribution-free order-statistic interval (binomial ranks; what the bootstrap
    tends to, at a sort's cost instead of thousands)."""
    from scipy import stats  # noqa: PLC0415 - scipy costs ~0.3 s of imports: only when a series is assessed

    cfg = settings()
    x = np.asarray(values, dtype=np.float64)
    if x.size < 2 or np.all(x == x[0]):
        return (float(x[0]), float(x[0])) if x.size else None
    level = float(confidence or cfg["confidence"])
    if x.size > int(cfg["max_bootstrap"]):
        xs, q, tail = np.sort(x), min(max(p / 100.0, 0.0), 1.0), (1.0 - level) / 2.0
        lo_rank = int(stats.binom.ppf(tail, x.size, q))
        hi_rank = int(stats.binom.ppf(1.0 - tail, x.size, q))
        return float(xs[max(lo_rank - 1, 0)]), float(xs[min(hi_rank, x.size - 1)])
    res = stats.bootstrap((x,), lambda s, axis: np.percentile(s, p, axis=axis), vectorized=True,
                          n_resamples=int(resamples or cfg["resamples"]),
                          confidence_level=level, method="percentile",
                          batch=max(1, int(4_000_000 // max(x.size, 1))), random_state=np.random.default_rng(0))
    lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    return lo, hi


def round_percentile_ci(values: np.ndarray, rounds: list[int], p: float, confidence: float | None = None,
                        resamples: int | None = None) -> tuple[float, float] | None:
    """The bootstrap interval of the p-th percentile resampling whole timing rounds (a cluster bootstrap, seed 0):
    when the rounds differ (the host drifted between them) an iteration is not an independent draw, a round is.
    None with fewer than ``min_rounds`` rounds. (scipy.stats.bootstrap resamples observations, not clusters.)"""
    cfg = settings()
    x = np.asarray(values, dtype=np.float64)
    r = np.asarray(rounds)
    labels = sorted(set(rounds))
    if len(labels) < int(cfg["min_rounds"]) or r.size != x.size:
        return None
    groups = [x[r == k] for k in labels]
    rng = np.random.default_rng(0)
    count = int(resamples or cfg["resamples"])
    count = min(count, max(200, int(20_000_000 // max(x.size, 1))))  # a long CSV: fewer resamples, same seconds
    picks = rng.integers(0, len(groups), size=(count, len(groups)))
    stats = np.fromiter((np.percentile(np.concatenate([groups[i] for i in row]), p) for row in picks), dtype=np.float64)
    alpha = (1.0 - float(confidence or cfg["confidence"])) / 2.0
    return float(np.quantile(stats, alpha)), float(np.quantile(stats, 1.0 - alpha))


def _blocks(x: np.ndarray, max_points: int) -> tuple[np.ndarray, int]:
    """Medians of equal blocks when the series is longer than ``max_points`` (and the block size), else itself."""
    if x.size <= max_points:
        return x, 1
    b = int(math.ceil(x.size / max_points))
    m = x.size // b
    return np.median(x[: m * b].reshape(m, b), axis=1), b


def _change_points(logx: np.ndarray, cfg: dict[str, Any]) -> list[int]:
    """Breakpoints (positions where a new segment starts) found by PELT on the log latencies."""
    import ruptures as rpt  # noqa: PLC0415 - only when a series is assessed (start-up time)

    pts, block = _blocks(logx, int(cfg["max_points"]))
    n = pts.size
    min_size = max(2, int(math.ceil(max(cfg["min_segment"], cfg["min_segment_share"] * logx.size) / block)))
    if n < 2 * min_size:
        return []
    diffs = np.abs(np.diff(pts))
    scale = float(np.median(diffs)) / 0.954 if diffs.size else 0.0  # median |x_i − x_{i−1}| of a normal: 0.954 σ
    if scale <= 0:
        scale = float(np.std(pts)) or 1e-9
    pen = float(cfg["penalty"]) * scale * math.log(n)
    # breakpoints on a grid of a fifth of the shortest segment: the search's cost grows with the candidates
    bkps = rpt.Pelt(model="l1", min_size=min_size, jump=max(1, min_size // 5)).fit(pts.reshape(-1, 1)).predict(pen=pen)
    return [b * block for b in bkps[:-1]]


def _merge(x: np.ndarray, bounds: list[int], min_shift: float) -> list[int]:
    """Merge the adjacent pair of segments with the closest medians until every neighbour differs by ``min_shift``."""
    edges = [0, *bounds, x.size]
    while len(edges) > 2:
        meds = [float(np.median(x[a:b])) for a, b in zip(edges, edges[1:])]
        gaps = [abs(math.log(meds[i + 1] / meds[i])) if meds[i] > 0 and meds[i + 1] > 0 else 0.0
                for i in range(len(meds) - 1)]
        i = int(np.argmin(gaps))
        if gaps[i] >= math.log1p(min_shift):
            break
        del edges[i + 1]
    return edges[1:-1]


def _trend(logx: np.ndarray, cfg: dict[str, Any]) -> float | None:
    """Relative change of the median over the run (Theil–Sen), when monotone (Kendall's tau) and large enough."""
    from scipy import stats  # noqa: PLC0415 - only when a series is assessed

    pts, block = _blocks(logx, 1000)
    t = np.arange(pts.size, dtype=np.float64)
    tau = stats.kendalltau(t, pts)
    if not (tau.pvalue < float(cfg["trend_p"])):
        return None
    slope = float(stats.theilslopes(pts, t).slope)
    change = math.expm1(slope * (pts.size - 1))
    return change if abs(change) >= float(cfg["trend_change"]) else None


def assess(values_ms: list[float] | np.ndarray, p: float, rounds: list[int] | None = None) -> Stability:
    """Drift, warm-up and the percentile's interval of one latency series (in iteration order)."""
    cfg = settings()
    x = np.asarray(values_ms, dtype=np.float64)
    n = int(x.size)
    conf = float(cfg["confidence"])
    method = (f"change points: PELT (ruptures, L1 cost on log latency, penalty {cfg['penalty']:g} × noise × log n), "
              f"segments closer than {100 * cfg['min_shift']:.0f}% merged; trend: Theil–Sen (scipy); interval: "
              f"bootstrap of the percentile ({cfg['resamples']} resamples, {100 * conf:.0f}%")
    if n == 0:
        return Stability(0, p, False, [], None, None, conf, method=method + ")", notes=["no iterations"])
    value = float(np.percentile(x, p))  # linear interpolation, as percentiles.percentile
    ci = percentile_ci(x, p)
    ci_method = "bootstrap over iterations"
    if rounds is not None and len(rounds) == n:
        by_round = round_percentile_ci(x, rounds, p)
        if by_round is not None:  # the wider of the two: rounds carry the host's drift, iterations the tail
            ci = (min(ci[0], by_round[0]), max(ci[1], by_round[1])) if ci else by_round
            ci_method = "the wider of the bootstraps over iterations and over whole rounds"
    widening = tail_widening(n, p)
    if ci is not None and widening > 1.0:  # on the tail's side: a re-measurement that misses lands further out
        if p > 50.0:
            ci = (ci[0], value + widening * (ci[1] - value))
        else:
            ci = (max(0.0, value - widening * (value - ci[0])), ci[1])
        ci_method += (f"; its {'upper' if p > 50.0 else 'lower'} side widened ×{widening:.2f}: "
                      f"{n * min(p, 100.0 - p) / 100.0:.1f} iterations lie beyond the percentile, too few for a "
                      f"bootstrap to see the host's rare slow rounds")
    notes: list[str] = []
    per_round: list[dict[str, Any]] = []
    if rounds is not None and len(rounds) == n:
        for r in sorted(set(rounds)):
            sel = x[np.asarray(rounds) == r]
            per_round.append({"round": int(r), "iterations": int(sel.size), "median_ms": float(np.median(sel))})
    method += f"; {ci_method})"
    if n < int(cfg["min_iterations"]) or np.any(x <= 0):
        why = (f"only {n} iterations: no change-point search (needs ≥{cfg['min_iterations']})"
               if n < int(cfg["min_iterations"]) else "a latency of 0 ms: no change-point search on log latency")
        seg = Segment(0, n, float(np.median(x)))
        return Stability(n, p, False, [seg], value, ci, conf, rounds=per_round, method=method, notes=[why],
                         tail_widening=widening)
    logx = np.log(x)
    bounds = _merge(x, _change_points(logx, cfg), float(cfg["min_shift"]))
    edges = [0, *bounds, n]
    segments = []
    for a, b in zip(edges, edges[1:]):
        seg_rounds = sorted({int(r) for r in rounds[a:b]}) if rounds is not None and len(rounds) == n else []
        segments.append(Segment(a, b, float(np.median(x[a:b])), rounds=seg_rounds))
    warmup = 0
    if len(segments) > 1 and segments[0].n <= float(cfg["warmup_share"]) * n \
            and segments[0].median_ms >= segments[1].median_ms * (1 + float(cfg["min_shift"])):
        segments[0].kind = "warm-up"
        warmup = segments[0].n
    level = [s for s in segments if s.kind == "level"]
    trend = _trend(logx[warmup:], cfg) if len(level) == 1 else None
    drift = len(level) > 1 or trend is not None
    if per_round and len(per_round) > 1:
        meds = [r["median_ms"] for r in per_round]
        notes.append(f"{len(per_round)} rounds, medians {min(meds):.3f}–{max(meds):.3f} ms")
    return Stability(n, p, drift, segments, value, ci, conf, warmup_iterations=warmup, trend_change=trend,
                     rounds=per_round, method=method, notes=notes, tail_widening=widening)


def iterations_to_settle(n: int, half_width_ms: float, needed_ms: float) -> int | None:
    """How many iterations bring a sampling half-width (∝ 1/√n) down to ``needed_ms``; None when none can."""
    if needed_ms <= 0 or half_width_ms <= 0 or n <= 0:
        return None
    return int(math.ceil(n * (half_width_ms / needed_ms) ** 2))
