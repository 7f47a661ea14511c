"""Iterations and end-to-end latency at a percentile, from what a profile holds.

Three sources, best first:

1. ``latency-csv``: per-iteration end-to-end latencies the user measured (``Profile.latency_ms``);
2. ``iteration-spans``: per iteration, the GPU span of its kernels (first kernel start to last kernel
   end), so the gaps between kernels (launch and CPU overhead inside the iteration) are counted;
3. ``kernel-sum``: the sum of kernel durations per iteration. Kernel time is not latency: this
   leaves out every gap between kernels and under-states the latency; said so in the note.

A percentile p needs at least ``ceil(100 / (100 - p))`` iterations (P99: 100, P95: 20, P50: 2).
With fewer, the estimate is the maximum of the iterations (the most the data supports for a tail
statistic), and the note says so and gives the median as well.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from hipgauge.model import Profile, Provenance
from hipgauge.profiles.stability import Stability, assess

METHOD_CSV = "latency-csv"
METHOD_SPANS = "iteration-spans"
METHOD_KERNEL_SUM = "kernel-sum"


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (0..100) with linear interpolation between order statistics (numpy's default),
    computed by polars (``Series.quantile(..., interpolation="linear")``)."""
    if not values:
        raise ValueError("percentile of no values")
    q = min(max(p, 0.0), 100.0) / 100.0
    value = pl.Series(values, dtype=pl.Float64).quantile(q, interpolation="linear")
    assert value is not None  # a non-empty series always has one
    return float(value)


def required_iterations(p: float) -> int:
    """How many iterations a percentile needs before it means anything (P99 → 100)."""
    if p >= 100.0:
        return 1  # the maximum is always defined
    if p <= 0.0:
        return 1
    return int(math.ceil(100.0 / (100.0 - p) - 1e-9))


def percentile_label(p: float) -> str:
    return f"P{p:g}"


@dataclass
class LatencyEstimate:
    """End-to-end latency of one profile at a percentile, and how it was obtained."""

    value_ms: float | None
    percentile: float
    method: str  # latency-csv | iteration-spans | kernel-sum | none
    source: Provenance
    iterations: int
    enough_iterations: bool
    statistic: str  # "P99", "max", "median", …: what value_ms actually is
    note: str = ""
    values_ms: list[float] = field(default_factory=list, repr=False)
    rounds: list[int] | None = field(default=None, repr=False)  # per value, its timing round (latency CSV)
    _stability: Stability | None = field(default=None, repr=False)

    def stability(self) -> Stability | None:
        """Drift, warm-up and the percentile's interval of a latency CSV (``profiles.stability``; computed once);
        None for the other methods (profiled spans and kernel sums are not end-to-end measurements)."""
        if self.method != METHOD_CSV or not self.values_ms:
            return None
        if self._stability is None:
            self._stability = assess(self.values_ms, self.percentile, self.rounds)
        return self._stability

    def to_dict(self) -> dict[str, Any]:
        st = self.stability()
        return {
            "value_ms": self.value_ms,
            "percentile": self.percentile,
            "method": self.method,
            "source": self.source.value,
            "iterations": self.iterations,
            "enough_iterations": self.enough_iterations,
            "statistic": self.statistic,
            "note": self.note,
            "stability": st.to_dict() if st is not None else None,
        }


def noise_warnings(baseline: LatencyEstimate | None, candidate: LatencyEstimate | None = None) -> list[str]:
    """The "measurement noise" lines of the latency CSVs that drift or start with a warm-up (baseline first)."""
    out = []
    for side, est in (("baseline", baseline), ("candidate", candidate)):
        st = est.stability() if est is not None else None
        line = st.warning(side) if st is not None else None
        if line:
            out.append(line)
    return out


