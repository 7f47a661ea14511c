"""translate_file: token-accurate rewriting, safe rewrites, launches, build files."""

from __future__ import annotations

from pathlib import Path

from hipgauge.source.parse import parse_bytes
from hipgauge.translate.rewrite import TranslateOptions, translate_file

DATA = Path(__file__).parent / "data"
REALISTIC = DATA / "realistic" / "realistic.cu"


def _tr(src: str, kind: str = "cuda", **opts):
    pf = parse_bytes(src.encode(), "t.cu" if kind == "cuda" else kind, kind)
    return translate_file(pf, None, TranslateOptions(**opts))


def test_comments_and_strings_are_untouched_and_lines_kept():
    src = ('#include <cuda_runtime.h>\n'
           '// cudaMalloc in a comment\n'
           '/* cudaFree(p);\n   cudaMemcpy */\n'
           'void f(float** p) { const char* s = "cudaMalloc failed"; char c = \'c\'; cudaMalloc(p, 4); }\n'
           'const char* r = R"(cudaFree)";\n')
    r = _tr(src)
    out = r.text.split("\n")
    assert len(out) == len(src.split("\n"))
    assert out[0] == "#include <hip/hip_runtime.h>"
    assert out[1] == "// cudaMalloc in a comment"
    assert out[2:4] == ["/* cudaFree(p);", "   cudaMemcpy */"]
    assert '"cudaMalloc failed"' in out[4] and "hipMalloc(p, 4)" in out[4]
    assert out[5] == 'const char* r = R"(cudaFree)";'


def test_macro_bodies_are_rewritten_lexically_but_not_their_strings():
    src = ('#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) \\\n'
           '    printf("cudaError %s", cudaGetErrorString(e)); } while (0)\n')
    r = _tr(src)
    assert "hipError_t e" in r.text and "hipSuccess" in r.text and "hipGetErrorString(e)" in r.text
    assert '"cudaError %s"' in r.text
    assert r.text.count("\n") == src.count("\n")


def test_warp_masks_rewritten_and_counted_and_switchable():
    src = ('#define FULL_MASK 0xffffffff\n'
           '__global__ void k(float* y, unsigned part) {\n'
           '  float v = y[0];\n'
           '  v += __shfl_xor_sync(FULL_MASK, v, 1);\n'
           '  v += __shfl_down_sync(0xFFFFFFFFu, v, 2, 16);\n'
           '  v += __shfl_sync(~0u, v, 0);\n'
           '  unsigned long long b = __ballot_sync(0xffffffff, v > 0) + __any_sync(0xffffffff, 1) + __all_sync(0xffffffff, 1);\n'
           '  v += __shfl_xor_sync(part, v, 1);\n'
           '  __syncwarp();\n'
           '  y[0] = v + b;\n'
           '}\n')
    r = _tr(src)
    lines = r.text.split("\n")
    assert lines[3].strip() == "v += __shfl_xor(v, 1);"
    assert lines[4].strip() == "v += __shfl_down(v, 2, 16);"
    assert lines[5].strip() == "v += __shfl(v, 0);"
    assert "__ballot(v > 0) + __any(1) + __all(1)" in lines[6]
    assert lines[7].strip() == "v += __shfl_xor_sync(part, v, 1);"  # a partial mask is never rewritten
    assert lines[8].strip() == "__builtin_amdgcn_wave_barrier();"
    rules = [s.rule for s in r.safe_rewrites]
    assert rules.count("warp-mask") == 6 and rules.count("syncwarp") == 1
    assert [(u.line, u.cuda_name) for u in r.unconverted] == [(8, "__shfl_xor_sync")]
    off = _tr(src, safe_rewrites=frozenset())
    assert off.text == src and not off.safe_rewrites
    assert {u.cuda_name for u in off.unconverted} >= {"__shfl_xor_sync", "__ballot_sync", "__syncwarp"}
    only_mask = _tr(src, safe_rewrites=frozenset({"warp-mask"}))
    assert "__syncwarp();" in only_mask.text and "__shfl_xor(v, 1)" in only_mask.text


