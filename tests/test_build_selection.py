"""The build's source selection (hipgauge.source.build_selection): which build compiles each file, and what that
does to findings and hours (issue 25, part B)."""

from __future__ import annotations

from dataclasses import replace

import os
from pathlib import Path

import pytest

from hipgauge.app.scan import ScanOptions, scan_tree
from hipgauge.decide.build_errors import classify_build_check, header_library
from hipgauge.decide.cost import estimate_cost
from hipgauge.decide.distinct import finding_items
from hipgauge.model import Confidence, Finding, Severity
from hipgauge.source.build_selection import build_selection, cmake_commands
from hipgauge.source.walk import walk_tree

DATA = Path(__file__).resolve().parent / "data" / "dualtarget"
VENDOR_LISTS, SETUP_BRANCH = DATA / "cmake_vendor_lists", DATA / "setup_rocm_branch"


def _tree(env: str, name: str) -> Path | None:
    p = Path(os.environ.get(env) or f"/work/trees/{name}")
    return p if p.is_dir() else None


BNB_TREE, GGML_TREE = _tree("HIPGAUGE_BNB_TREE", "bitsandbytes"), _tree("HIPGAUGE_GGML_TREE", "ggml")


def _selection(root: Path):
    entries, _skipped = walk_tree([root], [], 8 * 1024 * 1024, python=True)
    return build_selection(entries)


def _scan(root: Path):
    return scan_tree([root], ScanOptions(workers=1))


def test_cmake_commands_are_read_as_cmake_splits_them():
    cmds = cmake_commands('# a comment (with parens)\nset(A "x y" b;c) #[[ block\ncomment ]]\n'
                          'if(NOT (X AND "Y"))\nlist(APPEND A [[bracket arg]])\nendif()\n')
    assert [c.name for c in cmds] == ["set", "if", "list", "endif"]
    assert [(a.text, a.quoted) for a in cmds[0].args] == [("A", False), ("x y", True), ("b;c", False)]
    assert [a.text for a in cmds[1].args] == ["NOT", "(", "X", "AND", "Y", ")"]
    assert cmds[2].line == 5 and cmds[2].args[-1].text == "bracket arg"


def test_cmake_per_vendor_source_lists():
    sel = _selection(VENDOR_LISTS)
    assert sel is not None and sel.has_hip_build
    assert sel.builds_for("csrc/kernels.cu") == {"cuda", "hip"}
    assert sel.builds_for("csrc/host.cpp") == {"cuda", "hip"}
    assert sel.builds_for("csrc/gemm_sm80.cu") == {"cuda"}
    assert sel.unit("csrc/gemm_sm80.cu").maybe == {"cuda"}  # under `if(80 IN_LIST …)`: unknown, kept as maybe
    assert sel.builds_for("csrc/gemm_sm80.cuh") == {"cuda"}  # a header takes the builds of the units including it
    assert sel.builds_for("csrc/common.cuh") == {"cuda", "hip"}
    assert sel.builds_for("csrc/hip/rocm_only.cu") == {"hip"}  # file(GLOB) in the HIP branch
    assert sel.builds_for("csrc/xpu_kernels.cpp") == frozenset()  # named, built by neither
    assert sel.builds_for("README.md") is None  # no build information: today's behaviour
    defines = dict(sel.defines)
    assert "BUILD_HIP" in defines["hip"] and "HAS_GEMM_SM80" in defines["cuda"]


def test_cmake_vendor_lists_findings_and_hours():
    res = _scan(VENDOR_LISTS)
    dt = res.dual_target
    assert dt["builds_for_amd"] is True and dt["amd_build_evidence"]
    by_file: dict[str, list[Finding]] = {}
    for f in res.findings:
        by_file.setdefault(f.file, []).append(f)
    cuda_only = by_file["csrc/gemm_sm80.cu"] + by_file["csrc/gemm_sm80.cuh"]
    assert {f.code for f in cuda_only} >= {"HG202"}  # mma.sync / ldmatrix inline PTX
    assert all(f.severity == Severity.INFO and f.effort_hours == 0 and f.branch == "cuda-only"
               and f.builds == ["cuda"] for f in cuda_only)
    assert all(f.builds == ["cuda", "hip"] and f.effort_hours > 0 for f in by_file["csrc/kernels.cu"])
    assert not [f for f in res.findings if f.file == "CMakeLists.txt"]  # nvcc flags in if(BUILD_CUDA): no finding
    est = estimate_cost(res)
    assert est.low_hours > 0
    assert {i.file for i in est.items if i.kind == "finding"} <= {"csrc/kernels.cu", "csrc/common.cuh"}
    assert est.headline.startswith("This tree already builds for AMD")
    assert any("only the CUDA build compiles" in n for n in est.notes)


