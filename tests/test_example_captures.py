"""The captured H200 baseline of the bundled example: present, well formed, and consistent with its config."""

from __future__ import annotations

import csv
import gzip
import json
import math
import statistics

import pytest

from conftest import EXAMPLE

CAPTURES = EXAMPLE / "captures"
NCU_METRICS = [
    "gpu__time_duration.sum", "launch__registers_per_thread", "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic", "launch__block_size", "launch__grid_size",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
]
OUR_KERNELS = [
    "normalize_image_kernel", "bias_relu_kernel", "transpose_tiled_kernel", "softmax_scores_kernel",
    "decode_boxes_kernel", "compact_scores_kernel", "gather_candidates_kernel", "nms_mask_kernel",
    "nms_reduce_kernel", "roi_align_kernel",
]
FILES = [
    "detector_latency_ms.csv", "detector_ncu_raw.csv", "detector_ptxas_sm90.txt", "detector_run_log.txt",
    "environment.txt", "torchvision_fasterrcnn_latency_ms.csv", "torchvision_fasterrcnn_trace.json.gz",
    "torch_log.txt",
]


def latencies(name: str) -> list[float]:
    with open(CAPTURES / name, newline="") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == ["iteration", "latency_ms"]
        rows = list(reader)
    assert [int(r["iteration"]) for r in rows] == list(range(len(rows)))
    values = [float(r["latency_ms"]) for r in rows]
    assert all(math.isfinite(v) and v > 0 for v in values)
    return values


@pytest.mark.parametrize("name", FILES)
def test_capture_exists_and_is_documented(name: str) -> None:
    assert (CAPTURES / name).is_file()
    assert f"`{name}`" in (CAPTURES / "README.md").read_text()


@pytest.mark.parametrize("name,at_least", [("detector_latency_ms.csv", 300),
                                           ("torchvision_fasterrcnn_latency_ms.csv", 200)])
def test_latency_csv(name: str, at_least: int) -> None:
    values = latencies(name)
    assert len(values) >= at_least
    # a steady pipeline: the spread is small next to the median
    assert statistics.quantiles(values, n=100)[98] < 2 * statistics.median(values)


def test_ncu_raw_csv_has_the_metrics_and_our_kernels() -> None:
    with open(CAPTURES / "detector_ncu_raw.csv", newline="") as f:
        rows = list(csv.reader(f))
    header, units, data = rows[0], rows[1], rows[2:]
    for col in ["ID", "Kernel Name", "Block Size", "Grid Size", *NCU_METRICS]:
        assert col in header, col
    assert units[header.index("gpu__time_duration.sum")] == "us"
    assert len(data) >= 200
    names = [r[header.index("Kernel Name")] for r in data]
    for kernel in OUR_KERNELS:
        assert any(f"det::{kernel}(" in n for n in names), kernel
    assert any("cudnn" in n for n in names), "no cuDNN convolution kernel"
    assert any("cutlass" in n or "gemm" in n for n in names), "no cuBLAS GEMM kernel"
    times = [float(r[header.index("gpu__time_duration.sum")].replace(",", "")) for r in data]
    assert all(t > 0 for t in times)
    regs = [int(r[header.index("launch__registers_per_thread")].replace(",", "")) for r in data]
    assert all(0 < r <= 255 for r in regs)


def test_torch_trace_is_a_profiler_chrome_trace() -> None:
    path = CAPTURES / "torchvision_fasterrcnn_trace.json.gz"
    assert path.stat().st_size < 8 * 1024 * 1024
    with gzip.open(path, "rt") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    steps = {e["name"] for e in events if str(e.get("name", "")).startswith("ProfilerStep#")}
    assert len(steps) == 3
    kernels = [e for e in events if e.get("cat") == "kernel"]
    assert len(kernels) > 100 and all("correlation" in e.get("args", {}) for e in kernels)
    ops = [e for e in events if e.get("cat") == "cpu_op"]
    assert any("Input Dims" in e.get("args", {}) for e in ops), "record_shapes was on"
    assert any("conv" in e["name"] for e in ops)
    assert doc.get("deviceProperties") and "H200" in doc["deviceProperties"][0]["name"]


def test_environment_names_the_gpu_and_toolchain() -> None:
    env = (CAPTURES / "environment.txt").read_text()
    assert "NVIDIA H200" in env and "Driver Version" in env and "release 13.0" in env and "Nsight Compute" in env


def test_run_log_shows_every_stage_passed() -> None:
    log = (CAPTURES / "detector_run_log.txt").read_text()
    assert "FAIL" not in log
    for stage in ["normalize", "conv1", "conv2", "conv3", "transpose", "dense_gemm", "softmax", "decode",
                  "compact", "sort", "gather", "nms", "roi_align", "roi_gemm", "download"]:
        assert f"PASS {stage}" in log, stage


def test_stated_target_is_above_the_measured_p99() -> None:
    from hipgauge import config

    cfg = config.load(EXAMPLE / "hipgauge.toml")
    target = cfg.get("objectives.latency_target_ms")
    assert cfg.get("objectives.percentile") == 99.0
    values = latencies("detector_latency_ms.csv")
    p99 = statistics.quantiles(values, n=100, method="inclusive")[98]
    assert p99 < target < 1.3 * p99