def test_warp_size_constants_wmma_and_asm_are_never_rewritten():
    src = ('#define WARP_SIZE 32\n'
           '__global__ void k(unsigned* o) { int lane = threadIdx.x & 31; unsigned id;\n'
           '  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));\n'
           '  nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> fc;\n'
           '  o[lane] = id + WARP_SIZE; }\n')
    r = _tr(src)
    assert r.text == src
    kinds = {(u.line, u.cuda_name) for u in r.unconverted}
    assert (3, "asm") in kinds and (4, "nvcuda::wmma::fragment") in kinds


def test_launch_kept_or_hipLaunchKernelGGL():
    src = ('template <typename T> __global__ void k(T* p, int n);\n'
           'void f(float* p, int n, cudaStream_t s) {\n'
           '  k<float><<<dim3(n / 256), 256, 0, s>>>(p,\n'
           '      n);\n'
           '  k<float><<<1, 64>>>(p, n);\n'
           '}\n')
    kept = _tr(src)
    assert "k<float><<<dim3(n / 256), 256, 0, s>>>(p," in kept.text
    ggl = _tr(src, launch_style="hipLaunchKernelGGL")
    lines = ggl.text.split("\n")
    assert lines[2].strip() == "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<float>), dim3(dim3(n / 256)), dim3(256), 0, s, p,"
    assert lines[3].strip() == "n);"
    assert lines[4].strip() == "hipLaunchKernelGGL(HIP_KERNEL_NAME(k<float>), dim3(1), dim3(64), 0, 0, p, n);"
    assert ggl.stats.refs_by_kind["launch"] == 2


def test_realistic_file_statistics_and_unconverted_lines():
    pf = parse_bytes(REALISTIC.read_bytes(), "realistic.cu", "cuda")
    r = translate_file(pf)
    assert r.text.count("\n") == pf.text.count("\n")
    s = r.stats
    assert s.refs_mapped > 60 and 0 < s.translation_share < 1 and s.lines_changed > 30
    assert {"header", "function", "type", "enum", "launch"} <= set(s.refs_by_kind)
    lines = {u.line for u in r.unconverted}
    assert 14 in lines and {97, 100, 104, 106} <= lines and 115 in lines  # mma.h, wmma, inline PTX
    assert {x.line for x in r.safe_rewrites} == {42, 47, 56, 61, 79, 82}
    out = r.text.split("\n")
    assert out[14] == "#include <hipblas/hipblas.h>" and "hipblasSgemm(handle, HIPBLAS_OP_N" in out[169]
    assert 'fprintf(stderr, "CUDA error %s at %s:%d\\n",' in out[20]  # string in a macro body untouched


def test_cmake_translation_keeps_lines_and_appends_what_hip_needs():
    src = (DATA / "translate" / "CMakeLists.txt").read_text()
    r = _tr(src, kind="cmake", amd_arch=("gfx90a", "gfx940"))
    lines = r.text.split("\n")
    n = len(src.rstrip("\n").split("\n"))
    assert lines[1] == "project(detector LANGUAGES CXX HIP)  # CUDA in a comment stays"
    assert lines[2] == 'set(CMAKE_HIP_ARCHITECTURES "gfx90a;gfx940")'
    assert lines[3] == "find_package(hip REQUIRED)"
    assert 'HIP_ARCHITECTURES "gfx90a;gfx940"' in lines[5] and "CUDA_SEPARABLE_COMPILATION" in lines[5]
    assert lines[6] == "target_link_libraries(detector PRIVATE hip::host roc::hipblas)"
    tail = "\n".join(lines[n:])
    assert "find_package(hipblas REQUIRED)" in tail
    assert "set_source_files_properties(kernels.cu PROPERTIES LANGUAGE HIP)" in tail
    assert [(u.line, u.cuda_name) for u in r.unconverted] == [(6, "CUDA_SEPARABLE_COMPILATION")]


def test_makefile_translation():
    src = (DATA / "translate" / "Makefile").read_text()
    r = _tr(src, kind="make", amd_arch=("gfx90a",))
    lines = r.text.split("\n")
    assert lines[0] == "# build with nvcc (this comment keeps its nvcc)"
    assert lines[1] == "NVCC = hipcc"
    assert lines[2] == "FLAGS = -O3 -std=c++17 --offload-arch=gfx90a --use_fast_math -fopenmp".replace(
        "--use_fast_math", "-ffast-math")
    assert lines[4] == "\t$(NVCC) $(FLAGS) --offload-arch=gfx90a -o app kernels.cu -lhipblas -lamdhip64"
    assert len(lines) == len(src.split("\n"))