def test_setup_py_rocm_branch():
    sel = _selection(SETUP_BRANCH)
    assert sel is not None and sel.has_hip_build
    assert sel.builds_for("csrc/ops.cu") == {"cuda", "hip"}
    assert sel.builds_for("csrc/sm90_gemm.cu") == {"cuda"}
    assert sel.builds_for("csrc/rocm_gemm.cu") == {"hip"}
    res = _scan(SETUP_BRANCH)
    assert res.dual_target["builds_for_amd"] is True
    sm90 = [f for f in res.findings if f.file == "csrc/sm90_gemm.cu"]
    assert sm90 and all(f.effort_hours == 0 and f.branch == "cuda-only" for f in sm90)
    assert not [f for f in res.findings if f.file == "setup.py" and f.effort_hours > 0]  # nvcc flags under else:
    est = estimate_cost(res)
    assert {i.file for i in est.items if i.kind == "finding"} == {"csrc/ops.cu"}


def test_a_cuda_only_tree_is_all_port_work(tmp_path):
    shutil_src = VENDOR_LISTS / "csrc" / "gemm_sm80.cuh"
    (tmp_path / "gemm.cuh").write_text(shutil_src.read_text())
    (tmp_path / "gemm.cu").write_text('#include "gemm.cuh"\n__global__ void k(float* d, const unsigned* a) '
                                      "{ mma_m16n8k16(d, a, a); }\n")
    (tmp_path / "CMakeLists.txt").write_text("project(x LANGUAGES CXX CUDA)\nadd_library(x gemm.cu)\n")
    sel = _selection(tmp_path)
    assert sel is not None and not sel.has_hip_build and sel.builds_for("gemm.cu") == {"cuda"}
    res = _scan(tmp_path)
    assert res.dual_target["builds_for_amd"] is False
    mma = [f for f in res.findings if f.code == "HG202"]
    assert mma and all(f.effort_hours > 0 and f.branch is None for f in mma)  # no HIP build: it is the port


def test_unknown_conditions_and_functions(tmp_path):
    for name in ("a.cu", "b.cu", "c.cu", "d.cu"):
        (tmp_path / name).write_text("__global__ void k() {}\n")
    (tmp_path / "CMakeLists.txt").write_text(
        "function(add_backend name)\n  if (GGML_BACKEND_DL)\n    add_library(${name} MODULE ${ARGN})\n"
        "  else()\n    add_library(${name} ${ARGN})\n  endif()\nendfunction()\n"
        "if (GGML_HIP)\n  add_backend(hipb a.cu)\n  if (GGML_HIP_EXTRA)\n    add_backend(extra b.cu)\n  endif()\n"
        "elseif (GGML_CUDA)\n  add_backend(cudab a.cu c.cu)\nelseif (GGML_SYCL)\n  add_backend(syclb d.cu)\nendif()\n")
    sel = _selection(tmp_path)
    assert sel.builds_for("a.cu") == {"cuda", "hip"} and not sel.unit("a.cu").maybe  # if/else both add it: sure
    assert sel.builds_for("b.cu") == {"hip"} and sel.unit("b.cu").maybe == {"hip"}  # an option: maybe
    assert sel.builds_for("c.cu") == {"cuda"}
    assert sel.builds_for("d.cu") == frozenset()  # another backend's switch: off in both builds


def test_no_build_scripts_no_selection(tmp_path):
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    assert _selection(tmp_path) is None
    res = _scan(tmp_path)
    assert res.dual_target["build_selection"] is None and res.dual_target["builds_for_amd"] is False


def _finding(code: str, line: int, message: str, hours: float = 0.3) -> Finding:
    return Finding(code=code, severity=Severity.SLOW, category="library", confidence=Confidence.HIGH,
                   file="wrap.cu", line=line, message=message, kernel="wrapper", effort_hours=hours,
                   snippet=f"cublasLtMatmul{line}(…)")


def test_library_wrapper_is_one_piece_of_work():
    fs = [_finding("HG604", n, f"call {n}") for n in range(10, 79)]
    items = finding_items(fs, {}, {}, 0.5, 2.0)
    assert len(items) == 1 and items[0].count == 69 and items[0].low == pytest.approx(0.15)


def test_a_build_scripts_flag_list_is_one_edit():
    """fast-hadamard-transform's setup.py: -gencode, --use_fast_math, --expt-relaxed-constexpr on separate lines are
    one edit of the script's nvcc flag list (HG701 once); another rule in it (HG702) is its own item."""
    def flag(line: int, code: str = "HG701", hours: float = 0.62) -> Finding:
        return replace(_finding(code, line, f"nvcc flag {line}", hours), category="build", kernel=None,
                       file="setup.py", snippet=f"'-flag{line}',")

    items = finding_items([flag(n) for n in (106, 153, 154, 155)] + [flag(107, "HG702", 1.25)], {}, {}, 0.5, 2.0)
    assert sorted((i.label.split()[0], i.count) for i in items) == [("HG701", 4), ("HG702", 1)]


