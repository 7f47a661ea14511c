"""The build's view across files (issue 25, part A): derived vendor macros follow #include, a shim's own
``#define __CUDA_ARCH__`` is honoured, names both vendors define are defined in both builds, CUDA rules run only on
CUDA/HIP code (other backends are inventoried), HIP-native files and neutral-name shims are the port, and every AMD
target comes from data."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from hipgauge.app.scan import ScanOptions, scan_tree
from hipgauge.knowledge.amd_targets import amd_pass_macros, amd_targets, target
from hipgauge.source.conditions import BOTH, CUDA_ONLY, HIP_ONLY, HIP_PASS_NAMES, Defines, evaluate, visibility
from hipgauge.source.dualtarget import tree_dual
from hipgauge.source.includes import condition_names, resolve_includes, tree_macros
from hipgauge.source.walk import walk_tree

DATA = Path(__file__).resolve().parent / "data" / "dualtarget"
CROSS, BACKENDS, VLLM = DATA / "cross_file", DATA / "other_backends", DATA / "vllm_like"


def _scan(root: Path):
    return scan_tree([root], ScanOptions(workers=1))


def _line_of(path: Path, text: str) -> int:
    return next(i + 1 for i, line in enumerate(path.read_text().split("\n")) if text in line)


def _where(res, file: str, line: int) -> int:
    """The class of ``file:line`` in a scan's dual-target inventory (BOTH when no branch covers it)."""
    side = {"cuda-only": CUDA_ONLY, "hip-only": HIP_ONLY}
    for f in res.dual_target["files"]:
        if f["file"] == file:
            for b in f["branches"]:
                if b["lines"][0] <= line <= b["lines"][1]:
                    return side.get(b["side"], 0)
    return BOTH


# ----------------------------------------------------------------------------------------------------------------
# derived macros, shim definitions and both-vendor names, across files
# ----------------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cross():
    return _scan(CROSS)


def test_a_macro_derived_under_the_vendor_switch_in_another_header_keeps_its_code_out_of_the_hip_build(cross):
    # common.cuh: #if !defined(XB_USE_HIP) && __CUDA_ARCH__ >= 750 / #define TURING_MMA_AVAILABLE;
    # mma.cuh: #ifdef TURING_MMA_AVAILABLE / mma.sync; #ifdef CP_ASYNC_AVAILABLE / cp.async
    got = {(f.file, f.code): f for f in cross.findings if f.file == "mma.cuh"}
    assert set(got) == {("mma.cuh", "HG202"), ("mma.cuh", "HG206")}
    for f in got.values():
        assert f.branch == "cuda-only" and f.effort_hours == 0.0 and f.severity == "info"


def test_a_shims_own_cuda_arch_decides_the_hip_build(cross):
    # vendors/hip.h: #define __CUDA_ARCH__ 1300, so `#if __CUDA_ARCH__ >= XB_CC_AMPERE` is true in the HIP build
    arch = CROSS / "arch.cu"
    assert _where(cross, "arch.cu", _line_of(arch, "__fmul_rn")) == BOTH
    assert _where(cross, "arch.cu", _line_of(arch, "x[i] = x[i] * s;")) == CUDA_ONLY
    # and no "__CUDA_ARCH__ is undefined under HIP-Clang" finding where the HIP build's branch is decided
    assert not [f for f in cross.findings if f.code == "HG703"]


def test_a_name_both_vendors_define_is_defined_in_both_builds(cross):
    # FP8_AVAILABLE: vendors/cuda.h (CUDA build) and vendors/hip.h (HIP build): the FP8 path is shared
    fp8 = CROSS / "fp8.cu"
    assert _where(cross, "fp8.cu", _line_of(fp8, "__nv_fp8_e4m3 v")) == BOTH
    assert "FP8_AVAILABLE" not in {s["name"] for s in cross.dual_target["switches"]}


def test_vendor_headers_are_reached_by_their_build_only(cross):
    files = {f["file"]: f for f in cross.dual_target["files"]}
    assert files["vendors/cuda.h"]["branches"] == [{"side": "cuda-only", "lines": [1, 9], "guard": 0}]
    assert files["vendors/hip.h"]["branches"][0]["side"] == "hip-only"
    shim = next(s for s in cross.dual_target["shims"] if s["file"] == "vendors/hip.h")
    assert shim["mappings"] >= 7  # the #defines, the no-op cublasSetMathMode and the typedef'd bf16 types