def summarize(values_ms: list[float], p: float) -> tuple[float | None, bool, str, str]:
    """(value, enough, statistic, note) for the p-th percentile of per-iteration values."""
    n = len(values_ms)
    label = percentile_label(p)
    if n == 0:
        return None, False, "none", "no iterations"
    need = required_iterations(p)
    if n >= need:
        return percentile(values_ms, p), True, label, ""
    med = percentile(values_ms, 50.0)
    mx = max(values_ms)
    note = (f"only {n} iteration{'s' if n != 1 else ''}: {label} needs ≥{need}; reporting the maximum "
            f"({mx:.3f} ms; median {med:.3f} ms)")
    return mx, False, "max", note


# --------------------------------------------------------------------------------------------
# Iterations
# --------------------------------------------------------------------------------------------


def kernels_with_iterations(profile: Profile) -> pl.DataFrame:
    """The kernel table with its ``iteration`` column filled from the profile's iteration windows
    where the reader left it empty (a kernel belongs to the window its start falls in)."""
    df = profile.kernels
    if df.height == 0 or not profile.iterations:
        return df
    if df["iteration"].null_count() < df.height:
        return df
    windows = sorted(profile.iterations, key=lambda w: w[1])
    starts = [w[1] for w in windows]
    ends = [w[2] for w in windows]
    idx = [w[0] for w in windows]
    out: list[int | None] = []
    for s in df["start_ns"].to_list():
        if s is None:
            out.append(None)
            continue
        pos = bisect.bisect_right(starts, s) - 1
        out.append(idx[pos] if pos >= 0 and s < ends[pos] else None)
    return df.with_columns(pl.Series("iteration", out, dtype=pl.Int64))


@dataclass
class IterationView:
    """The kernels an analysis should use, and what to divide totals by."""

    kernels: pl.DataFrame  # kernels inside iterations when iterations are known, else all
    iterations: int  # 0 when unknown
    excluded_count: int = 0  # kernels outside every iteration (warm-up, teardown)
    excluded_ns: int = 0
    inferred_period: int | None = None  # launches per iteration, when iterations were inferred (not marked)

    @property
    def divisor(self) -> int:
        return self.iterations if self.iterations > 0 else 1

    @property
    def known(self) -> bool:
        return self.iterations > 0


#: Period inference looks at this many launches at most (enough for any serving loop's launch pattern).
_PERIOD_WINDOW = 20_000
_PERIOD_MAX = 5_000
_PERIOD_AGREEMENT = 0.97


