"""Writes the small PyTorch-profiler (Kineto) traces the store/history/gate tests read.

A detection post-processing step of four hand-written kernels (their names survive hipify), five
profiler steps each: one baseline on an H100 (CUDA 12.4) and two candidates on an MI300X, before and
after a ROCm update (6.2 → 6.3) in which ``decode_boxes_kernel`` (about half the time) slows by ~28%
and the cold ``topk_kernel`` (<1%) doubles. Durations are invented for the test; the event layout
follows the PyTorch profiler's trace format. Run: python tests/data/store/make_traces.py
"""

from __future__ import annotations

import json
from pathlib import Path

KERNELS = ["preprocess_kernel(float const*, __half*, int)", "decode_boxes_kernel(float const*, float*, int)",
           "nms_kernel(float const*, int*, float, int)", "topk_kernel(float const*, int*, int)"]
OPS = ["hipgauge_test::preprocess", "hipgauge_test::decode", "hipgauge_test::nms", "hipgauge_test::topk"]

# microseconds per launch
CASES = {
    "base_h100_cuda124.json": ([400.0, 1200.0, 300.0, 5.0],
                               {"name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0, "warpSize": 32, "numSms": 132},
                               {"cuda_runtime_version": 12040, "cuda_driver_version": 12090}),
    "cand_mi300x_rocm62.json": ([420.0, 1250.0, 330.0, 6.0],
                                {"name": "AMD Instinct MI300X", "computeMajor": 9, "computeMinor": 4, "warpSize": 64, "numSms": 304},
                                {"hip_runtime_version": 60241134}),
    "cand_mi300x_rocm63.json": ([425.0, 1600.0, 335.0, 12.0],
                                {"name": "AMD Instinct MI300X", "computeMajor": 9, "computeMinor": 4, "warpSize": 64, "numSms": 304},
                                {"hip_runtime_version": 60342131}),
}


def trace(durations: list[float], device: dict, top: dict, steps: int = 5) -> dict:
    events: list[dict] = []
    t = 1_000_000.0
    corr = 100
    ext = 10
    for step in range(steps):
        step_start = t
        gpu_start = t + 20.0
        gpu_t = gpu_start
        for kernel, op, dur in zip(KERNELS, OPS, durations):
            ext += 1
            corr += 1
            events.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 1, "tid": 1, "ts": t + 1.0, "dur": 8.0,
                           "args": {"External id": ext}})
            events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                           "ts": t + 2.0, "dur": 5.0, "args": {"External id": ext, "correlation": corr}})
            events.append({"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7, "ts": gpu_t, "dur": dur,
                           "args": {"External id": ext, "device": 0, "stream": 7, "correlation": corr,
                                    "grid": [256, 1, 1], "block": [256, 1, 1]}})
            t += 10.0
            gpu_t += dur + 3.0
        end = max(t, gpu_t) + 5.0
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": 1, "tid": 1,
                       "ts": step_start, "dur": end - step_start, "args": {"External id": 1}})
        events.append({"ph": "X", "cat": "gpu_user_annotation", "name": f"ProfilerStep#{step}", "pid": 0, "tid": 7,
                       "ts": gpu_start, "dur": gpu_t - gpu_start, "args": {"External id": 1}})
        t = end + 50.0
    events.sort(key=lambda e: e["ts"])
    doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, **device}], **top,
           "traceName": "hipgauge test trace", "displayTimeUnit": "ms", "traceEvents": events}
    return doc


if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    for name, (durations, device, top) in CASES.items():
        (here / name).write_text(json.dumps(trace(durations, device, top), indent=None) + "\n")
        print("wrote", here / name)