def test_tree_macros_names_what_each_build_never_defines():
    entries, _ = walk_tree([CROSS], [], 1 << 20)
    dual = tree_dual(entries)
    assert dual.macros is not None
    cuda_never, hip_never = dual.macros.never
    assert {"TURING_MMA_AVAILABLE", "CP_ASYNC_AVAILABLE"} <= hip_never
    assert "FP8_AVAILABLE" not in hip_never | cuda_never
    assert "__CUDA_ARCH__" not in cuda_never  # a toolkit name: nvcc defines it, whatever the tree does
    assert dual.macros.to_dict()["hip_only_headers"] == ["vendors/hip.h"]


def test_includes_resolve_relative_to_the_includer_its_parents_and_include_folders():
    files = {"include/lib.h": b"#define LIB 1\n", "src/a/common.h": b"#include \"lib.h\"\n",
             "src/a/k.cu": b'#include "common.h"\n#include "../b/other.h"\n', "src/b/other.h": b"\n",
             "src/top.h": b"\n", "src/a/deep/x.cu": b'#include "top.h"\n#include <lib.h>\n'}
    inc = resolve_includes(files)
    assert inc["src/a/common.h"] == {"lib.h": "include/lib.h"}
    assert inc["src/a/k.cu"] == {"common.h": "src/a/common.h", "../b/other.h": "src/b/other.h"}
    assert inc["src/a/deep/x.cu"] == {"top.h": "src/top.h", "lib.h": "include/lib.h"}


def test_what_a_header_defines_reaches_the_includer_where_each_build_includes_it():
    files = {
        "sw.h": b"#ifdef MY_USE_HIP\n#include \"amd.h\"\n#else\n#include \"nv.h\"\n#endif\n",
        "amd.h": b"#define ARCH_VALUE 900\n#define HAS_X 1\n",
        "nv.h": b"#define ARCH_VALUE 800\n",
        "k.cu": b'#include "sw.h"\n#if ARCH_VALUE >= 850\namd_path\n#else\nnv_path\n#endif\n#ifdef HAS_X\nx\n#endif\n',
    }
    base = Defines.standard({"MY_USE_HIP": "hip"})
    macros, views = tree_macros(files, base)
    vis = views["k.cu"]
    assert [vis.at(n) for n in (3, 5, 8)] == [HIP_ONLY, CUDA_ONLY, HIP_ONLY]
    assert macros.exports["sw.h"][0]["ARCH_VALUE"] == "800" and macros.exports["sw.h"][1]["ARCH_VALUE"] == "900"


def test_a_value_made_of_other_macros_is_evaluated():
    values = {"OFF": "0x1000000", "CDNA3": "(OFF + 0x942)", "LOOP": "LOOP + 1"}
    assert evaluate("CDNA3 > OFF", values, set()) == 1
    assert evaluate("LOOP > 0", values, set()) is None  # self-reference: unknown, not a hang


def test_an_include_guard_does_not_make_a_header_maybe():
    files = {"g.h": b"#ifndef G_H\n#define G_H\n#ifdef MY_USE_HIP\n#define ONLY_HIP 1\n#endif\n#define ALWAYS 2\n#endif\n",
             "k.cu": b'#include "g.h"\n#if ALWAYS == 2\nshared\n#endif\n#ifdef ONLY_HIP\nh\n#endif\n'}
    macros, views = tree_macros(files, Defines.standard({"MY_USE_HIP": "hip"}))
    assert macros.exports["g.h"][0]["ALWAYS"] == "2" and macros.exports["g.h"][1]["ONLY_HIP"] == "1"
    assert "ONLY_HIP" in macros.never[0]


