"""Capture same-GPU variant pairs of torchvision models on one NVIDIA GPU, as validation data.

Each variant writes into OUT_DIR:
  <name>_trace.json.gz      PyTorch profiler (Kineto) chrome trace: CPU + CUDA activities, record_shapes,
                            schedule(wait=1, warmup=2, active=ACTIVE) so each step is a ProfilerStep#N window
  <name>_latency_ms.csv     `iteration,latency_ms`: ITERS iterations after WARMUP warm-ups, a CUDA event pair
                            on the current stream around each forward (graph replay for the graph variants),
                            event.synchronize() after each; no profiler attached. The variants of one model and
                            batch are timed interleaved: ROUNDS blocks of ITERS/ROUNDS iterations each, in an
                            order shuffled per round (seed 0), so drifts of the host hit all of them alike.
The latency runs come first and the profiler runs second, in the same process, on the same inputs.

Random weights (weights=None): timings are the real network shapes; outputs are meaningless.
Usage: python3 capture_pairs.py OUT_DIR [--only NAME[,NAME...]] [--iters 300] [--warmup 30] [--active 10] [--rounds 6] [--set pairs|heldout]
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import shutil
import statistics
import sys
import time

import torch
import torchvision
from torch.profiler import ProfilerActivity, profile, schedule

# name: (model, batch, dtype, channels_last, cuda_graph, tf32)
VARIANTS = {
    "r50_bs8_fp16_nchw": ("resnet50", 8, "fp16", False, False, False),
    "r50_bs8_fp16_nchw_rerun": ("resnet50", 8, "fp16", False, False, False),
    "r50_bs8_fp16_cl": ("resnet50", 8, "fp16", True, False, False),
    "r50_bs8_bf16_nchw": ("resnet50", 8, "bf16", False, False, False),
    "r50_bs8_fp32_nchw": ("resnet50", 8, "fp32", False, False, False),
    "r50_bs8_fp16_nchw_graph": ("resnet50", 8, "fp16", False, True, False),
    "r50_bs1_fp16_nchw": ("resnet50", 1, "fp16", False, False, False),
    "r50_bs1_fp16_cl": ("resnet50", 1, "fp16", True, False, False),
    "r50_bs64_fp16_nchw": ("resnet50", 64, "fp16", False, False, False),
    "r50_bs64_fp16_cl": ("resnet50", 64, "fp16", True, False, False),
    "r50_bs256_fp16_nchw": ("resnet50", 256, "fp16", False, False, False),
    "r50_bs256_fp16_cl": ("resnet50", 256, "fp16", True, False, False),
    "r50_bs128_fp32_nchw": ("resnet50", 128, "fp32", False, False, False),
    "r50_bs128_fp32_tf32": ("resnet50", 128, "fp32", False, False, True),
    "frcnn_fp32_notf32": ("fasterrcnn", 2, "fp32", False, False, False),
    "frcnn_fp32_tf32": ("fasterrcnn", 2, "fp32", False, False, True),
}

# Held out: captured after the projection model was built, for an error it was not tuned on
# (`--set heldout`; README.md in tests/data/h200/heldout/).
HELDOUT_VARIANTS = {
    "mnv3_bs1_fp16_nchw": ("mobilenet_v3_large", 1, "fp16", False, False, False),
    "mnv3_bs1_fp16_nchw_graph": ("mobilenet_v3_large", 1, "fp16", False, True, False),
    "mnv3_bs32_fp16_nchw": ("mobilenet_v3_large", 32, "fp16", False, False, False),
    "mnv3_bs32_fp16_cl": ("mobilenet_v3_large", 32, "fp16", True, False, False),
    "vit_bs8_fp16": ("vit_b_16", 8, "fp16", False, False, False),
    "vit_bs8_bf16": ("vit_b_16", 8, "bf16", False, False, False),
    "vit_bs64_fp32": ("vit_b_16", 64, "fp32", False, False, False),
    "vit_bs64_fp32_tf32": ("vit_b_16", 64, "fp32", False, False, True),
}
HELDOUT_PAIRS = [
    ("mnv3_bs1_fp16_nchw", "mnv3_bs1_fp16_nchw_graph", "launch-bound CUDA graphs off -> on"),
    ("mnv3_bs32_fp16_nchw", "mnv3_bs32_fp16_cl", "NCHW -> channels_last"),
    ("vit_bs8_fp16", "vit_bs8_bf16", "fp16 -> bf16"),
    ("vit_bs64_fp32", "vit_bs64_fp32_tf32", "GPU-bound fp32 TF32 off -> on"),
]

# base,cand,kind — the pairs the validation uses (see README.md)
PAIRS = [
    ("r50_bs8_fp16_nchw", "r50_bs8_fp16_nchw_rerun", "same model twice"),
    ("r50_bs8_fp16_nchw", "r50_bs8_fp16_cl", "NCHW -> channels_last"),
    ("r50_bs8_fp16_nchw", "r50_bs8_bf16_nchw", "fp16 -> bf16"),
    ("r50_bs8_fp16_nchw", "r50_bs8_fp32_nchw", "fp16 -> fp32"),
    ("r50_bs8_fp16_nchw", "r50_bs8_fp16_nchw_graph", "CUDA graphs off -> on"),
    ("r50_bs1_fp16_nchw", "r50_bs1_fp16_cl", "small batch (launch-bound) NCHW -> channels_last"),
    ("r50_bs64_fp16_nchw", "r50_bs64_fp16_cl", "large batch (GPU-bound) NCHW -> channels_last"),
    ("r50_bs256_fp16_nchw", "r50_bs256_fp16_cl", "GPU-bound batch 256 NCHW -> channels_last"),
    ("r50_bs128_fp32_nchw", "r50_bs128_fp32_tf32", "GPU-bound fp32 TF32 off -> on"),
    ("r50_bs8_fp16_cl", "r50_bs8_fp16_nchw", "channels_last -> NCHW"),
    ("frcnn_fp32_notf32", "frcnn_fp32_tf32", "fp32 TF32 off -> on"),
]

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": None}


def build(model_name: str, batch: int, dtype: str, channels_last: bool):
    dev = torch.device("cuda")
    if model_name in ("resnet50", "mobilenet_v3_large", "vit_b_16"):
        model = getattr(torchvision.models, model_name)(weights=None).eval().to(dev)
        x = torch.randn(batch, 3, 224, 224, device=dev)
        if channels_last:
            model = model.to(memory_format=torch.channels_last)
            x = x.contiguous(memory_format=torch.channels_last)
        inputs = x
    else:
        model = torchvision.models.detection.fasterrcnn_resnet50_fpn(
            weights=None, weights_backbone=None, min_size=640, max_size=640).eval().to(dev)
        inputs = [torch.rand(3, 640, 640, device=dev) for _ in range(batch)]
    amp = DTYPES[dtype]

    def forward():
        with torch.inference_mode(), torch.autocast("cuda", dtype=amp or torch.float16, enabled=amp is not None):
            return model(inputs)

    return forward, inputs


def set_flags(tf32: bool) -> None:
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32


def prepare(spec, warmup: int):
    """Build one variant, warm it up under its own flags; returns its step function."""
    model_name, batch, dtype, channels_last, use_graph, tf32 = spec
    set_flags(tf32)
    torch.manual_seed(0)
    forward, _ = build(model_name, batch, dtype, channels_last)
    for _ in range(warmup):
        forward()
    torch.cuda.synchronize()
    if not use_graph:
        return forward
    graph = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            forward()
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(graph):
        forward()
    torch.cuda.synchronize()

    def replay():
        graph.replay()

    for _ in range(warmup):
        replay()
    torch.cuda.synchronize()
    return replay


def time_block(step, n: int) -> list[float]:
    lat = []
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(n):
        start.record()
        step()
        stop.record()
        stop.synchronize()
        lat.append(start.elapsed_time(stop))
    return lat


def profile_variant(name: str, step, out_dir: str, active: int) -> None:
    trace_json = os.path.join(out_dir, f"{name}_trace.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 schedule=schedule(wait=1, warmup=2, active=active, repeat=1)) as prof:
        for _ in range(1 + 2 + active):
            step()
            torch.cuda.synchronize()
            prof.step()
    prof.export_chrome_trace(trace_json)
    with open(trace_json, "rb") as src, gzip.open(trace_json + ".gz", "wb", compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(trace_json)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--only", default="")
    ap.add_argument("--iters", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--active", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--set", choices=("pairs", "heldout"), default="pairs")
    args = ap.parse_args()
    if args.set == "heldout":
        VARIANTS.clear()
        VARIANTS.update(HELDOUT_VARIANTS)
        PAIRS[:] = HELDOUT_PAIRS
    os.makedirs(args.out_dir, exist_ok=True)
    names = [n for n in args.only.split(",") if n] or list(VARIANTS)
    with open(os.path.join(args.out_dir, "pairs.csv"), "w") as f:
        f.write("base,cand,kind\n")
        for b, c, k in PAIRS:
            f.write(f"{b},{c},{k}\n")
    print(f"torch {torch.__version__} torchvision {torchvision.__version__} cuda {torch.version.cuda} "
          f"cudnn {torch.backends.cudnn.version()} gpu {torch.cuda.get_device_name()}", flush=True)
    torch.backends.cudnn.benchmark = True
    # One group per model and batch: its variants are timed interleaved, ROUNDS blocks each, in an order
    # shuffled per round, so slow drifts of the host (a launch-bound run is CPU-bound) hit every variant alike.
    groups: dict[tuple, list[str]] = {}
    for name in names:
        model_name, batch = VARIANTS[name][:2]
        groups.setdefault((model_name, batch), []).append(name)
    rng = random.Random(0)
    for key, members in groups.items():
        t0 = time.time()
        steps = {}
        for name in members:
            try:
                steps[name] = prepare(VARIANTS[name], args.warmup)
            except Exception as exc:  # keep the other variants
                print(f"{name}: FAILED {exc!r}", flush=True)
        lat: dict[str, list[float]] = {n: [] for n in steps}
        per_block = max(1, args.iters // args.rounds)
        for _ in range(args.rounds):
            order = list(steps)
            rng.shuffle(order)
            for name in order:
                set_flags(VARIANTS[name][5])
                lat[name] += time_block(steps[name], per_block)
        for name, step in steps.items():
            set_flags(VARIANTS[name][5])
            with open(os.path.join(args.out_dir, f"{name}_latency_ms.csv"), "w") as f:
                f.write("iteration,latency_ms\n")
                for i, v in enumerate(lat[name]):
                    f.write(f"{i},{v:.4f}\n")
            profile_variant(name, step, args.out_dir, args.active)
            q = statistics.quantiles(lat[name], n=100)
            print(f"{name}: p50 {statistics.median(lat[name]):.3f} ms p99 {q[98]:.3f} ms "
                  f"mean {statistics.fmean(lat[name]):.3f} ms", flush=True)
        print(f"group {key}: {time.time() - t0:.1f} s", flush=True)
        del steps
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
