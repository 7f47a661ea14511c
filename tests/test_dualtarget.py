"""Trees that already build for both vendors (issue 15): the per-line build view, the dual-target inventory,
findings in vendor branches, shims, generated files costed once, and no file skipped silently."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hipgauge.app.scan import ScanOptions, scan_tree
from hipgauge.decide.cost import estimate_cost
from hipgauge.model import Severity
from hipgauge.report.scan_json import scan_document
from hipgauge.source.conditions import (
    BOTH,
    CUDA_ONLY,
    HIP_ONLY,
    NEITHER,
    Defines,
    evaluate,
    parse_define,
    visibility,
)

DATA = Path(__file__).resolve().parent / "data" / "dualtarget"
GGML, BNB, GENERATED = DATA / "ggml_like", DATA / "bnb_like", DATA / "generated"
runner = CliRunner()


def _cli(*args: str):
    from hipgauge.cli import app

    return runner.invoke(app, list(args))


def _scan(root: Path, **kw):
    return scan_tree([root], ScanOptions(workers=1, **kw))


def _lines_of(src: bytes, defines: Defines | None = None) -> dict[str, int]:
    vis = visibility(src, defines)
    return {line.strip(): vis.at(i + 1) for i, line in enumerate(src.decode().split("\n")) if line.strip()
            and not line.lstrip().startswith("#")}


# ----------------------------------------------------------------------------------------------------------------
# the condition evaluator
# ----------------------------------------------------------------------------------------------------------------


def test_platform_guards_split_the_builds():
    src = b"""#if defined(__HIP_PLATFORM_AMD__)
amd
#elif __CUDA_ARCH__ >= 800
ampere
#else
older
#endif
#ifndef __HIPCC__
nvonly
#endif
#if __CUDA_ARCH__ >= 700
either
#endif
#ifdef __HIP_PLATFORM_NVIDIA__
hip_on_nvidia
#endif
"""
    seen = _lines_of(src)
    assert seen == {"amd": HIP_ONLY, "ampere": CUDA_ONLY, "older": CUDA_ONLY, "nvonly": CUDA_ONLY, "either": BOTH,
                    "hip_on_nvidia": NEITHER}


def test_project_switch_defined_in_the_file_and_nested_branches():
    src = b"""#if defined(__HIPCC__)
#define BNB_HIP 1
#endif
#ifdef BNB_HIP
  #if NDEBUG
  hipdebug
  #endif
