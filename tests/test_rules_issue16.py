"""Issue #16 rules: HG111 (host-side warp width sizing a warp-level kernel's launch), HG301 only on device asm or
PTX syntax, each with positive and near-miss cases written like real code."""

from __future__ import annotations

from pathlib import Path

from hipgauge.rules.engine import check_file
from hipgauge.rules.examples import snippet_file

F16 = Path(__file__).parent / "data" / "issue16"


def _found(src: str, code: str, kind: str = "cuda", name: str = "k.cu") -> dict[int, str]:
    return {f.line: f.message for f in check_file(snippet_file(src, kind, name), None, set()) if f.code == code}


def test_hg111_flags_the_host_lines_of_the_issue_program_and_names_the_kernels():
    got = _found((F16 / "block32_launch.cu").read_text(), "HG111", name="block32_launch.cu")
    assert set(got) == {37, 39, 40}
    assert "`block_max`" in got[37] and "32-thread blocks" in got[37] and "shared-memory reduction" in got[37]
    assert "`row_scale`" in got[39] and "WAVE_SIZE = 32" in got[39]
    assert "`block_max`" in got[40] and "(`32`)" in got[40]


WARP_KERNEL = """
__global__ void lane_sum(const float* x, float* out) {
    float v = x[blockIdx.x * blockDim.x + threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    if ((threadIdx.x & 31) == 0) out[blockIdx.x] = v;
}
"""
ELEMENTWISE = """
__global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
"""


def test_hg111_positives_thread_x_macro_and_constexpr():
    src = WARP_KERNEL + """
const int kWarpSize = 32;
void run(const float* x, float* out, int n) {
    int thread_x = 32;
    dim3 threads(thread_x);
    lane_sum<<<n / thread_x, threads>>>(x, out);
    lane_sum<<<n / 128, 4 * kWarpSize>>>(x, out);
}
"""
    got = _found(src, "HG111")
    assert set(got) == {12, 13} and all("`lane_sum`" in m for m in got.values())


def test_hg111_near_misses():
    # an elementwise kernel in 32-thread blocks: no lane arithmetic, intrinsics or shared reduction
    assert not _found(ELEMENTWISE + "void run(float* x, int n) { scale<<<n / 32, 32>>>(x, 2.f, n); }\n", "HG111")
    # a warp kernel launched with 256 threads from a run-time value: sized by the caller, not a 32 constant
    src = WARP_KERNEL + "void run(const float* x, float* out, int n, int block) { lane_sum<<<n / block, block>>>(x, out); }\n"
    assert not _found(src, "HG111")
    # WARP_SIZE only used for data layout on the host, the block is 256
    src = WARP_KERNEL + "#define WARP_SIZE 32\nint tiles(int n) { return n / WARP_SIZE; }\nvoid run(const float* x, float* out) { lane_sum<<<64, 256>>>(x, out); }\n"
    assert not _found(src, "HG111")
    # the kernel is defined elsewhere: nothing is known about its warp use
    assert not _found("void run(float* x) { other_kernel<<<1, 32>>>(x); }\n", "HG111")


HOST_TIMER = """
#include <cstdint>
static inline uint64_t cycles() {
#if defined(__x86_64__)
    uint32_t lo, hi;
    asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
    uint64_t v;
    asm volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#endif
}
"""


def test_hg301_leaves_host_cycle_timers_alone():
    assert not _found(HOST_TIMER, "HG301", kind="cpp", name="timer.cpp")
    assert not _found(HOST_TIMER + "__global__ void k(float* x) { x[0] = 1.f; }\n", "HG301")


ARM_SVE_KERNEL = """
void gemm_kernel(const float* a, float* c) {
#if defined(__aarch64__) && __ARM_FEATURE_SVE
  asm volatile(
      "mov x0, %[gp]\\t\\n"
      "ld1rw { z12.s }, p1/z, [x0, #24]\\t\\n"
      "fmla z0.s, p0/m, z1.s, z2.s\\t\\n"
      :: [gp] "r"(a) : "x0", "z0", "z12", "memory");
#endif
}
"""


def test_hg301_leaves_arm_sve_host_kernels_alone():
    """FBGEMM's FbgemmFP16UKernelsSve128.cc: a CPU GEMM in SVE assembly; its ``z12.s`` operands are dotted like a
    PTX opcode but stand inside an instruction, and the function is host code."""
    assert not _found(ARM_SVE_KERNEL, "HG301", kind="cpp", name="FbgemmFP16UKernelsSve128.cc")


def test_hg301_flags_ptx_in_device_code_and_ptx_syntax_anywhere():
    device = """
__device__ unsigned lane() {
    unsigned id;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
    return id;
}
__device__ void pause_it() { asm volatile("nanosleep_placeholder;"); }
"""
    got = _found(device, "HG301")
    assert 4 in got and 7 in got  # PTX; and any non-AMDGCN asm in device code
    host_ptx = "static const char* p() { unsigned r; asm(\"mov.u32 %0, %%smid;\" : \"=r\"(r)); return 0; }\n"
    assert _found(host_ptx, "HG301", kind="cpp", name="h.cpp")
    assert not _found('#define TIMER(v) asm volatile("rdtsc" : "=a"(v))\n', "HG301", kind="cpp", name="t.cpp")


BLOCK_IN_MACRO = """template <typename IndexType>
__global__ void count_rows(IndexType* c, int n) { c[threadIdx.x] = n; }


template <int subwarp_size, typename ValueType>
__global__ void
__launch_bounds__(subwarp_size * 4) transpose_blocks(const ValueType* in, ValueType* out, int n)
{
    const auto rank = threadIdx.x;
    SELECT_PRECISION(
        ValueType, in[0],
        auto src = in + rank;
        for (int i = rank; i < n; i += subwarp_size) {
            out[i] = src[i];
        });
}


template <typename IndexType>
int find_blocks(IndexType* c, int n)
{
    count_rows<<<1, 1>>>(c, n);
    return 0;
}
"""


def test_hg801_a_kernel_with_a_block_in_a_macro_call_ends_at_its_brace(tmp_path):
    """Ginkgo's jacobi_kernels.cpp: a kernel body holds a macro call whose argument is a block; the grammar
    recovered by running the kernel on over the host function after it, whose launch then read as device-side
    (HG801, 20 h each). The kernel ends at its closing brace; the host launch is no dynamic parallelism."""
    from hipgauge.app.scan import ScanOptions, scan_tree

    (tmp_path / "jacobi.cu").write_text(BLOCK_IN_MACRO)
    res = scan_tree([tmp_path], ScanOptions(workers=1))
    assert not [f for f in res.findings if f.code == "HG801"]
    # a launch from a kernel after it is still one
    device = BLOCK_IN_MACRO + "\n__global__ void parent(int* c) { count_rows<<<1, 1>>>(c, 4); }\n"
    (tmp_path / "jacobi.cu").write_text(device)
    assert [f for f in scan_tree([tmp_path], ScanOptions(workers=1)).findings if f.code == "HG801"]
