"""Parsers of real compiler output (fixtures captured by tests/data/toolchain/capture.sh) and the occupancy models."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipgauge.toolchain.hipcc_output import parse_clang_diagnostics, parse_resource_remarks
from hipgauge.toolchain.nvcc_output import parse_nvcc_diagnostics, parse_ptxas
from hipgauge.toolchain.occupancy import amd_occupancy, load_arch_limits, nvidia_occupancy

D = Path(__file__).parent / "data" / "toolchain"


def _text(name: str) -> str:
    return (D / name).read_text(encoding="utf-8")


def test_ptxas_sm90_per_kernel_figures_come_from_the_compiler_lines():
    text = _text("nvcc_ptxas_sm_90.txt")
    rows = {r.name.split("(")[0]: r for r in parse_ptxas(text)}
    assert set(rows) == {"softmax_warp", "sgemm_tiled", "scale_add"}
    sgemm = rows["sgemm_tiled"]
    assert sgemm.arch == "sm_90" and sgemm.vendor == "nvidia"
    assert sgemm.mangled == "_Z11sgemm_tiledPKfS0_Pfi"
    assert sgemm.name == "sgemm_tiled(float const*, float const*, float*, int)"
    assert sgemm.shared_bytes == 2 * 16 * 16 * 4
    assert (sgemm.spill_stores_bytes, sgemm.spill_loads_bytes) == (0, 0)
    for r in rows.values():  # every number is traceable: the evidence lines are the compiler's own
        assert r.registers and r.registers > 0
        assert all(line in text for line in r.evidence)
        assert any(f"Used {r.registers} registers" in line for line in r.evidence)


def test_ptxas_sm80_reports_constant_banks():
    rows = parse_ptxas(_text("nvcc_ptxas_sm_80.txt"))
    assert {r.arch for r in rows} == {"sm_80"}
    assert all("cmem[0]" in r.constant_bytes for r in rows)


def test_hipcc_remarks_gfx90a():
    text = _text("hipcc_remarks_gfx90a.txt")
    rows = {r.name.split("(")[0]: r for r in parse_resource_remarks(text, "gfx90a")}
    assert set(rows) == {"softmax_warp", "sgemm_tiled", "scale_add"}
    sgemm = rows["sgemm_tiled"]
    assert sgemm.shared_bytes == 2048 and sgemm.agprs == 0
    assert sgemm.vgprs and sgemm.sgprs and sgemm.compiler_occupancy
    assert sgemm.line == 21  # the kernel's line in the (line-preserving) translation = the CUDA line
    for r in rows.values():
        assert len(r.evidence) == 9 and all(line in text for line in r.evidence)
        assert f"VGPRs: {r.vgprs} " in "\n".join(r.evidence)


def test_hipcc_remarks_gfx940_parse_too():
    assert len(parse_resource_remarks(_text("hipcc_remarks_gfx940.txt"), "gfx940")) == 3


def test_asm_error_located_on_the_asm_line():
    diags = [d for d in parse_clang_diagnostics(_text("hipcc_errors_asm.txt")) if d.severity == "error"]
    assert [(d.file, d.line, d.message) for d in diags] == [("asm_kernel.cu", 7, "invalid instruction")]


def test_nvcc_front_end_diagnostics():
    out = 'k.cu(12): error: identifier "cublasCreate" is undefined\nk.cu(3): warning #550-D: unused\n'
    diags = parse_nvcc_diagnostics(out)
    assert [(d.file, d.line, d.severity) for d in diags] == [("k.cu", 12, "error"), ("k.cu", 3, "warning")]


def test_arch_limits_cover_the_five_targets_with_sources():
    limits = load_arch_limits()
    for arch in ("sm_80", "sm_90", "gfx90a", "gfx940", "gfx942"):
        assert limits[arch]["source"]
    assert limits["gfx90a"]["wave_size"] == 64 and limits["sm_90"]["warp_size"] == 32


def test_worked_example_from_the_catalogue():
    # 256 threads, 96 registers / VGPRs, 32 KiB shared, low SGPRs: 25% on gfx942, sm_90 and sm_80
    amd = amd_occupancy("gfx942", 256, 96, 0, 20, 32 * 1024)
    assert (amd.blocks_per_unit, amd.active, amd.occupancy, amd.limiter) == (2, 2.0, 0.25, "lds")
    assert nvidia_occupancy("sm_90", 256, 96, 32 * 1024).occupancy == 0.25
    assert nvidia_occupancy("sm_80", 256, 96, 32 * 1024).limits["shared memory"] == 4
    # 48 KiB: one workgroup (12.5%) on gfx942, still two blocks on sm_90
    assert amd_occupancy("gfx942", 256, 96, 0, 20, 48 * 1024).occupancy == 0.125
    assert nvidia_occupancy("sm_90", 256, 96, 48 * 1024).blocks_per_unit == 2


@pytest.mark.parametrize("agprs,expected_vgpr_limit", [(0, 8), (128, 2)])
def test_agprs_count_against_the_unified_register_file(agprs, expected_vgpr_limit):
    occ = amd_occupancy("gfx90a", 64, 64, agprs, 10, 0)
    assert occ.limits["vgprs"] == expected_vgpr_limit * 4  # (64 + 128) VGPRs -> 512 // 192 = 2 waves/SIMD; 4 SIMDs


def test_lds_over_64k_and_oversized_blocks_give_zero():
    assert amd_occupancy("gfx90a", 256, 8, 0, 10, 70000).occupancy == 0.0
    assert nvidia_occupancy("sm_90", 2048, 8, 0).limiter == "block too large"


def test_lane_utilization_of_half_empty_wavefronts() -> None:
    from hipgauge.toolchain.occupancy import amd_occupancy, nvidia_occupancy

    amd = amd_occupancy("gfx90a", 32, vgprs=16, agprs=0, sgprs=16, lds_bytes=0)
    assert amd is not None and amd.lane_utilization == 0.5
    assert amd_occupancy("gfx90a", 256, vgprs=16, agprs=0, sgprs=16, lds_bytes=0).lane_utilization == 1.0
    nv = nvidia_occupancy("sm_90", 32, registers=16, static_smem=0)
    assert nv is not None and nv.lane_utilization == 1.0
    assert nvidia_occupancy("sm_90", 48, registers=16, static_smem=0).lane_utilization == 0.75


def test_hip_vector_types_fold_to_cuda_spelling() -> None:
    from hipgauge.kernel_names import vendor_neutral as _vendor_neutral

    assert _vendor_neutral("k(HIP_vector_type<float, 4u> const*, HIP_vector_type<unsigned int, 2u>*)") == "k(float4 const*, uint2*)"
    assert _vendor_neutral("k(float4 const*)") == "k(float4 const*)"
