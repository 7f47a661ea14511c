"""The host's own time and its measured speed (issue 22): the ``host_ms`` column of a latency CSV, the host-speed
reference of ``capture.json``, α anchored on the host time of a GPU-bound baseline, and the host speed carried
between two traces by the measured reference instead of an event count."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hipgauge.errors import InputError
from hipgauge.profiles import percentiles as pct
from hipgauge.profiles import replay as rp
from hipgauge.profiles import whatif
from hipgauge.profiles.load import load_profile
from hipgauge.profiles.readers.capture_manifest import host_reference_for
from hipgauge.profiles.readers.latency import read_latency, read_latency_series
from hipgauge.profiles.timeline_load import load_timeline

SWIN = Path(__file__).parent / "data" / "h200" / "blind" / "swin"


def test_the_host_ms_column_is_read_beside_the_latencies(tmp_path: Path) -> None:
    f = tmp_path / "a.csv"
    f.write_text("iteration,round,latency_ms,host_ms\n1,1,5.0,2.5\n0,1,4.0,2.0\n2,0,6.0,3.0\n")
    values, rounds, host = read_latency_series(f)
    assert values == [6.0, 4.0, 5.0] and rounds == [0, 1, 1] and host == [3.0, 2.0, 2.5]
    assert read_latency(f) == values
    f.write_text("iteration,latency_ms\n0,4.0\n")
    assert read_latency_series(f)[2] is None
    f.write_text("iteration,latency_ms,host_ms\n0,4.0,\n1,4.0,2.0\n")  # one row without it: not used at all
    assert read_latency_series(f)[2] is None
    f.write_text("iteration,latency_ms,host_ms\n0,4.0,fast\n")
    with pytest.raises(InputError, match="host_ms 'fast'"):
        read_latency_series(f)


def _manifest(folder: Path, trace: str, around: list[float]) -> None:
    doc = {"schema": "hipgauge.capture-torch/1", "variants": [
        {"name": "x", "trace": trace, "host_reference_ms": {"rounds": [1.0, 1.1], "trace": around, "workload": "w"}}]}
    (folder / "capture.json").write_text(json.dumps(doc))


def test_the_reference_beside_a_trace_comes_from_capture_json(tmp_path: Path) -> None:
    trace = tmp_path / "x_trace.json.gz"
    trace.write_bytes(b"")
    assert host_reference_for(trace) is None  # no manifest
    _manifest(tmp_path, "x_trace.json.gz", [1.2, 1.6])
    ref = host_reference_for(trace)
    assert ref is not None and ref.trace_ms == pytest.approx(1.4) and ref.rounds_ms == (1.0, 1.1)
    assert host_reference_for(tmp_path / "other_trace.json.gz") is None  # not in the manifest
    (tmp_path / "capture.json").write_text('{"schema": "somebody-else/1", "variants": []}')
    assert host_reference_for(trace) is None
    (tmp_path / "capture.json").write_text("{not json")
    assert host_reference_for(trace) is None  # a broken manifest gives nothing, never an error


def _swin_graph() -> tuple[rp.ReplayGraph, list[float]]:
    prof = load_profile(SWIN / "swint_bs16_fp32_trace.json.gz", latency_csv=SWIN / "swint_bs16_fp32_latency_ms.csv")
    tl, _ = load_timeline(prof)
    return rp.build_graph(tl), prof.latency_ms


def test_a_gpu_bound_baseline_is_anchored_on_its_host_time() -> None:
    graph, lat = _swin_graph()
    med = pct.percentile(lat, 50.0)
    by_latency = whatif.baseline_reference(lat, graph, 50.0)
    assert by_latency.calibration is not None and by_latency.calibration.anchor == "latency"
    # Swin-T fp32 is GPU-bound: a host twice as fast or slow as the knee replays the same latency; its host time
    # says which
    for host in (1.0, 2.5):
        ref = whatif.baseline_reference(lat, graph, 50.0, host_ms=[host] * len(lat))
        cal = ref.calibration
        assert cal is not None and cal.anchor == "host" and not cal.clamped
        replayed = rp.host_median_ms(rp.replay(graph.sample(), None, cal.alpha))
        assert replayed == pytest.approx(host, rel=0.01)
        assert abs(cal.replayed_ms - med) / med < 0.05  # and the latency still replays
    slow = whatif.baseline_reference(lat, graph, 50.0, host_ms=[2.5] * len(lat)).calibration
    fast = whatif.baseline_reference(lat, graph, 50.0, host_ms=[1.0] * len(lat)).calibration
    assert slow is not None and fast is not None and fast.alpha < slow.alpha
    # a host that took most of the latency may have waited for the device: the latency sets α, and it says so
    ref = whatif.baseline_reference(lat, graph, 50.0, host_ms=[0.95 * med] * len(lat))
    assert ref.calibration is not None and ref.calibration.anchor == "latency"
    assert any("waited for the device" in n for n in ref.notes)


def test_the_candidate_host_speed_is_carried_by_the_measured_reference() -> None:
    graph, lat = _swin_graph()
    prof = load_profile(SWIN / "swint_bs16_tf32_trace.json.gz")
    cgraph = rp.build_graph(load_timeline(prof)[0])
    ref = whatif.baseline_reference(lat, graph, 50.0, host_ms=[2.0] * len(lat))
    same = whatif.project_replay(graph, lat, 50.0, cand_graph=cgraph, reference=ref, host_references=(1.0, 1.0))
    slow = whatif.project_replay(graph, lat, 50.0, cand_graph=cgraph, reference=ref, host_references=(1.0, 2.0))
    assert any("a fixed host workload took 1.000 ms" in n for n in slow.notes)
    # the candidate's trace ran in a spell where the host was twice as slow: its host work counts half
    assert slow.candidate_replay_ms is not None and same.candidate_replay_ms is not None
    assert slow.candidate_replay_ms <= same.candidate_replay_ms
    per_event = whatif.project_replay(graph, lat, 50.0, cand_graph=cgraph, reference=ref)
    assert not any("fixed host workload" in n for n in per_event.notes)


def test_load_profile_attaches_the_reference_and_the_host_column(tmp_path: Path) -> None:
    shutil.copy(SWIN / "swint_bs16_fp32_trace.json.gz", tmp_path / "b_trace.json.gz")
    _manifest(tmp_path, "b_trace.json.gz", [2.0, 2.2])
    csv = tmp_path / "b.csv"
    csv.write_text("iteration,round,latency_ms,host_ms\n0,0,8.0,3.0\n1,0,8.2,3.1\n")
    prof = load_profile(tmp_path / "b_trace.json.gz", latency_csv=csv)
    assert prof.attachments["host_reference"].trace_ms == pytest.approx(2.1)
    assert prof.attachments["latency_host_ms"] == [3.0, 3.1]