#else
cudapath
#endif
#if !defined(BNB_HIP) || defined(FAST)
maybe_cuda
#endif
"""
    seen = _lines_of(src)
    assert seen["hipdebug"] == HIP_ONLY
    assert seen["cudapath"] == CUDA_ONLY
    assert seen["maybe_cuda"] == BOTH  # FAST is unknown: the HIP build may compile it too


def test_switches_and_user_defines():
    src = b"#if defined(GGML_USE_HIP) && defined(__HIP_PLATFORM_AMD__)\nhip\n#else\ncuda\n#endif\n"
    assert _lines_of(src) == {"hip": BOTH, "cuda": BOTH} or _lines_of(src)["hip"] == HIP_ONLY
    seen = _lines_of(src, Defines.standard({"GGML_USE_HIP": "hip"}))
    assert seen == {"hip": HIP_ONLY, "cuda": CUDA_ONLY}
    seen = _lines_of(b"#ifdef MY_VENDOR_AMD\nhip\n#else\ncuda\n#endif\n", Defines.standard(user=("hip:MY_VENDOR_AMD",
                                                                                                  "cuda:!MY_VENDOR_AMD")))
    assert seen == {"hip": HIP_ONLY, "cuda": CUDA_ONLY}


@pytest.mark.parametrize("expr,value", [
    ("defined(__HIPCC__) && HIP_VERSION >= 50000000", None), ("!defined(__HIPCC__) || X", None),
    ("defined __HIPCC__ ? 1 : 0", 1), ("(1 << 3) == 8", 1), ("FOO(3) > 2", None), ("__has_include(<x.h>)", None),
    ("1 / 0", None), ("defined(", None), ("0 && UNKNOWN", 0), ("1 || UNKNOWN", 1),
])
def test_evaluate_in_the_hip_build(expr, value):
    vals, undef = Defines.standard().for_build("hip")
    assert evaluate(expr, vals, undef) == value


def test_parse_define_rejects_junk():
    assert parse_define("hip:GGML_USE_HIP") == ("hip", "GGML_USE_HIP", "1")
    assert parse_define("X=2") == ("both", "X", "2")
    with pytest.raises(ValueError):
        parse_define("1abc")


# ----------------------------------------------------------------------------------------------------------------
# dual-target trees
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("root", [GGML, BNB])
def test_no_hours_inside_either_vendors_exclusive_branch(root):
    from hipgauge.source.dualtarget import file_view, tree_dual
    from hipgauge.source.walk import walk_tree

    res = _scan(root)
    assert res.skipped == [] and not [w for w in res.warnings if "internal error" in w]
    entries, _ = walk_tree([root], [], 8 << 20, python=True)
    tree = tree_dual(entries)
    views = {e.display: file_view(e.display, e.path.read_bytes(), tree, e.kind).vis for e in entries}
    notes = 0
    for f in res.findings:
        where = views[f.file].at(f.line)
        assert where not in (HIP_ONLY, NEITHER), f
        if where == CUDA_ONLY:
            notes += 1
            assert f.effort_hours == 0 and f.severity.value == "info" and f.message.startswith("CUDA-only branch"), f
        else:
            assert not f.message.startswith("CUDA-only branch")
    assert notes >= 3
    # and real port risks in shared code are still reported with hours
    assert any(f.effort_hours > 0 and f.file.endswith(".cu") for f in res.findings)


def test_ggml_like_inventory():
    doc = scan_document(_scan(GGML))
    dt = doc["dual_target"]
    assert dt["dual_target"] is True
    switches = {s["name"]: s for s in dt["switches"]}
    assert switches["GGML_USE_HIP"]["side"] == "hip" and "CMakeLists.txt:6" in switches["GGML_USE_HIP"]["where"]
    assert switches["__HIP_PLATFORM_AMD__"]["how"] == "platform"
    # families defined only for some AMD targets are HIP-only options, found through each other (CDNA3 → CDNA)
    assert {n: switches[n]["side"] for n in ("CDNA", "CDNA2", "CDNA3")} == dict.fromkeys(("CDNA", "CDNA2", "CDNA3"),
                                                                                          "hip-option")
    common = {f["file"]: f for f in dt["files"]}["common.cuh"]
    cdna_line = (GGML / "common.cuh").read_text().split("\n").index("    return __builtin_amdgcn_sdot2(a, b, 0, false);") + 1
    assert any(b["side"] == "hip-only" and b["lines"][0] <= cdna_line <= b["lines"][1] for b in common["branches"])
    assert [s["file"] for s in dt["shims"]] == ["vendors/hip.h"]
    assert {"__vsub4", "__vsubss4"} <= set(dt["shims"][0]["polyfills"])
    variants = {k["kernel"]: k for k in dt["kernels_with_variants"]}
    assert variants["mul_mat_q"]["two_variants"] and variants["mul_mat_q"]["hip_only_lines"] > 0
    assert dt["lines"]["hip_only"] > 0 and dt["lines"]["cuda_only"] > 0
    # AMD asm under the HIP guard is not PTX; the shim's own definitions are no findings
    assert not [f for f in doc["findings"] if f["code"] == "HG301" and f["severity"] != "info"]
    assert not [f for f in doc["findings"] if f["file"] == "vendors/hip.h"]
    # HG807 in the HIP-only branch of device_cc is gone; the CUDA-only one is a note
    # the CUDA architectures in the else() of if (GGML_HIP): the HIP build has its own; not a finding
    cmake = [f for f in doc["findings"] if f["file"] == "CMakeLists.txt"]
    assert all(f["severity"] == "info" and f["effort_hours"] == 0 for f in cmake)
    assert dt["builds_for_amd"] is True
    hg807 = [f for f in doc["findings"] if f["code"] == "HG807"]
    assert all(f["severity"] == "info" for f in hg807)


def test_bnb_like_inventory_and_macro_sized_shared_memory():
    doc = scan_document(_scan(BNB))
    dt = doc["dual_target"]
    assert {s["name"] for s in dt["switches"]} >= {"BNB_HIP", "__HIPCC__"}
    assert [s["file"] for s in dt["shims"]] == ["csrc/compat.cuh"]
    variants = {k["kernel"]: k for k in dt["kernels_with_variants"]}
    assert variants["kQuantizeBlockwise"]["two_variants"]
    assert variants["kSpinFlag"]["definitions"][0]["defined_in"] == "cuda-only"
    assert "csrc/kernels.cu" in doc["files"] and doc["summary"]["skipped"] == 0
    assert doc["summary"]["caveat"] is None


def test_shim_mappings_count_as_translated():
    res = _scan(GGML)
    by_name = {c.cuda_name: c for c in res.api_calls if c.file != "vendors/hip.h"}
    assert all(c.status in ("mapped", "deprecated") for c in by_name.values() if c.cuda_name in ("cudaStream_t",
                                                                                               "cudaGetLastError"))


def test_upkeep_counts_kernels_with_two_variants():
    est = estimate_cost(_scan(GGML))
    assert "mul_mat_q" in est.upkeep.dual_variant_kernels


def test_cli_defines_and_config(tmp_path):
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "k.cu").write_text("#ifdef MY_AMD\n__global__ void k(int* o) { o[0] = threadIdx.x & 31; }\n#endif\n"
                               "__global__ void j(int* o) { o[0] = threadIdx.x & 31; }\n")
    plain = json.loads(_cli("scan", str(tree), "--json").output)
    assert sorted(f["line"] for f in plain["findings"] if f["code"] == "HG101") == [2, 4]
    res = _cli("scan", str(tree), "--json", "-D", "hip:MY_AMD")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert [f["line"] for f in doc["findings"] if f["code"] == "HG101"] == [4]
    assert doc["dual_target"]["defines"] == ["hip:MY_AMD"]
    (tree / "hipgauge.toml").write_text('defines = ["hip:MY_AMD"]\n')
    doc = json.loads(_cli("scan", str(tree), "--json").output)
    assert [f["line"] for f in doc["findings"] if f["code"] == "HG101"] == [4]
    from hipgauge.errors import InputError

    bad = _cli("scan", str(tree), "-D", "9bad")
    assert isinstance(bad.exception, InputError) and "9bad" in str(bad.exception)  # main() maps it to exit 2


# ----------------------------------------------------------------------------------------------------------------
# generated files: one piece of work with a count
# ----------------------------------------------------------------------------------------------------------------


def test_thirty_generated_copies_cost_less_than_three_times_one(tmp_path):
    one = tmp_path / "one" / "src"
    (one / "instantiations").mkdir(parents=True)
    shutil.copy(GENERATED / "src" / "launch_template.h", one)
    shutil.copy(GENERATED / "src" / "instantiations" / "attn_fwd_hdim128_fp16_sm80.cu", one / "instantiations")
    many = _scan(GENERATED)
    assert many.skipped == [] and not [w for w in many.warnings if "internal error" in w]
    assert len(list((GENERATED / "src" / "instantiations").glob("*.cu"))) == 30
    fams = many.dual_target["generated_families"]
    assert len(fams) == 1 and fams[0]["copies"] == 30
    cost_many, cost_one = estimate_cost(many), estimate_cost(_scan(tmp_path / "one"))
    assert cost_one.high_hours > 0
    assert cost_many.high_hours < 3 * cost_one.high_hours
    assert cost_many.low_hours < 3 * cost_one.low_hours
    assert fams[0]["template"] == "src/launch_template.h"
    fam_items = [i for i in cost_many.items if i.kind == "library-family"]
    # the 30 copies and the template they instantiate are one CUTLASS kernel family: one band
    assert len(fam_items) == 1 and fam_items[0].count == 64
    assert "31 file(s) of the generated family src/instantiations/attn_fwd_hdim*_sm80.cu" in fam_items[0].basis


def test_repeated_construct_in_one_kernel_costs_once(tmp_path):
    (tmp_path / "k.cu").write_text(
        "__global__ void k(float* o, float v) {\n"
        + "".join(f"  v += __shfl_down_sync(0xffffffff, v, {n});\n" for n in (16, 8, 4, 2, 1))
        + "  o[threadIdx.x] = v;\n}\n")
    res = _scan(tmp_path)
    est = estimate_cost(res)
    by_code: dict[str, list] = {}
    for i in est.items:
        by_code.setdefault(i.label.split()[0], []).append(i)
    hg103 = by_code["HG103"]
    assert len([f for f in res.findings if f.code == "HG103"]) == 5
    assert len(hg103) == 1 and hg103[0].count == 5


# ----------------------------------------------------------------------------------------------------------------
# never skip silently
# ----------------------------------------------------------------------------------------------------------------


def test_not_analysed_caveat_and_strict(tmp_path):
    (tmp_path / "ok.cu").write_text("__global__ void k(int* o) { o[0] = 1; }\n")
    (tmp_path / "blob.cu").write_bytes(b"\x00\x01\x02binary\x00" * 10)
    res = _cli("scan", str(tmp_path), "--json")
    assert res.exit_code == 0
    doc = json.loads(res.output)
    assert doc["summary"]["caveat"].startswith("1 file not analysed: blob.cu")
    assert doc["summary"]["caveat"].endswith("figures exclude them")
    text = _cli("scan", str(tmp_path), "--no-progress")
    flat = " ".join(text.output.split())  # the terminal may wrap long lines
    assert 0 <= flat.find("1 file not analysed: blob.cu") < flat.find("lines scanned")  # on the headline
    strict = _cli("scan", str(tmp_path), "--strict", "--json")
    assert strict.exit_code == 2


def test_setup_py_prose_and_vendor_branches():
    doc = scan_document(_scan(BNB))
    setup = [f for f in doc["findings"] if f["file"] == "setup.py"]
    assert {f["line"] for f in setup} <= {16}  # docstring (3, 4) and the HELP message (10) are prose
    # line 16, under `else:` of torch.version.hip, is the CUDA build's own flag: the HIP build has its branch
    assert all(f["severity"] == "info" and f["effort_hours"] == 0 for f in setup)
    assert doc["dual_target"]["builds_for_amd"] is True


def test_rule_fixes_from_the_hand_check(tmp_path):
    (tmp_path / "k.cu").write_text(
        "__global__ void k(float* o, float v) {\n"
        "    v += __shfl_xor_sync(0xffffffff, v, 16);\n"
        "    v += __shfl_xor_sync(0xffffffff, v, 8);\n"
        "    if (threadIdx.x < 32) o[threadIdx.x] = v;\n}\n"
        "__global__ void __launch_bounds__(64) s(float* o) { const int tid = threadIdx.x; o[tid / 32] = tid % 32; }\n"
        "__global__ void t(float* o) { const int tid = threadIdx.x; o[tid / 32] = 1; }\n"
        "__global__ void u(float* o) { const int tid = threadIdx.x; o[tid / 32] = 1; }\n"
        "__global__ void w(float* o) { const int tid = threadIdx.x; o[tid / 32] = 1; }\n"
        "void go(float* o) { t<<<1, 64>>>(o); u<<<1, 256>>>(o); w<<<1, dim3(32, 2, 1)>>>(o); }\n")
    found = {(f.code, f.line) for f in _scan(tmp_path).findings}
    assert ("HG106", 2) in found  # unrolled width-16 ladder
    assert ("HG101", 4) in found  # threadIdx.x < 32
    assert ("HG101", 6) not in found and ("HG101", 7) not in found  # 64-thread blocks by construction
    assert ("HG101", 8) in found  # a 256-thread block: tid / 32 is a warp index
    assert ("HG101", 9) not in found  # dim3(32, 2, 1): 64 threads


def test_rule_texts_agree_with_their_fixes():
    from hipgauge.rules.registry import by_code

    rules = by_code()
    assert "no HIP equivalent" not in rules["HG201"].message and "rocWMMA" in rules["HG201"].message
    assert "+ 0x01010101u;" not in rules["HG305"].module.__doc__


def test_translate_keeps_the_shim_as_written(tmp_path):
    from hipgauge.app.translate import translate_tree

    out = tmp_path / "hip"
    res = translate_tree(GGML, out)
    assert (out / "vendors" / "hip.h").read_bytes() == (GGML / "vendors" / "hip.h").read_bytes()
    assert any("vendors/hip.h: project shim" in w for w in res.warnings)
    assert b"hip/hip_runtime.h" in (out / "common.cuh").read_bytes()  # the rest is still translated


def test_assess_reports_caveat_and_dual_toolchain_upkeep(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(BNB, src)
    (src / "csrc" / "blob.cu").write_bytes(b"\x00\x01binary\x00" * 20)
    out = tmp_path / "report"
    res = _cli("assess", str(src), "-o", str(out), "--no-build-check", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads((out / "assessment.json").read_text())
    caveat = doc["headline"]["caveat"]
    assert caveat.startswith("1 file not analysed: csrc/blob.cu") and caveat.endswith("figures exclude them")
    md = (out / "report.md").read_text()
    head = md.split("## The three measurements")[0]
    assert "1 file not analysed: csrc/blob.cu" in head
    assert "### Dual-toolchain upkeep" in md
    assert "BNB_HIP" in md and "kQuantizeBlockwise" in md  # #17 row 15: no escape inside a word
    assert "### Top cost drivers" in md
    html = (out / "index.html").read_text()
    assert "1 file not analysed: csrc/blob.cu" in html.split('id="parity"')[0]
    assert "Dual-toolchain upkeep" in html
    assert "kQuantizeBlockwise" in doc["cost"]["upkeep"]["dual_variant_kernels"]
    strict = _cli("assess", str(src), "-o", str(tmp_path / "r2"), "--no-build-check", "--strict", "-D", "hip:OTHER_HIP")
    assert strict.exit_code == 2 and (tmp_path / "r2" / "report.md").exists()


def test_cuda_header_under_hipcc_is_a_port_error():
    from hipgauge.decide.build_errors import header_library

    assert header_library("cuda_fp16.h", "amd")[0] == "port"
    assert header_library("cublas_v2.h", "amd")[0] == "port"
    assert header_library("cuda_fp16.h", "nvidia")[0] == "toolchain"
    assert header_library("hip/hip_runtime.h", "amd")[0] == "toolchain"


def test_build_check_decides_hip_per_unit(tmp_path):
    from hipgauge.app.buildcheck import _is_hip_unit, build_check

    src = tmp_path / "tree"
    src.mkdir()
    (src / "native.cu").write_text("#include <hip/hip_runtime.h>\n__global__ void a(float* x) { x[0] = 1.f; }\n")
    (src / "dual.cu").write_text("#ifdef __HIPCC__\n#include <hip/hip_runtime.h>\n#else\n#include <cuda_runtime.h>\n"
                                 "#endif\n__global__ void b(float* x) { x[0] = 2.f; }\n")
    (src / "plain.cu").write_text("#include <cuda_runtime.h>\n__global__ void c(float* x) { x[0] = 3.f; }\n")
    assert _is_hip_unit(src / "native.cu") and not _is_hip_unit(src / "dual.cu") and not _is_hip_unit(src / "plain.cu")
    res = build_check(str(src), amd_arch=["gfx90a"], nvidia_arch=["sm_80"])
    assert res.translated  # one HIP include no longer makes the whole tree "HIP"
    if res.toolchains.get("nvcc") is not None:
        nv_files = {c.file for c in res.compiles if c.vendor == "nvidia"}
        assert nv_files == {"dual.cu", "plain.cu"}
        assert any("1 of 3 translation unit(s) already HIP" in w for w in res.warnings)


@pytest.mark.parametrize("root", [GGML, BNB])
def test_translate_share_sees_the_tree_as_scan_does(tmp_path, root):
    from hipgauge.app.translate import translate_tree
    from hipgauge.rules.share import overall_share

    scan_share = overall_share(_scan(root).file_stats)
    assert translate_tree(root, tmp_path / "hip").totals()["translation_share"] == pytest.approx(scan_share, abs=1e-4)


def test_library_calls_in_vendor_branches(tmp_path):
    (tmp_path / "a.cu").write_text(
        "#ifndef __HIPCC__\n#include <cusparse.h>\n"
        "void f(cusparseHandle_t h) { cusparseConstrainedGeMM(h); }\n"
        "#else\nvoid f(void* h) { cudaNotAThing(); }\n#endif\n")
    res = _scan(tmp_path)
    assert "cudaNotAThing" not in {c.cuda_name for c in res.api_calls}  # HIP-only code holds no CUDA uses
    assert any(c.cuda_name == "cusparseConstrainedGeMM" for c in res.api_calls)  # still in the inventory
    est = estimate_cost(res)
    assert not [i for i in est.items if i.kind == "library-op"]  # but the HIP build has its own path: no hours
    assert any("CUDA-only branches" in n for n in est.notes)
    branches = res.dual_target["files"][0]["branches"]
    assert {"side": "cuda-only", "lines": [2, 3], "guard": 1} in branches


def test_translate_names_what_it_could_not_read(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.cu").write_text("__global__ void k(int* o) { o[0] = 1; }\n")
    (src / "blob.cu").write_bytes(b"\x00\x01binary\x00" * 20)
    res = _cli("translate", str(src), "-o", str(tmp_path / "out"), "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["summary"]["caveat"].startswith("1 file not analysed: blob.cu")
    text = _cli("translate", str(src), "-o", str(tmp_path / "out2"))
    assert "1 file not analysed: blob.cu" in " ".join(text.output.split())


def test_shim_of_using_aliases(tmp_path):
    (tmp_path / "compat.cuh").write_text(
        "#if BNB_HIP\nusing a_t = hipStream_t;\nusing b_t = hipError_t;\nusing c_t = hipblasHandle_t;\n"
        "#else\nusing a_t = cudaStream_t;\nusing b_t = cudaError_t;\nusing c_t = cublasHandle_t;\n#endif\n")
    shims = scan_document(_scan(tmp_path))["dual_target"]["shims"]
    assert [s["file"] for s in shims] == ["compat.cuh"] and shims[0]["mappings"] == 3


def test_rubric_ignores_cuda_only_branch_notes():
    from hipgauge.decide.rubric import decide

    res = _scan(GGML)
    notes = [f for f in res.findings if f.branch == "cuda-only"]
    assert notes and all(f.message.startswith("CUDA-only branch") for f in notes)
    makeup = next(s for s in decide(res).signals if s.id == "hot_kernel_makeup")
    text = " ".join(makeup.evidence)
    assert "HG202" not in text and "HG206" not in text  # mma.sync / cp.async only in the CUDA-only fast path


# ----------------------------------------------------------------------------------------------------------------
# a few HIP-only mappings in a header that is no shim, and Python's early exit on the vendor (exllamav2, 2026-12-05)
# ----------------------------------------------------------------------------------------------------------------

_COMPAT = (
    "#pragma once\n"
    "#include <cuda_fp16.h>\n"
    "#if defined(USE_ROCM)\n"
    "#define __shfl_xor_sync(mask, var, laneMask) __shfl_xor(var, laneMask)\n"
    "#define __shfl_down_sync(mask, var, laneMask) __shfl_down(var, laneMask)\n"
    "#endif\n"
)
_REDUCE = (
    '#include "compat.cuh"\n'
    "__global__ void red(float* o, float v) {\n"
    "    v += __shfl_xor_sync(0xffffffff, v, 1);\n"
    "    o[threadIdx.x] = v;\n"
    "}\n"
)
_SETUP = (
    "import torch\n"
    "from torch.utils.cpp_extension import CUDAExtension\n"
    "flags = ['-O3']\n"
    "if torch.version.hip:\n"
    "    flags += ['-DUSE_ROCM']\n"
    "ext = CUDAExtension('r', ['red.cu'], extra_compile_args={'nvcc': flags})\n"
)


def test_a_header_mapping_two_sync_shuffles_for_hip_answers_for_their_masks(tmp_path):
    """exllamav2's compat.cuh maps ``__shfl_xor_sync`` / ``__shfl_down_sync`` to the maskless HIP shuffles under
    ``#if defined(USE_ROCM)``: two names are no shim, but the HIP build never sees the 32-bit mask."""
    (tmp_path / "compat.cuh").write_text(_COMPAT)
    (tmp_path / "red.cu").write_text(_REDUCE)
    (tmp_path / "setup.py").write_text(_SETUP)
    res = _scan(tmp_path)
    assert not [f for f in res.findings if f.code == "HG103"]
    doc = scan_document(res)
    project = [m["file"] for m in doc["dual_target"]["hip_mappings"] if not m["file"].startswith("PyTorch")]
    assert project == ["compat.cuh"]  # beside PyTorch's hipify table (setup.py builds a CUDAExtension)
    assert doc["dual_target"]["shims"] == []  # the header's own findings stay: it is not a shim