def test_one_rule_saying_the_same_thing_twice_in_a_kernel_is_one_edit():
    """exllamav2's ``atomicAdd(out, r01); atomicAdd(out + 1, r23);`` on half2: one item of two occurrences; the same
    message in another kernel, or another message in this one, is its own item."""
    def atomic(line: int, kernel: str, message: str = "half/bf16 atomicAdd (on `half2`)") -> Finding:
        return replace(_finding("HG507", line, message, 2.5), category="atomics", kernel=kernel,
                       snippet=f"atomicAdd(out + {line}, r{line});")

    items = finding_items([atomic(455, "gemm"), atomic(456, "gemm"), atomic(190, "gemm_gptq"),
                           atomic(460, "gemm", "half/bf16 atomicAdd (on `bfloat162`)")], {}, {}, 0.5, 2.0)
    assert sorted((i.count, i.line) for i in items) == [(1, 190), (1, 460), (2, 455)]


def test_third_party_headers_and_toolchain_errors_are_environment():
    assert header_library("torch/extension.h", "amd")[0] == "environment"
    assert header_library("torch/extension.h", "nvidia")[0] == "environment"
    assert header_library("cutlass/gemm/device/gemm.h", "nvidia")[0] == "environment"
    doc = {"compiles": [
        {"file": "a.cu", "arch": "gfx942", "vendor": "amd", "ok": False,
         "diagnostics": [{"severity": "error", "message": "'torch/extension.h' file not found", "file": "a.cu",
                          "line": 1}]},
        {"file": "b.cu", "arch": "gfx942", "vendor": "amd", "ok": False,
         "diagnostics": [{"severity": "error", "message": "no matching function for call to '__hip_x'",
                          "file": "/usr/include/hip/amd_detail/amd_hip_bf16.h", "line": 12}]},
        {"file": "a.cu", "arch": "sm_80", "vendor": "nvidia", "ok": False,
         "diagnostics": [{"severity": "error", "message": "torch/extension.h: No such file or directory",
                          "file": "a.cu", "line": 1}]}]}
    cls = classify_build_check(doc)
    assert cls is not None and cls["diagnostics"]["port"] == 0 and not cls["port_errors"]
    assert cls["toolchain_errors"] and "toolchain's own headers" in cls["summary"]


@pytest.mark.skipif(BNB_TREE is None, reason="bitsandbytes tree not present (set HIPGAUGE_BNB_TREE)")
def test_real_bitsandbytes():
    assert BNB_TREE is not None
    sel = _selection(BNB_TREE)
    assert sel is not None and sel.has_hip_build
    assert sel.builds_for("csrc/gemm_4bit_sm80.cu") == {"cuda"} and sel.builds_for("csrc/gemm_4bit_sm75.cu") == {"cuda"}
    assert sel.builds_for("csrc/gemm_4bit_simt.cu") == {"cuda", "hip"}
    res = _scan(BNB_TREE)
    assert res.dual_target["builds_for_amd"] is True
    est = estimate_cost(res)
    cuda_only = {"csrc/gemm_4bit_sm80.cu", "csrc/gemm_4bit_sm75.cu", "csrc/gemm_4bit_mma.cuh"}
    assert not [i for i in est.items if i.file in cuda_only]  # nothing costed in files only the CUDA build compiles
    assert est.high_hours < 100  # tens of hours, not hundreds (was 122–490 h)


@pytest.mark.skipif(GGML_TREE is None, reason="ggml tree not present (set HIPGAUGE_GGML_TREE)")
def test_real_ggml_selection():
    assert GGML_TREE is not None
    sel = _selection(GGML_TREE)
    assert sel is not None and sel.has_hip_build
    cuda_units = [u for u in sel.units if u.path.startswith("src/ggml-cuda/") and u.path.endswith(".cu")
                  and "template-instances" not in u.path]
    assert cuda_units and all(u.builds == {"cuda", "hip"} for u in cuda_units)  # the HIP build globs ../ggml-cuda
    sycl = [u for u in sel.units if u.path.startswith("src/ggml-sycl/")]
    assert sycl and all(not u.builds for u in sycl)  # another backend: neither the CUDA nor the HIP build


def test_cmake_function_with_parsed_arguments():
    sel = _selection(DATA / "cmake_function_lists")
    assert sel is not None and sel.has_hip_build
    assert sel.builds_for("csrc/cache_kernels.cu") == {"cuda", "hip"}
    assert sel.builds_for("csrc/quantization/machete_mm.cu") == {"cuda"}
    assert sel.builds_for("csrc/rocm/attention.cu") == {"hip"}
    # where the script names it, then the target's line
    assert sel.unit("csrc/quantization/machete_mm.cu").where == ("named at CMakeLists.txt:6", "cmake/utils.cmake:10")


BUILD_VARIANT = DATA / "cmake_build_variant"