def test_exports_keep_only_the_names_a_condition_can_read():
    """A header's exports carry the names some ``#if`` of the tree tests, and those their values are made of
    (``#if LEVEL > 1`` with ``#define LEVEL BASE`` and ``#define BASE 2``): the rest (a config-heavy tree's
    thousands of macros) decide nothing and are not carried through every include."""
    files = {"cfg.h": b"#define BASE 2\n#define LEVEL BASE\n#define UNUSED_A 1\n#define UNUSED_B(x) (x)\n",
             "k.cu": b'#include "cfg.h"\n#if LEVEL > 1\nfast\n#else\nslow\n#endif\n'}
    assert condition_names(files) == {"LEVEL", "BASE"}
    macros, views = tree_macros(files, Defines.standard())
    assert set(macros.exports["cfg.h"][0]) == {"LEVEL", "BASE"}
    assert views["k.cu"].at(3) == BOTH and views["k.cu"].at(5) not in (BOTH, CUDA_ONLY, HIP_ONLY)


# ----------------------------------------------------------------------------------------------------------------
# other backends
# ----------------------------------------------------------------------------------------------------------------


def test_other_backends_get_no_cuda_findings_and_are_inventoried():
    res = _scan(BACKENDS)
    assert {f.file for f in res.findings} == {"src/cuda/dot.cu"}
    other = res.dual_target["other_backends"]
    by = {b["backend"]: b for b in other["backends"]}
    assert by["cpu"]["paths"] == ["src/ggml-cpu/arch/riscv/repack.cpp", "src/simd/x86_dot.h"]
    assert by["opencl"]["paths"] == ["src/ggml-opencl/ggml-opencl.cpp"]
    assert by["sycl"]["paths"] == ["src/ggml-sycl/type.hpp"]
    assert other["files"] == 4
    assert by["opencl"]["findings_dropped"] == 2 and by["sycl"]["findings_dropped"] >= 4
    assert not [f for f in res.dual_target["files"] if f.get("backend")]


def test_the_same_asm_in_a_cuda_file_is_still_a_finding(tmp_path):
    # the RISC-V file renamed .cu: a CUDA compiler would see it, so the rules speak (the scope is not a blind spot)
    shutil.copy(BACKENDS / "src/ggml-cpu/arch/riscv/repack.cpp", tmp_path / "repack.cu")
    assert [f.code for f in _scan(tmp_path).findings] == ["HG301"]


# ----------------------------------------------------------------------------------------------------------------
# HIP-native files, neutral-name shims, gfx switches
# ----------------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def vllm():
    return _scan(VLLM)


def test_hip_native_files_are_the_port(vllm):
    assert vllm.dual_target["hip_native"]["files"] == ["csrc/quickreduce/quick_reduce.h", "csrc/rocm/attention.cu",
                                                   "csrc/rocm/skinny_gemms.cu"]
    assert vllm.dual_target["hip_native"]["findings_dropped"] >= 3  # float atomicAdd (x2), __nanosleep
    assert not [f for f in vllm.findings if f.file.startswith(("csrc/rocm/", "csrc/quickreduce/"))]
    assert not [c for c in vllm.api_calls if c.file.startswith("csrc/rocm/")]


def test_neutral_name_shims_are_shims(vllm):
    shims = {s["file"]: s for s in vllm.dual_target["shims"]}
    assert set(shims) == {"csrc/cuda_compat.h", "csrc/cub_helpers.h"}
    assert "XV_SHFL_XOR_SYNC → __shfl_xor(var, lane_mask)" in shims["csrc/cuda_compat.h"]["examples"]
    assert "cub:: → hipcub::" in shims["csrc/cub_helpers.h"]["examples"]
    assert not [f for f in vllm.findings if f.file == "csrc/layernorm.cu"]


def test_a_gfx950_or_gfx12_switch_is_hip_only(vllm):
    act = VLLM / "csrc/activation.cu"
    assert _where(vllm, "csrc/activation.cu", _line_of(act, "v_exp_f32")) == HIP_ONLY
    assert _where(vllm, "csrc/activation.cu", _line_of(act, "ex2.approx")) == CUDA_ONLY
    assert [(f.code, f.branch, f.effort_hours) for f in vllm.findings] == [("HG301", "cuda-only", 0.0)]