def infer_launch_period(keys: list[str]) -> int | None:
    """The smallest p such that the launch sequence repeats with period p (≥ 97% of launches equal to
    the one p places later) over at least two full cycles; None when the sequence does not repeat.

    A serving loop launches the same kernels in the same order every iteration, so a profile without
    iteration markers (Nsight Compute, aggregate-free CSVs) still shows its iterations as a period.
    """
    seq = keys[:_PERIOD_WINDOW]
    n = len(seq)
    if n < 4:
        return None
    codes: dict[str, int] = {}
    arr = [codes.setdefault(k, len(codes)) for k in seq]
    if len(codes) == 1:
        return None  # one kernel repeated: no structure to find an iteration in
    first = arr[0]
    for p in range(2, min(_PERIOD_MAX, n // 2) + 1):
        if arr[p] != first:
            continue
        same = sum(1 for i in range(n - p) if arr[i] == arr[i + p])
        if same >= _PERIOD_AGREEMENT * (n - p):
            return p
    return None


def _infer_iterations(df: pl.DataFrame) -> tuple[pl.DataFrame, int | None]:
    """Number complete launch-sequence periods as iterations; the partial tail stays outside."""
    if df.height < 4 or df["iteration"].null_count() < df.height:
        return df, None
    ordered = df.sort("start_ns", nulls_last=True, maintain_order=True) if df["start_ns"].null_count() == 0 else df
    period = infer_launch_period([k or "" for k in ordered["key"].to_list()])
    if period is None:
        return df, None
    full = (ordered.height // period) * period
    iteration = [i // period if i < full else None for i in range(ordered.height)]
    return ordered.with_columns(pl.Series("iteration", iteration, dtype=pl.Int64)), period


def iteration_view(profile: Profile) -> IterationView:
    df = kernels_with_iterations(profile)
    if df.height == 0:
        return IterationView(df, len(profile.iterations))
    period = None
    if not profile.iterations:
        df, period = _infer_iterations(df)
    inside = df.filter(pl.col("iteration").is_not_null())
    if inside.height == 0:
        return IterationView(df, 0)
    n = inside["iteration"].n_unique()
    outside = df.filter(pl.col("iteration").is_null())
    excl_ns = int(outside["duration_ns"].sum() or 0) if outside.height else 0
    return IterationView(inside, n, outside.height, excl_ns, inferred_period=period)


def iteration_spans_ms(profile: Profile) -> list[float]:
    """Per iteration: last kernel end − first kernel start, in ms (gaps between kernels included)."""
    df = kernels_with_iterations(profile)
    if df.height == 0:
        return []
    df = df.filter(pl.col("iteration").is_not_null() & pl.col("start_ns").is_not_null())
    if df.height == 0:
        return []
    spans = (
        df.group_by("iteration", maintain_order=True)
        .agg(((pl.col("start_ns") + pl.col("duration_ns")).max() - pl.col("start_ns").min()).alias("span"))
        .sort("iteration")
    )
    return [float(v) / 1e6 for v in spans["span"].to_list()]


def kernel_sums_ms(profile: Profile) -> list[float]:
    """Per iteration (or the whole profile as one when iterations are unknown): kernel time, ms."""
    view = iteration_view(profile)
    df = view.kernels
    if df.height == 0:
        return []
    if not view.known:
        return [float(df["duration_ns"].sum() or 0) / 1e6]
    sums = df.group_by("iteration", maintain_order=True).agg(pl.col("duration_ns").sum().alias("t")).sort("iteration")
    return [float(v) / 1e6 for v in sums["t"].to_list()]


def latency_from_values(values_ms: list[float], p: float, method: str) -> LatencyEstimate:
    value, enough, stat, note = summarize(values_ms, p)
    if method == METHOD_CSV:
        source = Provenance.MEASURED
    elif method == METHOD_SPANS:
        source = Provenance.MEASURED
        extra = ("GPU span of each iteration's kernels (gaps between kernels counted; host time before the "
                 "first launch of an iteration not counted; the profiler's own overhead is in it)")
        note = f"{note}; {extra}" if note else extra
    else:
        source = Provenance.ESTIMATED
        extra = ("kernel time only (no latency CSV, no iteration spans): gaps between kernels (launch and CPU "
                 "overhead) are not counted, so this under-states the end-to-end latency")
        note = f"{note}; {extra}" if note else extra
    return LatencyEstimate(value, p, method, source, len(values_ms), enough, stat, note, values_ms)


def iteration_latency(profile: Profile, p: float = 99.0, method: str | None = None) -> LatencyEstimate:
    """The profile's end-to-end latency at percentile p, from the best source it has (or ``method``)."""
    order = [method] if method else [METHOD_CSV, METHOD_SPANS, METHOD_KERNEL_SUM]
    for m in order:
        if m == METHOD_CSV and profile.latency_ms:
            est = latency_from_values([float(v) for v in profile.latency_ms], p, m)
            est.rounds = profile.attachments.get("latency_rounds")
            if profile.latency_source:
                est.note = (est.note + "; " if est.note else "") + f"from {profile.latency_source}"
            return est
        if m == METHOD_SPANS:
            spans = iteration_spans_ms(profile)
            if spans:
                return latency_from_values(spans, p, m)
        if m == METHOD_KERNEL_SUM:
            sums = kernel_sums_ms(profile)
            if sums:
                return latency_from_values(sums, p, m)
    return LatencyEstimate(None, p, "none", Provenance.UNKNOWN, 0, False, "none", "no kernels and no latencies")


def available_methods(profile: Profile) -> list[str]:
    out = []
    if profile.latency_ms:
        out.append(METHOD_CSV)
    if iteration_spans_ms(profile):
        out.append(METHOD_SPANS)
    if profile.kernels.height:
        out.append(METHOD_KERNEL_SUM)
    return out