def test_a_build_variant_compared_with_variables_set_to_a_vendor_name():
    """FBGEMM's fbgemm_gpu in small (tests/data/dualtarget/cmake_build_variant): one variable picks the build
    (``GPU_VARIANT STREQUAL BUILD_VARIANT_ROCM``, with ``set(BUILD_VARIANT_ROCM "rocm")``), set in an if-chain whose
    conditions hipgauge cannot decide, in a project the top script never adds."""
    sel = _selection(BUILD_VARIANT)
    assert sel is not None and sel.has_hip_build
    assert sel.builds_for("gpu/src/common.cu") == {"cuda", "hip"}
    assert sel.builds_for("gpu/src/sm90_only.cu") == {"cuda"}
    assert sel.builds_for("gpu/src/any_gpu.cu") == {"cuda", "hip"}  # NOT … STREQUAL BUILD_VARIANT_CPU: both
    # a module included through ${CMAKEMODULES}, set as ../cmake/modules in gpu/ and ../../cmake/modules in gpu/sub
    assert sel.builds_for("gpu/sub/helpers.cu") == {"cuda", "hip"}


def test_a_folder_added_past_a_fatal_error_is_the_other_builds():
    """``if(NOT GPU_VARIANT STREQUAL BUILD_VARIANT_CUDA) message(FATAL_ERROR …) endif() add_subdirectory(extra)``:
    the HIP build stops before it adds the folder, so what the folder compiles, and the headers below it that no
    script names (included only by generated files not in the tree), are the CUDA build's."""
    sel = _selection(BUILD_VARIANT)
    assert sel is not None
    assert sel.builds_for("gpu/extra/src/attn.cpp") == {"cuda"}
    traits = sel.unit("gpu/extra/src/kernel_traits.h")  # included by attn.cpp: its builds
    assert traits is not None and traits.builds == {"cuda"} and traits.via == "include"
    unit = sel.unit("gpu/extra/src/mainloop_sm90.hpp")  # included by nothing here: the folder's builds
    assert unit is not None and unit.builds == {"cuda"} and unit.via == "folder"
    assert unit.where == ("gpu/extra/CMakeLists.txt: only the CUDA build enters this folder",)


def test_sources_a_helper_function_buckets_per_build_variant():
    """FBGEMM's gen_ai in small (gpu/genai, cmake/modules/GpuLibrary.cmake): patterns globbed in a ``foreach`` by a
    helper that hands its list back with ``PARENT_SCOPE``; a library helper that files ``CUDA_SPECIFIC_SRCS`` only
    for the CUDA variant, under ``${PREFIX}_sources`` (a prefix set in two branches hipgauge cannot decide), and
    hands the ROCm build the ``get_hipified_list`` of the same files."""
    sel = _selection(BUILD_VARIANT)
    assert sel is not None
    assert sel.builds_for("gpu/genai/src/attn.cu") == {"cuda", "hip"}
    assert sel.builds_for("gpu/genai/src/fmha_entry.cu") == {"cuda", "hip"}
    assert sel.builds_for("gpu/genai/src/cutlass/gemm_sm90.cu") == {"cuda"}
    # a vendored example folder no build adds: its program is neither build's; its header, which a compiled unit
    # includes, is its includers'
    assert sel.builds_for("gpu/genai/src/fmha/demo.cu") == frozenset()
    assert sel.builds_for("gpu/genai/src/fmha/kernel.hpp") == {"cuda", "hip"}


def test_a_build_variant_tree_costs_only_what_its_hip_build_compiles():
    """The CUDA-only files cost nothing; fmha.cu, compiled by both, holds its TMA code under
    ``#if defined(CUTLASS_ARCH_MMA_SM100_SUPPORTED)``, which CUTLASS defines under nvcc alone, so the HIP build
    compiles only its ``#include <cutlass/arch/config.h>``: a note, not a CUTLASS rewrite."""
    res = _scan(BUILD_VARIANT)
    assert res.dual_target["builds_for_amd"] is True
    # gpu/genai/src/fmha/kernel.hpp: compiled by both builds' units, but included under the CUTLASS guard, so the
    # HIP build never reaches it; its TMA copy costs nothing
    assert all(f.effort_hours == 0 for f in res.findings if f.file.endswith("fmha/kernel.hpp"))
    fmha = [f for f in res.findings if f.file.endswith("gpu/src/fmha.cu")]
    assert fmha and all(f.effort_hours == 0 for f in fmha)
    include = [f for f in fmha if f.code == "HG617"]
    assert include and "compiles only this include" in include[0].message
    cost = estimate_cost(res)
    assert cost.low_hours == 0 and cost.high_hours == 0


def test_cutlass_guards_are_the_cuda_builds_only_in_a_tree_that_builds_for_amd(tmp_path):
    """Without a HIP build the same file is all port work: the CUTLASS include is a rewrite and the TMA copy under
    the guard is costed (the guard is not known to be false anywhere)."""
    (tmp_path / "fmha.cu").write_bytes((BUILD_VARIANT / "gpu" / "src" / "fmha.cu").read_bytes())
    res = _scan(tmp_path)
    assert res.dual_target["builds_for_amd"] is False
    codes = {f.code for f in res.findings if f.effort_hours > 0}
    assert {"HG617", "HG204"} <= codes


