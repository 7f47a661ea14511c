"""compare / project with a timeline: replay projection, model check, slack by bisection, additive fallback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from hipgauge.model import KERNEL_RECORD_SCHEMA, Profile
from hipgauge.profiles import replay as rp
from hipgauge.profiles.load import load_profile
from hipgauge.profiles.parity import compare_profiles
from hipgauge.profiles.projection import project_baseline
from hipgauge.profiles.timeline import CALLS_SCHEMA, OPS_SCHEMA, Timeline, call_kind
from hipgauge.profiles.timeline_load import load_timeline

DATA = Path(__file__).resolve().parent / "data" / "compare"
BASE, CAND, LAT = DATA / "det_base.json", DATA / "det_cand.json", DATA / "det_base_latency_ms.csv"
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "detector" / "captures"
US = 1000


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hipgauge", *args], check=False, capture_output=True, text=True,
                          timeout=180,
                          env={"COLUMNS": "120", "PATH": "/usr/bin:/bin"})


def test_compare_json_puts_the_replayed_figure_in_projected_ms():
    r = run("compare", str(BASE), str(CAND), "--latency-csv", str(LAT), "--target-ms", "20", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    p = d["projection"]
    assert p["method"] == "timeline-replay" and p["source"] == "estimated"
    assert p["projected_ms"] == pytest.approx(d["replay"]["replay"]["projected_ms"])
    assert "timeline replay" in p["model"] and "α" in p["model"]
    rep = d["replay"]["replay"]
    assert rep["iterations"] and {"baseline_replayed_ms", "candidate_replayed_ms", "candidate_gpu_idle_on_host_ms",
                                  "candidate_gpu_idle_share"} <= set(rep["iterations"][0])
    # the worked example's trace is GPU-bound: the replay adds the kernel-time delta, as DESIGN.md's example does
    assert rep["baseline_host_share"] < rp.MIN_HOST_SHARE
    assert p["projected_ms"] == pytest.approx(p["baseline_ms"] + 4.8, rel=1e-6)
    assert d["replay"]["additive_ms"] == pytest.approx(p["baseline_ms"] + 4.8, rel=1e-6)


def test_compare_model_check_printed_and_stored(tmp_path: Path):
    cand_lat = tmp_path / "cand_latency_ms.csv"
    cand_lat.write_text("iteration,latency_ms\n" + "".join(f"{i},{22.0 + 0.01 * i}\n" for i in range(120)))
    r = run("compare", str(BASE), str(CAND), "--latency-csv", str(LAT), "--candidate-latency-csv", str(cand_lat),
            "--json")
    d = json.loads(r.stdout)
    p = d["projection"]
    assert p["source"] == "measured"
    mc = p["model_check"]
    assert mc["measured_ms"] == pytest.approx(p["projected_ms"])
    assert mc["projected_ms"] == pytest.approx(p["baseline_ms"] + 4.8, rel=1e-6)
    assert mc["error"] == pytest.approx((mc["projected_ms"] - mc["measured_ms"]) / mc["measured_ms"])
    text = run("compare", str(BASE), str(CAND), "--latency-csv", str(LAT), "--candidate-latency-csv", str(cand_lat))
    assert "model check: projected 22.594 ms, measured" in text.stdout


def test_project_slack_by_bisection_reproduces_the_worked_example():
    r = run("project", str(BASE), "--latency-csv", str(LAT), "--target-ms", "20", "--json")
    d = json.loads(r.stdout)
    assert d["slack_method"] == "timeline replay, bisection"
    conv = next(g for g in d["groups"] if g["name"] == "convolution")
    L = d["latency"]["value_ms"]
    assert conv["max_ratio"] == pytest.approx(1 + (20 - L) / 12.0, rel=2e-3)  # 1.18×
    for ratio, expected in ((1.4, 22.594), (1.03, 18.154)):
        w = json.loads(run("project", str(BASE), "--latency-csv", str(LAT), "--target-ms", "20", "--assume",
                           f"convolution={ratio}", "--json").stdout)
        assert w["projection"]["projected_ms"] == pytest.approx(expected, abs=1e-3)


def _launch_bound_profile(n_iter: int = 30) -> tuple[Profile, Timeline]:
    """A loop whose host launches a 5 µs conv and a 5 µs relu every 20 µs: the GPU waits on the host."""
    calls, ops, krows, windows = [], [], [], []
    t, corr = 0, 0
    for it in range(n_iter):
        start = t
        for k in range(20):
            name = "sm90_xmma_fprop_implicit_gemm" if k % 2 == 0 else "relu_kernel"
            op = "aten::cudnn_convolution" if k % 2 == 0 else "aten::relu_"
            calls.append((0, t, t + 4 * US, "cudaLaunchKernel", call_kind("cudaLaunchKernel"), corr, False, it))
            ops.append((7, t + 5 * US, t + 10 * US, name, 0, corr, len(calls) - 1, it))
            krows.append({"vendor": "nvidia", "source_format": "kineto", "raw_name": name, "name": name, "key": name,
                          "operator": op, "iteration": it, "start_ns": t + 5 * US, "duration_ns": 5 * US,
                          "correlation": corr})
            corr += 1
            t += 20 * US
        calls.append((0, t, t + 3 * US, "cudaDeviceSynchronize", call_kind("cudaDeviceSynchronize"), corr, True, it))
        corr += 1
        t += 10 * US
        windows.append((it, start, t))
    tl = Timeline("lb.json", "kineto", pl.DataFrame(calls, schema=CALLS_SCHEMA, orient="row"),
                  pl.DataFrame(ops, schema=OPS_SCHEMA, orient="row"), windows, "ProfilerStep")
    schema = {k: getattr(pl, v) for k, v in KERNEL_RECORD_SCHEMA.items()}
    prof = Profile("lb.json", "kineto", "nvidia", pl.DataFrame(krows, schema=schema),
                   iterations=[(i, s, e) for i, s, e in windows],
                   latency_ms=[0.41 + 0.001 * (i % 10) for i in range(200)], latency_source="lb.csv")
    return prof, tl


def test_launch_bound_slack_is_larger_than_the_linear_formula_and_assume_barely_moves():
    prof, tl = _launch_bound_profile()
    linear = project_baseline(prof, 0.45, 99.0)
    replayed = project_baseline(prof, 0.45, 99.0, timeline=tl)
    conv_lin = next(g for g in linear.groups if g.name == "convolution")
    conv_rep = next(g for g in replayed.groups if g.name == "convolution")
    assert replayed.slack_method.startswith("timeline replay")
    # a 5 µs kernel launched every 20 µs can take ~3× as long before the host stops pacing the loop
    assert conv_rep.max_ratio > 2.5 > conv_lin.max_ratio
    what_if = project_baseline(prof, 0.45, 99.0, {"conv*": 0.5}, timeline=tl)
    assert what_if.projection.projected_ms == pytest.approx(replayed.latency.value_ms, rel=0.02)
    assert any("launch-bound" in n for n in what_if.notes)
    idle = what_if.replay["iterations"][0]["candidate_gpu_idle_share"]
    assert idle > 0.5


def test_launch_overhead_assumed_shifts_a_launch_bound_projection():
    prof, tl = _launch_bound_profile()
    base = project_baseline(prof, 0.45, 50.0, {"conv*": 1.0001}, timeline=tl)
    slower = project_baseline(prof, 0.45, 50.0, {"conv*": 1.0001}, timeline=tl, launch_overhead_us=2.0)
    assert slower.projection.projected_ms > base.projection.projected_ms * 1.05
    assert "assumed" in slower.model and slower.replay["launch_overhead_source"] == "assumed"


def test_profiles_without_a_timeline_keep_the_additive_model_labelled():
    ncu = EXAMPLE / "detector_ncu_raw.csv"
    lat = EXAMPLE / "detector_latency_ms.csv"
    if not ncu.exists():
        pytest.skip("example captures absent")
    r = run("compare", str(ncu), str(ncu), "--latency-csv", str(lat), "--percentile", "50", "--json")
    d = json.loads(r.stdout)
    p = d["projection"]
    assert p["method"] == "additive"
    assert "additive model (no timeline" in p["model"] and "over-states" in p["model"]
    assert any("record no host/device timeline" in n for n in d["notes"])
    prof = load_profile(ncu)
    assert load_timeline(prof)[0] is None


def test_too_few_baseline_iterations_for_the_percentile_is_a_warning(tmp_path: Path):
    short = tmp_path / "short.csv"
    short.write_text("iteration,latency_ms\n" + "".join(f"{i},{17.5 + 0.01 * i}\n" for i in range(20)))
    d = json.loads(run("compare", str(BASE), str(CAND), "--latency-csv", str(short), "--json").stdout)
    assert any("P99 needs ≥100" in w for w in d["warnings"])
    d = json.loads(run("project", str(BASE), "--latency-csv", str(short), "--target-ms", "20", "--json").stdout)
    assert any("P99 needs ≥100" in w for w in d["warnings"])


def test_replay_of_a_nsys_or_kineto_trace_is_used_and_durations_follow_matched_units():
    base = load_profile(BASE, latency_csv=LAT)
    cand = load_profile(CAND)
    btl, _ = load_timeline(base)
    # no candidate timeline: the baseline's timeline at the matched candidate durations
    res = compare_profiles(base, cand, percentile=99.0, base_timeline=btl, cand_timeline=None)
    rep = res.replay.replay
    assert rep.strategy.startswith("baseline timeline, each kernel at its matched")
    assert res.projection.projected_ms == pytest.approx(res.projection.baseline_ms + 4.8, rel=1e-3)
    assert np.isfinite(rep.candidate_replay_ms)


def test_launch_overhead_shrinks_the_slack_of_a_launch_bound_loop():
    prof, tl = _launch_bound_profile()
    plain = project_baseline(prof, 0.45, 50.0, timeline=tl)
    dearer = project_baseline(prof, 0.45, 50.0, timeline=tl, launch_overhead_us=1.0)
    conv = {r: next(g for g in x.groups if g.name == "convolution").max_ratio for r, x in (("p", plain), ("d", dearer))}
    assert conv["d"] is None or conv["d"] < conv["p"]
    # with an assumed launch cost and no --assume, the projection itself is the target runtime's
    assert dearer.projection.projected_ms > plain.projection.projected_ms
