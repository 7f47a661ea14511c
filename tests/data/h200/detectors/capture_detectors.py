"""Capture same-GPU variant pairs of torchvision detection models on one NVIDIA GPU, as validation data.

Built on ../pairs/capture_pairs.py (same timing and profiling); what it adds for detectors:

  <name>_latency_ms.csv   `iteration,latency_ms`: ITERS iterations after WARMUP warm-ups, CUDA events around each
                          forward, event.synchronize() after each, no profiler and no hooks attached. The variants of
                          one model are timed interleaved: ROUNDS blocks of ITERS/ROUNDS iterations each, in an order
                          shuffled per round (seed 0).
  <name>_phases.csv       `iteration,phase,gpu_ms,host_ms`: PHASE_ITERS more iterations with forward hooks on the
                          model's parts (transform, backbone, head / rpn + roi_heads): per phase the CUDA-event time
                          from its start to its end on the stream (gpu_ms) and the host wall time of its Python call
                          (host_ms); `post` runs from the last hooked part's end to the forward's end, `total` is
                          the whole forward. Timed after the latency rounds, so hooks do not touch the CSV above.
  <name>_syncs.txt        the host synchronisations of one forward, counted by torch.cuda.set_sync_debug_mode
                          ("warn"): total, then per Python source line that triggered them.
  <name>_trace.json.gz    PyTorch profiler (Kineto) chrome trace: CPU + CUDA activities, record_shapes,
                          schedule(wait=1, warmup=2, active=ACTIVE); each phase is a record_function range
                          `phase:<name>` (user_annotation) inside its ProfilerStep#N.

Random weights (weights=None, weights_backbone=None): timings are the real network shapes. Score thresholds
are set low enough that random heads keep candidates, so post-processing works at its full size (top-k per level
or class, NMS over thousands of boxes, 100-200 detections per image): the case where host post-processing paces
the GPU. Each model's files are packed into PACK_DIR/<model>.tar.gz as soon as its group is done, so a run cut
short still returns the groups it finished.
Usage: python3 capture_detectors.py WORK_DIR [--pack PACK_DIR] [--only MODEL,...] [--iters 300] [--rounds 6]
       [--warmup 30] [--active 10] [--phase-iters 40] [--budget-s 330]
"""

from __future__ import annotations

import argparse
import collections
import gzip
import os
import random
import shutil
import statistics
import sys
import tarfile
import time
import warnings

import torch
import torchvision
from torch.profiler import ProfilerActivity, profile, record_function, schedule

DEV = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# model: (builder, kwargs, batch, image (height, width), hooked phases); served one image at a time
MODELS = {
    "fcos": ("fcos_resnet50_fpn", {"score_thresh": 0.05}, 1, (800, 1216), ("transform", "backbone", "head")),
    "ssdlite": ("ssdlite320_mobilenet_v3_large", {"score_thresh": 0.001}, 1, (320, 320),
                ("transform", "backbone", "head")),
    "ssd300": ("ssd300_vgg16", {"score_thresh": 0.001}, 1, (300, 300), ("transform", "backbone", "head")),
    "maskrcnn": ("maskrcnn_resnet50_fpn", {"min_size": 640, "max_size": 640, "box_score_thresh": 0.005}, 1,
                 (640, 640), ("transform", "backbone", "rpn", "roi_heads")),
}
# name: (model, dtype, channels_last, tf32)
VARIANTS = {
    "fcos_fp32": ("fcos", "fp32", False, False),
    "fcos_tf32": ("fcos", "fp32", False, True),
    "fcos_fp32_cl": ("fcos", "fp32", True, False),
    "ssd300_fp32": ("ssd300", "fp32", False, False),
    "ssd300_fp16": ("ssd300", "fp16", False, False),
    "ssd300_fp32_cl": ("ssd300", "fp32", True, False),
    "ssdlite_fp32": ("ssdlite", "fp32", False, False),
    "ssdlite_fp16": ("ssdlite", "fp16", False, False),
    "ssdlite_fp32_cl": ("ssdlite", "fp32", True, False),
    "maskrcnn_fp32": ("maskrcnn", "fp32", False, False),
    "maskrcnn_tf32": ("maskrcnn", "fp32", False, True),
    "maskrcnn_fp32_cl": ("maskrcnn", "fp32", True, False),
}
PAIRS = [
    ("fcos_fp32", "fcos_tf32", "detector fp32 TF32 off -> on"),
    ("fcos_fp32", "fcos_fp32_cl", "detector NCHW -> channels_last"),
    ("ssd300_fp32", "ssd300_fp16", "detector fp32 -> fp16 autocast"),
    ("ssd300_fp32", "ssd300_fp32_cl", "detector NCHW -> channels_last"),
    ("ssdlite_fp32", "ssdlite_fp16", "detector fp32 -> fp16 autocast"),
    ("ssdlite_fp32", "ssdlite_fp32_cl", "detector NCHW -> channels_last"),
    ("maskrcnn_fp32", "maskrcnn_tf32", "detector fp32 TF32 off -> on"),
    ("maskrcnn_fp32", "maskrcnn_fp32_cl", "detector NCHW -> channels_last"),
]
DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": None}


