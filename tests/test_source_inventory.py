"""Inventory of parsed files: kernels, device functions, launch sites, API references (incl. macro bodies)."""

from __future__ import annotations

from collections import Counter

import pytest

from conftest import DATA
from hipgauge.source.inventory import inventory_file
from hipgauge.source.parse import (enclosing_function, function_name, in_device_code, is_kernel, line_of, node_text,
                                   parse_bytes)

SRC = DATA / "source" / "tree" / "src"
REALISTIC = DATA / "realistic" / "realistic.cu"


def inv_of(path, name=None):
    pf = parse_bytes(path.read_bytes(), name or path.name)
    return pf, inventory_file(pf)


# --- the realistic file (tests/data/realistic/EXPECTED.md) -------------------------------------------------

@pytest.fixture(scope="module")
def realistic():
    if not REALISTIC.exists():
        pytest.skip("realistic.cu not here yet")
    return inv_of(REALISTIC)


def test_realistic_kernels(realistic):
    _, inv = realistic
    got = {k.name: (k.line, k.launch_bounds, k.static_smem_bytes) for k in inv.kernels}
    assert got == {
        "warp_softmax_kernel": (31, [], 128),
        "compact_scores_kernel": (73, [], 0),
        "wmma_gemm_kernel": (92, [], 0),
        "lane_id_kernel": (119, [], 0),
        "tiled_sgemm_kernel": (129, ["256", "2"], 2048),
        "saxpy_kernel": (154, [], 0),
    }
    assert {k.name: k.end_line for k in inv.kernels}["saxpy_kernel"] == 159
    assert [(d.name, d.line, d.end_line, d.qualifiers) for d in inv.device_functions] == [
        ("ptx_lane_id", 112, 117, ["__device__", "__forceinline__"])]


def test_realistic_launches(realistic):
    _, inv = realistic
    got = [(s.line, s.kernel, s.via, s.caller) for s in inv.launch_sites]
    assert got == [(206, "warp_softmax_kernel", "chevron", "main"), (207, "compact_scores_kernel", "chevron", "main"),
                   (208, "wmma_gemm_kernel", "chevron", "main"), (209, "lane_id_kernel", "chevron", "main"),
                   (210, "tiled_sgemm_kernel", "chevron", "main"), (211, "saxpy_kernel", "chevron", "main")]
    s = inv.launch_sites[4]
    assert (s.grid, s.block, s.shared_mem, s.stream) == ("dim3(N / 16, M / 16)", "dim3(16, 16)", "0", "stream")
    assert (inv.launch_sites[0].grid, inv.launch_sites[0].block, inv.launch_sites[0].shared_mem) == ("rows", "256", None)


def test_realistic_library_calls(realistic):
    _, inv = realistic
    calls = Counter((c.cuda_name, c.library) for c in inv.api_calls)
    lines = {}
    for c in inv.api_calls:
        lines.setdefault(c.cuda_name, []).append(c.line)
    # cuBLAS
    assert [lines[n] for n in ("cublasHandle_t", "cublasCreate", "cublasSetStream", "cublasSgemm", "cublasDestroy")] == [
        [166], [167], [168], [170], [171]]
    assert lines["CUBLAS_OP_N"] == [170, 170]
    assert all(c.hip_name.startswith(("hipblas", "HIPBLAS")) and c.status == "mapped"
               for c in inv.api_calls if c.library == "cublas" and c.kind != "header")
    # runtime
    assert calls[("cudaMalloc", "runtime")] == 12 and calls[("cudaFree", "runtime")] == 12
    assert lines["cudaMemcpy"] == [200, 201, 202, 216] and lines["cudaMemset"] == [203]
    assert lines["cudaStreamCreate"] == [181] and lines["cudaStreamDestroy"] == [222]
    assert lines["cudaStreamSynchronize"] == [213] and lines["cudaDeviceSynchronize"] == [214]
    macro = [c for c in inv.api_calls if c.cuda_name == "cudaGetErrorString"]
    assert [(c.line, c.in_macro) for c in macro] == [(22, True)]
    # headers
    headers = {c.cuda_name: (c.line, c.hip_name) for c in inv.api_calls if c.kind == "header"}
    assert headers == {"cuda_runtime.h": (12, "hip/hip_runtime.h"), "cuda_fp16.h": (13, "hip/hip_fp16.h"),
                       "mma.h": (14, None), "cublas_v2.h": (15, "hipblas/hipblas.h")}
    # device intrinsics
    assert lines["__shfl_xor_sync"] == [42, 47, 56, 61] and lines["__expf"] == [55, 66]
    assert lines["__ballot_sync"] == [79] and lines["atomicAdd"] == [81] and lines["__popc"] == [81, 83]
    assert lines["__shfl_sync"] == [82]
    assert lines["__syncthreads"] == [44, 50, 52, 58, 64, 142, 145]
    assert set(lines["nvcuda::wmma::fragment"]) == {97, 98, 99}
    assert lines["wmma::load_matrix_sync"] == [102, 103] and lines["wmma::mma_sync"] == [104]
    assert lines["wmma::fill_fragment"] == [100] and lines["wmma::store_matrix_sync"] == [106]
    assert all(c.library == "device" and c.status == "unsupported" for c in inv.api_calls if "wmma" in c.cuda_name)


