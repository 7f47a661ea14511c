"""Kernel-library knowledge: real kernel names classify into library, family, path, tile, instruction and kernel
architecture; the real traces are classified to ≥ 95 % of their library kernel time (the unclassified names are
printed); layout helpers under a row's operator calls are attributed to the row."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from hipgauge.profiles.libraries import (
    classify_kernel,
    coverage,
    device_arch,
    family_table,
    older_arch,
    row_library,
    side_table,
)
from hipgauge.profiles.load import load_profile

# (name as the trace has it, library, family, path, tile, instruction, kernel_arch); names copied from the real
# traces in ../shared/fixtures (TraceLens H100/MI300X pairs, HTA A100/V100/MI250 traces, the H200 resnet50 trace)
# and, where no trace holds one, from the library's own source
REAL_NAMES = [
    # MIOpen
    ("igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt64x64x16_wt16x16x4_ws1x1_wr2x2_ta1x1x4x1_1x16x1x16_tb1x1x4x1_1x16x1x16_me",
     "MIOpen", "implicit-GEMM", "tuned", "64x64x16", "wt16x16x4", None),
    ("naive_conv_fwd_nchw_half_double_half", "MIOpen", "naive/generic", "generic", None, None, None),
    ("naive_conv_nonpacked_bwd_nhwc_float_double_float", "MIOpen", "naive/generic", "generic", None, None, None),
    ("batched_transpose_256x4_half", "MIOpen", "layout/transform helper", "helper", None, None, None),
    ("batched_transpose_32x16_half", "MIOpen", "layout/transform helper", "helper", None, None, None),
    ("SubTensorOpWithScalar1d", "MIOpen", "layout/transform helper", "helper", None, None, None),
    ("MIOpenConvUni", "MIOpen", "direct", "tuned", None, None, None),
    ("miopenSp3AsmConv_v21_1_3_gfx9_fp32_stride1", "MIOpen", "Winograd", "tuned", None, None, None),
    # Tensile / hipBLASLt
    ("Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT64x32x128_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_"
     "DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_IU1_K1_LBSPPA512_LBSPPB256",
     "Tensile/hipBLASLt", "GEMM", "tuned", "MT64x32x128", "MI16x16x1", "gfx942"),
    ("Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0_"
     "GRVWA2_GRVWB2_GSUAMB_ISA90a_IU1_K1_LBSPPA128_LBSPPB128_LBSPPM0_LPA8",
     "Tensile/hipBLASLt", "GEMM", "tuned", "MT64x16x32", "MI16x16x1", "gfx90a"),
    ("Cijk_Ailk_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x256x32_MI32x32x1_SN_LDSB1_ISA950_IU1",
     "Tensile/hipBLASLt", "GEMM", "tuned", "MT128x256x32", "MI32x32x1", "gfx950"),
    ("Cijk_Ailk_Bljk_SB_MT64x64x8_SE_K1", "Tensile/hipBLASLt", "GEMM (no MFMA)", "generic", "MT64x64x8", None, None),
    # aotriton, Composable Kernel
    ("attn_fwd", "aotriton", "attention", "tuned", None, None, None),
    ("bwd_kernel_fuse", "aotriton", "attention", "tuned", None, None, None),
    ("void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm_xdl_cshuffle_v3<int> >(int)",
     "Composable Kernel", "GEMM", "tuned", None, None, None),
    # cuBLAS / cuBLASLt (including the CUTLASS-generated kernels it ships)
    ("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x6_tn_align8>"
     "(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x64_64x6_tn_align8::Params)",
     "cuBLAS/cuBLASLt", "GEMM", "tuned", "128x64_64x6", "s16816", "sm_80"),
    ("void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_256x128_32x2_nn_align8>"
     "(cutlass_75_tensorop_bf16_s1688gemm_bf16_256x128_32x2_nn_align8::Params)",
     "cuBLAS/cuBLASLt", "GEMM", "tuned", "256x128_32x2", "s1688", "sm_75"),
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
     "cuBLAS/cuBLASLt", "GEMM", "tuned", "128x128x64", None, "sm_90"),
    ("volta_sgemm_64x64_nt", "cuBLAS/cuBLASLt", "GEMM", "tuned", "64x64", None, "sm_70"),
    ("ampere_sgemm_32x32_sliced1x4_tn", "cuBLAS/cuBLASLt", "GEMM", "tuned", "32x32", None, "sm_80"),
    ("nvjet_sm90_hsh_128x192_64x5_2x1_v_bz_coopB_TNN", "cuBLAS/cuBLASLt", "GEMM", "tuned", "128x192_64x5", None, "sm_90"),
    # cublasGemmEx's fp32 SIMT kernel in the H200 capture of examples/detector (a cuBLAS kernel, not the app's CUTLASS)
    ("void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(T1::Params)",
     "cuBLAS/cuBLASLt", "GEMM", "tuned", "256x128_8x4", None, "sm_80"),
    ("void splitKreduce_kernel<float, float, float, float, true, false, false>(cublasSplitKParams<float>, float const*)",
     "cuBLAS/cuBLASLt", "split-K reduction helper", "helper", None, None, None),
    # cuDNN
    ("sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize64x64x64_warpgroupsize1x1x1_g1_execute_"
     "segment_k_off_kernel__5x_cudnn", "cuDNN", "implicit-GEMM", "tuned", "64x64x64", None, "sm_90"),
    ("sm80_xmma_fprop_implicit_gemm_indexed_wo_smem_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x32x16_stage1_"
     "warpsize4x1x1_g1_tensor16x8x16_aligna2_alignc4_execute_kernel__5x_cudnn",
     "cuDNN", "implicit-GEMM", "tuned", "128x32x16", "mma 16x8x16", "sm_80"),
    ("void cutlass__5x_cudnn::Kernel<cutlass_tensorop_bf16_s16816fprop_optimized_bf16_256x64_32x4_nhwc_align8>"
     "(cutlass_tensorop_bf16_s16816fprop_optimized_bf16_256x64_32x4_nhwc_align8::Params)",
     "cuDNN", "implicit-GEMM", "tuned", "256x64_32x4", "s16816", None),
    ("void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, false, true>(int, int, int, float const*)",
     "cuDNN", "implicit-GEMM", "tuned", None, None, None),
    ("cudnn_infer_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", "cuDNN", "Winograd", "tuned",
     "128x128", None, "sm_70"),
    ("void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::WinogradDataParams"
     "<float, float>)", "cuDNN", "Winograd", "tuned", None, None, None),
    ("void fft2d_r2c_32x32<float, false, 0u, false>(float2*, float const*, int, int)", "cuDNN", "FFT", "tuned",
     None, None, None),
    ("void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*)",
     "cuDNN", "direct", "tuned", None, None, None),
    ("void cudnn::engines_precompiled::nchwToNhwcKernel<__nv_bfloat16, __nv_bfloat16, float, false, true, "
     "(cudnnKernelDataType_t)0>(cudnn::engines_precompiled::nchw2nhwc_params_t<float>, __nv_bfloat16 const*, "
     "__nv_bfloat16*)", "cuDNN", "layout/transform helper", "helper", None, None, None),
    ("void cudnn::bn_fw_inf_1C11_kernel_NHWC<__half, float, true, true>(float, float)", "cuDNN", "normalization",
     "tuned", None, None, None),
    # FlashAttention, Triton, NCCL, PyTorch native
    ("void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
     "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false>(int)",
     "FlashAttention", "attention", "tuned", "128x128", None, "sm_80"),
    ("triton_poi_fused_add_cos_sin_0", "Triton", "elementwise", "native", None, None, None),
    ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "NCCL/RCCL", "collective", "tuned", None, None, None),
    ("ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>) [clone .kd]", "NCCL/RCCL", "collective", "tuned",
     None, None, None),
    ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
     "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
     "PyTorch native", "elementwise", "native", None, None, None),
]


@pytest.mark.parametrize(("name", "library", "family", "path", "tile", "instruction", "arch"), REAL_NAMES,
                         ids=[n[:40] for n, *_ in REAL_NAMES])
def test_real_names_classify(name: str, library: str, family: str, path: str, tile: str | None,
                             instruction: str | None, arch: str | None) -> None:
    c = classify_kernel(name)
    assert (c.library, c.family, c.path, c.tile, c.instruction, c.kernel_arch) == (
        library, family, path, tile, instruction, arch)


def test_layout_helpers_are_marked_and_other_helpers_are_not() -> None:
    assert classify_kernel("batched_transpose_256x4_half").layout
    assert classify_kernel("SubTensorOpWithScalar1d").layout
    assert not classify_kernel("void splitKreduce_kernel<float>(cublasSplitKParams<float>)").layout
    cast = ("void at::native::vectorized_elementwise_kernel<8, at::native::float16_copy_kernel_cuda(at::TensorIteratorBase&)"
            "::{lambda(float)#1}, std::array<char*, 2ul> >(int)")
    assert classify_kernel(cast).layout


def test_an_unknown_name_stays_unknown() -> None:
    c = classify_kernel("my_handwritten_kernel(float*, int)")
    assert (c.library, c.family, c.path) == ("unknown", "unknown", "unknown")
    assert not c.known and not c.is_library


def test_older_architecture() -> None:
    assert older_arch("sm_75", "sm_90") is True
    assert older_arch("sm_80", "sm_90") is True
    assert older_arch("sm_90", "sm_90") is False
    assert older_arch("gfx90a", "gfx942") is True
    assert older_arch("gfx942", "gfx942") is False
    assert older_arch("sm_80", "gfx942") is None
    assert older_arch(None, "sm_90") is None


def test_device_arch_from_trace_properties() -> None:
    assert device_arch({"arch": "sm_90", "compute_capability": "9.0"}) == "sm_90"
    assert device_arch({"compute_capability": "8.0"}, "NVIDIA A100") == "sm_80"
    assert device_arch({"compute_capability": "9.4"}, "AMD Instinct MI300X VF") == "gfx942"
    assert device_arch({"arch": "gfx950"}) == "gfx950"
    assert device_arch({"compute_capability": "9.0"}, "AMD Radeon Graphics") is None


def test_every_family_has_an_example_and_a_source() -> None:
    table = family_table()
    assert len(table) > 30
    for f in table:
        assert f["example"] and f["source"].startswith("https://"), f


# --------------------------------------------------------------------------------------------
# Real traces: ≥ 95 % of library kernel time classified
# --------------------------------------------------------------------------------------------


def _real_traces(real: Path, h200: Path) -> list[Path]:
    return sorted((real / "pytorch_kineto").rglob("*.json.gz")) + sorted((real / "hta").rglob("*.json.gz")) + [
        h200 / "resnet50_bs8_fp16_nhwc_trace.json.gz", real / "rocprofv3" / "tracelens" / "908_results.json.gz"]


def test_real_traces_are_classified(real_dir: Path, h200_dir: Path) -> None:
    report = []
    low = []
    for path in _real_traces(real_dir, h200_dir):
        cov = coverage(load_profile(path).kernels)
        unknown = "; ".join(f"{u['name'][:80]} ({u['share']:.2%})" for u in cov["unknown"]) or "none"
        report.append(f"{path.name}: {cov['classified_share']:.2%} of kernel time classified, "
                      f"library part {cov['library_classified_share'] or 0:.2%}; unclassified: {unknown}")
        if cov["library_ns"] and (cov["library_classified_share"] or 0) < 0.95:
            low.append(path.name)
        assert (cov["classified_share"] or 0) >= 0.95, report[-1]
    print("\n".join(report))
    assert not low, "\n".join(report)


# --------------------------------------------------------------------------------------------
# Helper attribution
# --------------------------------------------------------------------------------------------


def _frame(rows: list[tuple[str, int, int | None]]) -> pl.DataFrame:
    return pl.DataFrame({"name": [r[0] for r in rows], "raw_name": [r[0] for r in rows],
                         "duration_ns": [r[1] for r in rows], "operator_id": [r[2] for r in rows]},
                        schema={"name": pl.String, "raw_name": pl.String, "duration_ns": pl.Int64,
                                "operator_id": pl.Int64})


def test_helpers_under_the_rows_calls_are_attributed_to_the_row() -> None:
    igemm = "igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt64x64x16_wt16x16x4_ws1x1"
    df = _frame([(igemm, 30_000, 7), ("batched_transpose_256x4_half", 6_000, 7), ("SubTensorOpWithScalar1d", 4_000, 7),
                 ("batched_transpose_32x16_half", 9_000, 8), (igemm, 20_000, 8)])
    side = side_table(df, 1, "gfx942")
    # the row holds call 7's convolution only; its helpers sit elsewhere (another row, or unmatched)
    lib = row_library([0], side)
    assert lib is not None
    assert (lib["library"], lib["family"], lib["path"], lib["tile"]) == ("MIOpen", "implicit-GEMM", "tuned", "64x64x16")
    assert lib["layout_conversion_ns"] == 10_000
    assert lib["layout_conversion_share"] == pytest.approx(10_000 / 40_000)
    assert set(lib["layout_helpers"]) == {"batched_transpose_256x4_half", "SubTensorOpWithScalar1d"}
    # both calls: both calls' helpers, and per iteration when the comparison divides
    both = row_library([0, 4], side_table(df, 2, "gfx942"))
    assert both is not None and both["layout_conversion_ns"] == 9_500
    # a helper-only row is counted in its call's row, not twice
    helper = row_library([1], side)
    assert helper is not None and helper["layout_conversion_ns"] is None


def test_conv_rows_name_miopen_and_layout_time_on_the_real_pair(real_dir: Path) -> None:
    from hipgauge.profiles.parity import compare_profiles

    pair = real_dir / "pytorch_kineto" / "tracelens_pairs"
    name = "Falconsai_nsfw_image_detection__1016002.json.gz"
    result = compare_profiles(load_profile(pair / "h100" / name), load_profile(pair / "mi300" / name))
    conv = [r for r in result.rows if r.library and (r.library["candidate"] or {}).get("library") == "MIOpen"]
    assert conv, [r.label for r in result.rows]
    cand = conv[0].library["candidate"]
    assert cand["family"] == "implicit-GEMM" and cand["layout_conversion_ns"] > 0
    assert any("batched_transpose" in h for h in cand["layout_helpers"])
    base = conv[0].library["baseline"]
    assert base["library"] == "cuDNN" and base["layout_conversion_ns"] > 0  # nchwToNhwc / nhwcToNchw
    gemm = [r for r in result.rows if r.library and (r.library["candidate"] or {}).get("library") == "Tensile/hipBLASLt"]
    assert gemm and all((r.library["candidate"] or {})["tile"].startswith("MT") for r in gemm)
    older = [r for r in result.rows if r.library and (r.library["baseline"] or {}).get("older_arch")]
    assert older and (older[0].library["baseline"] or {})["kernel_arch"] == "sm_80"
    doc = result.to_dict()
    assert doc["rows"][0]["library"]["baseline"] is not None
    ids = {a["id"] for a in doc["libraries"]["advice"]}
    assert {"layout-helpers", "layout-helpers-baseline", "tuned-gemm-slower", "baseline-older-arch"} <= ids
    assert doc["libraries"]["coverage"]["candidate"]["classified_share"] == pytest.approx(1.0)


def test_every_view_has_the_library_fast_path(real_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hipgauge.cli import main
    from hipgauge.profiles.parity import compare_profiles
    from hipgauge.report.assessment import build_assessment
    from hipgauge.report.html import render_html
    from hipgauge.report.markdown import render_markdown

    pair = real_dir / "pytorch_kineto" / "tracelens_pairs"
    name = "Falconsai_nsfw_image_detection__1016002.json.gz"
    with pytest.raises(SystemExit) as info:
        main(["compare", str(pair / "h100" / name), str(pair / "mi300" / name)])
    assert info.value.code in (0, None)
    text = " ".join(capsys.readouterr().out.split())  # the terminal wraps at its width
    assert "library fast path" in text and "MIOpen implicit-GEMM" in text and "layout conversion" in text
    assert "older architecture" in text and "MT64x32x256" in text
    doc = build_assessment(comparison=compare_profiles(load_profile(pair / "h100" / name),
                                                       load_profile(pair / "mi300" / name)))
    md_text = render_markdown(doc)
    assert "### Library fast path" in md_text and "channels" in md_text and "TunableOp" in md_text
    page = render_html(doc)
    assert 'id="library-fast-path"' in page and "Tensile/hipBLASLt GEMM" in page
    assert doc["parity"]["libraries"]["advice"]


def test_the_docs_page_lists_every_family() -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "libraries.md").read_text(encoding="utf-8")
    missing = [f"{f['library']} / {f['family']}" for f in family_table()
               if f"| {f['library']} | {f['family']} | {f['path']} |" not in text]
    assert not missing, f"docs/libraries.md lacks {missing}: regenerate its family table from family_table()"


def _row(label: str, base: dict | None, cand: dict | None, bns: int = 100_000, cns: int = 300_000) -> object:
    from hipgauge.model import MatchLevel, ParityRow

    r = ParityRow(level=MatchLevel.OPERATOR, label=label, baseline_names=["b"], candidate_names=["c"], baseline_ns=bns,
                  candidate_ns=cns, baseline_count=1, candidate_count=1, share=0.3, operator=label)
    r.library = {"baseline": base, "candidate": cand}
    return r


def test_a_generic_fallback_gets_miopen_tuning_advice_and_outliers_come_first() -> None:
    from hipgauge.profiles.library_advice import library_section

    naive = row_library([0], side_table(_frame([("naive_conv_fwd_nchw_half_double_half", 300_000, 1)]), 1, "gfx942"))
    cudnn = row_library([0], side_table(_frame([("sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nchw_"
                                                 "tilesize64x64x64_warpgroupsize1x1x1_g1_execute_kernel__5x_cudnn",
                                                 100_000, 1)]), 1, "sm_90"))
    assert naive is not None and naive["path"] == "generic"
    gemm_b = row_library([0], side_table(_frame([("volta_sgemm_64x64_nt", 100_000, 2)]), 1, "sm_90"))
    gemm_c = row_library([0], side_table(_frame([("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8_SN_ISA942_K1",
                                                  200_000, 2)]), 1, "gfx942"))
    conv, gemm = _row("aten::convolution", cudnn, naive), _row("aten::mm", gemm_b, gemm_c, cns=200_000)
    section = library_section([gemm, conv], [], 1_000_000, {})  # type: ignore[list-item]
    ids = [(a["id"], a["label"]) for a in section["advice"]]
    assert ("generic-fallback-miopen", "aten::convolution") in ids
    assert ("tuned-gemm-slower", "aten::mm") in ids
    assert ("baseline-older-arch", "aten::mm") in ids  # a Volta kernel on an sm_90 device
    advice = {a["id"]: a for a in section["advice"]}
    assert "MIOPEN_FIND_ENFORCE" in advice["generic-fallback-miopen"]["advised"]
    assert "naive_conv" in advice["generic-fallback-miopen"]["measured"]
    assert "flatters the candidate" in advice["baseline-older-arch"]["advised"]
    assert all(a["sources"] and a["measured"] and a["advised"] for a in section["advice"])
    # the largest change first without outliers; an outlier's lines come before every other
    assert section["advice"][0]["label"] == "aten::convolution"
    from hipgauge.profiles.outliers import Outlier

    o = Outlier(signature="aten::mm", operator="aten::mm", input_dims=None, input_types=None, baseline_ns=1,
                candidate_ns=2, excess_ns=1, expected_ratio=1.0, candidate_share=0.2, group="gemm", calls=None)
    section = library_section([gemm, conv], [o], 1_000_000, {})  # type: ignore[list-item]
    assert section["advice"][0]["label"] == "aten::mm" and section["advice"][0]["outlier"]
