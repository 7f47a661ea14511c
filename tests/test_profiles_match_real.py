"""Matching on the real H100 vs MI300X PyTorch-profiler pairs of the same models (TraceLens tests).

Only a few kernel names match across the vendors; the operators do. ≥ 95% of the baseline's GPU
kernel time must end up matched, flash attention with attn_fwd and the GEMMs with Cijk_* through
their operators, and the table must add up to the traces' totals.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from hipgauge.model import MatchLevel

PAIRS = ["gaunernst_bert-small-uncased__1016001.json.gz", "Falconsai_nsfw_image_detection__1016002.json.gz"]


def _pair(real_dir: Path, name: str):
    from hipgauge.profiles.load import load_profile

    d = real_dir / "pytorch_kineto" / "tracelens_pairs"
    return load_profile(d / "h100" / name), load_profile(d / "mi300" / name)


def _kernel_total_ns(path: Path) -> float:
    """Independent total: Σ dur of 'kernel' events, µs → ns."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        doc = json.load(fh)
    return sum(e["dur"] for e in doc["traceEvents"] if e.get("cat") == "kernel") * 1000.0


@pytest.mark.parametrize("name", PAIRS)
def test_real_pair_coverage_and_totals(real_dir: Path, name: str):
    from hipgauge.profiles.parity import compare_profiles

    base, cand = _pair(real_dir, name)
    res = compare_profiles(base, cand)
    assert res.coverage["baseline_time_matched"] >= 0.95
    assert res.coverage["candidate_time_matched"] >= 0.90
    # table totals add up to the traces' totals (per iteration: the pair has one ProfilerStep each)
    t = res.totals
    rows_b = sum(r.baseline_ns for r in res.rows)
    un_b = sum(u.ns for u in res.unmatched_baseline)
    assert rows_b + un_b == pytest.approx(t["baseline_ns"], rel=1e-9)
    rows_c = sum(r.candidate_ns for r in res.rows)
    un_c = sum(u.ns for u in res.unmatched_candidate)
    assert rows_c + un_c == pytest.approx(t["candidate_ns"], rel=1e-9)
    div_b = res.baseline.iterations or 1
    div_c = res.candidate.iterations or 1
    d = real_dir / "pytorch_kineto" / "tracelens_pairs"
    assert (t["baseline_ns"] * div_b + res.baseline.excluded_ns) == pytest.approx(_kernel_total_ns(d / "h100" / name), rel=1e-6)
    assert (t["candidate_ns"] * div_c + res.candidate.excluded_ns) == pytest.approx(_kernel_total_ns(d / "mi300" / name), rel=1e-6)
    # only a few names match exactly: most of the time is matched through operators
    assert res.coverage["baseline_by_level"]["operator"] > 0.5
    # operator table adds up too
    assert sum(o.baseline_ns for o in res.operators) == pytest.approx(t["baseline_ns"], rel=1e-9)
    # sorted by contribution (|Δ| descending)
    deltas = [abs(r.delta_ns) for r in res.rows]
    assert deltas == sorted(deltas, reverse=True)


@pytest.mark.parametrize("name", PAIRS)
def test_real_pair_flash_attention_and_gemms_via_operators(real_dir: Path, name: str):
    from hipgauge.profiles.parity import compare_profiles

    base, cand = _pair(real_dir, name)
    res = compare_profiles(base, cand)
    attn = [r for r in res.rows if any("flash_fwd_kernel" in n for n in r.baseline_names)]
    assert attn, "flash attention row missing"
    assert all(r.level == MatchLevel.OPERATOR for r in attn)
    assert any("attn_fwd" in n for r in attn for n in r.candidate_names)
    gemm = [r for r in res.rows if any(n.startswith("Cijk_") for n in r.candidate_names)]
    assert gemm and all(r.level == MatchLevel.OPERATOR for r in gemm)
    assert {r.operator for r in gemm} == {"aten::addmm"}
    baseline_gemm_names = {n for r in gemm for n in r.baseline_names}
    assert any("cutlass" in n or "xmma_gemm" in n for n in baseline_gemm_names)
    # exact-name matches exist but are a minority of kernel names
    exact = [r for r in res.rows if r.level == MatchLevel.EXACT]
    assert exact and len(exact) < len(res.rows)


def test_real_falconsai_convolution_matched_across_cudnn_and_miopen(real_dir: Path):
    from hipgauge.profiles.parity import compare_profiles

    base, cand = _pair(real_dir, PAIRS[1])
    res = compare_profiles(base, cand)
    conv = [r for r in res.rows if any("igemm_fwd" in n for n in r.candidate_names)]
    assert len(conv) == 1
    assert any("cudnn" in n for n in conv[0].baseline_names)
    assert not res.unmatched_baseline
