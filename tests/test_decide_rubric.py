"""Rubric signals from small hand-made inputs: leans, evidence, sources, time weighting."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from hipgauge import config as config_mod
from hipgauge.decide.rubric import decide
from hipgauge.decide.shares import base_name
from hipgauge.model import ApiCall, Confidence, Finding, Kernel, ScanResult, Severity

_spec = importlib.util.spec_from_file_location("report_profiles", Path(__file__).parent / "data" / "report" / "report_profiles.py")
report_profiles = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(report_profiles)  # type: ignore[union-attr]


def _finding(code: str, category: str, kernel: str, line: int = 10) -> Finding:
    return Finding(code=code, severity=Severity.WRONG_RESULTS, category=category, confidence=Confidence.HIGH,
                   file="k.cu", line=line, message=f"{code} here", kernel=kernel, effort_hours=2.0)


def _scan(findings: list[Finding], kernels=("hot_kernel", "cold_kernel"), api_calls=()) -> ScanResult:
    return ScanResult(root="t", kernels=[Kernel(name=k, file="k.cu", line=i * 10 + 1, end_line=i * 10 + 9)
                                         for i, k in enumerate(kernels)],
                      findings=list(findings), api_calls=list(api_calls))


def _signal(decision, sid: str):
    return next(s for s in decision.signals if s.id == sid)


def test_base_name_matches_source_to_profile_names():
    assert base_name("void warp_softmax_kernel<float>(float const*, int)") == "warp_softmax_kernel"
    assert base_name("ns::inner::tiled_sgemm_kernel(float*) [clone .kd]") == "tiled_sgemm_kernel"
    assert base_name("saxpy_kernel") == "saxpy_kernel"


def test_warp_shuffle_in_a_cold_kernel_matters_little_in_a_hot_one_decides():
    # the same HG106 shuffle in the kernel taking 0.1 % → port; in the kernel taking 40 % → stay
    profile = report_profiles.make_profile([("void hot_kernel<float>(float*)", 4.0, None),
                                            ("cold_kernel", 0.01, None), ("lib_gemm_kernel", 5.99, None)])
    in_cold = decide(_scan([_finding("HG106", "warp", "cold_kernel")]), baseline=profile)
    in_hot = decide(_scan([_finding("HG106", "warp", "hot_kernel")]), baseline=profile)
    cold, hot = _signal(in_cold, "hot_kernel_makeup"), _signal(in_hot, "hot_kernel_makeup")
    assert cold.lean == "port" and hot.lean == "stay"
    assert cold.details["vendor_time_share"] == pytest.approx(0.001, abs=1e-6)
    assert hot.details["vendor_time_share"] == pytest.approx(0.4, abs=1e-6)
    assert "profiled time" in hot.weighted_by
    assert any(e.startswith("hot_kernel: 40.0% of time") and "HG106" in e for e in hot.evidence)
    assert hot.source == "measured"


def test_hot_kernel_makeup_by_counts_without_profile():
    d = decide(_scan([_finding("HG201", "tensor-core", "hot_kernel"), _finding("HG301", "asm", "cold_kernel")]))
    s = _signal(d, "hot_kernel_makeup")
    assert s.lean == "stay" and s.weighted_by.startswith("counts")
    assert any("HG201" in e for e in s.evidence)
    clean = decide(_scan([_finding("HG401", "occupancy", "hot_kernel")], kernels=("hot_kernel", "a", "b", "c", "d", "e")))
    assert _signal(clean, "hot_kernel_makeup").lean == "port"


def test_objectives_and_economics_come_from_config(tmp_path):
    cfg_file = tmp_path / "hipgauge.toml"
    cfg_file.write_text('[objectives]\nprimary = "portability"\nfleet = "mixed"\nprocurement_pressure = "strong"\n')
    d = decide(_scan([]), config=config_mod.load(cfg_file))
    prim, econ = _signal(d, "primary_objective"), _signal(d, "team_economics")
    assert (prim.lean, prim.source) == ("port", "config")
    assert (econ.lean, econ.source) == ("port", "config")
    cfg_file.write_text('[objectives]\nprimary = "throughput"\nfleet = "nvidia-only"\nprocurement_pressure = "none"\n')
    d = decide(_scan([]), config=config_mod.load(cfg_file))
    assert _signal(d, "primary_objective").lean == "stay" and _signal(d, "team_economics").lean == "stay"
    default = decide(_scan([]))
    assert _signal(default, "primary_objective").source == "unknown"
    assert _signal(default, "team_economics").lean == "neutral"


def test_library_dependence_exotic_versus_covered():
    cublas = [ApiCall(file="a.cu", line=3, cuda_name="cublasSgemm", library="cublas", hip_name="hipblasSgemm", status="mapped")]
    assert _signal(decide(_scan([], api_calls=cublas)), "library_dependence").lean == "port"
    trt = [ApiCall(file="a.cu", line=4, cuda_name="createInferBuilder", library="tensorrt", hip_name=None, status="unsupported")]
    s = _signal(decide(_scan([], api_calls=trt)), "library_dependence")
    assert s.lean == "stay" and any("tensorrt" in e for e in s.evidence)


def test_library_dependence_weighted_by_profiled_library_kernels():
    profile = report_profiles.make_profile([("sm90_xmma_fprop_implicit_gemm_cudnn", 6.0, "aten::cudnn_convolution"),
                                            ("myelin_fused_trt_kernel", 4.0, None)])
    s = _signal(decide(_scan([]), baseline=profile), "library_dependence")
    assert s.details["exotic_time_share"] == pytest.approx(0.4)
    assert s.lean == "stay"
    assert any(e.startswith("profiled cuDNN kernels (implicit-GEMM)") and "60.0%" in e for e in s.evidence)
    assert any(e.startswith("profiled TensorRT kernels") and "40.0%" in e and "ROCm coverage: none" in e
               for e in s.evidence)
    assert s.details["library_time_share"] == pytest.approx({"cuDNN": 0.6, "TensorRT": 0.4})


#: PyTorch's bundled FlashAttention-2 forward kernel, as the H100 kineto traces name it: its template arguments
#: carry ``cutlass::bfloat16_t``, which a glob on "*cutlass*" took for a CUTLASS kernel
FLASH = ("void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
         "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, "
         "true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)")


def test_a_flash_attention_kernel_naming_cutlass_types_is_flash_attention_not_cutlass():
    profile = report_profiles.make_profile([(FLASH, 7.0, "aten::_flash_attention_forward"),
                                            ("void cutlass::Kernel<cutlass::gemm::kernel::GemmUniversal<float> >(int)", 1.0, None),
                                            ("mystery_kernel_0", 2.0, None)])
    s = _signal(decide(_scan([]), baseline=profile), "library_dependence")
    shares = s.details["library_time_share"]
    assert shares["FlashAttention"] == pytest.approx(0.7)
    assert shares["CUTLASS"] == pytest.approx(0.1)  # a real CUTLASS template stays CUTLASS
    assert s.details["library_family_time_share"]["FlashAttention"] == pytest.approx({"attention": 0.7})
    assert any(e.startswith("profiled FlashAttention kernels (attention): 70.0%") for e in s.evidence)
    # names no rule knows are listed as such, never folded into a library
    assert shares["unknown"] == pytest.approx(0.2)
    assert any("no library rule knows" in e and "mystery_kernel_0" in e for e in s.evidence)
    assert s.details["unclassified_kernels"] == [{"name": "mystery_kernel_0", "share": pytest.approx(0.2)}]
    assert "20.0% in kernels no library rule knows" in s.summary


def test_a_source_kernel_is_not_counted_as_a_library_kernel():
    profile = report_profiles.make_profile([("void hot_kernel<float>(float*)", 5.0, None), (FLASH, 5.0, None)])
    s = _signal(decide(_scan([], kernels=()), baseline=profile), "library_dependence")
    assert set(s.details["library_time_share"]) == {"FlashAttention", "unknown"}
    s = _signal(decide(_scan([], kernels=("hot_kernel",)), baseline=profile), "library_dependence")
    assert s.details["library_time_share"] == pytest.approx({"FlashAttention": 0.5})


def test_every_classified_library_has_a_rocm_coverage_in_the_rubric():
    from hipgauge.decide.rubric import load_rubric
    from hipgauge.profiles.libraries import UNKNOWN, load_library_knowledge

    table = load_rubric()["library_dependence"]["kernel_library_coverage"]
    libraries = {r.library for r in load_library_knowledge().rules} | {UNKNOWN}
    assert sorted(libraries - set(table)) == [], "add them to rubric.toml [library_dependence.kernel_library_coverage]"
    assert sorted(set(table) - libraries) == [], "rubric.toml names a library the classifier does not"
    assert set(table.values()) <= {"covered", "partial", "none"}


def test_precision_path_leans():
    fp16 = [ApiCall(file="a.cu", line=1, cuda_name="__half2float", library="device", hip_name="__half2float", status="mapped")]
    assert _signal(decide(_scan([], api_calls=fp16)), "precision_path").lean == "port"
    fp8 = [ApiCall(file="a.cu", line=1, cuda_name="__nv_fp8_e4m3", library="device", hip_name=None, status="unsupported")]
    assert _signal(decide(_scan([], api_calls=fp8)), "precision_path").lean == "stay"
    assert _signal(decide(_scan([])), "precision_path").lean == "neutral"


def test_triage_clusters_and_says_the_verdict_is_the_measurement(tmp_path):
    cfg_file = tmp_path / "hipgauge.toml"
    cfg_file.write_text('[objectives]\nprimary = "throughput"\nfleet = "nvidia-only"\nprocurement_pressure = "none"\n')
    d = decide(_scan([_finding("HG201", "tensor-core", "hot_kernel"), _finding("HG202", "tensor-core", "cold_kernel")]),
               config=config_mod.load(cfg_file))
    assert d.triage.cluster == "stay"
    assert "not a verdict" in d.triage.statement and "per-kernel measurement" in d.triage.statement
    assert "no per-kernel measurement" in d.triage.measurement
    doc = d.to_dict()
    assert doc["schema"] == "hipgauge.decide/1" and len(doc["signals"]) == 5


def test_the_real_h100_trace_attributes_its_flash_attention_kernel_to_flash_attention(real_dir: Path):
    from hipgauge.profiles.load import load_profile

    trace = real_dir / "pytorch_kineto" / "tracelens_pairs" / "h100" / "gaunernst_bert-small-uncased__1016001.json.gz"
    profile = load_profile(trace)
    names = set(profile.kernels["name"].to_list())
    assert any("pytorch_flash::flash_fwd_kernel" in n and "cutlass::bfloat16_t" in n for n in names)
    s = _signal(decide(_scan([], kernels=()), baseline=profile), "library_dependence")
    shares = s.details["library_time_share"]
    assert shares.get("FlashAttention", 0.0) > 0.05, shares
    assert "CUTLASS" not in shares, shares  # the trace has no CUTLASS template of its own
    assert "unknown" not in shares, s.details.get("unclassified_kernels")
    assert sum(shares.values()) == pytest.approx(1.0)
