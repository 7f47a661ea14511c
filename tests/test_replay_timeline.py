"""Timeline readers (Kineto, Nsight Systems SQLite) and the replay engine, against a sequential reference."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from hipgauge.errors import InputError
from hipgauge.profiles import replay as rp
from hipgauge.profiles.readers.kineto_timeline import read_kineto_timeline
from hipgauge.profiles.readers.nsys_timeline import read_nsys_timeline
from hipgauge.profiles.timeline import (
    CALL_GRAPH,
    CALL_LAUNCH,
    CALL_SYNC,
    CALLS_SCHEMA,
    OPS_SCHEMA,
    Timeline,
    call_kind,
    memcpy_call_blocks,
)

US = 1000


def timeline(calls: list[tuple], ops: list[tuple], windows: list[tuple[int, int, int]] | None = None) -> Timeline:
    """calls: (thread, start, end, name, corr, blocking); ops: (stream, start, end, corr) with ns times."""
    c = pl.DataFrame([(t, s, e, n, call_kind(n), corr, b, 0) for t, s, e, n, corr, b in calls],
                     schema=CALLS_SCHEMA, orient="row").sort("start_ns")
    corr_to_call = {corr: i for i, corr in enumerate(c["corr"].to_list())}
    o = pl.DataFrame([(st, s, e, f"k{corr}", 0, corr, corr_to_call.get(corr), 0) for st, s, e, corr in ops],
                     schema=OPS_SCHEMA, orient="row").sort("start_ns")
    end = max(int(c["end_ns"].max()), int(o["end_ns"].max())) + 1
    return Timeline("synthetic", "kineto", c, o, windows or [(0, 0, end)], "ProfilerStep")


def launch_bound(n: int = 50, kernel_us: float = 5.0, step_us: float = 20.0) -> Timeline:
    """The host launches every step_us; each kernel runs kernel_us (< step_us): the GPU waits on the host."""
    calls, ops = [], []
    for i in range(n):
        s = int(i * step_us * US)
        calls.append((0, s, s + 4 * US, "cudaLaunchKernel", i, False))
        ops.append((7, s + 5 * US, s + 5 * US + int(kernel_us * US), i))
    last = ops[-1][2]
    calls.append((0, last - 1 * US, last + 2 * US, "cudaDeviceSynchronize", n, True))
    return timeline(calls, ops)


def gpu_bound(n: int = 50, kernel_us: float = 100.0) -> Timeline:
    """Every launch made up front; kernels back to back with 1 µs between them."""
    calls, ops = [], []
    t = 10 * US
    for i in range(n):
        calls.append((0, i * 5 * US, i * 5 * US + 4 * US, "cudaLaunchKernel", i, False))
        start = max(t, i * 5 * US + 5 * US)
        ops.append((7, start, start + int(kernel_us * US), i))
        t = start + int(kernel_us * US) + 1 * US
    calls.append((0, n * 5 * US, ops[-1][2] + 2 * US, "cudaDeviceSynchronize", n, True))
    return timeline(calls, ops)


def reference_replay(tl: Timeline, dur: np.ndarray, alpha: float = 1.0) -> float:
    """A plain event-by-event simulation of the same semantics, one call at a time (no vectorisation)."""
    g = rp.build_graph(tl).iterations[0]
    dur = np.asarray(dur, dtype=float)[g.op_rows]  # timeline rows → the graph's op order
    n_calls = len(g.c_before)
    thread_t: dict[int, float] = {}
    stream_end: dict[int, float] = {}
    ops_by_call: dict[int, list[int]] = {}
    for i, c in enumerate(g.o_call):
        ops_by_call.setdefault(int(c), []).append(i)
    # ops run in stream order: process calls in order, and ops in their stream order once launched
    order = sorted(range(len(g.o_call)), key=lambda i: (g.o_stream[i], i))
    pos = {i: k for k, i in enumerate(order)}
    ready = np.full(len(g.o_call), np.nan)
    end = np.full(len(g.o_call), np.nan)
    done = set()

    def run_ready() -> None:
        for s in set(g.o_stream.tolist()):
            idx = [i for i in order if g.o_stream[i] == s]
            for i in idx:
                if i in done:
                    continue
                if np.isnan(ready[i]):
                    break
                prev = stream_end.get(s)
                start = ready[i] if prev is None else max(ready[i], prev + g.o_gap[i])
                end[i] = start + dur[i]
                stream_end[s] = end[i]
                done.add(i)

    for j in range(n_calls):
        t = int(g.c_thread[j])
        start = thread_t.get(t, 0.0) + alpha * g.c_before[j]
        for i in ops_by_call.get(j, []):
            ready[i] = start + alpha * g.o_lat_cpu[i] + g.o_lat_hw[i]
        run_ready()
        if j in set(g.blocking.tolist()):
            drain = max(stream_end.values()) if stream_end else start
            thread_t[t] = max(start + alpha * g.c_dur[j], drain + alpha * g.c_wake[j])
        else:
            thread_t[t] = start + alpha * g.c_dur[j]
    del pos
    return float(np.nanmax(end))


def test_replay_reproduces_the_measured_timeline():
    for tl in (launch_bound(), gpu_bound()):
        g = rp.build_graph(tl)
        res = rp.replay(g)
        assert len(res) == 1
        assert res[0].replayed_ns == pytest.approx(g.iterations[0].profiled_ns, abs=1)


def test_launch_bound_kernel_speedup_reaches_latency_only_partly():
    tl = launch_bound()
    g = rp.build_graph(tl)
    base = rp.replay(g)[0]
    half = rp.replay(g, (tl.ops["end_ns"] - tl.ops["start_ns"]).to_numpy() * 0.5)[0]
    saved = base.replayed_ns - half.replayed_ns
    # only the last kernel's half reaches the end: 2.5 µs of 125 µs of kernel time saved
    assert saved == pytest.approx(2.5 * US, abs=10)
    assert base.idle_ns / base.replayed_ns > 0.7  # the GPU waits on the host most of the time


def test_gpu_bound_kernel_speedup_reaches_latency_fully():
    tl = gpu_bound()
    g = rp.build_graph(tl)
    base = rp.replay(g)[0]
    half = rp.replay(g, (tl.ops["end_ns"] - tl.ops["start_ns"]).to_numpy() * 0.5)[0]
    assert base.replayed_ns - half.replayed_ns == pytest.approx(50 * 50 * US, rel=0.02)


def test_slower_kernels_in_a_launch_bound_loop_eat_the_host_gaps_first():
    tl = launch_bound(n=20, kernel_us=5.0, step_us=20.0)
    g = rp.build_graph(tl)
    base = rp.replay(g)[0].replayed_ns
    d = (tl.ops["end_ns"] - tl.ops["start_ns"]).to_numpy().astype(float)
    # 3× slower (15 µs) still fits in the 20 µs launch period: only the last kernel's extra 10 µs shows
    assert rp.replay(g, d * 3)[0].replayed_ns - base == pytest.approx(10 * US, abs=50)
    # 6× (30 µs) outruns the host: the GPU becomes the bottleneck
    assert rp.replay(g, d * 6)[0].replayed_ns - base > 150 * US


def test_sync_in_the_middle_delays_the_following_launches():
    calls, ops = [], []
    for i in range(3):  # three launches, then a sync, then three more
        calls.append((0, i * 10 * US, i * 10 * US + 3 * US, "cudaLaunchKernel", i, False))
        ops.append((7, i * 10 * US + 4 * US, i * 10 * US + 9 * US, i))
    calls.append((0, 30 * US, 40 * US, "cudaStreamSynchronize", 99, True))
    for k in range(3):
        i = 3 + k
        s = 45 * US + k * 10 * US
        calls.append((0, s, s + 3 * US, "cudaLaunchKernel", i, False))
        ops.append((7, s + 4 * US, s + 9 * US, i))
    tl = timeline(calls, ops)
    g = rp.build_graph(tl)
    assert len(g.iterations[0].blocking) == 1
    d = (tl.ops["end_ns"] - tl.ops["start_ns"]).to_numpy().astype(float)
    d2 = d.copy()
    d2[2] += 100 * US  # the kernel before the sync gets 100 µs slower
    # every launch after the sync moves by the wait: the end moves by the extra time beyond the host's slack
    base, slow = rp.replay(g, d)[0].replayed_ns, rp.replay(g, d2)[0].replayed_ns
    # the sync did not wait (its 10 µs are its own): now it waits for the slow kernel, returning a typical
    # wake-up after it (none measured here: 2 µs), so the launches after it move by 129 + 2 − 40 µs
    assert slow - base == pytest.approx(91 * US, abs=1 * US)
    assert slow == pytest.approx(reference_replay(tl, d2), abs=1)


def test_cuda_graph_launch_keeps_spacing_and_gets_faster():
    calls = [(0, 0, 5 * US, "cudaGraphLaunch", 1, False), (0, 6 * US, 500 * US, "cudaStreamSynchronize", 2, True)]
    ops, t = [], 8 * US
    for _ in range(10):
        ops.append((7, t, t + 40 * US, 1))
        t += 41 * US
    tl = timeline(calls, ops)
    assert call_kind("cudaGraphLaunch") == CALL_GRAPH and call_kind("hipGraphLaunch") == CALL_GRAPH
    g = rp.build_graph(tl)
    assert (g.iterations[0].o_call == 0).all()
    base = rp.replay(g)[0].replayed_ns
    half = rp.replay(g, (tl.ops["end_ns"] - tl.ops["start_ns"]).to_numpy() * 0.5)[0].replayed_ns
    assert base - half == pytest.approx(10 * 20 * US, abs=10)


@pytest.mark.parametrize("seed", range(8))
def test_vectorised_replay_matches_the_sequential_reference(seed: int):
    rng = np.random.default_rng(seed)
    calls, ops, t, corr = [], [], 0, 0
    gpu = {7: 0, 9: 0}
    for _ in range(60):
        t += int(rng.integers(1, 30)) * US
        if rng.random() < 0.1:
            end = max(t + 2 * US, max(gpu.values()) + 1 * US)
            calls.append((0, t, end, "cudaStreamSynchronize", corr, True))
            corr += 1
            t = end
            continue
        stream = 7 if rng.random() < 0.7 else 9
        calls.append((0, t, t + 4 * US, "cudaLaunchKernel", corr, False))
        start = max(t + 5 * US, gpu[stream] + 1 * US)
        d = int(rng.integers(1, 60)) * US
        ops.append((stream, start, start + d, corr))
        gpu[stream] = start + d
        corr += 1
        t += 4 * US
    tl = timeline(calls, ops)
    d = (tl.ops["end_ns"] - tl.ops["start_ns"]).to_numpy().astype(float) * rng.uniform(0.3, 2.0, tl.ops.height)
    g = rp.build_graph(tl)
    alpha = float(rng.uniform(0.3, 1.2))
    assert rp.replay(g, d, alpha)[0].replayed_ns == pytest.approx(reference_replay(tl, d, alpha), abs=1)


def test_calibration_finds_the_host_scale():
    tl = launch_bound(n=100, kernel_us=5.0, step_us=20.0)
    g = rp.build_graph(tl)
    profiled = rp.median_ms(rp.replay(g))
    cal = rp.calibrate(g, profiled * 0.5)
    assert 0.4 < cal.alpha < 0.6 and not cal.clamped
    assert cal.replayed_ms == pytest.approx(profiled * 0.5, rel=1e-3)
    assert rp.calibrate(g, profiled * 100).clamped  # the replay cannot reach it: said so


def test_edges_list_launch_stream_order_and_sync_waits():
    tl = launch_bound(n=3)
    e = tl.edges()
    kinds = e.group_by("kind").len().sort("kind")
    assert dict(kinds.iter_rows()) == {"launch": 3, "stream-order": 2, "sync-wait": 1}
    assert e.filter(pl.col("kind") == "sync-wait")["dst"].to_list() == ["call:3"]


def test_memcpy_blocking_rules():
    assert memcpy_call_blocks("cudaMemcpy", "Memcpy HtoD (Pageable -> Device)")
    assert memcpy_call_blocks("cudaMemcpyAsync", "Memcpy DtoH (Device -> Pageable)")
    assert not memcpy_call_blocks("cudaMemcpyAsync", "Memcpy DtoH (Device -> Pinned)")
    assert not memcpy_call_blocks("cudaMemcpyAsync", "Memcpy HtoD (Pageable -> Device)")
    assert call_kind("cudaStreamSynchronize") == CALL_SYNC and call_kind("hipLaunchKernel") == CALL_LAUNCH


# ------------------------------------------------------------------ readers


def _kineto_doc(step_names: list[str]) -> dict:
    ev: list[dict] = []
    corr = 1
    for it, name in enumerate(step_names):
        base = 1000.0 + it * 1000.0
        ev.append({"ph": "X", "cat": "user_annotation", "name": name, "pid": 1, "tid": 1, "ts": base, "dur": 900.0})
        for k in range(3):
            ts = base + 10 + k * 100
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts,
                       "dur": 5.0, "args": {"correlation": corr}})
            ev.append({"ph": "X", "cat": "kernel", "name": f"kern{k}", "pid": 0, "tid": 7, "ts": ts + 6, "dur": 50.0,
                       "args": {"correlation": corr, "stream": 7, "device": 0}})
            corr += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1,
                   "ts": base + 320, "dur": 40.0, "args": {"correlation": corr}})
        corr += 1
    return {"schemaVersion": 1, "traceEvents": ev}


def test_kineto_timeline_uses_record_function_iteration_ranges(tmp_path: Path):
    f = tmp_path / "user_iters.json"
    f.write_text(json.dumps(_kineto_doc([f"iteration_{i}" for i in range(4)])), encoding="utf-8")
    tl = read_kineto_timeline(f)
    assert tl.window_source == "user ranges" and tl.iterations == [0, 1, 2, 3]
    assert tl.ops["call"].null_count() == 0 and tl.calls["blocking"].sum() == 4
    g = rp.build_graph(tl)
    assert [x.iteration for x in g.iterations] == [0, 1, 2, 3]
    # the profile reader counts the same iterations (never "unknown" and then "inferred")
    from hipgauge.profiles.load import load_profile

    prof = load_profile(f)
    assert sorted(i for i, _, _ in prof.iterations) == [0, 1, 2, 3]
    assert not any("iterations unknown" in w for w in prof.warnings)


def test_kineto_timeline_without_markers_infers_iterations(tmp_path: Path):
    f = tmp_path / "plain.json.gz"
    with gzip.open(f, "wt", encoding="utf-8") as fh:
        json.dump(_kineto_doc([f"other range {i}x" for i in range(4)]), fh)
    tl = read_kineto_timeline(f)
    assert tl.windows == [] and tl.window_source == "none"
    g = rp.build_graph(tl)
    assert g.window_source == "inferred" and len(g.iterations) == 4
    assert any("inferred" in n for n in g.notes)
    # one story per trace: never "iterations unknown" in the warnings and "inferred" in the notes
    from hipgauge.profiles.load import load_profile
    from hipgauge.profiles.projection import project_baseline

    prof = load_profile(f)
    res = project_baseline(prof, 10.0, 50.0, timeline=tl)
    assert not any("unknown" in w for w in prof.warnings + res.warnings)
    assert any("inferred" in n for n in res.notes)


def test_kineto_timeline_of_the_h200_resnet50(h200_dir: Path):
    tl = read_kineto_timeline(h200_dir / "resnet50_bs8_fp16_nhwc_trace.json.gz")
    assert tl.window_source == "ProfilerStep" and tl.iterations == [3, 4, 5, 6, 7]
    per_it = tl.ops.group_by("iteration").len()
    assert per_it["len"].to_list() == [230] * 5
    assert tl.ops["call"].null_count() == 0
    g = rp.build_graph(tl)
    res = rp.replay(g)
    for it, r in zip(g.iterations, res):
        assert r.replayed_ns == pytest.approx(it.profiled_ns, rel=0.02)  # as profiled, replay ≈ measured span


def test_kineto_timeline_rejects_a_trace_without_device_work(tmp_path: Path):
    f = tmp_path / "cpu_only.json"
    f.write_text(json.dumps({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "x", "ts": 1, "dur": 1}]}))
    with pytest.raises(InputError):
        read_kineto_timeline(f)


def _nsys_db(path: Path) -> None:
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, "end" INT, globalTid INT, correlationId INT, nameId INT);
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, "end" INT, deviceId INT, streamId INT,
            correlationId INT, globalPid INT, demangledName INT);
        CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INT, "end" INT, streamId INT, correlationId INT,
            globalPid INT, copyKind INT, srcKind INT, dstKind INT);
        CREATE TABLE NVTX_EVENTS (start INT, "end" INT, eventType INT, text TEXT, textId INT, globalTid INT);
    """)
    con.executemany("INSERT INTO StringIds VALUES (?, ?)",
                    [(1, "cudaLaunchKernel"), (2, "cudaMemcpyAsync"), (3, "gemm_kernel")])
    tid, pid = 0x1000000 * 5 + 7, 0x1000000 * 5
    corr = 1
    for it in range(3):
        base = 1_000_000 * (it + 1)
        con.execute("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, ?, NULL, ?)", (base, base + 900_000, f"step {it}", tid))
        for k in range(2):
            s = base + 10_000 + k * 50_000
            con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, 1)", (s, s + 4000, tid, corr))
            con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 7, ?, ?, 3)",
                        (s + 5000, s + 25_000, corr, pid))
            corr += 1
        s = base + 200_000
        con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, 2)", (s, s + 30_000, tid, corr))
        con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 7, ?, ?, 2, 3, 1)",
                    (s + 20_000, s + 28_000, corr, pid))
        corr += 1
    con.commit()
    con.close()


