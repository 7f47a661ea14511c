"""The CUDA → HIP mapping data and its loader."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import KNOWLEDGE, REPO
from hipgauge.knowledge.mapping import LIBRARIES, STATUSES, load_mapping

DATA = REPO / "hipgauge" / "data"


def test_data_files_cite_their_source():
    head = (DATA / "hipify_mapping.tsv").read_text(encoding="utf-8").splitlines()[:6]
    assert any("ROCm/HIPIFY @014177b" in line and "scripts/gen_mapping.py" in line for line in head)
    extra = (DATA / "mapping_extra.tsv").read_text(encoding="utf-8").splitlines()[:6]
    assert extra[0].startswith("#") and any("2026-11-29" in line for line in extra)


def test_every_row_uses_known_vocabulary():
    m = load_mapping()
    assert len(m.entries) > 8000
    for e in [*m.entries.values(), *m.headers.values()]:
        assert e.library in LIBRARIES, e
        assert e.status in STATUSES, e
        assert e.kind in ("function", "type", "enum", "macro", "header"), e
        if e.status == "mapped":
            assert e.hip_name, e


@pytest.mark.parametrize("name,hip,lib,status", [
    ("cudaMalloc", "hipMalloc", "runtime", "mapped"),
    ("cuLaunchKernel", "hipModuleLaunchKernel", "driver", "mapped"),
    ("cublasSgemm", "hipblasSgemm", "cublas", "mapped"),
    ("cublasLtMatmul", "hipblasLtMatmul", "cublaslt", "mapped"),
    ("cudnnCreate", "miopenCreate", "cudnn", "mapped"),
    ("__shfl_xor_sync", None, "device", "unsupported"),
    ("__ballot_sync", None, "device", "unsupported"),
    ("__syncthreads", "__syncthreads", "device", "mapped"),
    ("ncclAllReduce", "ncclAllReduce", "nccl", "mapped"),
    ("nvtxRangePushA", "roctxRangePushA", "nvtx", "mapped"),
    ("cub::BlockReduce", "hipcub::BlockReduce", "cub", "mapped"),
    ("thrust::sort", "thrust::sort", "thrust", "mapped"),
    ("cute::Tensor", None, "cutlass", "unsupported"),
    ("nvinfer1::IBuilder", None, "tensorrt", "unsupported"),
    ("nvcuda::wmma::mma_sync", None, "device", "unsupported"),
    ("cuCaddf", "hipCaddf", "complex", "mapped"),
])
def test_lookup(name, hip, lib, status):
    e = load_mapping().lookup(name)
    assert e is not None and (e.hip_name, e.library, e.status) == (hip, lib, status)


def test_prefix_rules_classify_unlisted_names_but_not_lookalikes():
    m = load_mapping()
    e = m.lookup("cublasLtSomethingNew")
    assert e is not None and e.library == "cublaslt" and e.status == "unknown"
    assert m.lookup("ncclComm_t").kind == "type"
    for word in ("cudaify", "cumsum", "current", "cublas", "nvtx", "cuda_check"):
        assert m.lookup(word) is None, word


@pytest.mark.parametrize("header,hip,lib", [
    ("cuda_runtime.h", "hip/hip_runtime.h", "runtime"),
    ("<cublas_v2.h>", "hipblas/hipblas.h", "cublas"),
    ("cudnn.h", "miopen/miopen.h", "cudnn"),
    ("curand_kernel.h", "hiprand/hiprand_kernel.h", "curand"),
    ("cub/cub.cuh", "hipcub/hipcub.hpp", "cub"),
    ("cub/warp/warp_reduce.cuh", "hipcub/hipcub.hpp", "cub"),
    ("nccl.h", "rccl/rccl.h", "nccl"),
    ("nvrtc.h", "hip/hiprtc.h", "nvrtc"),
    ("thrust/device_vector.h", "thrust/device_vector.h", "thrust"),
    ("mma.h", None, "device"),
    ("cutlass/gemm/gemm.h", None, "cutlass"),
])
def test_headers(header, hip, lib):
    e = load_mapping().lookup_header(header)
    assert e is not None and e.hip_name == hip and e.library == lib
    assert load_mapping().lookup_header("stdio.h") is None


def test_generator_reproduces_the_committed_table(tmp_path: Path):
    hipify = KNOWLEDGE / "hipify"
    if not (hipify / "mapping.tsv").exists():
        pytest.skip("shared HIPIFY tables are not here")
    out = tmp_path / "m.tsv"
    subprocess.run([sys.executable, str(REPO / "scripts" / "gen_mapping.py"), "--knowledge", str(hipify), "--out", str(out)],
                   check=True, capture_output=True)
    assert out.read_text(encoding="utf-8") == (DATA / "hipify_mapping.tsv").read_text(encoding="utf-8")
