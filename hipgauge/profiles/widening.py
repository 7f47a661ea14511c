"""How much a percentile's interval is widened on the tail's side for the few iterations that lie beyond it.

A P99 of 600 iterations rests on the 6 iterations above it: a bootstrap that resamples rounds which never had one
of the host's rare slow spells cannot see them, and a re-measurement lands further out than its interval says:
measured on one half of each harness run's rounds against the other (scripts/reproducibility.py), one that fell
outside the 90% interval fell above it (for a high percentile), by a factor that grew as 1/√m. The factor is max(1, c / √m), m = n · min(p, 100 − p) / 100, with c = ``tail_widening`` of ``[stability]`` in
``hipgauge/data/measurement.toml`` (where it says how it was measured). Plain arithmetic on a data file, no numpy:
``hipgauge capture torch`` states it on a GPU host that has little of hipgauge's dependencies.
"""

from __future__ import annotations

import math
from functools import lru_cache

from hipgauge.datafiles import load_data_toml


@lru_cache(maxsize=1)
def _c() -> float:
    return float(load_data_toml("measurement.toml")["stability"]["tail_widening"])


def tail_widening(n: int, p: float) -> float:
    """max(1, c / √m) for ``n`` iterations at percentile ``p`` (1.0 when no iteration lies beyond it)."""
    m = n * min(p, 100.0 - p) / 100.0
    if m <= 0:
        return 1.0
    return max(1.0, _c() / math.sqrt(m))


def iterations_for_widening(p: float, factor: float) -> int:
    """The fewest iterations whose widening at percentile ``p`` is ``factor`` or less (``factor`` > 1)."""
    share = min(p, 100.0 - p) / 100.0
    return math.ceil((_c() / factor) ** 2 / share) if share > 0 else 0
