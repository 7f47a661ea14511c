"""Regression fixtures for the false findings a sample of real dual-target trees showed (issue 25, ggml's CUDA
backend and bitsandbytes): bit packing and block math read as warp widths, deliberate 32-lane shuffles, per-warp
slots that still fit on wave64, per-vendor launch bounds, cooperative launches of one block per SM, toolkit
version guards a shipping HIP build takes the other way. Each false pattern sits next to the true pattern that
must keep firing on plain CUDA code."""

from __future__ import annotations

from pathlib import Path

from hipgauge.app.scan import ScanOptions, scan_tree
from hipgauge.decide.cost import estimate_cost
from hipgauge.rules.engine import check_file
from hipgauge.rules.examples import snippet_file


def _found(code: str, rule: str) -> dict[int, str]:
    """line -> confidence of ``rule``'s findings on a CUDA snippet."""
    return {f.line: f.confidence.value for f in check_file(snippet_file(code, "cuda"), None, set()) if f.code == rule}


def _scan(root: Path):
    return scan_tree([root], ScanOptions(workers=1))


# --- HG101 ---------------------------------------------------------------------------------------------------

def test_hg101_bit_packing_and_block_math_are_not_warp_widths():
    code = ("#define QK_K 256\n"
            "__global__ void k(int* o, const int* qh, int kq) {\n"
            "    int v = (qh[0] >> 5) & 0x00001000;\n"       # ggml mmq-load-tiles.cuh: 17 -> 12 bit move
            "    int s = o[QK_K/32 + kq];\n"                  # ggml vecdotq.cuh: a block of 32 quant values
            "    o[threadIdx.x] = v + s + __shfl_down_sync(0xffffffff, v, 1);\n}\n")
    assert _found(code, "HG101") == {}


def test_hg101_thread_split_without_warp_operation_is_review_only():
    # ggml dequantize.cuh: tid / 32 picks one half of a 64-value block; nothing warp-synchronous
    code = "__device__ void d(float* y, int tid) { const int n = tid/32; y[n] = 1.f; }\n"
    assert _found(code, "HG101") == {1: "low"}
    # the true pattern: the same split next to a shuffle stays high
    code = ("__global__ void k(float* o, float v) {\n    int lane = threadIdx.x & 31;\n"
            "    v += __shfl_down(v, 1);\n    if (lane == 0) o[0] = v;\n}\n")
    assert _found(code, "HG101") == {2: "high"}


def test_hg101_file_of_32_lane_logical_warps_is_review_only():
    # bitsandbytes gemm_4bit_simt.cu: every shuffle passes width 32
    code = ("__device__ float r(float v) { for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(~0u, v, o, 32);"
            " return v; }\n"
            "__global__ void k(float* o, float v) {\n    const int lane = threadIdx.x & 31;\n"
            "    v = r(v) + __shfl_xor(v, 16, 32);\n    if (lane == 0) o[threadIdx.x >> 5] = v;\n}\n")
    assert set(_found(code, "HG101").values()) == {"low"}


def test_hg101_pytorch_warp_shfl_with_width_32_is_logical_warps():
    """ROCm apex multihead_attn/layer_norm.cuh: ``(threadIdx.x + (1 << l)) & 31`` feeding ``WARP_SHFL(mu, lane,
    32)`` (ATen's helper: value, lane, width); one ``WARP_SHFL`` without a width (warpSize) keeps it high."""
    code = ("__global__ void k(float* o, float mu) {\n"
            "    for (int l = 0; l <= 4; ++l) {\n        int src = (threadIdx.x + (1 << l)) & 31;\n"
            "        mu += WARP_SHFL(mu, src, 32);\n    }\n    o[0] = WARP_SHFL_XOR(mu, 1, 32);\n}\n")
    assert _found(code, "HG101") == {3: "low"}
    assert _found(code.replace("WARP_SHFL_XOR(mu, 1, 32)", "WARP_SHFL_XOR(mu, 1)"), "HG101") == {3: "high"}


# --- HG703 ---------------------------------------------------------------------------------------------------

def test_hg703_a_guard_that_names_the_hip_platform_is_review_only():
    """DeepSpeed fused_lamb: ``#if (__CUDA_ARCH__ >= 300) || (defined(__HIP_PLATFORM_AMD__) && HIP_VERSION >= 502)``:
    the project states the HIP build's side; a bare ``__CUDA_ARCH__ >= 800`` is the silent fallback (high)."""
    code = ("__device__ float f(float x) {\n#if (__CUDA_ARCH__ >= 300) || (defined(__HIP_PLATFORM_AMD__) && "
            "HIP_VERSION >= 502)\n    return x * 2.f;\n#else\n    return x;\n#endif\n}\n")
    assert _found(code, "HG703") == {2: "low"}
    bare = code.replace(" || (defined(__HIP_PLATFORM_AMD__) && HIP_VERSION >= 502)", "")
    assert _found(bare, "HG703") == {2: "high"}


