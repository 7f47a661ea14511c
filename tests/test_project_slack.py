"""project_baseline: the DESIGN.md worked example, --assume what-ifs, percentiles, the real H200 resnet50."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from hipgauge.errors import InputError
from hipgauge.model import KERNEL_RECORD_SCHEMA, Profile, Provenance
from hipgauge.profiles import percentiles as pct
from hipgauge.profiles.grouping import classify
from hipgauge.profiles.projection import SCHEMA, parse_assume, project_baseline

MS = 1_000_000


def detector(iterations: int = 10, latency_ms: list[float] | None = None) -> Profile:
    """Two cuDNN convolutions hold 12 ms per iteration (60% of a 20 ms target), other kernels 4 ms."""
    per_iter = [("sm90_xmma_fprop_implicit_gemm_a", 6 * MS, "aten::cudnn_convolution"),
                ("relu_kernel", 1 * MS, "aten::relu_"),
                ("sm90_xmma_fprop_implicit_gemm_b", 6 * MS, "aten::cudnn_convolution"),
                ("relu_kernel", 1 * MS, "aten::relu_"),
                ("sm90_xmma_gemm_x", 2 * MS, "aten::addmm")]
    schema = {k: getattr(pl, v) for k, v in KERNEL_RECORD_SCHEMA.items()}
    rows, windows, t = [], [], 0
    for it in range(iterations):
        start = t
        for name, dur, op in per_iter:
            rows.append({"vendor": "nvidia", "source_format": "test", "raw_name": name, "name": name, "key": name,
                         "operator": op, "iteration": it, "start_ns": t, "duration_ns": dur})
            t += dur + 300_000
        windows.append((it, start, t))
    df = pl.DataFrame(rows, schema=schema)
    return Profile("det.trace", "test", "nvidia", df, iterations=windows, latency_ms=latency_ms,
                   latency_source="det_latency.csv" if latency_ms else None)


LAT = [17.5 + 0.005 * i for i in range(120)]  # P99 = 18.0891 ms, 120 iterations


def test_worked_example_slack_and_conv_at_1_4x_breaks_the_target():
    res = project_baseline(detector(latency_ms=LAT), 20.0, 99.0)
    L = res.latency.value_ms
    assert res.latency.enough_iterations and res.latency.method == "latency-csv"
    assert L == pytest.approx(pct.percentile(LAT, 99.0))
    conv = next(g for g in res.groups if g.name == "convolution")
    assert conv.time_ms == pytest.approx(12.0)
    assert conv.time_ms / 20.0 == pytest.approx(0.60)  # 60% of the 20 ms target
    assert conv.max_ratio == pytest.approx(1 + (20.0 - L) / 12.0)
    assert 1.0 < conv.max_ratio < 1.4  # 1.4× does not fit
    assert res.projection.meets_target is True  # as it stands the baseline meets the target

    what_if = project_baseline(detector(latency_ms=LAT), 20.0, 99.0, {"conv*": 1.4})
    p = what_if.projection
    assert p.projected_ms == pytest.approx(L + 12.0 * 0.4)
    assert p.meets_target is False and p.source == Provenance.ESTIMATED
    assert next(g for g in what_if.groups if g.name == "convolution").assumed_ratio == pytest.approx(1.4)
    assert "misses" in what_if.verdict()

    close = project_baseline(detector(latency_ms=LAT), 20.0, 99.0, {"convolution": 1.03})
    assert close.projection.meets_target is True


def test_target_already_missed_has_no_slack():
    res = project_baseline(detector(latency_ms=LAT), 15.0)
    assert all(g.max_ratio is None for g in res.groups)
    assert any("already misses" in n for n in res.notes)


def test_assume_kernel_pattern_beats_group_pattern_and_unmatched_warns():
    res = project_baseline(detector(latency_ms=LAT), 20.0, assume={"convolution": 2.0, "*_gemm_a": 1.0, "nothing*": 3.0})
    conv = next(g for g in res.groups if g.name == "convolution")
    assert conv.assumed_ratio == pytest.approx(1.5)  # kernel a stays 1.0, kernel b 2.0
    assert res.projection.projected_ms == pytest.approx(res.latency.value_ms + 6.0)
    assert res.unmatched_patterns == ["nothing*"] and any("nothing*" in w for w in res.warnings)


def test_few_iterations_reports_max_and_says_so():
    res = project_baseline(detector(iterations=5), 20.0)
    assert res.latency.method == "iteration-spans" and not res.latency.enough_iterations
    assert res.latency.statistic == "max" and "P99 needs ≥100" in res.projection.note


def test_to_dict_keys():
    d = project_baseline(detector(latency_ms=LAT), 20.0, assume={"conv*": 1.4}).to_dict()
    assert d["schema"] == SCHEMA == "hipgauge.project/1"
    g = d["groups"][0]
    for key in ("name", "share", "max_ratio", "time_ms", "assumed_ratio", "share_of_latency"):
        assert key in g
    for key in ("baseline_ms", "projected_ms", "target_ms", "percentile", "verdict", "source", "model"):
        assert key in d["projection"]
    assert sum(x["share"] for x in d["groups"]) == pytest.approx(1.0)


@pytest.mark.parametrize("item", ["conv*", "=1.4", "conv*=abc", "conv*=-1", "conv*=0", "x=nan"])
def test_parse_assume_rejects_bad_items(item: str):
    with pytest.raises(InputError):
        parse_assume([item])


def test_parse_assume_ok():
    assert parse_assume(["conv*=1.4", "gemm = 0.9x"]) == {"conv*": 1.4, "gemm": 0.9}


def test_percentiles():
    assert pct.percentile([1, 2, 3, 4], 50) == pytest.approx(2.5)
    assert pct.percentile(list(range(101)), 99) == pytest.approx(99.0)
    assert pct.required_iterations(99) == 100 and pct.required_iterations(95) == 20
    assert pct.required_iterations(50) == 2
    v, enough, stat, note = pct.summarize([1.0, 5.0, 2.0], 99.0)
    assert v == 5.0 and not enough and stat == "max" and "only 3 iterations" in note


@pytest.mark.parametrize("name,op,group", [
    ("sm90_xmma_fprop_implicit_gemm_f16", None, "convolution"),
    ("igemm_fwd_gtcx3_nhwc_bf16", None, "convolution"),
    ("naive_conv_fwd_nchw_half", None, "convolution"),
    ("Cijk_Alik_Bljk_HHS_BH_MT64x64", None, "gemm"),
    ("sm90_xmma_gemm_bf16bf16", None, "gemm"),
    ("void pytorch_flash::flash_fwd_kernel<X>(Flash_fwd_params)", None, "attention"),
    ("attn_fwd", None, "attention"),
    ("void at::native::vectorized_layer_norm_kernel<float>(int)", None, "normalization"),
    ("cudnn::bn_fw_inf_1C11_kernel_NHWC", None, "normalization"),
    ("void at::native::vectorized_elementwise_kernel<4, add>", None, "elementwise"),
    ("void at::native::reduce_kernel<512, 1>", None, "reduction"),
    ("softmax_warp_forward", None, "softmax"),
    ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", None, "communication"),
    ("my_custom_kernel", None, "custom"),
    ("anything", "aten::addmm", "gemm"),
    ("anything", "aten::cudnn_convolution", "convolution"),
    ("attn_fwd", "aten::_flash_attention_forward", "attention"),
    ("nchwToNhwcKernel", "aten::unknown_op", "memory"),
])
def test_grouping(name, op, group):
    assert classify(name, op) == group


def test_real_h200_resnet50_with_latency_csv(h200_dir: Path):
    from hipgauge.profiles.load import load_profile

    base = load_profile(h200_dir / "resnet50_bs8_fp16_nhwc_trace.json.gz",
                        latency_csv=h200_dir / "resnet50_bs8_fp16_nhwc_latency_ms.csv")
    res = project_baseline(base, 6.0, 99.0, {"conv*": 1.4})
    assert res.latency.method == "latency-csv" and res.latency.iterations == 200 and res.latency.enough_iterations
    L = res.latency.value_ms
    assert 5.0 < L < 6.5  # the README says p99 5.71 ms
    assert res.iterations == 5
    # kernel time per iteration is far below the latency: kernel time is not latency
    assert res.kernel_ms_per_iteration < L
    names = {g.name: g for g in res.groups}
    assert "convolution" in names and "normalization" in names
    conv = names["convolution"]
    assert conv.max_ratio == pytest.approx(1 + (6.0 - L) / conv.time_ms)
    assert res.projection.projected_ms == pytest.approx(L + 0.4 * conv.time_ms, rel=1e-6)
    assert sum(g.share for g in res.groups) == pytest.approx(1.0)