def test_sources_renamed_to_their_hipified_copies(tmp_path):
    """faiss's ROCm build: ``list(TRANSFORM SRCS REPLACE cu$ hip)`` after its hipify.sh wrote a ``.hip`` copy of
    every ``.cu`` in place; the HIP build compiles those copies, so the ``.cu`` files are both builds'. A header a
    unit includes that an install list also names keeps its includers' builds."""
    (tmp_path / "gpu").mkdir()
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(vec LANGUAGES CXX)\n"
        "option(VEC_ENABLE_ROCM \"ROCm\" OFF)\nif(VEC_ENABLE_ROCM)\n  enable_language(HIP)\nendif()\n"
        "add_subdirectory(gpu)\n")
    (tmp_path / "gpu" / "CMakeLists.txt").write_text(
        "set(GPU_SRC Distance.cu Select.cu)\nset(GPU_HEADERS MathOps.cuh)\n"
        "if(VEC_ENABLE_ROCM)\n  list(TRANSFORM GPU_SRC REPLACE cu$ hip)\nendif()\n"
        "add_library(vec_gpu OBJECT ${GPU_SRC})\ninstall(FILES ${GPU_HEADERS} DESTINATION include)\n")
    (tmp_path / "gpu" / "Distance.cu").write_text('#include "MathOps.cuh"\n__global__ void d(float* x) { x[0] = 1; }\n')
    (tmp_path / "gpu" / "Select.cu").write_text("__global__ void s(float* x) { x[0] = 2; }\n")
    (tmp_path / "gpu" / "MathOps.cuh").write_text("#pragma once\n__device__ inline float sq(float x) { return x * x; }\n")
    sel = _selection(tmp_path)
    assert sel is not None and sel.has_hip_build
    assert sel.builds_for("gpu/Distance.cu") == {"cuda", "hip"}
    assert sel.builds_for("gpu/Select.cu") == {"cuda", "hip"}
    header = sel.unit("gpu/MathOps.cuh")
    assert header is not None and header.builds == {"cuda", "hip"} and header.via == "include"


FP8_KERNEL = """#include <cuda_fp8.h>
#ifdef USE_ROCM
#include <hip/hip_fp8.h>
#endif
__global__ void to_fp8(const float* x, __nv_fp8_e4m3* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __nv_fp8_e4m3(x[i]);
}
"""


def test_fp8_code_that_already_handles_fnuz_is_review_in_a_tree_that_builds_for_amd(tmp_path):
    """HG208 (OCP vs FNUZ FP8) in a file both builds compile: where the file already names the FNUZ formats
    (FBGEMM's quantize.cu: ``// e4m3fn (NV) to e4m3fnuz (AMD) conversion``) the finding is for review; where it does
    not, port work. In a CUDA-only tree, port work either way."""
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(q LANGUAGES CXX)\nif(USE_ROCM)\n  enable_language(HIP)\n"
        "  add_library(q SHARED handled.cu plain.cu)\nelse()\n  add_library(q SHARED handled.cu plain.cu)\nendif()\n")
    (tmp_path / "handled.cu").write_text(FP8_KERNEL + "// e4m3fn (NV) to e4m3fnuz (AMD): the scale is 448/240\n")
    (tmp_path / "plain.cu").write_text(FP8_KERNEL)
    res = _scan(tmp_path)
    assert res.dual_target["builds_for_amd"] is True
    by_file = {}
    for f in res.findings:
        if f.code == "HG208":
            by_file.setdefault(f.file.split("/")[-1], []).append(f)
    assert by_file["handled.cu"] and all(f.confidence == Confidence.LOW for f in by_file["handled.cu"])
    assert "FNUZ" in by_file["handled.cu"][0].message
    # plain.cu: its kernel's FP8 lines are port work (its include, right before a HIP-only branch, is review)
    assert [f.line for f in by_file["plain.cu"] if f.confidence != Confidence.LOW] == [5, 7]
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "handled.cu").write_text((tmp_path / "handled.cu").read_text())
    res = _scan(alone)
    assert all(f.confidence != Confidence.LOW for f in res.findings if f.code == "HG208")


def test_a_switch_named_for_an_nvidia_only_library_is_the_cuda_builds(tmp_path):
    """faiss: ``#if defined USE_NVIDIA_CUVS`` around cuVS code, set by its CMake under ``if(FAISS_ENABLE_CUVS)``;
    cuVS has no ROCm build, so in a tree that builds for AMD the guarded code is the CUDA build's alone."""
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(v LANGUAGES CXX)\nif(V_ENABLE_ROCM)\n  enable_language(HIP)\n"
        "endif()\nadd_library(v SHARED res.cu)\nif(V_ENABLE_CUVS)\n"
        "  target_compile_definitions(v PUBLIC USE_NVIDIA_CUVS=1)\nendif()\n")
    body = (BUILD_VARIANT / "gpu" / "src" / "sm90_only.cu").read_text()
    (tmp_path / "res.cu").write_text("#if defined USE_NVIDIA_CUVS\n" + body + "#endif\n"
                                     "__global__ void plain(float* x) { x[0] = 1.f; }\n")
    res = _scan(tmp_path)
    assert res.dual_target["builds_for_amd"] is True
    tma = [f for f in res.findings if f.code == "HG204"]
    assert tma and all(f.effort_hours == 0 and f.branch == "cuda-only" for f in tma)
    (tmp_path / "CMakeLists.txt").unlink()  # a CUDA-only tree: the same code is port work
    assert any(f.code == "HG204" and f.effort_hours > 0 for f in _scan(tmp_path).findings)


