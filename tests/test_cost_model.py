"""Cost arithmetic, parameter provenance and overrides, and config errors (one line naming the key, exit 2)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from hipgauge import config as config_mod
from hipgauge.cli import main
from hipgauge.decide.cost import estimate_cost, parameters, parse_set
from hipgauge.errors import InputError
from hipgauge.model import ApiCall, Confidence, Finding, Kernel, MatchLevel, ParityRow, ScanResult, Severity

REALISTIC = Path(__file__).parent / "data" / "realistic"


def _f(code: str, category: str, hours: float, kernel: str | None = None, line: int = 1) -> Finding:
    return Finding(code=code, severity=Severity.BLOCKER, category=category, confidence=Confidence.HIGH, file="k.cu",
                   line=line, message="m", kernel=kernel, effort_hours=hours)


@dataclass
class _Unmatched:
    label: str
    share: float
    names: list[str] = field(default_factory=list)


@dataclass
class _Comparison:
    rows: list[ParityRow]
    unmatched_baseline: list[_Unmatched] = field(default_factory=list)
    unmatched_candidate: list[_Unmatched] = field(default_factory=list)


def _row(label: str, ratio: float, share: float) -> ParityRow:
    return ParityRow(level=MatchLevel.EXACT, label=label, baseline_names=[label], candidate_names=[label],
                     baseline_ns=1000, candidate_ns=round(1000 * ratio), baseline_count=1, candidate_count=1, share=share)


def _cfg(**values) -> config_mod.Config:
    cfg = config_mod.defaults()
    for k, v in values.items():
        cfg.override(k.replace("__", "."), v)
    return cfg


def test_finding_hours_use_the_low_high_factors():
    scan = ScanResult(root="t", findings=[_f("HG103", "warp", 2.0, line=1), _f("HG201", "tensor-core", 10.0, line=2)])
    est = estimate_cost(scan, None, _cfg(economics__hourly_rate=100))
    assert est.low_hours == pytest.approx(0.5 * 12) and est.high_hours == pytest.approx(2.0 * 12)
    assert est.one_time_low_usd == pytest.approx(600) and est.one_time_high_usd == pytest.approx(2400)
    cats = {c.category: (c.low_hours, c.high_hours) for c in est.by_category}
    assert cats == {"warp": (1.0, 4.0), "tensor-core": (5.0, 20.0)}
    assert any("no candidate profile" in n for n in est.notes)


def test_kernel_tuning_bands_threshold_min_share_and_unmatched():
    cmp = _Comparison(rows=[_row("fast", 1.05, 0.3), _row("mild", 1.2, 0.2), _row("conv", 1.4, 0.4),
                            _row("bad", 3.0, 0.05), _row("tiny", 2.0, 0.001)],
                      unmatched_baseline=[_Unmatched("lost_kernel", 0.05), _Unmatched("noise", 0.0001)])
    est = estimate_cost(ScanResult(root="t"), cmp, _cfg())
    tuning = {i.label: (i.low_hours, i.high_hours) for i in est.items if i.kind == "kernel-tuning"}
    assert tuning == {"mild": (4.0, 16.0), "conv": (12.0, 40.0), "bad": (40.0, 160.0)}
    unmatched = [i.label for i in est.items if i.kind == "unmatched-kernel"]
    assert unmatched == ["lost_kernel"]
    assert any("under 0.5%" in n for n in est.notes)
    assert est.low_hours == pytest.approx(4 + 12 + 40 + 8) and est.high_hours == pytest.approx(16 + 40 + 160 + 40)
    # the tuned kernels keep a second variant: upkeep counts them
    assert sorted(est.upkeep.dual_variant_kernels) == ["bad", "conv", "mild"]


def test_upkeep_lockin_and_break_even():
    scan = ScanResult(root="t", findings=[_f("HG201", "tensor-core", 10.0, kernel="wmma_k")],
                      kernels=[Kernel(name="wmma_k", file="k.cu", line=1, end_line=5)])
    cfg = _cfg(economics__hourly_rate=100, economics__releases_per_year=4, economics__validation_hours_per_release=10,
               economics__tuned_variant_hours_per_year=20, economics__fleet_spend_per_year=1_000_000,
               economics__procurement_leverage=0.05)
    est = estimate_cost(scan, None, cfg)
    assert est.upkeep.validation_hours == 40 and est.upkeep.dual_variant_kernels == ["wmma_k"]
    assert est.upkeep.hours_per_year == 60 and est.upkeep.usd_per_year == 6000
    assert est.lockin_usd_per_year == pytest.approx(50_000)
    assert est.net_usd_per_year == pytest.approx(44_000)
    assert est.break_even_years_low == pytest.approx(500 / 44_000)
    assert est.break_even_years_high == pytest.approx(2000 / 44_000)
    assert "breaks even" in est.break_even
    never = estimate_cost(scan, None, _cfg(economics__fleet_spend_per_year=1000))
    assert never.break_even_years_low is None and "never" in never.break_even


def test_unmapped_library_operators_counted_once_and_not_twice_with_a_finding():
    calls = [ApiCall(file="a.cu", line=5, cuda_name="cudnnBackendExecute", library="cudnn", hip_name=None, status="unsupported"),
             ApiCall(file="a.cu", line=9, cuda_name="cudnnBackendExecute", library="cudnn", hip_name=None, status="unsupported"),
             ApiCall(file="a.cu", line=7, cuda_name="cufftXtExec", library="cufft", hip_name=None, status="unsupported"),
             ApiCall(file="a.cu", line=8, cuda_name="cudaMalloc", library="runtime", hip_name="hipMalloc", status="mapped")]
    scan = ScanResult(root="t", api_calls=calls, findings=[Finding(code="HG606", severity=Severity.BLOCKER, category="library",
                      confidence=Confidence.HIGH, file="a.cu", line=7, message="cufft xt", effort_hours=8)])
    est = estimate_cost(scan, None, _cfg())
    ops = [i.label for i in est.items if i.kind == "library-op"]
    assert ops == ["cudnnBackendExecute"]


def test_every_parameter_has_value_and_origin_and_set_overrides(tmp_path):
    cfg_file = tmp_path / "hipgauge.toml"
    cfg_file.write_text("[economics]\nreleases_per_year = 6\n[cost_model]\nmin_kernel_share = 0.02\n")
    cfg = config_mod.load(cfg_file)
    parse_set(cfg, ["economics.hourly_rate=120", "cost_model.tuning_bands=[[1.5, 1, 2], [9, 3, 4]]"])
    params = parameters(cfg)
    assert (params["economics.hourly_rate"].value, params["economics.hourly_rate"].source) == (120, "flag")
    assert params["economics.releases_per_year"].source == "config" and params["economics.releases_per_year"].origin == str(cfg_file)
    assert params["cost_model.min_kernel_share"].value == 0.02
    assert params["cost_model.finding_low_factor"].source == "default"
    assert params["cost_model.finding_low_factor"].origin.endswith("cost_model.toml")
    assert params["cost_model.tuning_bands"].value == [[1.5, 1, 2], [9, 3, 4]]
    assert all(p.value is not None for p in params.values())
    with pytest.raises(InputError, match="economics.hourly_rat: unknown key"):
        parse_set(cfg, ["economics.hourly_rat=1"])
    with pytest.raises(InputError, match="economics.hourly_rate: must be ≥ 0"):
        parse_set(cfg, ["economics.hourly_rate=-3"])


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    cap = capsys.readouterr()
    return int(exc.value.code or 0), cap.out, cap.err


@pytest.mark.parametrize("body, key, words", [
    ("[economics]\nhourly_rte = 100\n", "economics.hourly_rte", "unknown key"),
    ('[economics]\nhourly_rate = "lots"\n', "economics.hourly_rate", "expected a number"),
    ("[economics]\nvalidation_hours_per_release = -4\n", "economics.validation_hours_per_release", "must be ≥ 0"),
    ("[cost_model]\nunmatched_kernel_hours_high = -1\n", "cost_model.unmatched_kernel_hours_high", "must be ≥ 0"),
    ("[cost_model]\ntuning_bands = [[1.2, 4]]\n", "cost_model.tuning_bands", "must be a list"),
])
def test_config_errors_are_one_line_naming_the_key_exit_2(tmp_path, capsys, body, key, words):
    cfg_file = tmp_path / "hipgauge.toml"
    cfg_file.write_text(body)
    code, out, err = _run(["cost", str(REALISTIC), "--config", str(cfg_file)], capsys)
    assert code == 2
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert key in lines[0] and words in lines[0] and str(cfg_file) in lines[0]
    assert "Traceback" not in err


def test_cost_cli_json_and_set_flag(capsys):
    code, out, _ = _run(["cost", str(REALISTIC), "--set", "economics.hourly_rate=120", "--json"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["schema"] == "hipgauge.cost/1"
    rate = next(p for p in doc["parameters"] if p["name"] == "economics.hourly_rate")
    assert rate == {**rate, "value": 120, "source": "flag"}
    code, _, err = _run(["cost", str(REALISTIC), "--set", "nonsense"], capsys)
    assert code == 2 and "KEY=VALUE" in err


def _cutlass_tree(root: Path) -> None:
    use = "#include <cutlass/gemm/device/gemm.h>\nusing G = cutlass::gemm::device::Gemm<float, float, float>;\n"
    (root / "fwd_a.h").write_text("#pragma once\n" + use)
    (root / "fwd_b.h").write_text("#pragma once\n" + use)
    (root / "common.h").write_text("#pragma once\n" + use)
    (root / "k_fwd.cu").write_text('#include "fwd_a.h"\n#include "fwd_b.h"\n#include "common.h"\n'
                                   "__global__ void f(float* o) { o[0] = 1; }\n")
    (root / "k_bwd.cu").write_text('#include "common.h"\n__global__ void b(float* o) { o[0] = 2; }\n')


def test_library_family_headers_of_the_same_units_are_one_family(tmp_path):
    """DeepSpeed's evoformer attention spreads one CUTLASS kernel over 25 headers; a family per header counted it
    25 times (373-1860 h). Headers the same compiled units include are one family: here fwd_a.h and fwd_b.h (only
    k_fwd.cu) are one, common.h (both units) another."""
    from hipgauge.app.scan import ScanOptions, scan_tree

    _cutlass_tree(tmp_path)
    scan = scan_tree([tmp_path], ScanOptions(workers=1))
    assert scan.dual_target["library_units"]["fwd_a.h"] == ["k_fwd.cu"]
    assert scan.dual_target["library_units"]["common.h"] == ["k_bwd.cu", "k_fwd.cu"]
    fams = [i for i in estimate_cost(scan).items if i.kind == "library-family"]
    assert sorted(i.label for i in fams) == ["HG617 kernel family k_bwd.cu (+1 more units)",
                                             "HG617 kernel family k_fwd.cu"]
    assert "fwd_a.h" in {i.file for i in fams} or "fwd_b.h" in {i.file for i in fams}
    assert all("one family" in i.basis for i in fams)
    scan.dual_target["library_units"] = {}  # without the include graph: one family per header, as before
    assert len([i for i in estimate_cost(scan).items if i.kind == "library-family"]) == 3