def test_the_same_mapping_outside_a_hip_guard_answers_for_nothing(tmp_path):
    (tmp_path / "compat.cuh").write_text(_COMPAT.replace("defined(USE_ROCM)", "defined(MY_DEBUG_SHUFFLES)"))
    (tmp_path / "red.cu").write_text(_REDUCE)
    (tmp_path / "setup.py").write_text(_SETUP)
    res = _scan(tmp_path)
    assert [f.line for f in res.findings if f.code == "HG103" and f.file == "red.cu"] == [3]
    assert [m for m in scan_document(res)["dual_target"]["hip_mappings"] if not m["file"].startswith("PyTorch")] == []


_EXT = (
    "import torch\n"
    "from torch.utils.cpp_extension import load\n"
    "\n"
    "\n"
    "def build():\n"
    "    if not torch.version.cuda:\n"
    "        return load('x', ['x.cu'])\n"
    "    extra_cuda_cflags = ['-lineinfo', '-O3']\n"
    "    return load('x', ['x.cu'], extra_cuda_cflags=extra_cuda_cflags)\n"
)


@pytest.mark.parametrize("guarded", [True, False])
def test_a_python_build_after_an_early_return_on_rocm_is_the_cuda_builds_own(tmp_path, guarded):
    """``if not torch.version.cuda: return`` (torch.version.cuda is None on a ROCm torch): the rest of the function
    runs in the CUDA build only, so its nvcc flag is a CUDA-only note, not port work; without the guard it is."""
    text = _EXT if guarded else _EXT.replace("    if not torch.version.cuda:\n        return load('x', ['x.cu'])\n", "")
    (tmp_path / "ext.py").write_text(text)
    (tmp_path / "x.cu").write_text("__global__ void k(float* o) { o[0] = 1; }\n")
    hits = [f for f in _scan(tmp_path).findings if f.file == "ext.py" and f.code == "HG701"]
    assert len(hits) == 1
    if guarded:
        assert hits[0].line == 8 and hits[0].severity == Severity.INFO and hits[0].effort_hours == 0
        assert "CUDA-only branch" in hits[0].message
    else:
        assert hits[0].severity == Severity.BLOCKER and hits[0].effort_hours > 0