def test_a_setup_helper_module_and_pathlib_joins(tmp_path):
    """TransformerEngine's ROCm fork: setup.py imports ``setup_pytorch_extension`` from ``build_tools/pytorch.py``,
    which adds ``csrc / "userbuffers" / "userbuffers.cu"`` under ``if not rocm_build():``: the CUDA build's alone.
    Its own ``namespace cuda { int sm_count(); }`` is the project's, not libcu++'s."""
    (tmp_path / "build_tools").mkdir()
    csrc = tmp_path / "te" / "csrc"
    (csrc / "userbuffers").mkdir(parents=True)
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\nfrom build_tools.pytorch import setup_pytorch_extension\n"
        "setup(name='te', ext_modules=[setup_pytorch_extension('te/csrc')])\n")
    (tmp_path / "build_tools" / "__init__.py").write_text("")
    (tmp_path / "build_tools" / "utils.py").write_text(
        "import torch\ndef rocm_build():\n    return bool(torch.version.hip)\n")
    (tmp_path / "build_tools" / "pytorch.py").write_text(
        "from pathlib import Path\nfrom torch.utils.cpp_extension import CUDAExtension\n"
        "from .utils import rocm_build\n\n"
        "def setup_pytorch_extension(csrc):\n    csrc = Path(csrc)\n    sources = [csrc / 'common.cu']\n"
        "    if not rocm_build():\n        sources.extend([csrc / 'userbuffers' / 'userbuffers.cu'])\n"
        "    return CUDAExtension('te_torch', [str(s) for s in sources])\n")
    (csrc / "common.cu").write_text(
        "#include \"cuda_runtime_util.h\"\n__global__ void k(float* x) { x[0] = cuda::sm_count(); }\n")
    (csrc / "cuda_runtime_util.h").write_text(
        "#pragma once\nnamespace cuda {\nint sm_count(int device_id = -1);\nint num_devices();\n}  // namespace cuda\n")
    (csrc / "userbuffers" / "userbuffers.cu").write_text("__global__ void ub(int* f) { f[0] = 1; }\n")
    sel = _selection(tmp_path)
    assert sel is not None and sel.has_hip_build
    assert sel.builds_for("te/csrc/userbuffers/userbuffers.cu") == {"cuda"}
    assert sel.builds_for("te/csrc/common.cu") == {"cuda", "hip"}
    res = _scan(tmp_path)
    assert not [c for c in res.api_calls if c.cuda_name.startswith("cuda::")]


def test_a_project_namespace_named_cuda_is_the_projects():
    from hipgauge.source.defined import project_cuda_namespace

    src = (b"namespace transformer_engine {\nnamespace cuda {\n/* count */\nint sm_count(int device_id = -1);\n"
           b"const std::string &include_directory(bool required = false);\nvoid f() { if (x) { return; } }\n}\n}\n"
           b"int outside();\n")
    assert project_cuda_namespace(src) == {"cuda::sm_count", "cuda::include_directory", "cuda::f"}
    assert project_cuda_namespace(b"cuda::std::atomic<int> a;\n") == set()  # libcu++ used, not declared


_FA3_SETUP = """import os
from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension, BuildExtension, IS_HIP_EXTENSION

def _write_ninja_file(path):
    # copied from torch: picks the device compiler
    if IS_HIP_EXTENSION:
        nvcc = os.path.join(os.environ.get('ROCM_HOME', '/opt/rocm'), 'bin', 'hipcc')
    else:
        nvcc = 'nvcc'
    return nvcc

nvcc_flags = ["-O3", "-gencode", "arch=compute_90a,code=sm_90a"]
sources = ["flash_api.cpp", "flash_fwd_sm90.cu"]
setup(name="fa3", ext_modules=[CUDAExtension("fa3_C", sources, extra_compile_args={"nvcc": nvcc_flags})],
      cmdclass={"build_ext": BuildExtension})
"""


