"""The host's own time, measured (issue 22): the ``host_ms`` column of a latency CSV, the host times ``capture.json``
keeps beside each trace, α anchored on the host time of a GPU-bound baseline, and the candidate's host scale set
by its own unprofiled host time beside its trace instead of carried from the baseline by an event count."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from hipgauge.errors import InputError
from hipgauge.profiles import intervals as iv
from hipgauge.profiles import percentiles as pct
from hipgauge.profiles import replay as rp
from hipgauge.profiles import whatif
from hipgauge.profiles.load import load_profile
from hipgauge.profiles.readers.capture_manifest import trace_host_times_for
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


def _manifest(folder: Path, trace: str, unprofiled: list[float], profiled: list[float]) -> None:
    doc = {"schema": "hipgauge.capture-torch/1", "variants": [
        {"name": "x", "trace": trace, "trace_host_ms": {"unprofiled": unprofiled, "profiled": profiled}}]}
    (folder / "capture.json").write_text(json.dumps(doc))


def test_the_host_times_beside_a_trace_come_from_capture_json(tmp_path: Path) -> None:
    trace = tmp_path / "x_trace.json.gz"
    trace.write_bytes(b"")
    assert trace_host_times_for(trace) is None  # no manifest
    _manifest(tmp_path, "x_trace.json.gz", [1.0, 1.2, 1.1, 9.0], [2.0, 2.4])
    times = trace_host_times_for(trace)
    assert times is not None and times.unprofiled_ms == pytest.approx(1.15) and times.profiled_ms == pytest.approx(2.2)
    assert times.steps == 4
    assert trace_host_times_for(tmp_path / "other_trace.json.gz") is None  # not in the manifest
    _manifest(tmp_path, "x_trace.json.gz", [1.0, -1.0], [2.0])  # too few usable steps
    assert trace_host_times_for(trace) is None
    doc = {"schema": "hipgauge.capture-torch/1", "variants": [
        {"name": "y", "trace": "x_trace.json.gz", "trace_host_ms": {
            "unprofiled": [3.0, 3.0, 3.0], "profiled": [], "reference": {"variant": "b", "unprofiled": [2.0, 2.0, 2.5]}}}]}
    (tmp_path / "capture.json").write_text(json.dumps(doc))
    times = trace_host_times_for(trace)
    assert times is not None and times.variant == "y" and times.reference == "b"
    assert times.reference_unprofiled_ms == 2.0 and times.profiled_ms is None
    assert times.same_spell_ratio == pytest.approx(1.5)  # no block size: the ratio of the medians
    # with blocks: each round's ratio of block medians, then their median (a slow spell in one round cancels)
    doc["variants"][0]["trace_host_ms"] = {"unprofiled": [2.0, 2.0, 8.0, 8.0, 2.2, 2.2], "block": 2, "profiled": [],
                                           "reference": {"variant": "b", "unprofiled": [1.0, 1.0, 4.0, 4.0, 1.0, 1.0]}}
    (tmp_path / "capture.json").write_text(json.dumps(doc))
    times = trace_host_times_for(trace)
    assert times is not None and times.same_spell_ratio == pytest.approx(2.0)
    (tmp_path / "capture.json").write_text('{"schema": "somebody-else/1", "variants": []}')
    assert trace_host_times_for(trace) is None
    (tmp_path / "capture.json").write_text("{not json")
    assert trace_host_times_for(trace) is None  # a broken manifest gives nothing, never an error


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


def test_the_candidate_host_scale_is_set_by_its_own_host_time_beside_its_trace() -> None:
    graph, lat = _swin_graph()
    prof = load_profile(SWIN / "swint_bs16_tf32_trace.json.gz")
    cgraph = rp.build_graph(load_timeline(prof)[0])
    ref = whatif.baseline_reference(lat, graph, 50.0)
    fast = whatif.project_replay(graph, lat, 50.0, cand_graph=cgraph, reference=ref, cand_host_ms=2.0)
    slow = whatif.project_replay(graph, lat, 50.0, cand_graph=cgraph, reference=ref, cand_host_ms=9.0)
    assert fast.candidate_calibration is not None and slow.candidate_calibration is not None
    assert fast.candidate_calibration.alpha < slow.candidate_calibration.alpha
    replayed = rp.host_median_ms(rp.replay(cgraph.sample(), None, slow.candidate_calibration.alpha))
    assert replayed == pytest.approx(9.0, rel=0.01)
    # TF32 makes Swin-T's kernels 3x faster: with a 9 ms host the candidate is host-paced at about its host time
    assert slow.candidate_replay_ms is not None and 9.0 <= slow.candidate_replay_ms <= 10.5
    assert any("measured unprofiled beside its trace" in n for n in slow.notes)
    assert slow.projected_low_ms is None  # measured, not bounded
    carried = whatif.project_replay(graph, lat, 50.0, cand_graph=cgraph, reference=ref)
    assert carried.candidate_calibration is None and not any("beside its trace" in n for n in carried.notes)
    assert slow.to_dict()["candidate_calibration"]["target_ms"] is None  # no NaN in the JSON
    # timed in alternate blocks with the baseline, the candidate's host took 2x the baseline's: its host time is 2x
    # the baseline latency CSV's host median, whatever spell the blocks ran in
    spell = whatif.project_replay(graph, lat, 50.0, cand_graph=cgraph, reference=ref, cand_host_ms=9.0,
                                  base_host_ms=[2.25] * len(lat), cand_host_ratio=2.0)
    assert spell.candidate_calibration is not None
    assert spell.candidate_calibration.host_ms == pytest.approx(4.5)
    assert any("timed in alternate blocks" in n for n in spell.notes)


def test_load_profile_attaches_the_reference_and_the_host_column(tmp_path: Path) -> None:
    shutil.copy(SWIN / "swint_bs16_fp32_trace.json.gz", tmp_path / "b_trace.json.gz")
    _manifest(tmp_path, "b_trace.json.gz", [2.0, 2.2, 2.1], [5.0])
    csv = tmp_path / "b.csv"
    csv.write_text("iteration,round,latency_ms,host_ms\n0,0,8.0,3.0\n1,0,8.2,3.1\n")
    prof = load_profile(tmp_path / "b_trace.json.gz", latency_csv=csv)
    assert prof.attachments["trace_host"].unprofiled_ms == pytest.approx(2.1)
    assert prof.attachments["latency_host_ms"] == [3.0, 3.1]


HOSTTIME = Path(__file__).parent / "data" / "h200" / "hosttime"
HELD_OUT = [(HOSTTIME / "blind5" / "vgg", "vgg_bs8_fp32", c) for c in ("vgg_bs8_tf32", "vgg_bs8_fp16_cl")] + \
           [(HOSTTIME / "blind6" / "sqz", "sqz_bs32_fp32", c) for c in ("sqz_bs32_tf32", "sqz_bs32_fp16_cl")] + \
           [(HOSTTIME / "blind8" / "r34", "r34_bs16_fp32", c) for c in ("r34_bs16_tf32", "r34_bs16_fp16_cl")]


def _project(folder: Path, base: str, cand: str, p: float):  # type: ignore[no-untyped-def]
    from hipgauge.profiles.parity import compare_profiles

    bp = load_profile(folder / f"{base}_trace.json.gz", latency_csv=folder / f"{base}_latency_ms.csv")
    cp = load_profile(folder / f"{cand}_trace.json.gz")
    return compare_profiles(bp, cp, percentile=p, base_timeline=load_timeline(bp)[0],
                            cand_timeline=load_timeline(cp)[0])


@pytest.mark.parametrize("folder,base,cand", HELD_OUT, ids=[c for _, _, c in HELD_OUT])
def test_on_held_out_captures_the_p50_interval_holds_and_is_narrow_unless_the_baseline_drifts(folder: Path, base: str, cand: str) -> None:
    """Captured after the host-time model was frozen (tests/data/h200/hosttime/README.md); the candidate's own CSV
    is only the measurement the interval is checked against."""
    res = _project(folder, base, cand, 50.0)
    measured = pct.percentile(read_latency(folder / f"{cand}_latency_ms.csv"), 50.0)
    i = res.interval
    assert i is not None and i.lo_ms <= measured <= i.hi_ms
    # at most 30% of the projection wide, unless the baseline's CSV drifts or the capture's same-spell rounds
    # disagree (these captures timed 8 rounds; the harness now times on until they agree): then it is as wide as the
    # data say
    floor = iv.host_transfer_error()
    rounds_disagree = i.host_ratio_factors is not None and max(i.host_ratio_factors) > floor
    assert i.width_share <= 0.30 or i.drift or rounds_disagree
    assert i.host_transfer is not None  # the candidate's host came from a same-spell ratio: its spread is carried
    if rounds_disagree:
        assert i.host_ratio_rounds == 8 and "its own interval over 8 rounds" in i.describe()
    replay = res.replay.replay  # type: ignore[union-attr]
    assert replay.candidate_calibration is not None and replay.candidate_calibration.anchor == "host"
    assert any("timed in alternate blocks" in n for n in replay.notes)


def test_a_gpu_bound_baseline_hands_its_host_jitter_to_the_candidate() -> None:
    """VGG-16 fp32 is GPU-bound (host 1.7 ms of 8.7): its latency P99 is 2.5% over its P50, its host's 97%. The TF32
    candidate, GPU-bound at its median, turns host-paced in the slow spells: measured P99 3.92 ms, P50 2.67."""
    folder = HOSTTIME / "blind5" / "vgg"
    res = _project(folder, "vgg_bs8_fp32", "vgg_bs8_tf32", 99.0)
    replay = res.replay.replay  # type: ignore[union-attr]
    assert replay.calibration is not None and replay.calibration.anchor == "host"
    measured = pct.summarize(read_latency(folder / "vgg_bs8_tf32_latency_ms.csv"), 99.0)[0]
    assert res.interval is not None and res.interval.lo_ms <= measured <= res.interval.hi_ms
    # the baseline's latency tail alone (+0.22 ms) would have put it at about 2.9 ms
    assert replay.projected_ms is not None and replay.projected_ms > 3.4


def test_without_the_host_times_the_projection_falls_back_and_says_so(tmp_path: Path) -> None:
    folder = HOSTTIME / "blind6" / "sqz"
    for name in ("sqz_bs32_fp32_trace.json.gz", "sqz_bs32_tf32_trace.json.gz"):
        shutil.copy(folder / name, tmp_path / name)
    # the CSV without its host_ms column, no capture.json beside the traces: a trace taken by hand
    lines = (folder / "sqz_bs32_fp32_latency_ms.csv").read_text().splitlines()
    (tmp_path / "sqz_bs32_fp32_latency_ms.csv").write_text(
        "\n".join(",".join(line.split(",")[:3]) for line in lines) + "\n")
    res = _project(tmp_path, "sqz_bs32_fp32", "sqz_bs32_tf32", 50.0)
    replay = res.replay.replay  # type: ignore[union-attr]
    assert replay.candidate_calibration is None and replay.calibration.anchor == "latency"
    assert any("recorded host event" in n for n in replay.notes)


def test_the_host_ratio_measured_in_one_spell_widens_the_interval_enough_to_hold() -> None:
    """ResNet-34 fp16 channels_last on an H100 (blind8/, captured after the host-transfer term was frozen): its
    same-spell host ratio was 5.9% above the run's, and without that term the P50 interval, 2.97-3.25 ms, missed
    the measured 2.96 ms. With it the interval is the replay with the ratio 10% lower and higher, in quadrature."""
    folder = HOSTTIME / "blind8" / "r34"
    res = _project(folder, "r34_bs16_fp32", "r34_bs16_fp16_cl", 50.0)
    i = res.interval
    measured = pct.percentile(read_latency(folder / "r34_bs16_fp16_cl_latency_ms.csv"), 50.0)
    assert i is not None and i.host_transfer is not None
    assert min(i.host_transfer) > 0.05  # a host-paced candidate moves with its host ratio
    assert i.lo_ms <= measured <= i.hi_ms
    without = i.value_ms * (1 - math.sqrt(i.sampling[0] ** 2 + i.model_error ** 2))
    assert without > measured  # the two older parts alone would have missed it
    assert "same-spell ratio" in i.describe()