def test_python_vendor_lines_after_an_early_exit():
    from hipgauge.source.conditions import BOTH, CUDA_ONLY, HIP_ONLY
    from hipgauge.source.pybranches import vendor_lines

    text = ("def a():\n"                          # 1
            "    if torch.version.hip:\n"          # 2
            "        raise RuntimeError('no')\n"   # 3: HIP build
            "    flags = ['-lineinfo']\n"          # 4: CUDA build only
            "def b():\n"                          # 5
            "    if debug:\n"                      # 6
            "        return\n"                     # 7
            "    flags = ['-lineinfo']\n"          # 8: both (not a vendor test)
            "def c():\n"                          # 9
            "    if torch.version.cuda:\n"         # 10
            "        x = 1\n"                      # 11: CUDA build only
            "    else:\n"                          # 12
            "        x = 2\n")                     # 13: HIP build only
    v = vendor_lines(text)
    assert (v.at(3), v.at(4)) == (HIP_ONLY, CUDA_ONLY)
    assert (v.at(7), v.at(8)) == (BOTH, BOTH)
    assert (v.at(11), v.at(13)) == (CUDA_ONLY, HIP_ONLY)
    assert v.at(5) == BOTH and v.at(9) == BOTH  # the next function is not the early exit's block


def test_python_vendor_tests_as_deepspeeds_op_builder_writes_them():
    """``self.is_rocm_pytorch()`` is a HIP test; ``A and not <hip>`` gives its body to the CUDA build and decides
    nothing of its ``else``; ``torch.version.hip is None`` is the CUDA build (DeepSpeed op_builder/builder.py)."""
    from hipgauge.source.conditions import BOTH, CUDA_ONLY, HIP_ONLY
    from hipgauge.source.pybranches import vendor_lines

    text = ("def nvcc_args(self):\n"                                       # 1
            "    if self.is_rocm_pytorch():\n"                               # 2
            "        args = ['-std=c++17']\n"                                # 3: HIP
            "    else:\n"                                                    # 4
            "        args = ['--use_fast_math']\n"                           # 5: CUDA
            "    if isinstance(self, B) and not self.is_rocm_pytorch():\n"  # 6
            "        x = 1\n"                                                # 7: CUDA
            "    else:\n"                                                    # 8
            "        x = 2\n"                                                # 9: either
            "    if torch.version.hip is None:\n"                            # 10
            "        y = 1\n"                                                # 11: CUDA
            "    if is_rocm or debug:\n"                                     # 12
            "        z = 1\n"                                                # 13: either
            "    else:\n"                                                    # 14
            "        z = 2\n"                                                # 15: CUDA
            "    if HIP_BUILD:\n"                                             # 16: mamba's setup.py
            "        f = ['--offload-arch=gfx942']\n"                          # 17: HIP
            "    if has_hipcc or chip:\n"                                     # 18: no vendor word
            "        g = 1\n")                                                # 19: either
    v = vendor_lines(text)
    assert (v.at(3), v.at(5)) == (HIP_ONLY, CUDA_ONLY)
    assert (v.at(7), v.at(9)) == (CUDA_ONLY, BOTH)
    assert v.at(11) == CUDA_ONLY
    assert (v.at(13), v.at(15)) == (BOTH, CUDA_ONLY)
    assert (v.at(17), v.at(19)) == (HIP_ONLY, BOTH)


