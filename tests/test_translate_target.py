"""Issue #16: the runtime include nvcc adds by itself, target-aware translation (--rocm-version), HIP_SYMBOL."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import have, needs_hipcc, needs_nvcc
from hipgauge.cli import main
from hipgauge.errors import InputError
from hipgauge.translate.rewrite import TranslateOptions
from hipgauge.translate.runtime_include import INCLUDE, insert_runtime_include
from hipgauge.translate.target import installed_rocm_version, load_releases, parse_version, resolve_target
from hipgauge.app.translate import translate_tree

F16 = Path(__file__).parent / "data" / "issue16"


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    src = tmp_path / "src"
    for name, text in files.items():
        p = src / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return src


def _translate(tmp_path: Path, src: Path, version: str = "5.2", **kw):
    out = tmp_path / f"out-{version}-{len(list(tmp_path.iterdir()))}"
    opts = TranslateOptions(rules_share=False, rocm=resolve_target(version), **kw)
    result = translate_tree(src, out, opts)
    return result, out


# --- releases data ------------------------------------------------------------------------------------------

def test_release_rows_pick_the_newest_row_not_newer_than_the_target():
    data = load_releases()
    assert data.release_for((5, 2)).warp_sync == "none"
    assert "hip/hip_bf16.h" not in data.release_for((5, 7)).headers
    assert "hip/hip_bf16.h" in data.release_for((6, 1)).headers
    six_two = data.release_for((6, 4))
    assert six_two.warp_sync == "opt-in" and six_two.warp_sync_macro == "HIP_ENABLE_WARP_SYNC_BUILTINS"
    assert data.release_for((7, 1)).warp_sync == "default"
    assert data.release_for((4, 0)) == data.releases[0]
    assert all(r.sources and r.date for r in data.releases)


def test_version_parsing_and_a_bad_rocm_version_is_one_input_error():
    assert parse_version("5.2.21153-0") == (5, 2) and parse_version("6.2") == (6, 2) and parse_version("x") is None
    with pytest.raises(InputError, match="--rocm-version"):
        resolve_target("six")


def test_default_target_reads_the_hip_version_header_beside_hipcc(tmp_path, monkeypatch):
    root = tmp_path / "rocm"
    (root / "bin").mkdir(parents=True)
    (root / "include" / "hip").mkdir(parents=True)
    hipcc = root / "bin" / "hipcc"
    hipcc.write_text("#!/bin/sh\nexit 1\n")
    hipcc.chmod(0o755)
    (root / "include" / "hip" / "hip_version.h").write_text(
        "#define HIP_VERSION_MAJOR 6\n#define HIP_VERSION_MINOR 3\n#define HIP_VERSION_PATCH 1\n")
    monkeypatch.setenv("HIPGAUGE_HIPCC", str(hipcc))
    installed_rocm_version.cache_clear()
    try:
        t = resolve_target(None)
        assert t.version == "6.3" and t.release.warp_sync == "opt-in" and "hip_version.h" in t.basis
    finally:
        installed_rocm_version.cache_clear()


def test_without_any_hipcc_the_newest_release_is_the_default(tmp_path, monkeypatch):
    monkeypatch.setenv("HIPGAUGE_HIPCC", str(tmp_path / "missing-hipcc"))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    installed_rocm_version.cache_clear()
    try:
        t = resolve_target(None)
        assert t.release == load_releases().newest and "newest" in t.basis
    finally:
        installed_rocm_version.cache_clear()


# --- runtime include ----------------------------------------------------------------------------------------

def test_include_goes_on_the_last_blank_line_before_code_and_lines_keep_their_numbers():
    text = "// kernel\n#include <cstdio>\n\n__global__ void k() {}\n"
    new, line, kept = insert_runtime_include(text)
    assert kept and line == 3 and new.split("\n")[2] == INCLUDE
    assert new.count("\n") == text.count("\n")


def test_include_goes_before_the_first_local_include_and_inside_an_include_guard():
    text = ("#ifndef OPS_CUH\n#define OPS_CUH\n\n#include \"detail.cuh\"\n\n__device__ int f();\n#endif\n")
    new, line, kept = insert_runtime_include(text)
    assert kept and line == 3
    # a blank line after a continued #define belongs to the macro; a blank line in #if FOO is not top level
    text2 = "#define A(x) \\\n\n#ifdef FOO\n\n#endif\n__global__ void k() {}\n"
    new2, line2, kept2 = insert_runtime_include(text2)
    assert not kept2 and new2.startswith(INCLUDE + "\n#line 1\n")


def test_include_joins_the_first_line_of_a_comment_block_not_its_middle():
    text = "// line one\n// line two\n#include <cstdio>\n__global__ void k() {}\n"
    new, line, kept = insert_runtime_include(text)
    assert kept and line == 1 and new.split("\n")[0] == f"{INCLUDE} // line one"


def test_tree_gives_the_include_to_a_cu_and_to_a_header_only_cu_files_reach(tmp_path):
    src = _tree(tmp_path, {
        "a.cu": '#include "dev.cuh"\n\n__global__ void k(float* p) { p[threadIdx.x] = helper(); }\n',
        "dev.cuh": "#pragma once\n\n__device__ inline float helper() { return 1.f; }\n",
        "b.cu": "#include <cuda_runtime.h>\n\n__global__ void k2() {}\n",
        "host.h": "#pragma once\n\ninline void copy(void* d, const void* s) { cudaMemcpy(d, s, 4, cudaMemcpyDefault); }\n",
        "main.cpp": "#include <cuda_runtime.h>\n#include \"host.h\"\nint main() { return 0; }\n",
        "plain.cu": "\nint add(int a, int b) { return a + b; }\n",
        "via.cu": '#include "rt.h"\n\n__global__ void k3() {}\n',
        "rt.h": "#pragma once\n#include <cuda_runtime.h>\n",
    })
    result, out = _translate(tmp_path, src)
    assert (out / "a.cu").read_text().split("\n")[1] == INCLUDE
    assert (out / "dev.cuh").read_text().split("\n")[1] == INCLUDE
    assert (out / "b.cu").read_text().count("hip_runtime.h") == 1
    assert "hip_runtime.h" not in (out / "host.h").read_text()  # reached from main.cpp: relies on its includer
    assert any(w.startswith("host.h:") and "main.cpp" in w for w in result.warnings)
    assert "hip_runtime" not in (out / "plain.cu").read_text()  # no device code, launch or runtime API
    assert "hip_runtime" not in (out / "via.cu").read_text()  # reaches it through rt.h
    rows = [r for r in result.safe_rewrites if r.rule == "runtime-include"]
    assert sorted(r.file for r in rows) == ["a.cu", "dev.cuh"]


def test_no_rewrite_runtime_include_turns_it_off(tmp_path):
    src = _tree(tmp_path, {"a.cu": "\n__global__ void k() {}\n"})
    opts_off = TranslateOptions(rules_share=False, rocm=resolve_target("5.2"),
                                safe_rewrites=frozenset({"warp-mask", "syncwarp", "hip-symbol"}))
    translate_tree(src, tmp_path / "off", opts_off)
    assert "hip_runtime" not in (tmp_path / "off" / "a.cu").read_text()


# --- *_sync masks per release -------------------------------------------------------------------------------

MASKS = """#include <cuda_runtime.h>
#define FULL 0xffffffff
__device__ float red(float v, unsigned m) {
    v += __shfl_down_sync(m, v, 1);
    v += __shfl_down_sync(FULL, v, 2);
    __syncwarp(m);
    return v + __shfl_sync(0x0000ffff, v, 0);
}
__global__ void k(float* p) { p[0] = red(p[0], __ballot_sync(FULL, p[1] > 0)); }
"""


def test_release_without_sync_builtins_drops_any_mask_with_a_full_participation_assumption(tmp_path):
    src = _tree(tmp_path, {"m.cu": MASKS})
    result, out = _translate(tmp_path, src, "5.2")
    lines = (out / "m.cu").read_text().split("\n")
    assert lines[3].strip() == "v += __shfl_down(v, 1);"
    assert lines[4].strip() == "v += __shfl_down(v, 2);"  # the full-mask safe rewrite, as before
    assert lines[5].strip() == "__builtin_amdgcn_wave_barrier();"
    assert lines[6].strip() == "return v + __shfl(v, 0);"
    assumed = {r.line: r for r in result.safe_rewrites if r.assumption and r.rule != "runtime-include"}
    assert set(assumed) == {4, 6, 7}
    assert all("full participation" in r.assumption for r in assumed.values())
    assert assumed[4].rule == "warp-mask-dropped" and assumed[6].rule == "syncwarp-mask"
    assert not [u for u in result.unconverted if u.cuda_name.endswith("_sync") or u.cuda_name == "__syncwarp"]


def test_opt_in_release_also_drops_masks_and_names_the_macro(tmp_path):
    src = _tree(tmp_path, {"m.cu": MASKS})
    result, out = _translate(tmp_path, src, "6.2")
    assert "__shfl_down(v, 1)" in (out / "m.cu").read_text()
    assert any("HIP_ENABLE_WARP_SYNC_BUILTINS" in r.assumption for r in result.safe_rewrites)


def test_release_with_sync_builtins_widens_masks_to_64_bits(tmp_path):
    src = _tree(tmp_path, {"m.cu": MASKS})
    result, out = _translate(tmp_path, src, "7.0")
    lines = (out / "m.cu").read_text().split("\n")
    assert lines[3].strip() == "v += __shfl_down_sync(static_cast<unsigned long long>(m), v, 1);"
    assert lines[5].strip() == "__syncwarp(static_cast<unsigned long long>(m));"
    assert lines[6].strip() == "return v + __shfl_sync(static_cast<unsigned long long>(0x0000ffff), v, 0);"
    widened = [r for r in result.safe_rewrites if r.rule == "mask-widened"]
    assert len(widened) == 3 and all("64 bits" in r.assumption for r in widened)


def test_project_shims_comments_and_strings_are_left_alone(tmp_path):
    src = _tree(tmp_path, {"s.cu": (
        "#include <cuda_runtime.h>\n"
        "#define __syncwarp(m) __builtin_amdgcn_wave_barrier()\n"
        "// __shfl_down_sync(mask, v, 1) in a comment\n"
        "__global__ void k(const char** s) { s[0] = \"__shfl_sync(m, v, 0)\"; __syncwarp(7); }\n")})
    result, out = _translate(tmp_path, src, "5.2")
    text = (out / "s.cu").read_text()
    assert "// __shfl_down_sync(mask, v, 1) in a comment" in text and '"__shfl_sync(m, v, 0)"' in text
    assert "__syncwarp(7)" in text  # the project's own macro
    assert not [r for r in result.safe_rewrites if r.assumption and r.rule != "runtime-include"]


# --- bf16 headers -------------------------------------------------------------------------------------------

def test_bf16_header_and_names_follow_the_release(tmp_path):
    old, out52 = _translate(tmp_path, F16, "5.2")
    text52 = (out52 / "bf16_convert.cu").read_text()
    assert "#include <hip/hip_bfloat16.h>" in text52 and "hip_bf16.h" not in text52
    assert "y[i] = hip_bfloat16(x[i] * 0.5f);" in text52 and "static_cast<float>(y[i])" in text52
    new, out62 = _translate(tmp_path, F16, "6.2")
    text62 = (out62 / "bf16_convert.cu").read_text()
    assert "#include <hip/hip_bf16.h>" in text62 and "__hip_bfloat16* y" in text62
    assert "__float2bfloat16(x[i] * 0.5f)" in text62
    for result in (old, new):
        assert not [u for u in result.unconverted if u.file == "bf16_convert.cu"]


# --- HIP_SYMBOL ---------------------------------------------------------------------------------------------

def test_symbol_arguments_that_name_device_symbols_get_hip_symbol(tmp_path):
    result, out = _translate(tmp_path, F16, "5.2")
    text = (out / "symbol_copies.cu").read_text()
    for call in ("hipMemcpyToSymbol(HIP_SYMBOL(c_taps), taps", "hipMemcpyToSymbol(HIP_SYMBOL(c_gain), &gain",
                 "hipMemcpyToSymbolAsync(HIP_SYMBOL(d_clipped)", "hipMemcpyFromSymbol(&clipped, HIP_SYMBOL(d_clipped)",
                 "hipGetSymbolAddress(&taps_addr, HIP_SYMBOL(c_taps))", "hipGetSymbolSize(&taps_size, HIP_SYMBOL(c_taps))"):
        assert call in text
    assert len([r for r in result.safe_rewrites if r.rule == "hip-symbol"]) == 6


def test_hip_symbol_near_misses_host_variables_wrapped_ones_and_symbols_from_headers(tmp_path):
    src = _tree(tmp_path, {
        "consts.cuh": "#pragma once\nextern __constant__ float c_lut[16];\n",
        "a.cu": ('#include <cuda_runtime.h>\n#include "consts.cuh"\n'
                 "float host_table[16];\n__device__ float* d_ptr;\n"
                 "void f(const float* p) {\n"
                 "  cudaMemcpyToSymbol(c_lut, p, 64);\n"
                 "  cudaMemcpyToSymbol(HIP_SYMBOL(d_ptr), &p, sizeof(p));\n"
                 "  cudaMemcpyToSymbol(host_table, p, 64);\n"
                 "  cudaMemcpy(host_table, p, 64, cudaMemcpyDefault);\n}\n"),
    })
    _result, out = _translate(tmp_path, src, "5.2")
    lines = (out / "a.cu").read_text().split("\n")
    assert lines[5].strip() == "hipMemcpyToSymbol(HIP_SYMBOL(c_lut), p, 64);"  # declared in a header
    assert lines[6].strip() == "hipMemcpyToSymbol(HIP_SYMBOL(d_ptr), &p, sizeof(p));"  # not wrapped twice
    assert lines[7].strip() == "hipMemcpyToSymbol(host_table, p, 64);"  # not a device symbol
    assert lines[8].strip() == "hipMemcpy(host_table, p, 64, hipMemcpyDefault);"


# --- CLI and the five test programs -------------------------------------------------------------------------

def test_cli_translate_reports_the_target_and_the_assumptions(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["translate", str(F16), "-o", str(tmp_path / "o"), "--no-share", "--rocm-version", "5.2", "--json"])
    assert exc.value.code in (0, None)
    doc = json.loads(capsys.readouterr().out)
    assert doc["options"]["rocm"]["version"] == "5.2" and doc["options"]["rocm"]["basis"] == "--rocm-version"
    rules = {r["rule"] for r in doc["safe_rewrites"]}
    assert {"runtime-include", "warp-mask-dropped", "syncwarp-mask", "hip-symbol", "bf16-header"} <= rules
    with pytest.raises(SystemExit) as exc:
        main(["translate", str(F16), "-o", str(tmp_path / "o2"), "--rocm-version", "latest"])
    assert exc.value.code == 2


@needs_hipcc
@needs_nvcc
def test_the_issue_programs_translate_and_compile_for_gfx90a_and_sm_90():
    from hipgauge.app.buildcheck import build_check

    result = build_check(F16, ["gfx90a"], ["sm_90"], timeout_s=300, jobs=2)
    by = {(c.file, c.arch): c for c in result.compiles}
    names = ["bf16_convert.cu", "block32_launch.cu", "saxpy_noinclude.cu", "symbol_copies.cu",
             "warp_reduce_masks.cu"]
    for name in names:
        for arch in ("gfx90a", "sm_90"):
            c = by[(name, arch)]
            assert c.ok, (name, arch, [d.message for d in c.diagnostics][:3])


@pytest.mark.skipif(not (have("hipcc") or Path("/usr/bin/hipcc").exists()), reason="hipcc is not installed")
def test_without_the_new_rewrites_the_programs_fail_on_rocm_5_2(tmp_path):
    """The same programs with the runtime include and the target pass off do not compile: the tests above can fail."""
    from hipgauge.toolchain.drivers import find_hipcc, hipcc_command, run_command

    opts = TranslateOptions(rules_share=False, rocm=resolve_target("7.0"),
                            safe_rewrites=frozenset({"warp-mask", "syncwarp"}))
    translate_tree(F16, tmp_path / "hip", opts)
    hipcc = find_hipcc()
    assert hipcc is not None
    if not hipcc.version.startswith("5."):
        pytest.skip(f"installed hipcc is {hipcc.version}, the negative check is for ROCm 5.x")
    for name in ("saxpy_noinclude.cu", "warp_reduce_masks.cu", "bf16_convert.cu"):
        run = run_command(hipcc_command(hipcc, tmp_path / "hip" / name, "gfx90a", tmp_path / "x.o"), 300, hip=True)
        assert run.returncode != 0, name


def test_on_path_finds_what_shutil_which_finds(tmp_path, monkeypatch):
    from hipgauge.translate.target import on_path

    for name in ("sh", "python3", "hipcc", "no-such-command-here"):
        assert on_path(name) == shutil.which(name), name
    (tmp_path / "tool").write_text("#!/bin/sh\n")
    (tmp_path / "tool").chmod(0o644)  # not executable: not found, as which
    monkeypatch.setenv("PATH", str(tmp_path))
    assert on_path("tool") is None and shutil.which("tool") is None
    (tmp_path / "tool").chmod(0o755)
    assert on_path("tool") == shutil.which("tool") == str(tmp_path / "tool")