class HostEvent:
    """Stand-in for torch.cuda.Event off a GPU (a dry run on the CPU)."""

    def __init__(self, enable_timing: bool = True) -> None:
        self.t = 0.0

    def record(self) -> None:
        self.t = time.perf_counter()

    def synchronize(self) -> None:
        pass

    def elapsed_time(self, other: HostEvent) -> float:
        return (other.t - self.t) * 1e3


def event():
    return torch.cuda.Event(enable_timing=True) if DEV.type == "cuda" else HostEvent()


def sync() -> None:
    if DEV.type == "cuda":
        torch.cuda.synchronize()


def set_flags(tf32: bool) -> None:
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32


class Variant:
    def __init__(self, name: str) -> None:
        self.name = name
        model_key, dtype, channels_last, tf32 = VARIANTS[name]
        builder, kwargs, batch, size, phases = MODELS[model_key]
        self.tf32, self.phase_names = tf32, phases
        set_flags(tf32)
        torch.manual_seed(0)
        model = getattr(torchvision.models.detection, builder)(weights=None, weights_backbone=None, **kwargs)
        model = model.eval().to(DEV)
        self.images = [torch.rand(3, *size, device=DEV) for _ in range(batch)]
        if channels_last:
            model = model.to(memory_format=torch.channels_last)
            self.images = [x.unsqueeze(0).contiguous(memory_format=torch.channels_last)[0] for x in self.images]
        self.model = model
        self.amp = DTYPES[dtype]
        self.hooks: list = []

    def forward(self):
        with torch.inference_mode(), torch.autocast(DEV.type, dtype=self.amp or torch.float16,
                                                    enabled=self.amp is not None):
            return self.model(self.images)

    # ---- phase hooks: CUDA events + host clock (timing pass) or record_function ranges (profiled pass)
    def attach(self, mode: str, sink: list) -> None:
        self.detach()
        for pname in self.phase_names:
            mod = getattr(self.model, pname)
            if mode == "time":
                def pre(_m, _a, pname=pname):
                    ev = event()
                    ev.record()
                    sink.append((pname, "start", ev, time.perf_counter()))

                def post(_m, _a, _o, pname=pname):
                    ev = event()
                    ev.record()
                    sink.append((pname, "end", ev, time.perf_counter()))
            else:
                def pre(_m, _a, pname=pname):
                    rf = record_function(f"phase:{pname}")
                    rf.__enter__()
                    sink.append(rf)

                def post(_m, _a, _o, pname=pname):
                    sink.pop().__exit__(None, None, None)
            self.hooks.append(mod.register_forward_pre_hook(pre))
            self.hooks.append(mod.register_forward_hook(post))

    def detach(self) -> None:
        for h in self.hooks:
            h.remove()
        self.hooks = []