# --- HG106 ---------------------------------------------------------------------------------------------------

def test_hg106_explicit_width_32_and_partial_ladders():
    width32 = ("__device__ float f(float a) {\n    for (int m = 16; m > 0; m >>= 1)\n"
               "        a += __shfl_xor_sync(0xFFFFFFFF, a, m, 32);\n    return a;\n}\n")
    assert _found(width32, "HG106") == {}  # ggml fattn-common.cuh: a deliberate 32-lane reduction
    partial = ("__device__ float f(float a, int warp_size) {\n    for (int offset = 16; offset >= 4; offset >>= 1)\n"
               "        a = fmaxf(a, __shfl_xor_sync(0xFFFFFFFF, a, offset, warp_size));\n    return a;\n}\n")
    assert _found(partial, "HG106") == {}  # ggml fattn-mma-f16.cuh: the lanes of one tile row
    named = ("__device__ float f(float a) {\n    for (int m = 16; m > 0; m >>= 1)\n"
             "        a += __shfl_xor_sync(0xFFFFFFFF, a, m, WARP_SIZE);\n    return a;\n}\n")
    assert _found(named, "HG106") == {2: "low"}  # WARP_SIZE from another header: review
    plain = ("__device__ float f(float a) {\n    for (int m = 16; m > 0; m >>= 1)\n"
             "        a += __shfl_xor_sync(0xFFFFFFFF, a, m);\n    return a;\n}\n")
    assert _found(plain, "HG106") == {2: "high"}  # the true pattern: half a wavefront


def test_hg106_lane_bit_butterfly_transform_is_for_review():
    # exllamav2 cache_q.cuh: a 32-point Hadamard transform, the lane's bit of the offset picks the sign
    hadamard = ("__device__ float f(float w, int t) {\n    for (int i = 1; i < 32; i <<= 1)\n    {\n"
                "        float p = __shfl_xor_sync(0xffffffff, w, i);\n"
                "        if (t & i) w = -w;\n        w = w + p;\n    }\n    return w;\n}\n")
    assert _found(hadamard, "HG106") == {2: "low"}
    # the same ladder as a reduction (no lane bit tested) stays a defect, and `&&` is not a bit test
    scan = ("__device__ float f(float w, int t) {\n    for (int i = 1; i < 32; i <<= 1)\n    {\n"
            "        float p = __shfl_xor_sync(0xffffffff, w, i);\n"
            "        if (t && i) w = w + p;\n    }\n    return w;\n}\n")
    assert _found(scan, "HG106") == {2: "high"}


# --- HG107 ---------------------------------------------------------------------------------------------------

def test_hg107_per_warp_slots():
    written_only = ("__global__ void k(float* o, float v) {\n    __shared__ float s[32];\n"
                    "    const int warp_id = threadIdx.x / warpSize;\n    s[warp_id] = v;\n    o[0] = s[0];\n}\n")
    assert _found(written_only, "HG107") == {}  # fewer 64-lane warps still fit in 32 slots
    consistent = ("#define WARP_SIZE 32\n__global__ void k(float* o, float v) {\n    __shared__ float s[32];\n"
                  "    const int warp_id = threadIdx.x / WARP_SIZE;\n    const int lane_id = threadIdx.x % WARP_SIZE;\n"
                  "    if (lane_id == 0) s[warp_id] = v;\n    __syncthreads();\n    o[0] = s[lane_id];\n}\n")
    assert _found(consistent, "HG107") == {3: "low"}  # ggml norm.cu: 32-lane logical warps throughout
    physical = consistent.replace("threadIdx.x / WARP_SIZE", "threadIdx.x / warpSize")
    assert _found(physical, "HG107") == {3: "high"}  # written per hardware warp, read at a 32-lane id


# --- HG401 / HG406 -------------------------------------------------------------------------------------------

def test_hg401_computed_min_blocks_is_review_only():
    assert _found("__global__ void __launch_bounds__(256, 3) k(float* x) { x[0] = 0.f; }\n", "HG401") == {1: "high"}
    computed = "__global__ void __launch_bounds__(256, get_occupancy(4)) k(float* x) { x[0] = 0.f; }\n"
    assert _found(computed, "HG401") == {1: "low"}
    foreign = "__global__ void __launch_bounds__(1024, MAX_THREADS_PER_SM / 1024) k(float* x) { x[0] = 0.f; }\n"
    assert _found(foreign, "HG401") == {1: "low"}


