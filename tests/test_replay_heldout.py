"""The projection on pairs it was never tuned on (tests/data/h200/heldout, captured after the model was built).

Same check as tests/test_replay_pairs.py: ``compare BASE CAND --latency-csv BASE.csv`` with the candidate's CSV
withheld must land within 10% (P50) and 15% (P99) of the candidate's measured latency. Other models than the
tuning pairs (MobileNetV3-Large, ViT-B/16), including a CUDA-graph pair and a GPU-bound TF32 pair.
"""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

import pytest

from hipgauge.profiles import percentiles as pct
from hipgauge.profiles.load import load_profile
from hipgauge.profiles.parity import compare_profiles
from hipgauge.profiles.readers.latency import read_latency
from hipgauge.profiles.timeline_load import load_timeline

HELDOUT = Path(__file__).resolve().parent / "data" / "h200" / "heldout"
LIMITS = {50.0: 0.10, 99.0: 0.15}


def _pairs() -> list:
    with open(HELDOUT / "pairs.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return [pytest.param(r["base"], r["cand"], p, id=f"{r['base']}->{r['cand']}-P{p:g}")
            for r in rows for p in (50.0, 99.0)]


@cache
def _side(name: str, with_csv: bool):
    prof = load_profile(HELDOUT / f"{name}_trace.json.gz",
                        latency_csv=(HELDOUT / f"{name}_latency_ms.csv") if with_csv else None)
    tl, why = load_timeline(prof)
    assert tl is not None, why
    return prof, tl


@pytest.mark.parametrize("base,cand,p", _pairs())
def test_projection_holds_on_a_held_out_pair(base: str, cand: str, p: float) -> None:
    bprof, btl = _side(base, True)
    cprof, ctl = _side(cand, False)
    doc = compare_profiles(bprof, cprof, percentile=p, base_timeline=btl, cand_timeline=ctl).to_dict()
    assert doc["projection"]["method"] == "timeline-replay"
    projected = doc["projection"]["projected_ms"]
    measured = pct.summarize([float(v) for v in read_latency(HELDOUT / f"{cand}_latency_ms.csv")], p)[0]
    error = (projected - measured) / measured
    assert abs(error) <= LIMITS[p], (f"{base} -> {cand} P{p:g}: projected {projected:.3f} ms, measured "
                                     f"{measured:.3f} ms, {100 * error:+.1f}%")
