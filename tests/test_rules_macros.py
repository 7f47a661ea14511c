"""Rules inside #define bodies (lexical, medium confidence) and the three late catalogue rows on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipgauge.model import Confidence
from hipgauge.rules.engine import check_file
from hipgauge.rules.examples import snippet_file

DATA = Path(__file__).parent / "data"
MACROS = DATA / "rules" / "macros.cu"
REALISTIC = DATA / "realistic" / "realistic.cu"


def _scan(path: Path, kind: str = "cuda", ignore: set[str] | None = None):
    return check_file(snippet_file(path.read_text(), kind, path.name), None, ignore or set())


@pytest.fixture(scope="module")
def macro_findings():
    return _scan(MACROS)


def _at(findings, code):
    return {f.line for f in findings if f.code == code}


def test_warp_rules_see_macro_bodies(macro_findings):
    assert _at(macro_findings, "HG103") == {5, 8}  # literal mask; FULL_MASK expands to 32 bits; __activemask() is fine
    assert _at(macro_findings, "HG101") == {11, 12}  # threadIdx & 31, >> 5; PACKED_LOW(x) is not a thread index
    assert _at(macro_findings, "HG301") == {14}  # the AMDGCN asm on line 15 is not PTX


def test_macro_findings_name_the_macro_and_are_medium(macro_findings):
    by = {(f.code, f.line): f for f in macro_findings}
    assert "in macro WARP_REDUCE" in by["HG103", 5].message
    assert "in macro WARP_REDUCE_ALL" in by["HG103", 8].message and "FULL_MASK" in by["HG103", 8].message
    assert "in macro LANE" in by["HG101", 11].message
    assert "in macro LANE_ID" in by["HG301", 14].message
    assert all(by[k].confidence == Confidence.MEDIUM for k in by if by[k].message.count("in macro"))


def test_comments_and_strings_in_macros_stay_silent(macro_findings):
    assert not [f for f in macro_findings if f.line in (9, 16, 17, 20)]


def test_hipify_gaps_in_macros(macro_findings):
    assert _at(macro_findings, "HG706") == {18, 19}
    msgs = {f.line: f.message for f in macro_findings if f.code == "HG706"}
    assert "LAUNCH_ROWS" in msgs[18] and "<<<" in msgs[18]
    assert "cuda##" in msgs[19]


def test_macro_findings_can_be_suppressed():
    code = MACROS.read_text().replace("v, 16)\n", "v, 16) // hipgauge: ignore[HG103]\n", 1)
    got = check_file(snippet_file(code, "cuda", "macros.cu"), None, set())
    assert 5 not in _at(got, "HG103") and 8 in _at(got, "HG103")
    assert not _at(check_file(snippet_file(code, "cuda"), None, {"HG101"}), "HG101")


def test_cuda_header_from_cpp_file_only_where_hipify_has_no_counterpart():
    src = "#include <driver_types.h>\n#include <vector>\nint f();\n"  # not in the HIPIFY header map here
    assert _at(check_file(snippet_file(src, "cpp", "host.cpp"), None, set()), "HG706") == {1}
    assert _at(check_file(snippet_file(src, "header", "api.h"), None, set()), "HG706") == {1}
    assert not _at(check_file(snippet_file(src, "cuda", "k.cu"), None, set()), "HG706")
    assert not _at(check_file(snippet_file(src, "header", "k.cuh"), None, set()), "HG706")
    # issue #16: headers hipify translates (cuda_runtime.h -> hip/hip_runtime.h, cuda.h) are no gap
    for header in ("cuda_runtime.h", "cuda.h", "cuda_runtime_api.h", "device_launch_parameters.h"):
        mapped = f"#include <{header}>\n#include <vector>\nint f();\n"
        assert not _at(check_file(snippet_file(mapped, "cpp", "host.cpp"), None, set()), "HG706"), header
        assert not _at(check_file(snippet_file(mapped, "header", "api.hpp"), None, set()), "HG706"), header


@pytest.mark.skipif(not REALISTIC.exists(), reason="realistic.cu not here")
def test_realistic_gets_none_of_the_late_rules():
    got = _scan(REALISTIC)
    assert not [f for f in got if f.code in ("HG403", "HG405", "HG706")]


def test_launch_bounds_rule_needs_small_blocks_and_register_pressure():
    kernel = """