def test_hg406_one_block_per_sm_fits():
    per_sm = ("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
              "__global__ void k(float* x) { cg::this_grid().sync(); }\n"
              "void go(void** a, int nsm) { cudaLaunchCooperativeKernel((void*)k, dim3(nsm, 1, 1), dim3(256), a, 0, 0); }\n")
    assert _found(per_sm, "HG406") == {}
    fixed = per_sm.replace("dim3(nsm, 1, 1)", "dim3(4096)")
    assert set(_found(fixed, "HG406")) == {3, 4}


def test_hg406_a_named_grid_of_sms_times_occupancy_fits():
    """ROCm apex's peer memory halo exchange: ``dim3 grid(numSM*numBlocksPerSm,1,1)`` after the occupancy query,
    then a cooperative launch of a templated kernel (commas inside ``<…>``) with that grid."""
    named = ("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
             "template <typename T, bool A> __global__ void k(T* x) { cg::this_grid().sync(); }\n"
             "void go(void** a, int numSM) {\n    int numBlocksPerSm;\n"
             "    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&numBlocksPerSm, k<float, true>, 256, 0);\n"
             "    dim3 grid(numSM*numBlocksPerSm,1,1);\n"
             "    cudaLaunchCooperativeKernel((void*)k<float, true>, grid, dim3(256), a, 0, 0);\n}\n")
    assert _found(named, "HG406") == {}
    assert set(_found(named.replace("dim3 grid(numSM*numBlocksPerSm,1,1)", "dim3 grid(4096)"), "HG406")) == {3, 8}


# --- dual-target tree ------------------------------------------------------------------------------------------

SHIM = ("#pragma once\n#include <hip/hip_runtime.h>\n#define cudaStream_t hipStream_t\n#define cudaMalloc hipMalloc\n"
        "#define cudaFree hipFree\n#define __shfl_xor_sync(mask, var, laneMask, width) __shfl_xor(var, laneMask, width)\n")
COMMON = ("#pragma once\n#if defined(GGML_USE_HIP)\n#include \"vendors/hip.h\"\n#elif defined(GGML_USE_MUSA)\n"
          "#include \"vendors/musa.h\"\n#else\n#include <cuda_runtime.h>\n#endif\n#define WARP_SIZE 32\n")
KERNEL = ("#include \"common.cuh\"\n"
          "#if CUDART_VERSION >= 12000 || defined(GGML_USE_MUSA)\n"
          "__global__ void k(float* o) { o[threadIdx.x & 31] = 1.f; }\n"
          "#else\n"
          "__global__ void k(float* o) { o[threadIdx.x] = 1.f; }\n"
          "#endif\n"
          "__global__ void v(float* o, float a) {\n"
          "    a += __shfl_xor_sync(\n"
          "        0xFFFFFFFF, a, 2, 32);\n"
          "    o[0] = a;\n}\n"
          "#define LAUNCH(n) v<<<1, n>>>(nullptr, 0.f)\n"
          "void go() { LAUNCH(64); }\n"
          "void m(void** p) {\n"
          "    cudaMallocManaged(p, 64);\n"
          "#if defined(GGML_USE_HIP)\n"
          "    (void)hipMemAdvise(*p, 64, hipMemAdviseSetCoarseGrain, 0);\n"
          "#endif\n}\n")


def test_shipping_tree_takes_its_hip_path(tmp_path):
    (tmp_path / "vendors").mkdir()
    (tmp_path / "vendors" / "hip.h").write_text(SHIM)
    (tmp_path / "common.cuh").write_text(COMMON)
    (tmp_path / "k.cu").write_text(KERNEL)
    res = _scan(tmp_path)
    by = {(f.code, f.file, f.line): f for f in res.findings}
    # CUDART_VERSION (and the sibling GGML_USE_MUSA) are undefined under hipcc: line 3 is the CUDA build's only
    assert by[("HG101", "k.cu", 3)].branch == "cuda-only" and by[("HG101", "k.cu", 3)].effort_hours == 0
    assert not [f for f in res.findings if f.code == "HG704" and not f.branch]
    # the shim maps __shfl_xor_sync (its mask dropped): the call continued on line 9 is covered
    assert not [f for f in res.findings if f.code == "HG103"]
    # a launch in a macro compiles under hipcc as written; no hipify run in this HIP build
    assert not [f for f in res.findings if f.code == "HG706"]
    # ggml-cuda.cu: managed memory with the HIP build's own handling right after it: review
    assert by[("HG505", "k.cu", 15)].confidence.value == "low"
    # the project's logical warp width, compiled by the HIP build: review
    assert by[("HG101", "common.cuh", 9)].confidence.value == "low"
    est = estimate_cost(res)
    assert not [i for i in est.items if i.file == "common.cuh"]
    assert any("common.cuh:9" == r["where"] and r["hours"] == 0 for r in est.review)