def test_a_setup_that_names_hip_only_in_passing_builds_for_cuda_alone(tmp_path):
    """ROCm flash-attention's hopper/setup.py (FA3): HIP appears only where a ninja writer copied from torch picks
    the compiler; no vendor branch decides a source or an extension call, and sm_90a flags are passed to every
    build. Beside the tree's real HIP build (its top setup.py), it is the CUDA build's script."""
    (tmp_path / "hopper").mkdir()
    (tmp_path / "csrc").mkdir()
    (tmp_path / "setup.py").write_text(
        "import torch\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
        "IS_ROCM = bool(torch.version.hip)\nif IS_ROCM:\n    sources = ['csrc/ck_fwd.cu']\nelse:\n"
        "    sources = ['csrc/fwd.cu']\nsetup(name='fa', ext_modules=[CUDAExtension('fa_C', sources)])\n")
    (tmp_path / "csrc" / "ck_fwd.cu").write_text("__global__ void ck(float* x) { x[0] = 1.f; }\n")
    (tmp_path / "csrc" / "fwd.cu").write_text("__global__ void fwd(float* x) { x[0] = 2.f; }\n")
    (tmp_path / "hopper" / "setup.py").write_text(_FA3_SETUP)
    (tmp_path / "hopper" / "flash_api.cpp").write_text("int api() { return 0; }\n")
    (tmp_path / "hopper" / "flash_fwd_sm90.cu").write_text("__global__ void fwd90(float* x) { x[0] = 3.f; }\n")
    (tmp_path / "hopper" / "flash_bwd_sm90.cu").write_text("__global__ void bwd90(float* x) { x[0] = 4.f; }\n")
    sel = _selection(tmp_path)
    assert sel is not None and sel.has_hip_build
    assert not any(e.startswith("hopper/setup.py") for e in sel.hip_build)  # its mention of HIP is no HIP build
    assert sel.builds_for("hopper/flash_fwd_sm90.cu") == {"cuda"}
    assert sel.builds_for("hopper/flash_bwd_sm90.cu") == {"cuda"}  # named by no script, below the CUDA script
    assert sel.builds_for("csrc/ck_fwd.cu") == {"hip"} and sel.builds_for("csrc/fwd.cu") == {"cuda"}
    # a HIP branch that changes what is compiled is a HIP build: not read as in passing
    (tmp_path / "hopper" / "setup.py").write_text(_FA3_SETUP.replace(
        'sources = ["flash_api.cpp", "flash_fwd_sm90.cu"]',
        'sources = ["flash_api.cpp"]\nif IS_HIP_EXTENSION:\n    sources += ["flash_bwd_sm90.cu"]\n'
        'else:\n    sources += ["flash_fwd_sm90.cu"]'))
    sel = _selection(tmp_path)
    assert sel is not None and sel.builds_for("hopper/flash_bwd_sm90.cu") == {"hip"}


_KERNEL_TOML = """[general]
name = "act"
backends = ["cuda", "rocm", "metal"]

[torch]
src = ["torch-ext/torch_binding.cpp"]

[kernel.act]
backend = "cuda"
depends = ["torch"]
src = ["act/act_kernels.cu", "act/compat.h"]

[kernel.act_rocm]
backend = "rocm"
rocm-archs = ["gfx942"]
src = ["act/act_kernels.cu", "act/compat.h", "act/rocm_only.cu"]

[kernel.act_metal]
backend = "metal"
src = ["act_metal/act.mm"]
"""


def _kernel_tree(root: Path) -> None:
    (root / "act").mkdir(parents=True)
    (root / "torch-ext").mkdir()
    (root / "build.toml").write_text(_KERNEL_TOML)
    (root / "act" / "act_kernels.cu").write_text('#include "compat.h"\n__global__ void silu(float* x) { x[0] = 1.f; }\n')
    (root / "act" / "compat.h").write_text("#pragma once\n")
    # CUDA spellings the HIP build compiles as they are (a rule fires on them where a port would have to act)
    (root / "act" / "rocm_only.cu").write_text((BUILD_VARIANT / "gpu" / "src" / "sm90_only.cu").read_text())
    (root / "torch-ext" / "torch_binding.cpp").write_text("int bind() { return 0; }\n")


def test_a_kernel_builder_build_toml_says_what_each_build_compiles(tmp_path):
    """Hugging Face kernel-builder (kernels-community): each [kernel.NAME] compiles its src for its backend; the
    bindings for every build the kernels have; a folder whose kernels are all one build's is that build's."""
    _kernel_tree(tmp_path / "act")
    sel = _selection(tmp_path / "act")
    assert sel is not None and sel.has_hip_build
    assert any('backend = "rocm"' in e for e in sel.hip_build)
    assert sel.builds_for("act/act_kernels.cu") == {"cuda", "hip"}
    assert sel.builds_for("act/rocm_only.cu") == {"hip"}
    assert sel.builds_for("torch-ext/torch_binding.cpp") == {"cuda", "hip"}
    # a CUDA-only kernel beside it in a monorepo: its unlisted headers are the CUDA build's
    mla = tmp_path / "mla"
    (mla / "csrc").mkdir(parents=True)
    (mla / "build.toml").write_text('[kernel.mla]\nbackend = "cuda"\nsrc = ["csrc/mla.cu"]\n')
    (mla / "csrc" / "mla.cu").write_text("__global__ void m(float* x) { x[0] = 1.f; }\n")
    (mla / "csrc" / "jit_kernel.cuh").write_text("#pragma once\n__device__ inline void tma() {}\n")
    both = tmp_path / "mono"
    both.mkdir()
    for d in ("act", "mla"):
        (tmp_path / d).rename(both / d)
    sel = _selection(both)
    assert sel is not None and sel.has_hip_build
    assert sel.builds_for("mla/csrc/mla.cu") == {"cuda"} and sel.builds_for("mla/csrc/jit_kernel.cuh") == {"cuda"}
    # scanned alone, the CUDA-only kernel is a CUDA-only tree: a full port
    assert _selection(both / "mla") is not None and not _selection(both / "mla").has_hip_build