_BF16 = ("#include <cuda_bf16.h>\n"
         "__global__ void k(__nv_bfloat162* x, __half2* h) {\n"
         "    x[threadIdx.x] = x[threadIdx.x];\n"
         "    h[0] = __hfma_relu(h[0], h[0], h[0]);\n"
         "}\n")


@pytest.mark.parametrize("torch_build", [True, False])
def test_a_cuda_extension_build_is_hipified_by_pytorchs_table(tmp_path, torch_build):
    """A ROCm torch hipifies a CUDAExtension with PyTorch's own table, which maps ``__nv_bfloat162`` to
    ``__hip_bfloat162`` where HIPIFY's tables do not (hipgauge/data/torch_hipify.toml): no HG209 on it there;
    ``__hfma_relu``, which neither maps, keeps its finding; a CMake build keeps both."""
    (tmp_path / "k.cu").write_text(_BF16)
    if torch_build:
        (tmp_path / "setup.py").write_text("from torch.utils.cpp_extension import CUDAExtension\n"
                                           "ext = CUDAExtension('k', ['k.cu'])\n")
    else:
        (tmp_path / "CMakeLists.txt").write_text("project(k LANGUAGES CXX CUDA)\nadd_library(k k.cu)\n")
    res = _scan(tmp_path)
    lines = sorted(f.line for f in res.findings if f.code == "HG209" and f.file == "k.cu")
    assert lines == ([4] if torch_build else [2, 4])
    names = [m["file"] for m in scan_document(res)["dual_target"]["hip_mappings"]]
    assert (any("PyTorch's hipify" in n and "setup.py" in n for n in names)) is torch_build


