"""Build-check errors: library headers not installed (environment gap) vs port errors, and what cost/decide do with them."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import needs_hipcc
from hipgauge.decide.build_errors import classify_build_check, classify_diagnostic, header_library
from hipgauge.decide.cost import estimate_cost
from hipgauge.decide.rubric import decide


def _unit(file: str, arch: str, vendor: str, ok: bool, *diags: tuple[str, list[str]]) -> dict:
    return {"file": file, "arch": arch, "vendor": vendor, "ok": ok, "errors": len(diags),
            "diagnostics": [{"file": f"/tmp/hipgauge-build-check-abc/hip/{file}", "line": 10 + i, "severity": "error",
                             "message": m, "rule_codes": codes, "source_line": ""} for i, (m, codes) in enumerate(diags)]}


def build_doc() -> dict:
    return {"schema": "hipgauge.build-check/1", "amd_arch": ["gfx90a"], "nvidia_arch": ["sm_90"], "compiles": [
        _unit("src/heads.cu", "gfx90a", "amd", False, ("'hipblas/hipblas.h' file not found", [])),
        _unit("src/heads.cu", "sm_90", "nvidia", False, ("cublas_v2.h: No such file or directory", [])),
        _unit("src/post.cu", "gfx90a", "amd", False, ("'hipcub/hipcub.hpp' file not found", []),
              ("use of undeclared identifier 'hipcub'", []), ("no member named 'DeviceRadixSort' in namespace 'hipcub'", [])),
        _unit("src/mma.cu", "gfx90a", "amd", False, ("'mma.h' file not found", ["HG301"])),
        _unit("src/asm.cu", "gfx90a", "amd", False, ("invalid instruction, did you mean: v_mov_b32?", [])),
        _unit("src/asm.cu", "gfx942", "amd", False, ("invalid instruction, did you mean: v_mov_b32?", [])),
        _unit("src/ok.cu", "gfx90a", "amd", True),
    ]}


def test_library_headers_come_from_the_mapping_data_both_spellings():
    for header in ("hipblas/hipblas.h", "hipcub/hipcub.hpp", "cudnn.h", "cublas_v2.h", "miopen/miopen.h", "rocblas/rocblas.h"):
        assert header_library(header)[0] == "environment", header
    assert header_library("hip/hip_runtime.h")[0] == "toolchain"
    assert header_library("heads.cuh") is None  # the project's own header
    # a CUDA header with no HIP counterpart, met by hipcc, is the port's problem, not the machine's
    assert header_library("mma.h", "amd")[0] == "port"
    assert header_library("cutlass/gemm/device/gemm.h", "amd")[0] == "port"
    assert header_library("cutlass/gemm/device/gemm.h", "nvidia")[0] == "environment"


def test_classify_separates_environment_consequences_and_port_errors():
    cls = classify_build_check(build_doc())
    assert cls["diagnostics"] == {"environment": 3, "consequence": 2, "toolchain": 0, "port": 3}
    assert cls["units"] == {"total": 7, "compiled": 1, "failed_port": 3, "blocked_by_environment": 3, "failed_toolchain": 0}
    headers = {(m["header"], m["arch"]) for m in cls["missing_headers"]}
    assert headers == {("hipblas/hipblas.h", "gfx90a"), ("cublas_v2.h", "sm_90"), ("hipcub/hipcub.hpp", "gfx90a")}
    assert {e["file"] for e in cls["port_errors"]} == {"src/mma.cu", "src/asm.cu"}  # scratch prefix removed
    assert "environment gap, not a port defect" in cls["summary"]
    assert classify_diagnostic("use of undeclared identifier 'wmma'", {"hipcub"}) == ("port", None)


def test_cost_counts_port_errors_once_and_never_environment_gaps():
    cost = estimate_cost(None, None, build_check=build_doc())
    items = [i for i in cost.items if i.kind == "build-error"]
    assert len(items) == 1 and items[0].file == "src/asm.cu"  # same error on two arches: one fix; mma.h is HG301's
    assert any("environment gap" in n and "5 build-check error" in n for n in cost.notes)
    assert any("at lines with findings" in n for n in cost.notes)
    only_env = {"compiles": [u for u in build_doc()["compiles"] if u["file"] in ("src/heads.cu", "src/post.cu")]}
    assert not [i for i in estimate_cost(None, None, build_check=only_env).items if i.kind == "build-error"]
    assert estimate_cost(None, None, build_check=only_env).low_hours == estimate_cost(None, None).low_hours


def test_decide_adds_evidence_without_changing_leans():
    plain = decide(None)
    with_bc = decide(None, build_check=build_doc())
    assert [s.lean for s in plain.signals] == [s.lean for s in with_bc.signals]
    lib = next(s for s in with_bc.signals if s.id == "library_dependence")
    hot = next(s for s in with_bc.signals if s.id == "hot_kernel_makeup")
    assert any("not installed" in e and "environment gap" in e for e in lib.evidence)
    assert any("port compile error" in e for e in hot.evidence)


@needs_hipcc
def test_real_hipcc_missing_library_header_is_environment_and_wmma_is_port(tmp_path):
    from hipgauge.app.buildcheck import build_check

    src = tmp_path / "tree"
    src.mkdir()
    (src / "gemm.cu").write_text(
        "#include <cublas_v2.h>\n"
        "__global__ void scale(float* x) { x[threadIdx.x] *= 2.f; }\n"
        "void run(cublasHandle_t h, float* x) { scale<<<1, 32>>>(x); cublasSscal(h, 32, nullptr, x, 1); }\n")
    (src / "tc.cu").write_text(
        "#include <mma.h>\nusing namespace nvcuda;\n"
        "__global__ void tc(half* a) { wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> f;"
        " wmma::load_matrix_sync(f, a, 16); }\n")
    doc = build_check(str(src), amd_arch=["gfx90a"], nvidia_arch=[]).to_dict()
    cls = classify_build_check(doc)
    by_file = {}
    for m in cls["missing_headers"]:
        for u in m["units"]:
            by_file.setdefault(u, set()).add(m["header"])
    if not any("hipblas" in h for hs in by_file.values() for h in hs):
        pytest.skip("hipBLAS headers are installed on this machine: nothing missing to classify")
    assert "gemm.cu" in {Path(u).name for u in by_file}
    port_files = {Path(e["file"]).name for e in cls["port_errors"]}
    assert "tc.cu" in port_files and "gemm.cu" not in port_files
