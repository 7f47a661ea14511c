"""The projection on pairs it was never tuned on (captured after the model and its rule were fixed).

Same check as tests/test_replay_pairs.py: ``compare BASE CAND --latency-csv BASE.csv`` with the candidate's CSV
withheld must land within 10% (P50) and 15% (P99) of the candidate's measured latency. Two blind sets:
tests/data/h200/heldout (MobileNetV3-Large, ViT-B/16, including a CUDA-graph pair and a GPU-bound TF32 pair) and
tests/data/h200/detectors (FCOS, SSDlite, Mask R-CNN: a precision and a layout change each, issue #24; their
post-processing synchronises the host hundreds of times per forward).
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

H200 = Path(__file__).resolve().parent / "data" / "h200"
HELDOUT = H200 / "heldout"
DETECTORS = H200 / "detectors"
LIMITS = {50.0: 0.10, 99.0: 0.15}


def _pairs() -> list:
    out = []
    for folder in (HELDOUT, DETECTORS):
        if not (folder / "pairs.csv").exists():
            out.append(pytest.param(folder, None, None, 50.0,
                                    marks=pytest.mark.skip(reason=f"{folder} is not here")))
            continue
        with open(folder / "pairs.csv", newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        out += [pytest.param(folder, r["base"], r["cand"], p, id=f"{folder.name}:{r['base']}->{r['cand']}-P{p:g}")
                for r in rows for p in (50.0, 99.0)]
    return out


@cache
def _side(folder: Path, name: str, with_csv: bool):
    prof = load_profile(folder / f"{name}_trace.json.gz",
                        latency_csv=(folder / f"{name}_latency_ms.csv") if with_csv else None)
    tl, why = load_timeline(prof)
    assert tl is not None, why
    return prof, tl


@pytest.mark.parametrize("folder,base,cand,p", _pairs())
def test_projection_holds_on_a_held_out_pair(folder: Path, base: str, cand: str, p: float) -> None:
    bprof, btl = _side(folder, base, True)
    cprof, ctl = _side(folder, cand, False)
    doc = compare_profiles(bprof, cprof, percentile=p, base_timeline=btl, cand_timeline=ctl).to_dict()
    assert doc["projection"]["method"] == "timeline-replay"
    projected = doc["projection"]["projected_ms"]
    measured = pct.summarize([float(v) for v in read_latency(folder / f"{cand}_latency_ms.csv")], p)[0]
    error = (projected - measured) / measured
    assert abs(error) <= LIMITS[p], (f"{base} -> {cand} P{p:g}: projected {projected:.3f} ms, measured "
                                     f"{measured:.3f} ms, {100 * error:+.1f}%")