def test_plain_cuda_tree_keeps_its_findings(tmp_path):
    (tmp_path / "common.cuh").write_text("#pragma once\n#include <cuda_runtime.h>\n#define WARP_SIZE 32\n")
    (tmp_path / "k.cu").write_text(KERNEL.split("void m(")[0] + "void m(void** p) {\n    cudaMallocManaged(p, 64);\n}\n")
    res = _scan(tmp_path)
    by = {(f.code, f.file, f.line): f for f in res.findings}
    assert by[("HG101", "common.cuh", 3)].confidence.value == "high" and not by[("HG101", "common.cuh", 3)].branch
    assert [f for f in res.findings if f.code == "HG704" and not f.branch]
    assert [f for f in res.findings if f.code == "HG103"]
    assert by[("HG505", "k.cu", 15)].confidence.value != "low"
    est = estimate_cost(res)
    assert any(i.file == "common.cuh" and i.high_hours > 0 for i in est.items)


def test_low_confidence_is_reviewed_not_costed_unless_configured(tmp_path):
    from hipgauge import config as config_mod

    (tmp_path / "k.cu").write_text("__device__ void d(float* y, int tid) { const int n = tid/32; y[n] = 1.f; }\n"
                                   "__global__ void __launch_bounds__(256, 3) k(float* x) { x[0] = 0.f; }\n")
    res = _scan(tmp_path)
    est = estimate_cost(res)
    assert [i.label.split()[0] for i in est.items] == ["HG401"]
    assert len(est.review) == 1 and est.review[0]["hours"] == 0 and est.review[0]["where"] == "k.cu:1"
    assert any("listed for review, not costed" in n for n in est.notes)
    cfg = config_mod.defaults()
    cfg.override("cost_model.review_confidences", [])
    every = estimate_cost(res, None, cfg)
    assert not every.review and every.high_hours > est.high_hours


def test_hg101_hg107_arithmetic_of_32_thread_tiles():
    # DeepSpeed csrc/quantization/fake_quantizer.cu: every exchange goes through a 32-thread tile
    tiles = ("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
             "__global__ void k(float* o, float m) {\n    cg::thread_block b = cg::this_thread_block();\n"
             "    cg::thread_block_tile<32> g = cg::tiled_partition<32>(b);\n"
             "    int gid = threadIdx.x >> 5;\n    int lane = threadIdx.x & 0x1f;\n    int warp_num = blockDim.x >> 5;\n"
             "    for (int i = 1; i < 32; i <<= 1) m = fmaxf(m, g.shfl_xor(m, i));\n"
             "    __shared__ float part[32];\n    if (lane == 0) part[gid] = m;\n    b.sync();\n"
             "    if (lane < warp_num) o[0] = part[lane];\n}\n")
    assert _found(tiles, "HG101") == {6: "low", 7: "low"}
    assert _found(tiles, "HG107")[8] == "low"
    # the same arithmetic beside a raw shuffle, or with a tile of the hardware warp, stays a defect
    raw = tiles.replace("g.shfl_xor(m, i)", "__shfl_xor_sync(0xffffffff, m, i)")
    assert _found(raw, "HG101") == {6: "high", 7: "high"}
    assert _found(raw, "HG107")[8] == "high"
    wide = tiles.replace("<32>", "<64>")
    assert _found(wide, "HG101") == {6: "high", 7: "high"}
    # DeepSpeed's inference softmax: tiles of WARP_SIZE, defined as 32 in a header this file includes
    named = tiles.replace("<32>", "<WARP_SIZE>")
    assert _found(named, "HG101") == {6: "low", 7: "low"}
    assert "a name from another header" in next(
        f.message for f in check_file(snippet_file(named, "cuda"), None, set()) if f.code == "HG101")