def test_a_shim_maps_names_not_behaviour(tmp_path):
    """A shim that #defines cuRAND and cuBLAS names to hipRAND and hipBLAS translates the names: HG604 (a cuBLAS
    name without a HIP counterpart) goes, HG607 (cuRAND and rocRAND streams differ) stays."""
    (tmp_path / "compat.h").write_text(
        "#pragma once\n#if defined(USE_ROCM)\n#include <hiprand/hiprand_kernel.h>\n#include <hipblas/hipblas.h>\n"
        "#define curandStatePhilox4_32_10_t hiprandStatePhilox4_32_10_t\n#define curand_init hiprand_init\n"
        "#define curand_uniform4 hiprand_uniform4\n#define cublasHandle_t hipblasHandle_t\n"
        "#define cublasSgemm hipblasSgemm\n#else\n#include <curand_kernel.h>\n#include <cublas_v2.h>\n#endif\n")
    (tmp_path / "k.cu").write_text(
        '#include "compat.h"\n__global__ void k(float4* o, unsigned long long seed) {\n'
        "    curandStatePhilox4_32_10_t state;\n    curand_init(seed, threadIdx.x, 0, &state);\n"
        "    o[threadIdx.x] = curand_uniform4(&state);\n}\n"
        "void gemm(cublasHandle_t h, const float* a, float* c) {\n"
        "    float one = 1.f;\n    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, a, 4, a, 4, &one, c, 4);\n}\n")
    res = _scan(tmp_path)
    codes = {f.code for f in res.findings if f.file == "k.cu"}
    assert "HG607" in codes
    assert "HG604" not in codes