def time_block(step, n: int) -> list[float]:
    lat = []
    start, stop = event(), event()
    for _ in range(n):
        start.record()
        step()
        stop.record()
        stop.synchronize()
        lat.append(start.elapsed_time(stop))
    return lat


def phase_pass(v: Variant, n: int, path: str) -> dict[str, float]:
    rows = []
    for i in range(n):
        marks: list = []
        v.attach("time", marks)
        t0, e0 = time.perf_counter(), event()
        e0.record()
        v.forward()
        e1 = event()
        e1.record()
        t1 = time.perf_counter()
        e1.synchronize()
        v.detach()
        starts = {p: (ev, t) for p, kind, ev, t in marks if kind == "start"}
        last_end = None
        for p, kind, ev, t in marks:
            if kind != "end":
                continue
            sev, st = starts[p]
            rows.append((i, p, sev.elapsed_time(ev), (t - st) * 1e3))
            last_end = (ev, t)
        if last_end is not None:
            rows.append((i, "post", last_end[0].elapsed_time(e1), (t1 - last_end[1]) * 1e3))
        rows.append((i, "total", e0.elapsed_time(e1), (t1 - t0) * 1e3))
    with open(path, "w") as f:
        f.write("iteration,phase,gpu_ms,host_ms\n")
        for i, p, g, h in rows:
            f.write(f"{i},{p},{g:.4f},{h:.4f}\n")
    med: dict[str, float] = {}
    for p in list(v.phase_names) + ["post", "total"]:
        vals = [g for _, q, g, _ in rows if q == p]
        if vals:
            med[p] = statistics.median(vals)
    return med


def count_syncs(v: Variant, path: str) -> int:
    """Synchronisations of one forward, by the Python line that triggered them (sync debug mode)."""
    if DEV.type != "cuda":
        with open(path, "w") as f:
            f.write("total 0 (no CUDA device: not counted)\n")
        return 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.cuda.set_sync_debug_mode("warn")
        try:
            v.forward()
        finally:
            torch.cuda.set_sync_debug_mode("default")
        sync()
    hits = [w for w in caught if "synchroniz" in str(w.message)]
    by_line = collections.Counter(f"{os.path.relpath(w.filename, os.path.dirname(torchvision.__file__))}:{w.lineno}"
                                  for w in hits)
    with open(path, "w") as f:
        f.write(f"total {len(hits)}\n")
        for where, n in by_line.most_common():
            f.write(f"{n} {where}\n")
    return len(hits)


