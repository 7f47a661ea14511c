"""Per-phase check of the timeline replay on detector captures (tests/data/h200/detectors, issue #24).

    python scripts/detector_phases.py [--data DIR] [--markdown]

For each variant with ``<name>_trace.json.gz``, ``<name>_latency_ms.csv``, ``<name>_phases.csv`` and
``<name>_syncs.txt`` (written by that folder's capture_detectors.py):

- replayed phase times: the trace's ``phase:<part>`` ranges (forward hooks on transform, backbone, head / rpn,
  roi_heads) cut each replayed iteration where a CUDA event recorded by the hook would: at the later of the hook's
  replayed host time and the replayed end of the device work launched before it; ``post`` runs from the last
  part's end to the iteration's end. Host time is scaled by the α that makes the replayed median the variant's own
  measured median (its latency CSV), so the phases are compared at the right total;
- measured phase times: the unprofiled CUDA-event times of the same hooks (``<name>_phases.csv``, medians);
- host share of the replayed critical path (``replay.replay_side``);
- synchronisations per iteration: counted by torch's sync debug mode in an unprofiled forward
  (``<name>_syncs.txt``), and in the trace: ``cudaStreamSynchronize`` calls, device→host copies,
  ``aten::nonzero`` / ``aten::item`` ops and the calls the replay treats as blocking.

Analysis only (no fixture is written); docs/matching.md quotes its table.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hipgauge.profiles import replay as rp  # noqa: E402 - after sys.path points at this checkout
from hipgauge.profiles.load import load_profile  # noqa: E402 - after sys.path points at this checkout
from hipgauge.profiles.timeline_load import load_timeline  # noqa: E402 - after sys.path points at this checkout

DATA = ROOT / "tests" / "data" / "h200" / "detectors"


def trace_facts(path: Path) -> tuple[dict[int, list[tuple[str, int, int]]], dict[str, float]]:
    """Phase ranges per ProfilerStep (name, start ns, end ns) and per-step counts of sync-related events."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    steps = [(int(e["name"].split("#")[1]), e["ts"], e["ts"] + e.get("dur", 0)) for e in events
             if e.get("cat") == "user_annotation" and str(e.get("name", "")).startswith("ProfilerStep#")]
    phases: dict[int, list[tuple[str, int, int]]] = {n: [] for n, _, _ in steps}
    counts = {"cudaStreamSynchronize": 0.0, "DtoH copies": 0.0, "aten::nonzero": 0.0, "aten::item": 0.0}
    for e in events:
        cat, name = e.get("cat"), str(e.get("name", ""))
        if cat == "user_annotation" and name.startswith("phase:"):
            for n, s, t in steps:
                if s <= e["ts"] < t:
                    phases[n].append((name[6:], round(e["ts"] * 1000), round((e["ts"] + e.get("dur", 0)) * 1000)))
        elif cat == "cuda_runtime" and name == "cudaStreamSynchronize":
            counts["cudaStreamSynchronize"] += 1
        elif cat == "gpu_memcpy" and "DtoH" in name:
            counts["DtoH copies"] += 1
        elif cat == "cpu_op" and name in ("aten::nonzero", "aten::item"):
            counts[name] += 1
    return phases, {k: v / max(len(steps), 1) for k, v in counts.items()}


def measured_phases(path: Path) -> dict[str, float]:
    by: dict[str, list[float]] = {}
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            by.setdefault(r["phase"], []).append(float(r["gpu_ms"]))
    return {k: statistics.median(v) for k, v in by.items()}


def event_time(g: rp.IterationGraph, detail: dict[str, np.ndarray], cstart: np.ndarray, alpha: float, t: float,
               end_ns: float) -> float:
    """Replayed time of a CUDA event recorded at profiled host time ``t``: the later of the host reaching that point
    (the next call's replayed start, less the α-scaled host time from ``t`` to it) and the end of every op launched
    before it."""
    i = int(np.searchsorted(cstart, t, side="left"))
    host = (detail["call_start"][i] - alpha * (cstart[i] - t)) if i < len(cstart) else end_ns
    before = (g.o_call >= 0) & (g.o_call < i)
    dev = float(detail["op_end"][before].max()) if before.any() else -np.inf
    return max(float(host), dev, 0.0)


def replayed_phases(tl, graph: rp.ReplayGraph, phases: dict[int, list[tuple[str, int, int]]],
                    alpha: float) -> dict[str, float]:
    calls = tl.calls.with_row_index("crow")
    out: dict[str, list[float]] = {}
    for g in graph.iterations:
        ranges = sorted(phases.get(g.iteration, []), key=lambda x: x[1])
        if not ranges:
            continue
        c = calls.filter(calls["iteration"] == g.iteration).sort("start_ns", maintain_order=True)
        cstart = c["start_ns"].to_numpy().astype(np.float64)
        detail: dict[str, np.ndarray] = {}
        res = rp.replay_iteration(g, g.o_dur, alpha, 0.0, detail)

        marks = [(name, event_time(g, detail, cstart, alpha, s, res.replayed_ns),
                  event_time(g, detail, cstart, alpha, e, res.replayed_ns)) for name, s, e in ranges]
        for name, s, e in marks:
            out.setdefault(name, []).append((e - s) / 1e6)
        out.setdefault("post", []).append((res.replayed_ns - marks[-1][2]) / 1e6)
        out.setdefault("total", []).append(res.replayed_ns / 1e6)
    return {k: float(np.median(v)) for k, v in out.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    names = sorted(p.name[: -len("_phases.csv")] for p in args.data.glob("*_phases.csv"))
    rows = []
    for name in names:
        trace = args.data / f"{name}_trace.json.gz"
        if not trace.exists():
            continue
        prof = load_profile(trace, latency_csv=args.data / f"{name}_latency_ms.csv")
        tl, _ = load_timeline(prof)
        graph = rp.build_graph(tl)
        cal = rp.calibrate(graph, float(np.median(prof.latency_ms or [np.nan])))
        phases, counts = trace_facts(trace)
        rep = replayed_phases(tl, graph, phases, cal.alpha)
        meas = measured_phases(args.data / f"{name}_phases.csv")
        side = rp.replay_side(graph, None, cal.alpha)
        blocking = float(np.mean([len(g.blocking) for g in graph.iterations]))
        syncs_txt = (args.data / f"{name}_syncs.txt").read_text(encoding="utf-8").split()
        debug_syncs = int(syncs_txt[1]) if len(syncs_txt) > 1 else None
        rows.append((name, cal, rep, meas, side.host_share, blocking, counts, debug_syncs))
        print(f"done {name}", file=sys.stderr, flush=True)
    for name, cal, rep, meas, share, blocking, counts, debug_syncs in rows:
        parts = [k for k in meas if k != "total"]
        cells = " ".join(f"{k} {rep.get(k, float('nan')):.2f}/{meas[k]:.2f}" for k in parts)
        print(f"| {name} | α {cal.alpha:.3f} | {cells} | host share {share:.2f} | syncs: debug {debug_syncs}, "
              f"blocking {blocking:.0f}, cudaStreamSynchronize {counts['cudaStreamSynchronize']:.0f}, DtoH "
              f"{counts['DtoH copies']:.0f}, nonzero {counts['aten::nonzero']:.0f}, item {counts['aten::item']:.0f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