def test_realistic_never_counts_comments_or_strings(realistic):
    pf, inv = realistic
    for c in inv.api_calls:
        line = pf.lines[c.line - 1]
        code = line.split("//", 1)[0]
        if c.kind != "header":
            assert c.cuda_name.split("::")[-1] in code, (c, line)
    # "CUDA error %s at %s:%d" and the comment lines naming __shfl_xor_sync (line 29) do not count
    assert not [c for c in inv.api_calls if c.line in (28, 29, 21)]


# --- our own fixture ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fixture_cu():
    return inv_of(SRC / "kernels.cu")


def test_kernels_templates_bounds_and_shared_memory(fixture_cu):
    _, inv = fixture_cu
    k = {k.name: k for k in inv.kernels}
    assert set(k) == {"reduce_kernel", "fill_kernel", "generic_smem_kernel"}
    r = k["reduce_kernel"]
    assert (r.line, r.end_line, r.qualified_name) == (16, 24, "hg::detail::reduce_kernel")
    assert r.template_params == ["typename T", "int BS = 256"] and r.launch_bounds == ["BS", "2"]
    # float[BLOCK=128] + double[kTile=32][kTile + kPad = 33] = 512 + 8448
    assert r.static_smem_bytes == 512 + 8 * 32 * 33
    assert k["fill_kernel"].static_smem_bytes == 0  # extern __shared__ is dynamic
    assert k["generic_smem_kernel"].static_smem_bytes == 4 * 16 * 4  # sizeof(float4) * 4 floats
    assert [(d.name, d.qualifiers) for d in inv.device_functions] == [
        ("twice", ["__device__", "__forceinline__"]), ("both", ["__device__", "__host__"])]


def test_every_launch_form(fixture_cu):
    _, inv = fixture_cu
    got = [(s.line, s.kernel, s.via, s.in_macro, s.caller) for s in inv.launch_sites]
    assert got == [
        (9, "fill_kernel", "chevron", True, None),
        (49, "hg::detail::reduce_kernel", "chevron", False, "run"),
        (50, "fill_kernel", "chevron", False, "run"),
        (54, "fill_kernel", "cudaLaunchKernel", False, "run"),
        (55, "generic_smem_kernel", "cudaLaunchCooperativeKernel", False, "run"),
        (64, "fill_kernel", "cuLaunchKernel", False, "driver_launch"),
    ]
    by_line = {s.line: s for s in inv.launch_sites}
    assert (by_line[54].grid, by_line[54].block, by_line[54].shared_mem, by_line[54].stream) == (
        "dim3(4)", "dim3(64)", "0", "stream")
    assert (by_line[64].grid, by_line[64].block) == ("dim3(8, 1, 1)", "dim3(256, 1, 1)")
    assert by_line[9].grid == "((n) + BLOCK - 1) / BLOCK"


def test_api_references_in_code_and_macros_only(fixture_cu):
    _, inv = fixture_cu
    names = [(c.line, c.cuda_name, c.in_macro) for c in inv.api_calls if c.kind != "header"]
    assert (8, "cudaGetErrorString", True) in names and (8, "cudaSuccess", True) in names
    assert (52, "cudaMalloc", False) in names
    assert (20, "cub::BlockReduce", False) in names and (22, "__shfl_down_sync", False) in names
    assert (56, "ncclAllReduce", False) in names and (57, "cudnnCreate", False) in names
    flat = [n for _, n, _ in names]
    # comments (line 2, the /* cudaMemset */ after LAUNCH_FILL) and strings (lines 8, 48) do not count
    assert "cudaMemcpy" not in flat and "cudaMemset" not in flat and "cudaFree" not in flat
    assert "cublasSgemm" not in flat and "__shfl_sync" not in flat
    # sqrtf counts in device code (line 32), not in the host function (line 44)
    assert [ln for ln, n, _ in names if n == "sqrtf"] == [32]


