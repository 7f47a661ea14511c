"""The replay inside a detector's iteration (issue #24), on the H200 captures of tests/data/h200/detectors.

The latency projection on these pairs is held to its limits by tests/test_replay_heldout.py; here: the replay's
per-phase times against the unprofiled CUDA-event phase times of the same hooks (``<name>_phases.csv``), and the
synchronisations the replay treats as blocking against those torch's sync debug mode counted
(``<name>_syncs.txt``). Only the ``_fp32`` variants are used for phases: they were phase-timed before any
profiler ran in the process (README.md there).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest
from conftest import load_script

from hipgauge.profiles import replay as rp
from hipgauge.profiles.load import load_profile
from hipgauge.profiles.timeline_load import load_timeline

ROOT = Path(__file__).resolve().parent.parent
DETECTORS = ROOT / "tests" / "data" / "h200" / "detectors"
BASES = ("fcos_fp32", "ssdlite_fp32", "maskrcnn_fp32")

pytestmark = pytest.mark.skipif(not (DETECTORS / "pairs.csv").exists(), reason=f"{DETECTORS} is not here")


def _script():
    return load_script("detector_phases")


@cache
def _variant(name: str):
    prof = load_profile(DETECTORS / f"{name}_trace.json.gz", latency_csv=DETECTORS / f"{name}_latency_ms.csv")
    tl, why = load_timeline(prof)
    assert tl is not None, why
    graph = rp.build_graph(tl)
    cal = rp.calibrate(graph, float(np.median(prof.latency_ms or [])))
    return tl, graph, cal


def test_replay_detail_is_the_replay_itself():
    _, graph, cal = _variant("fcos_fp32")
    g = graph.iterations[0]
    detail: dict[str, np.ndarray] = {}
    with_detail = rp.replay_iteration(g, g.o_dur, cal.alpha, 0.0, detail)
    plain = rp.replay_iteration(g, g.o_dur, cal.alpha, 0.0)
    assert with_detail.replayed_ns == plain.replayed_ns
    assert detail["op_end"].max() == pytest.approx(plain.replayed_ns)
    assert np.all(detail["op_end"] - detail["op_start"] == pytest.approx(g.o_dur))
    # a launched op never starts before its launch call does
    launched = g.o_call >= 0
    assert np.all(detail["op_start"][launched] >= detail["call_start"][g.o_call[launched]] - 1e-6)


@pytest.mark.parametrize("name", BASES)
def test_replayed_phases_match_the_unprofiled_phase_times(name: str):
    mod = _script()
    tl, graph, cal = _variant(name)
    phases, _ = mod.trace_facts(DETECTORS / f"{name}_trace.json.gz")
    replayed = mod.replayed_phases(tl, graph, phases, cal.alpha)
    measured = mod.measured_phases(DETECTORS / f"{name}_phases.csv")
    checked = [k for k, v in measured.items() if k != "total" and v >= 1.0]
    assert len(checked) >= 3
    for k in checked:
        err = (replayed[k] - measured[k]) / measured[k]
        assert abs(err) <= 0.15, f"{name} {k}: replayed {replayed[k]:.2f} ms, measured {measured[k]:.2f} ms"


@pytest.mark.parametrize("name", BASES)
def test_every_counted_synchronisation_is_a_blocking_call_of_the_replay(name: str):
    _, graph, _ = _variant(name)
    counted = int((DETECTORS / f"{name}_syncs.txt").read_text(encoding="utf-8").split()[1])
    blocking = [len(g.blocking) for g in graph.iterations]
    # the profiled step adds one torch.cuda.synchronize(); pageable host-to-device copies add their own waits
    assert min(blocking) >= counted
    assert max(blocking) <= 1.3 * counted + 2