def test_nsys_timeline(tmp_path: Path):
    f = tmp_path / "report.sqlite"
    _nsys_db(f)
    tl = read_nsys_timeline(f)
    assert tl.window_source == "NVTX ranges" and tl.iterations == [0, 1, 2]
    assert tl.ops.height == 9 and tl.ops["call"].null_count() == 0
    copies = tl.ops.filter(pl.col("kind") == 1)
    assert copies["name"].to_list()[0] == "Memcpy DtoH (Device -> Pageable)"
    assert tl.calls["blocking"].sum() == 3  # DtoH into pageable memory waits
    g = rp.build_graph(tl)
    assert len(g.iterations) == 3
    res = rp.replay(g)
    assert res[0].replayed_ns == pytest.approx(g.iterations[0].profiled_ns, abs=1)


def test_event_wait_across_streams_follows_the_producer():
    """Stream 7 runs a 100 µs producer; the host records an event and makes stream 9 wait on it; stream 9's
    consumer starts 2 µs after the producer ends. A faster producer moves the consumer with it."""
    calls = [(0, 0, 4 * US, "cudaLaunchKernel", 1, False),
             (0, 5 * US, 7 * US, "cudaEventRecord", 2, False),
             (0, 8 * US, 10 * US, "cudaStreamWaitEvent", 3, False),
             (0, 11 * US, 15 * US, "cudaLaunchKernel", 4, False),
             (0, 16 * US, 200 * US, "cudaDeviceSynchronize", 5, True)]
    ops = [(7, 5 * US, 105 * US, 1), (9, 107 * US, 137 * US, 4)]
    tl = timeline(calls, ops)
    g = rp.build_graph(tl)
    it = g.iterations[0]
    consumer = int(np.nonzero(it.o_stream == it.o_stream.max())[0][0])
    assert it.o_dep[consumer] >= 0 and it.o_dep_lag[consumer] == pytest.approx(2 * US)
    d = (tl.ops["end_ns"] - tl.ops["start_ns"]).to_numpy().astype(float)
    base = rp.replay(g, d)[0].replayed_ns
    assert base == pytest.approx(it.profiled_ns, abs=1)
    d[0] = 50 * US  # the producer twice as fast: the consumer starts 50 µs earlier
    assert base - rp.replay(g, d)[0].replayed_ns == pytest.approx(50 * US, abs=1)
    # without the wait call the consumer keeps its measured launch delay instead
    no_wait = timeline([c for c in calls if "WaitEvent" not in c[3]], ops)
    assert (rp.build_graph(no_wait).iterations[0].o_dep < 0).all()
