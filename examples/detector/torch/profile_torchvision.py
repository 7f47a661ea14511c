"""Profile a torchvision detection model on one GPU: the library-heavy counterpart of the CUDA example.

Writes, into OUT_DIR:
  torchvision_fasterrcnn_trace.json.gz   PyTorch profiler chrome trace (ProfilerStep#N, record_shapes)
  torchvision_fasterrcnn_latency_ms.csv  `iteration,latency_ms`, CUDA events around each forward

Random weights (weights=None, weights_backbone=None): the timings are those of the real network
shape; the detections are meaningless. Usage:
  python3 profile_torchvision.py OUT_DIR [--iters 200] [--batch 2] [--size 640] [--fp32]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import sys
import time

import torch
import torchvision
from torch.profiler import ProfilerActivity, profile, schedule


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--size", type=int, default=640)
    ap.add_argument("--fp32", action="store_true", help="no fp16 autocast")
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)

    torch.manual_seed(0)
    dev = torch.device("cuda")
    model = torchvision.models.detection.fasterrcnn_resnet50_fpn(
        weights=None, weights_backbone=None, min_size=args.size, max_size=args.size
    ).eval().to(dev)
    images = [torch.rand(3, args.size, args.size, device=dev) for _ in range(args.batch)]
    use_amp = not args.fp32

    def forward():
        with torch.inference_mode(), torch.autocast("cuda", dtype=torch.float16, enabled=use_amp):
            return model(images)

    try:
        forward()
    except Exception as exc:  # fall back to fp32 rather than lose the capture
        print(f"fp16 autocast failed ({exc!r}); using fp32", file=sys.stderr)
        use_amp = False
        forward()
    torch.cuda.synchronize()

    for _ in range(args.warmup):
        forward()
    torch.cuda.synchronize()

    lat = []
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(args.iters):
        start.record()
        out = forward()
        stop.record()
        stop.synchronize()
        lat.append(start.elapsed_time(stop))
    csv_path = os.path.join(args.out_dir, "torchvision_fasterrcnn_latency_ms.csv")
    with open(csv_path, "w") as f:
        f.write("iteration,latency_ms\n")
        for i, v in enumerate(lat):
            f.write(f"{i},{v:.4f}\n")

    trace_json = os.path.join(args.out_dir, "torchvision_fasterrcnn_trace.json")
    sched = schedule(wait=1, warmup=2, active=3, repeat=1)
    with profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
        schedule=sched,
        record_shapes=True,
        on_trace_ready=lambda p: p.export_chrome_trace(trace_json),
    ) as prof:
        for _ in range(1 + 2 + 3):
            forward()
            torch.cuda.synchronize()
            prof.step()
    with open(trace_json, "rb") as src, gzip.open(trace_json + ".gz", "wb", compresslevel=9) as dst:
        shutil.copyfileobj(src, dst)
    os.remove(trace_json)

    q = statistics.quantiles(lat, n=100, method="inclusive")
    meta = {
        "model": "fasterrcnn_resnet50_fpn (weights=None, weights_backbone=None)",
        "batch": args.batch,
        "image": [3, args.size, args.size],
        "precision": "fp16 autocast" if use_amp else "fp32",
        "iterations": args.iters,
        "warmup": args.warmup,
        "p50_ms": round(statistics.median(lat), 3),
        "p99_ms": round(q[98], 3),
        "mean_ms": round(statistics.fmean(lat), 3),
        "detections_last_iter": [int(o["boxes"].shape[0]) for o in out],
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "gpu": torch.cuda.get_device_name(0),
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    print("torchvision:", json.dumps(meta))
    return 0


if __name__ == "__main__":
    sys.exit(main())