def profile_variant(v: Variant, out_dir: str, active: int) -> None:
    trace_json = os.path.join(out_dir, f"{v.name}_trace.json")
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if DEV.type == "cuda" else [])
    stack: list = []
    v.attach("profile", stack)
    with profile(activities=acts, record_shapes=True,
                 schedule=schedule(wait=1, warmup=2, active=active, repeat=1)) as prof:
        for _ in range(1 + 2 + active):
            v.forward()
            sync()
            prof.step()
    v.detach()
    prof.export_chrome_trace(trace_json)
    with open(trace_json, "rb") as src, gzip.open(trace_json + ".gz", "wb", compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(trace_json)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--pack", default="")
    ap.add_argument("--only", default="")
    ap.add_argument("--iters", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--active", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--phase-iters", type=int, default=40)
    ap.add_argument("--budget-s", type=float, default=330.0, help="start no new model after this many seconds")
    args = ap.parse_args()
    t_start = time.time()
    os.makedirs(args.out_dir, exist_ok=True)
    models = [m for m in args.only.split(",") if m] or list(MODELS)
    with open(os.path.join(args.out_dir, "pairs.csv"), "w") as f:
        f.write("base,cand,kind\n")
        for b, c, k in PAIRS:
            if VARIANTS[b][0] in models:
                f.write(f"{b},{c},{k}\n")
    if args.pack:
        os.makedirs(args.pack, exist_ok=True)
        shutil.copy(os.path.join(args.out_dir, "pairs.csv"), args.pack)
    gpu = torch.cuda.get_device_name() if DEV.type == "cuda" else "cpu"
    print(f"torch {torch.__version__} torchvision {torchvision.__version__} cuda {torch.version.cuda} "
          f"cudnn {torch.backends.cudnn.version()} gpu {gpu}", flush=True)
    torch.backends.cudnn.benchmark = True
    rng = random.Random(0)
    for model_key in models:
        if time.time() - t_start > args.budget_s:
            print(f"{model_key}: SKIPPED (budget of {args.budget_s:.0f} s spent)", flush=True)
            continue
        t0 = time.time()
        members = [n for n in VARIANTS if VARIANTS[n][0] == model_key]
        steps: dict[str, Variant] = {}
        for name in members:
            try:
                v = Variant(name)
                for _ in range(args.warmup):
                    v.forward()
                sync()
                steps[name] = v
            except Exception as exc:  # keep the other variants
                print(f"{name}: FAILED {exc!r}", flush=True)
        print(f"  {model_key}: built and warmed up in {time.time() - t0:.1f} s", flush=True)
        lat: dict[str, list[float]] = {n: [] for n in steps}
        per_block = max(1, args.iters // args.rounds)
        for r in range(args.rounds):
            order = list(steps)
            rng.shuffle(order)
            for name in order:
                set_flags(steps[name].tf32)
                lat[name] += time_block(steps[name].forward, per_block)
            print(f"  round {r}: {' '.join(order)} ({time.time() - t0:.1f} s)", flush=True)
        written = ["pairs.csv"]
        for name, v in steps.items():
            set_flags(v.tf32)
            with open(os.path.join(args.out_dir, f"{name}_latency_ms.csv"), "w") as f:
                f.write("iteration,latency_ms\n")
                for i, x in enumerate(lat[name]):
                    f.write(f"{i},{x:.4f}\n")
            q = statistics.quantiles(lat[name], n=100)
            per_round = [statistics.quantiles(lat[name][k * per_block:(k + 1) * per_block], n=100)[98]
                         for k in range(args.rounds)] if per_block >= 2 else []
            print(f"{name}: p50 {statistics.median(lat[name]):.3f} ms p99 {q[98]:.3f} ms "
                  f"mean {statistics.fmean(lat[name]):.3f} ms; per-round p99 "
                  f"{' '.join(f'{x:.2f}' for x in per_round)}", flush=True)
            med = phase_pass(v, args.phase_iters, os.path.join(args.out_dir, f"{name}_phases.csv"))
            print(f"  {name} phases (median gpu ms): " + " ".join(f"{k} {x:.3f}" for k, x in med.items()), flush=True)
            n_sync = count_syncs(v, os.path.join(args.out_dir, f"{name}_syncs.txt"))
            print(f"  {name}: {n_sync} synchronisations per forward", flush=True)
            profile_variant(v, args.out_dir, args.active)
            size = os.path.getsize(os.path.join(args.out_dir, f"{name}_trace.json.gz"))
            print(f"  {name}: trace {size / 1e6:.2f} MB ({time.time() - t0:.1f} s)", flush=True)
            written += [f"{name}_{s}" for s in ("latency_ms.csv", "phases.csv", "syncs.txt", "trace.json.gz")]
        if args.pack:
            with tarfile.open(os.path.join(args.pack, f"{model_key}.tar.gz"), "w:gz") as tar:
                for fn in written:
                    tar.add(os.path.join(args.out_dir, fn), arcname=fn)
        print(f"group {model_key}: {time.time() - t0:.1f} s (total {time.time() - t_start:.1f} s)", flush=True)
        del steps
        if DEV.type == "cuda":
            torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