def test_hg104_mask_that_a_vendor_macro_drops():
    # ROCm apex contrib/csrc/multihead_attn/softmax.cuh
    code = ("#ifdef __HIP_PLATFORM_AMD__\n"
            "#define APEX_WARP_SHFL_XOR(mask, value, offset, width) __shfl_xor(value, offset, width)\n"
            "#else\n#define APEX_WARP_SHFL_XOR __shfl_xor_sync\n#endif\n"
            "__device__ float f(float v) {\n    constexpr unsigned FULL_MASK = 0xffffffff;\n"
            "    for (int o = 16; o > 0; o /= 2) v += APEX_WARP_SHFL_XOR(FULL_MASK, v, o, 32);\n    return v;\n}\n")
    assert _found(code, "HG104") == {7: "low"}
    raw = code.replace("APEX_WARP_SHFL_XOR(FULL_MASK", "__shfl_xor_sync(FULL_MASK")
    assert _found(raw, "HG104") == {7: "high"}  # the mask reaches a real *_sync call


# --- HG108 ---------------------------------------------------------------------------------------------------

def test_hg108_a_host_local_read_from_the_device_is_that_devices_width():
    """ROCm apex's transducer loss: ``const int warpSize = props->warpSize;`` then ``std::max(warpSize, …)``: the
    device's own width read at run time (64 on an MI300X). A local set to 32, or the builtin on the host, stays."""
    code = ("void bwd(int dict, const cudaDeviceProp* props) {\n"
            "    const int warpSize = props->warpSize;\n"
            "    int threads = std::max(warpSize, dict / 4);\n}\n")
    assert _found(code, "HG108") == {}
    assert _found(code.replace("props->warpSize", "32"), "HG108")
    assert _found("void f(int* t) {\n    t[0] = warpSize * 4;\n}\n", "HG108") == {2: "medium"}
    out_param = ("void q(int dev) {\n    int warpSize;\n    cuDeviceGetAttribute(&warpSize, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev);\n"
                 "    printf(\"%d\\n\", warpSize);\n}\n")
    assert _found(out_param, "HG108") == {}


def test_a_library_version_guard_is_the_cuda_builds_in_a_shipping_tree(tmp_path):
    """ROCm apex mlp_cuda.cu: all its cuBLASLt code sits under ``#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >=
    11000``; hipBLAS defines no CUBLAS_VERSION, so the HIP build compiles the other side. In a CUDA-only tree the
    same lines are port work."""
    guarded = ("#include \"common.cuh\"\n#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 11000\n"
               "#include <cublasLt.h>\n#endif\n__global__ void z(float* o) { o[0] = 0.f; }\n")
    (tmp_path / "vendors").mkdir()
    (tmp_path / "vendors" / "hip.h").write_text(SHIM)
    (tmp_path / "common.cuh").write_text(COMMON)
    (tmp_path / "k.cu").write_text(KERNEL)
    (tmp_path / "mlp.cu").write_text(guarded)
    lt = [f for f in _scan(tmp_path).findings if f.code == "HG605" and f.file == "mlp.cu"]
    assert lt and all(f.branch == "cuda-only" and f.effort_hours == 0 for f in lt)
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "mlp.cu").write_text(guarded.replace('#include "common.cuh"\n', ""))
    lt = [f for f in _scan(plain).findings if f.code == "HG605"]
    assert lt and all(not f.branch and f.effort_hours > 0 for f in lt)


def test_a_runtime_if_on_a_hip_only_macro_is_a_vendor_branch(tmp_path):
    """ROCm apex's layer norm: ``if(USE_ROCM){ … GPU_WARP_SIZE … } else { … & 31 … }``: USE_ROCM is defined only
    in the HIP build, so the ``else`` is the CUDA build's (a zero-hour note there); ``if (!USE_ROCM)`` the other way
    round. A plain CUDA tree keeps its finding."""
    body = ("#include \"common.cuh\"\n"
            "__global__ void k(float* o, float v) {\n"
            "  if(USE_ROCM){\n"
            "    o[threadIdx.x % warpSize] = v;\n"
            "  }else{\n"
            "    o[(threadIdx.x + 1) & 31] = v;\n"
            "  }\n"
            "  if (!USE_ROCM) {\n"
            "    o[threadIdx.x & 31] = v;\n"
            "  }\n"
            "}\n")
    (tmp_path / "vendors").mkdir()
    (tmp_path / "vendors" / "hip.h").write_text(SHIM)
    (tmp_path / "common.cuh").write_text(COMMON)
    (tmp_path / "ln.cu").write_text(body)
    got = {f.line: f for f in _scan(tmp_path).findings if f.code == "HG101" and f.file == "ln.cu"}
    assert got[6].branch == "cuda-only" and got[6].effort_hours == 0
    assert got[9].branch == "cuda-only" and got[9].effort_hours == 0
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "ln.cu").write_text(body.replace('#include "common.cuh"\n', ""))
    got = {f.line: f for f in _scan(plain).findings if f.code == "HG101"}
    assert got[5].effort_hours > 0 and not got[5].branch
