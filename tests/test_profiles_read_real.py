"""Every real non-Kineto profile in the shared fixtures reads, with kernel counts and total kernel
time checked against an independent computation (plain csv/json modules) in the test."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import pytest

from hipgauge.errors import InputError
from hipgauge.model import KERNEL_RECORD_SCHEMA
from hipgauge.profiles.detect import detect_format
from hipgauge.profiles.load import load_profile

from conftest import H200, REAL


def _rows(path: Path, header_key: str) -> list[dict[str, str]]:
    lines = path.read_text().splitlines()
    start = next(i for i, ln in enumerate(lines) if header_key in ln)
    return list(csv.DictReader(lines[start:]))


def _check(prof, count: int, total: float, fmt: str, vendor: str) -> None:
    k = prof.kernels
    assert dict(zip(k.columns, map(str, k.dtypes))) == KERNEL_RECORD_SCHEMA
    assert prof.source_format == fmt and prof.vendor == vendor
    assert k.height == count
    assert abs(int(k["duration_ns"].sum()) - total) <= max(1, count)
    assert k["key"].null_count() == 0


def test_nsys_cuda_gpu_trace_excerpt(real_dir: Path) -> None:
    p = real_dir / "nsys/phobos-lang_RTX2080S_excerpt/lmhead_profile_cuda_gpu_trace.head.csv"
    rows = [r for r in _rows(p, "Start (ns)") if not r["Name"].startswith("[CUDA mem")]
    prof = load_profile(p)
    _check(prof, len(rows), sum(float(r["Duration (ns)"]) for r in rows), "nsys-csv", "nvidia")
    assert prof.device == "NVIDIA GeForce RTX 2080 SUPER"
    assert prof.kernels["grid"][0] == "128,1,1" and prof.kernels["start_ns"].null_count() == 0


def test_ncu_details_log_with_app_output(real_dir: Path) -> None:
    p = real_dir / "ncu/superbenchmark_cublaslt_B200/cublaslt_ncu.log"
    rows = [r for r in _rows(p, '"Metric Name"') if r.get("Metric Name") == "Duration"]
    assert all(r["Metric Unit"] == "ns" for r in rows)
    prof = load_profile(p)
    _check(prof, len(rows), sum(float(r["Metric Value"].replace(",", "")) for r in rows), "ncu-csv", "nvidia")
    k = prof.kernels
    assert k["registers"][0] == 168 and k["block"][0] == "384,1,1" and k["grid"][0] == "9,32,1"
    assert prof.metadata["arch"] == "sm_100"


def test_ncu_raw_page_h200(h200_dir: Path) -> None:
    p = h200_dir / "resnet50_ncu_raw.csv"
    rows = _rows(p, '"Kernel Name"')
    units, data = rows[0], rows[1:]
    assert units["gpu__time_duration.sum"] == "ns"
    prof = load_profile(p)
    _check(prof, len(data), sum(float(r["gpu__time_duration.sum"].replace(",", "")) for r in data), "ncu-csv", "nvidia")
    assert prof.device == "NVIDIA H200" and prof.kernels["start_ns"].null_count() == prof.kernels.height


@pytest.mark.parametrize("rel", ["rocm-systems_docs_data/kernel_trace.csv", "rocm-systems_docs_data/kernel_trace_truncated.csv",
                                 "rocprofiler-sdk_docs_data_2024/kernel_trace.csv"])
def test_rocprofv3_kernel_trace(real_dir: Path, rel: str) -> None:
    p = real_dir / "rocprofv3" / rel
    rows = _rows(p, "Kernel_Name")
    prof = load_profile(p)
    _check(prof, len(rows), sum(int(r["End_Timestamp"]) - int(r["Start_Timestamp"]) for r in rows), "rocprofv3-csv", "amd")
    first = min(rows, key=lambda r: int(r["Start_Timestamp"]))
    k = prof.kernels
    assert k["start_ns"][0] == int(first["Start_Timestamp"])
    # grid in work-items → workgroups
    gx, wx = int(first["Grid_Size_X"]), int(first["Workgroup_Size_X"])
    assert int(k["grid"][0].split(",")[0]) == -(-gx // wx)


def test_rocprofv3_json_mi350(real_dir: Path) -> None:
    p = real_dir / "rocprofv3/tracelens/908_results.json.gz"
    doc = json.loads(gzip.open(p).read())
    dispatches = [d for tool in doc["rocprofiler-sdk-tool"] for d in tool["buffer_records"]["kernel_dispatch"]]
    prof = load_profile(p)
    _check(prof, len(dispatches), sum(d["end_timestamp"] - d["start_timestamp"] for d in dispatches), "rocprofv3-json", "amd")
    assert len(dispatches) == 43915
    assert prof.device == "AMD Instinct MI350X" and prof.metadata["arch"] == "gfx950"
    k = prof.kernels
    assert not k["name"].str.ends_with(".kd").any()
    assert not k["key"].str.ends_with(".kd").any()


@pytest.mark.parametrize("soc", ["vcopy_MI200", "vcopy_MI300X_A1"])
def test_rocprof_compute_timestamps(real_dir: Path, soc: str) -> None:
    folder = real_dir / "rocprof_compute" / soc
    rows = _rows(folder / "timestamps.csv", "Kernel_Name")
    prof = load_profile(folder)  # a workload folder: picks timestamps.csv
    total = sum(float(r["End_Timestamp"]) - float(r["Start_Timestamp"]) for r in rows)
    _check(prof, len(rows), total, "rocprof-compute", "amd")
    assert prof.metadata["arch"] in ("gfx90a", "gfx942")
    assert prof.kernels["key"][0] == "vecCopy"
    if soc == "vcopy_MI300X_A1":
        assert any("scientific notation" in w for w in prof.warnings)


def test_api_stats_are_refused(real_dir: Path) -> None:
    with pytest.raises(InputError, match="not kernel statistics"):
        load_profile(real_dir / "rocprofv3/rocm-systems_docs_data/hip_api_stats.csv")


@pytest.mark.parametrize("rel", ["rocprofv3/rocm-systems_docs_data/summary.txt",
                                 "rocprofv3/rocm-systems_docs_data/hip_trace.csv"])
def test_non_profiles_are_refused_cleanly(real_dir: Path, rel: str) -> None:
    with pytest.raises(InputError) as exc:
        load_profile(real_dir / rel)
    assert str(real_dir / rel) in str(exc.value)


def test_latency_csv(h200_dir: Path) -> None:
    p = h200_dir / "resnet50_bs8_fp16_nhwc_latency_ms.csv"
    rows = list(csv.DictReader(p.open()))
    prof = load_profile(h200_dir / "resnet50_bs8_fp16_nhwc_trace.json.gz", latency_csv=p)
    assert prof.latency_ms == [float(r["latency_ms"]) for r in sorted(rows, key=lambda r: int(r["iteration"]))]
    assert prof.latency_source == str(p)
    assert detect_format(p) == "latency-csv"
    with pytest.raises(InputError, match="latency"):
        load_profile(p)


def test_detect_every_real_profile() -> None:
    if not REAL.exists():
        pytest.skip("shared fixtures absent")
    expected = {
        H200 / "resnet50_bs8_fp16_nhwc_trace.json.gz": "kineto",
        H200 / "resnet50_ncu_raw.csv": "ncu-csv",
        REAL / "rocprofv3/tracelens/908_results.json.gz": "rocprofv3-json",
        REAL / "rocprof_compute/vcopy_MI200/timestamps.csv": "rocprof-compute",
        REAL / "rocprof_compute/vcopy_MI300X_A1/timestamps.csv": "rocprof-compute",
        REAL / "nsys/phobos-lang_RTX2080S_excerpt/lmhead_profile_cuda_gpu_trace.head.csv": "nsys-csv",
        REAL / "ncu/superbenchmark_cublaslt_B200/cublaslt_ncu.log": "ncu-csv",
        REAL / "rocprofv3/rocprofiler-sdk_docs_data_2024/kernel_trace.csv": "rocprofv3-csv",
    }
    for path, fmt in expected.items():
        assert detect_format(path) == fmt, path
