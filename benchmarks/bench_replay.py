"""Replay benchmark: timeline replay of a ≥200k-kernel trace vs the additive model on the same data.

Builds a ``Timeline`` of at least ``--kernels`` kernels (default 200,000) by replicating the real H200
ResNet-50 capture of the shared fixtures (its runtime calls, kernels and ProfilerStep windows, shifted
in time and ids; a synthetic launch-bound loop when the fixture is absent), then times, in this process:

- ``build``: the per-iteration dependency graphs (``replay.build_graph``);
- ``replay``: one replay of every iteration with every kernel at 0.8× its duration;
- ``calibrate``: the host-scale bisection (tens of replays), reported apart;
- the peer, ``additive``: the additive model's per-iteration kernel-time sums on the same ops (polars).

Goal: build + replay under 10 s on 2 cores. The ratio (build + replay) ÷ additive is reported because the
absolute times depend on the machine. Prints one JSON object last (hipgauge.benchmarks/1 convention).

    python benchmarks/bench_replay.py [--kernels 200000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
SOURCE = REPO.parent / "shared" / "fixtures" / "h200" / "resnet50_bs8_fp16_nhwc_trace.json.gz"

from hipgauge.profiles import replay as rp  # noqa: E402 - after sys.path points at this checkout
from hipgauge.profiles.readers.kineto_timeline import read_kineto_timeline  # noqa: E402 - after sys.path points at this checkout
from hipgauge.profiles.timeline import CALLS_SCHEMA, OPS_SCHEMA, Timeline  # noqa: E402 - after sys.path points at this checkout


def synthetic_seed() -> Timeline:
    """One launch-bound iteration of 2,000 kernels on one stream, a sync at the end."""
    n = 2000
    cs = np.arange(n + 1) * 20_000
    calls = pl.DataFrame({"thread": [0] * (n + 1), "start_ns": cs, "end_ns": cs + 5_000,
                          "name": ["cudaLaunchKernel"] * n + ["cudaDeviceSynchronize"],
                          "kind": [1] * n + [5], "corr": list(range(n + 1)), "blocking": [False] * n + [True],
                          "iteration": [0] * (n + 1)})
    ks = cs[:n] + 6_500
    ops = pl.DataFrame({"stream": [7] * n, "start_ns": ks, "end_ns": ks + 8_000, "name": ["k"] * n, "kind": [0] * n,
                        "corr": list(range(n)), "call": list(range(n)), "iteration": [0] * n})
    end = int(cs[-1] + 10_000)
    return Timeline("synthetic", "kineto", calls.cast(CALLS_SCHEMA), ops.cast(OPS_SCHEMA), [(0, 0, end)], "ProfilerStep")


def replicate(seed: Timeline, min_kernels: int) -> Timeline:
    kernels = seed.ops.filter(pl.col("kind") == 0).height
    copies = -(-min_kernels // max(kernels, 1))
    t0 = min(int(seed.calls["start_ns"].min()), int(seed.ops["start_ns"].min()))
    span = max(int(seed.calls["end_ns"].max()), int(seed.ops["end_ns"].max())) - t0 + 1_000_000
    n_it = max(seed.iterations) + 1 if seed.windows else 1
    calls, ops, windows = [], [], []
    for c in range(copies):
        dt = c * span
        calls.append(seed.calls.with_columns(pl.col("start_ns") + dt, pl.col("end_ns") + dt,
                                             pl.col("corr") + c * 10_000_000, pl.col("iteration") + c * n_it))
        ops.append(seed.ops.with_columns(pl.col("start_ns") + dt, pl.col("end_ns") + dt,
                                         pl.col("corr") + c * 10_000_000, pl.col("call") + c * seed.calls.height,
                                         pl.col("iteration") + c * n_it))
        windows += [(i + c * n_it, s + dt, e + dt) for i, s, e in seed.windows]
    return Timeline("replicated", seed.source_format, pl.concat(calls), pl.concat(ops), windows, seed.window_source)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernels", type=int, default=200_000)
    ap.add_argument("--source", type=Path, default=SOURCE)
    args = ap.parse_args()
    if args.source.exists():
        seed = read_kineto_timeline(args.source)
        origin = str(args.source.name)
    else:
        seed, origin = synthetic_seed(), "synthetic launch-bound loop"
    tl = replicate(seed, args.kernels)
    n_kernels = tl.ops.filter(pl.col("kind") == 0).height
    print(f"timeline: {n_kernels:,} kernels, {tl.ops.height:,} ops, {tl.calls.height:,} calls, "
          f"{len(tl.windows):,} iterations (from {origin})")

    t = time.perf_counter()
    graph = rp.build_graph(tl)
    build_s = time.perf_counter() - t
    dur = (tl.ops["end_ns"] - tl.ops["start_ns"]).to_numpy().astype(np.float64) * 0.8
    t = time.perf_counter()
    res = rp.replay(graph, dur, alpha=0.35)
    replay_s = time.perf_counter() - t
    t = time.perf_counter()
    cal = rp.calibrate(graph, rp.median_ms(rp.replay(graph, None, 0.35)))
    calibrate_s = time.perf_counter() - t

    t = time.perf_counter()
    sums = (tl.ops.filter(pl.col("iteration").is_not_null())
            .group_by("iteration").agg((pl.col("end_ns") - pl.col("start_ns")).sum()).sort("iteration"))
    additive_s = max(time.perf_counter() - t, 1e-6)
    total = build_s + replay_s
    print(f"build {build_s:.2f} s, replay {replay_s:.2f} s (goal: < 10 s together), calibrate {calibrate_s:.2f} s "
          f"(α {cal.alpha:.3f}); additive peer {additive_s:.3f} s; ratio (build+replay)/additive "
          f"{total / additive_s:.0f}x")
    print(json.dumps({"benchmark": "replay", "kernels": n_kernels, "iterations": len(res), "build_s": round(build_s, 3),
                      "replay_s": round(replay_s, 3), "build_plus_replay_s": round(total, 3),
                      "goal_s": 10.0, "meets_goal": total < 10.0, "calibrate_s": round(calibrate_s, 3),
                      "additive_s": round(additive_s, 4), "ratio_vs_additive": round(total / additive_s, 1),
                      "iterations_summed_by_peer": sums.height}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