def test_every_library_is_classified():
    _, inv = inv_of(SRC / "libs.cpp")
    libs = {c.cuda_name: (c.library, c.status) for c in inv.api_calls}
    assert libs["cublasLtCreate"] == ("cublaslt", "mapped")
    assert libs["cufftPlan1d"] == ("cufft", "mapped")
    assert libs["curandCreateGenerator"] == ("curand", "mapped")
    assert libs["cusparseCreate"] == ("cusparse", "mapped")
    assert libs["cusolverDnCreate"] == ("cusolver", "mapped")
    assert libs["nvrtcProgram"] == ("nvrtc", "mapped")
    assert libs["nvtxRangePushA"] == ("nvtx", "mapped")
    assert libs["nvinfer1::IBuilder"] == ("tensorrt", "unsupported")
    assert libs["cutlass::gemm::device::Gemm"] == ("cutlass", "unsupported")
    assert libs["thrust::sort"] == ("thrust", "mapped")
    assert libs["NvInfer.h"] == ("tensorrt", "unsupported") and libs["cutlass/gemm/device/gemm.h"][0] == "cutlass"
    # a name qualified by another namespace, or a member, is not the CUDA API
    assert "cudaMalloc" not in libs and "cudaFree" not in libs


def test_node_helpers(fixture_cu):
    pf, inv = fixture_cu
    root = pf.tree.root_node
    off = pf.data.index(b"__shfl_down_sync")
    node = root.descendant_for_byte_range(off, off + 5)
    fn = enclosing_function(node)
    assert function_name(fn, pf) == "reduce_kernel" and is_kernel(fn, pf) and in_device_code(node, pf)
    assert line_of(node) == 22 and node_text(node, pf) == "__shfl_down_sync"
    off = pf.data.index(b"return sqrtf(x)")
    node = root.descendant_for_byte_range(off, off + 6)
    assert not in_device_code(node, pf) and function_name(enclosing_function(node), pf) == "host_sqrt"
    assert inv.kernel_at(off) is None and inv.kernel_at(pf.data.index(b"extern __shared__")) == "fill_kernel"


def test_odd_sources_do_not_break_the_inventory():
    for src in [b"", b"\xff\xfe garbage \x80\x81", b"__global__ void k(", b"k<<<1, 2>>>(", b"#define X(a) a<<<1,1>>>(\n",
                b"__global__ void __launch_bounds__() k() { __shared__ T x[N]; }",
                "// é\n__global__ void k() { __shfl_sync(0xffffffff, 1, 0); }\n".encode("latin-1")]:
        pf = parse_bytes(src, "odd.cu")
        inventory_file(pf)
    pf = parse_bytes("// é\n__global__ void k() { __shfl_sync(0xffffffff, 1, 0); }\n".encode("latin-1"), "l1.cu")
    assert pf.decode_note and "latin-1" in pf.decode_note
    inv = inventory_file(pf)
    assert [k.name for k in inv.kernels] == ["k"] and [(c.cuda_name, c.line) for c in inv.api_calls] == [("__shfl_sync", 2)]


def test_qualifier_macros_defined_in_the_file():
    src = (b"#define KERNEL __global__\n#define HD __host__ __device__\n"
           b"KERNEL void k(float* p) { p[0] = 1; }\n"
           b"template <int N> KERNEL void k2(float* p) { }\n"
           b"HD inline float f(float x) { return sqrtf(x); }\n"
           b"void host() { k<<<1, 1>>>(0); }\n")
    inv = inventory_file(parse_bytes(src, "m.cu"))
    assert [(k.name, k.line, k.template_params) for k in inv.kernels] == [("k", 3, []), ("k2", 4, ["int N"])]
    assert [(d.name, d.qualifiers) for d in inv.device_functions] == [("f", ["__device__", "__host__"])]
    assert [(c.cuda_name, c.line) for c in inv.api_calls] == [("sqrtf", 5)]
    assert [(s.kernel, s.caller) for s in inv.launch_sites] == [("k", "host")]
