"""The same-spell host ratio: a candidate's host time over the baseline's, timed in alternate blocks so that the two
share the host's spell, and how well the rounds pin it.

Each round times a block of the baseline (the reference) and then a block of the candidate; the round's ratio is
the ratio of the two block medians, and the estimate is the median over rounds. A host that runs 3× slower for
60 ms hits one block and not its partner, so a round's ratio can be far off (RegNetX-400MF fp16 on the H200,
``tests/data/h200/hosttime/blind12/regx04``: rounds from 0.53 to 1.67 around 0.97, where the whole run's host
medians say 1.11). The median's own interval says how far: a distribution-free interval from order statistics
(the k-th smallest and k-th largest ratio, k from the binomial(n, ½)), no bootstrap, no assumption about the host.
The harness keeps adding rounds until that interval is narrow (``[same_spell]`` of measurement.toml), and the
projection's host-transfer term is never narrower than it."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import lru_cache

from hipgauge.datafiles import load_data_toml


@dataclass(frozen=True)
class SpellRatio:
    """The median of per-round ratios and its order-statistic interval (relative to the median: below, above)."""

    ratio: float
    rounds: int
    below: float  # 1 - lo / ratio
    above: float  # hi / ratio - 1
    confidence: float  # the interval's exact coverage (≥ the asked level when rounds allow it; else all it can)

    def settled(self, tolerance: float) -> bool:
        return max(self.below, self.above) <= tolerance


@dataclass(frozen=True)
class SpellPlan:
    """How many rounds the harness times before a trace: at least ``min_rounds``, then more while the ratio's
    interval is wider than ``tolerance`` on either side, up to ``max_rounds``."""

    min_rounds: int
    max_rounds: int
    tolerance: float
    confidence: float


@lru_cache(maxsize=1)
def spell_plan() -> SpellPlan:
    row = load_data_toml("measurement.toml").get("same_spell", {})
    return SpellPlan(int(row.get("min_rounds", 8)), int(row.get("max_rounds", 40)), float(row.get("tolerance", 0.05)),
                     float(row.get("confidence", 0.90)))


def round_ratios(values: list[float], reference: list[float], block: int) -> list[float]:
    """Per round: the median of this variant's block over the median of the reference's block of the same round."""
    out = []
    for i in range(0, min(len(values), len(reference)) - block + 1, block):
        ref = statistics.median(reference[i:i + block])
        if ref > 0:
            out.append(statistics.median(values[i:i + block]) / ref)
    return out


def median_interval(xs: list[float], confidence: float) -> tuple[float, float, float]:
    """(lo, hi, coverage): the k-th smallest and k-th largest of ``xs``, k the largest for which the interval covers
    the median with at least ``confidence`` (coverage 1 − 2·P(Binomial(n, ½) < k)); with too few values for that,
    the smallest and largest, and the coverage they have."""
    s = sorted(xs)
    n = len(s)
    if n == 0:
        raise ValueError("no ratios")

    def coverage(k: int) -> float:  # P(x_(k) <= median <= x_(n+1-k))
        return 1.0 - 2.0 * sum(math.comb(n, j) for j in range(k)) / 2.0 ** n

    k = 1
    while k + 1 <= (n + 1) // 2 and coverage(k + 1) >= confidence:
        k += 1
    return s[k - 1], s[n - k], coverage(k)


def spell_ratio(values: list[float], reference: list[float], block: int, confidence: float | None = None
                ) -> SpellRatio | None:
    """The same-spell ratio of ``values`` over ``reference`` timed in alternate blocks of ``block`` (None when no
    round is complete)."""
    ratios = round_ratios(values, reference, block)
    if not ratios:
        return None
    ratio = statistics.median(ratios)
    lo, hi, cov = median_interval(ratios, spell_plan().confidence if confidence is None else confidence)
    return SpellRatio(ratio, len(ratios), max(0.0, 1.0 - lo / ratio), max(0.0, hi / ratio - 1.0), cov)


def transfer_factors(spell: SpellRatio | None, floor: float) -> tuple[float, float]:
    """How far (relative, below and above) the projection moves the same-spell ratio to bound the candidate's host
    time: the ``[host_transfer]`` floor (how far one spell's ratio was from the whole run's on the development
    sets), or the ratio's own interval where the rounds disagree more than that."""
    if spell is None:
        return floor, floor
    return max(floor, spell.below), max(floor, spell.above)