def test_amd_targets_come_from_data():
    names = [t.name for t in amd_targets()]
    for want in ("gfx803", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1010", "gfx1030", "gfx1100", "gfx1151",
                 "gfx1200", "gfx1201"):
        assert want in names
    assert (target("gfx950").family, target("gfx950").wave_size) == ("__GFX9__", 64)  # type: ignore[union-attr]
    assert (target("gfx1201").family, target("gfx1201").wave_size) == ("__GFX12__", 32)  # type: ignore[union-attr]
    assert target("gfx942:xnack-").macro == "__gfx942__"  # type: ignore[union-attr]
    assert {"__gfx950__", "__GFX12__", "__gfx908__", "__AMDGCN_WAVEFRONT_SIZE"} <= set(amd_pass_macros())
    assert set(amd_pass_macros()) <= set(HIP_PASS_NAMES)
    src = b"#ifdef __GFX12__\nrdna4\n#elif defined(__gfx908__)\nmi100\n#endif\n"
    vis = visibility(src, Defines.standard())
    assert (vis.at(2), vis.at(4)) == (HIP_ONLY, HIP_ONLY)


# ----------------------------------------------------------------------------------------------------------------
# the real ggml tree (skipped when absent)
# ----------------------------------------------------------------------------------------------------------------

GGML_TREE = Path(os.environ.get("HIPGAUGE_GGML_TREE", "/work/trees/ggml"))


@pytest.mark.skipif(not (GGML_TREE / "src" / "ggml-cuda" / "common.cuh").is_file(), reason="no ggml tree")
def test_real_ggml_as_its_builds_see_it():
    res = scan_tree([GGML_TREE], ScanOptions(workers=min(os.cpu_count() or 1, 4)))
    costed = [f for f in res.findings if (f.effort_hours or 0) > 0]
    # mma.sync / cp.async / CUB / PDL code sits under TURING_MMA_AVAILABLE-style macros the HIP build never defines
    assert not [f for f in costed if f.code in ("HG202", "HG206")]
    # other backends: CPU asm, SYCL, OpenCL, Esperanto… never get CUDA findings
    for folder in ("src/ggml-cpu/", "src/ggml-sycl/", "src/ggml-opencl/", "src/ggml-et/"):
        assert not [f for f in res.findings if f.file.startswith(folder)], folder
    assert res.dual_target["other_backends"]["files"] > 100
    # FP8_AVAILABLE is defined by vendors/cuda.h and vendors/hip.h: no HIP-only option
    assert "FP8_AVAILABLE" not in {s["name"] for s in res.dual_target["switches"]}
    # the shim's typedefs (nv_bfloat162) are mappings: no bf16 findings on them
    assert not [f for f in costed if f.code == "HG209"]
    assert len(costed) < 150


def test_the_terminal_names_code_that_is_not_cuda():
    from typer.testing import CliRunner

    from hipgauge.cli import app

    out = CliRunner().invoke(app, ["scan", str(BACKENDS), "--no-progress"]).output
    assert "Not CUDA code (no CUDA rules, no hours): other backends cpu 2, opencl 1, sycl 1" in " ".join(out.split())


def test_a_headers_view_from_its_exports_pass_is_the_one_the_hook_gives():
    """``_exports`` hands back each header's view, the same the include hook would give it; a header whose
    evaluation met an include cycle is left out (its cyclic include counted as nothing there)."""
    from hipgauge.source.includes import TreeMacros, _exports

    files = {"a.h": b'#include "b.h"\n#ifdef FROM_B\nyes\n#endif\n', "b.h": b"#define FROM_B 1\n",
             "c.h": b'#include "d.h"\n#define C 1\n', "d.h": b'#include "c.h"\n#ifdef C\nd\n#endif\n',
             "k.cu": b'#include "a.h"\n#include "c.h"\n'}
    includes = resolve_includes(files)
    views: dict = {}
    defs = Defines.standard()
    exports = _exports(files, includes, defs, condition_names(files), views)
    assert "a.h" in views and "b.h" in views and not {"c.h", "d.h"} & set(views)
    hook = TreeMacros(includes, exports).hook
    for f, v in views.items():
        assert v.where == visibility(files[f], defs, include=hook(f)).where
    assert views["a.h"].at(3) == BOTH