__global__ void k(float* o) {
    float acc[8][8];
    for (int i = 0; i < 8; ++i) acc[i][0] = o[i];
    o[threadIdx.x] = acc[threadIdx.x % 8][0];
}
"""
    def codes(host: str, pre: str = ""):
        return _at(check_file(snippet_file(pre + kernel + host), None, set()), "HG403")

    assert codes("void r(float* o) { dim3 block(16, 8); k<<<4, block>>>(o); }") == {2}
    assert codes("void r(float* o) { int threads = 128; k<<<4, threads>>>(o); }") == {2}
    assert not codes("void r(float* o) { k<<<4, 1024>>>(o); }")  # big blocks: the default bound is right
    assert not codes("void r(float* o, int t) { k<<<4, t>>>(o); }")  # block size unknown
    assert not codes("")  # never launched here
    assert not codes("void r(float* o) { k<<<4, 128>>>(o); }", "__global__ void __launch_bounds__(128) k(float* o);\n")


def test_persistent_grid_through_cuda_device_get_attribute():
    src = """
__global__ void k(float* c) { c[blockIdx.x] = 0; }
void go(float* c) {
    int sms;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    dim3 grid(sms * 4);
    k<<<grid, 256>>>(c);
}
void other(float* c, int n) {
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    printf("%d SMs, %d L2\\n", p.multiProcessorCount, p.l2CacheSize);
    k<<<(n + 255) / 256, 256>>>(c);
}
"""
    got = [f for f in check_file(snippet_file(src), None, set()) if f.code == "HG405"]
    assert [f.line for f in got] == [5]
    assert "persistent" in got[0].message and got[0].kernel == "go"


def test_persistent_grid_is_read_in_the_function_that_reads_the_sm_count():
    """ROCm apex mlp_cuda.cu: a grid-size helper reads the SM count into ``num_SMs`` and launches nothing; another
    function's local ``num_SMs`` sizes a launch. Each function's own read and launch are paired."""
    src = """
__global__ void k(float* c) { c[blockIdx.x] = 0; }
void grid_size(int* gy) {
    int num_SMs = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
    *gy = num_SMs * 4;
}
void go(float* c) {
    int num_SMs = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
    k<<<num_SMs * 2, 256>>>(c);
}
"""
    got = [f for f in check_file(snippet_file(src), None, set()) if f.code == "HG405"]
    assert [(f.line, f.kernel) for f in got] == [(8, "go")]


def test_an_sm_sized_grid_of_a_grid_stride_loop_is_low_confidence():
    """ROCm apex's focal loss and mlp bias kernels: 2 blocks per SM, each striding over the data by the grid. No
    block reuses another's data through L2, so the per-XCD L2 of an MI300X costs nothing there; a persistent
    kernel that picks tiles by block index stays medium."""
    src = """
__global__ void bias(float* x, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) x[i] += 1.f;
}
__global__ void tiles(float* c) { c[blockIdx.x * 64 + threadIdx.x] = 0; }
void go(float* x, int n) {
    cudaDeviceProp props;
    cudaGetDeviceProperties(&props, 0);
    dim3 grid(2 * props.multiProcessorCount);
    bias<<<grid, 512>>>(x, n);
}
void go2(float* c) {
    cudaDeviceProp props;
    cudaGetDeviceProperties(&props, 0);
    tiles<<<props.multiProcessorCount, 64>>>(c);
}
"""
    got = {f.kernel: f for f in check_file(snippet_file(src), None, set()) if f.code == "HG405"}
    assert got["go"].confidence == "low" and "grid-stride" in got["go"].message
    assert got["go2"].confidence == "medium"