def test_a_file_only_the_hip_build_compiles_is_the_port_itself(tmp_path):
    """Only the HIP build compiles rocm_only.cu (hipcc, in a build that ships): no port work there; the same file
    in a tree without a HIP build is flagged."""
    _kernel_tree(tmp_path / "k")
    res = _scan(tmp_path / "k")
    assert res.dual_target["builds_for_amd"] is True
    assert not [f for f in res.findings if f.file.endswith("rocm_only.cu")]
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "rocm_only.cu").write_text((tmp_path / "k" / "act" / "rocm_only.cu").read_text())
    assert [f for f in _scan(alone).findings if f.code == "HG204"]


def test_a_name_only_the_cuda_builds_scripts_define_is_undefined_in_the_hip_build(tmp_path):
    """CTranslate2: ``add_definitions(-DCT2_WITH_FLASH_ATTN)`` sits in its WITH_CUDA block (and its WITH_HIP block
    stops on WITH_FLASH_ATTN), so ``#ifdef CT2_WITH_FLASH_ATTN`` code in a file both builds compile is the CUDA
    build's; its own ``namespace cuda { struct plus; using device_type = …; constexpr … max_blocks = … }`` is the
    project's, not libcu++."""
    (tmp_path / "src").mkdir()
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(ct LANGUAGES CXX)\nset(SOURCES src/attn.cu)\n"
        "if(WITH_CUDA)\n  if(WITH_FLASH_ATTN)\n    add_definitions(-DCT2_WITH_FLASH_ATTN)\n  endif()\n"
        "  add_library(ct SHARED ${SOURCES})\nelseif(WITH_HIP)\n  enable_language(HIP)\n"
        "  add_library(ct SHARED ${SOURCES})\nendif()\n")
    body = (BUILD_VARIANT / "gpu" / "src" / "sm90_only.cu").read_text()
    (tmp_path / "src" / "helpers.h").write_text(
        "#pragma once\nnamespace ct {\nnamespace cuda {\ntemplate <typename T> struct plus { T operator()(T a, T b) "
        "const { return a + b; } };\ntemplate <typename T> using device_type = T;\n"
        "constexpr long max_blocks = 65535;\n}  // namespace cuda\n}  // namespace ct\n")
    (tmp_path / "src" / "attn.cu").write_text(
        '#include "helpers.h"\n#ifdef CT2_WITH_FLASH_ATTN\n' + body + "#endif\n"
        "namespace ct {\n__global__ void add(float* x) { x[0] = cuda::plus<float>()(x[0], 1.f) + cuda::max_blocks; }\n"
        "}\n")
    sel = _selection(tmp_path)
    assert sel is not None and "CT2_WITH_FLASH_ATTN" in dict(sel.defines)["cuda"]
    res = _scan(tmp_path)
    tma = [f for f in res.findings if f.code == "HG204"]
    assert tma and all(f.effort_hours == 0 for f in tma)
    assert not [c for c in res.api_calls if c.cuda_name.startswith("cuda::")]


def test_a_name_only_the_hip_builds_scripts_define_is_a_hip_switch(tmp_path):
    """Ginkgo: ``target_compile_definitions(… GKO_COMPILING_HIP)`` in its HIP folder alone, and
    ``#if defined(GKO_COMPILING_CUDA) … #elif defined(GKO_COMPILING_HIP) … #endif`` in code both builds compile."""
    for d in ("cuda", "hip", "common"):
        (tmp_path / d).mkdir()
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(gk LANGUAGES CXX)\nif(GK_BUILD_CUDA)\n  add_subdirectory(cuda)\n"
        "endif()\nif(GK_BUILD_HIP)\n  enable_language(HIP)\n  add_subdirectory(hip)\nendif()\n")
    (tmp_path / "cuda" / "CMakeLists.txt").write_text(
        "add_library(gk_cuda SHARED ../common/kernels.cu)\n"
        "target_compile_definitions(gk_cuda PRIVATE GK_COMPILING_CUDA GK_NAMESPACE=cuda)\n")
    (tmp_path / "hip" / "CMakeLists.txt").write_text(
        "add_library(gk_hip SHARED ../common/kernels.cu)\n"
        "target_compile_definitions(gk_hip PRIVATE GK_COMPILING_HIP GK_NAMESPACE=hip)\n")
    body = (BUILD_VARIANT / "gpu" / "src" / "sm90_only.cu").read_text()
    (tmp_path / "common" / "kernels.cu").write_text(
        "#if defined(GK_COMPILING_HIP)\n__global__ void k(float* x) { x[0] = 1.f; }\n#else\n" + body + "#endif\n")
    res = _scan(tmp_path)
    assert res.dual_target["builds_for_amd"] is True
    tma = [f for f in res.findings if f.code == "HG204"]
    assert tma and all(f.effort_hours == 0 and f.branch == "cuda-only" for f in tma)
