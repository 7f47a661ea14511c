"""Counter parity in compare (--json counters.baseline / counters.candidate per row, the rule-table diagnosis),
build-check's theoretical occupancy beside the achieved one, and the trio per hot kernel in the reports."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import needs_hipcc, needs_nvcc

from hipgauge.profiles import counter_formulas as cf
from hipgauge.profiles.counters import add_theoretical, diagnose, rules
from hipgauge.profiles.load import load_profile
from hipgauge.profiles.parity import compare_profiles
from hipgauge.report.assessment import build_assessment
from hipgauge.report.html import render_html
from hipgauge.report.markdown import render_markdown

DATA = Path(__file__).resolve().parent / "data" / "counters"
NCU = DATA / "ncu" / "trio_raw.csv"
AMD = DATA / "rocprofv3_mi300x"
REPO = Path(__file__).resolve().parents[1]


def run(*args: str, columns: int = 200) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hipgauge", *args], check=False, capture_output=True, text=True, timeout=120,
                          env={"COLUMNS": str(columns), "PATH": "/usr/bin:/bin"})


def short(label: str) -> str:
    return "vec_add" if "vec_add" in label else "gemm_tile_kernel" if "gemm_tile_kernel" in label else label


def _ncu_launches(path: Path) -> list[dict[str, str]]:
    lines = [ln for ln in path.read_text().splitlines() if ln.startswith('"')]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    return [r for r in rows if r["ID"].strip()]  # the units row has no ID


def _weighted(launches: list[dict[str, str]], metric: str, dur_unit_ns: float) -> float:
    num = den = 0.0
    for r in launches:
        d = float(r["gpu__time_duration.sum"].replace(",", "")) * dur_unit_ns
        num += float(r[metric].replace(",", "")) * d
        den += d
    return num / den


def test_compare_json_carries_the_file_values_and_the_amd_formulas():
    r = run("compare", str(NCU), str(AMD), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    launches = _ncu_launches(NCU)
    rows = {short(row["label"]): row for row in d["rows"]}
    assert set(rows) == {"vec_add", "gemm_tile_kernel"}
    for row in rows.values():
        mine = [x for x in launches if x["Kernel Name"] in row["baseline_names"]]
        assert len(mine) == row["baseline_count"]
        b = row["counters"]["baseline"]
        assert b["achieved_occupancy_pct"] == pytest.approx(
            _weighted(mine, "sm__warps_active.avg.pct_of_peak_sustained_active", 1e3), rel=1e-12)
        assert b["dram_throughput_pct_of_peak"] == pytest.approx(
            _weighted(mine, "dram__throughput.avg.pct_of_peak_sustained_elapsed", 1e3), rel=1e-12)
        assert b["l2_hit_pct"] == pytest.approx(_weighted(mine, "lts__t_sector_hit_rate.pct", 1e3), rel=1e-12)
        for key in ("achieved_occupancy_pct", "dram_throughput_pct_of_peak", "dram_gbps", "l2_hit_pct",
                    "theoretical_occupancy_pct"):
            assert key in b and key in row["counters"]["candidate"]
    # single-launch gemm: the file's own numbers
    gemm = rows["gemm_tile_kernel"]["counters"]
    assert gemm["baseline"]["achieved_occupancy_pct"] == 24.60 and gemm["baseline"]["dram_throughput_pct_of_peak"] == 20.40
    # AMD side by hand: W = 4 × SQ_WAVE_CYCLES / (GRBM_GUI_ACTIVE / 8 XCDs) over 304 CUs × 32 waves
    assert gemm["candidate"]["achieved_occupancy_pct"] == pytest.approx(100 * (4 * 20e6 / (800000 / 8)) / (304 * 32))
    vec = rows["vec_add"]["counters"]["candidate"]
    nbytes = 128 * 80000 + 64 * (100000 - 80000 - 4000) + 32 * 4000 + 64 * 60000 + 32 * (70000 - 60000)
    # duration-weighted GB/s over the two launches (4.0 and 4.2 µs) = total bytes / total time
    assert vec["dram_gbps"] == pytest.approx(2 * nbytes / (4000 + 4200))
    assert vec["dram_throughput_pct_of_peak"] == pytest.approx(100 * (2 * nbytes / 8200) / 5300)
    assert vec["launches"] == vec["launches_with_counters"] == 2
    # diagnoses from the rule table
    assert rows["gemm_tile_kernel"]["counters"]["rule"] == "occupancy-drop"
    assert rows["vec_add"]["counters"]["rule"] == "bandwidth-bound-both"
    assert "bandwidth-bound on both" in rows["vec_add"]["counters"]["diagnosis"]
    # the side sections: where the figures came from
    sec = d["counters"]
    assert sec["baseline"]["basis"]["achieved_occupancy_pct"].startswith("measured: ncu")
    assert sec["candidate"]["basis"]["achieved_occupancy_pct"].startswith("estimated:")
    assert sec["candidate"]["part"]["peak_dram_gbps"] == 5300.0
    assert "mi300x" in sec["candidate"]["part"]["peak_source"].lower() and "https://" in sec["candidate"]["part"]["peak_source"]
    assert sec["rules"].endswith("counter_diagnosis.toml")


def test_compare_terminal_shows_the_trio_and_the_diagnosis():
    r = run("compare", str(NCU), str(AMD))
    assert r.returncode == 0, r.stderr
    assert "occupancy" in r.stdout and "DRAM % peak" in r.stdout
    assert "25% → 8%" in r.stdout  # gemm: 24.6% measured → 8.2% estimated
    assert "bandwidth-bound on both" in r.stdout
    assert "arch_limits.toml [[parts]] AMD Instinct MI300X" in r.stdout


def test_real_detector_raw_page_rows_equal_the_file():
    """compare A A --json on the real detector capture: each row whose launches are all the file's launches of its
    kernel names shows the duration-weighted mean of the file's occupancy values."""
    path = REPO / "examples" / "detector" / "captures" / "detector_ncu_raw.csv"
    r = run("compare", str(path), str(path), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    launches = _ncu_launches(path)
    checked = 0
    for row in d["rows"]:
        mine = [x for x in launches if x["Kernel Name"] in row["baseline_names"]]
        if len(mine) != row["baseline_count"]:
            continue  # launches outside the inferred iterations were left out of this row
        want = _weighted(mine, "sm__warps_active.avg.pct_of_peak_sustained_active", 1e3)
        assert row["counters"]["baseline"]["achieved_occupancy_pct"] == pytest.approx(want, rel=1e-9)
        assert row["counters"]["candidate"]["achieved_occupancy_pct"] == pytest.approx(want, rel=1e-9)
        checked += 1
    assert checked >= 3
    assert "dram__throughput.avg.pct_of_peak_sustained_elapsed" in d["counters"]["baseline"]["collect"]


def test_profiles_without_counters_say_what_to_collect():
    kineto = REPO / "tests" / "data" / "compare" / "det_base.json"
    d = json.loads(run("compare", str(kineto), str(AMD), "--json").stdout)
    assert d["counters"]["baseline"]["launches_with_counters"] == 0
    assert "sm__warps_active.avg.pct_of_peak_sustained_active" in d["counters"]["baseline"]["collect"]
    assert "docs/profiles.md" in d["counters"]["baseline"]["collect"]
    plain = json.loads(run("compare", str(kineto), str(kineto), "--json").stdout)
    assert plain["counters"] is None and all(r["counters"] is None for r in plain["rows"])


# ------------------------------------------------------------------------------------------ rules
def _side(occ=None, dram=None, gbps=None, l2=None, theo=None, limiter=None):
    return {"achieved_occupancy_pct": occ, "dram_throughput_pct_of_peak": dram, "dram_gbps": gbps, "l2_hit_pct": l2,
            "theoretical_occupancy_pct": theo, "limiter": limiter}


@pytest.mark.parametrize("b,c,ratio,rule", [
    (_side(71, 30), _side(24, 20, theo=25, limiter="registers"), 1.4, "occupancy-drop-theoretical"),
    (_side(60, 88), _side(55, 88), 1.3, "bandwidth-bound-both"),
    (_side(71, 30), _side(24, 20), 1.4, "occupancy-drop"),
    (_side(50, 30, 900), _side(48, 80, 4000), 1.2, "bandwidth-bound-candidate"),
    (_side(50, 30, l2=80), _side(48, 35, l2=40), 1.2, "l2-hit-drop"),
    (_side(50, 30, l2=80), _side(48, 35, l2=75), 1.3, "neither"),
    (_side(50, 30), _side(48, 35), 1.02, "same-shape"),
    (_side(), _side(), 1.5, None),
])
def test_diagnosis_rules(b, c, ratio, rule):
    bp = cf.PartLimits(name="NVIDIA H100 SXM", arch="sm_90", peak_dram_gbps=3350.0)
    cp = cf.PartLimits(name="AMD Instinct MI300X", arch="gfx942", peak_dram_gbps=5300.0)
    msg, rid = diagnose({"baseline": b, "candidate": c}, ratio, bp, cp)
    assert rid == rule
    if rule == "occupancy-drop-theoretical":
        assert msg == "achieved occupancy 71% → 24% and theoretical 25% on gfx942: VGPRs limit waves; see build-check"
    if rule == "bandwidth-bound-both":
        assert msg.startswith("DRAM 88% → 88% of peak: bandwidth-bound on both; the ratio follows the parts' bandwidth")
        assert "3350 vs 5300 GB/s" in msg


def test_every_rule_parses_and_names_known_figures():
    known = {"ratio", "b_occ", "c_occ", "b_theo", "c_theo", "b_dram", "c_dram", "b_gbps", "c_gbps", "b_l2", "c_l2",
             "b_peak", "c_peak", "bw_ratio", "b_arch", "c_arch", "b_part", "c_part", "b_limiter", "c_limiter"}
    import ast
    import string

    ids = [r["id"] for r in rules()]
    assert len(ids) == len(set(ids))
    for r in rules():
        names = {n.id for n in ast.walk(ast.parse(r["when"], mode="eval")) if isinstance(n, ast.Name)}
        assert names <= known, r["id"]
        fields = {f[1] for f in string.Formatter().parse(r["message"]) if f[1]}
        assert fields <= known, r["id"]


def test_build_check_theoretical_occupancy_beside_achieved():
    base, cand = load_profile(NCU), load_profile(AMD)
    result = compare_profiles(base, cand)
    bc = {"kernels": [{"kernel": "gemm_tile_kernel", "occupancy": {
        "sm_90": {"occupancy": 0.25, "limiter": "registers"},
        "gfx942": {"occupancy": 0.125, "limiter": "registers"}}}]}
    assert add_theoretical(result, bc) == 2
    row = next(r for r in result.rows if short(r.label) == "gemm_tile_kernel")
    assert row.counters["candidate"]["theoretical_occupancy_pct"] == 12.5
    assert row.counters["baseline"]["theoretical_occupancy_pct"] == 25.0
    assert row.counters["rule"] == "occupancy-drop-theoretical"
    assert row.counters["diagnosis"] == ("achieved occupancy 25% → 8% and theoretical 12% on gfx942: VGPRs limit "
                                         "waves; see build-check")
    vec = next(r for r in result.rows if short(r.label) == "vec_add")
    assert vec.counters["candidate"]["theoretical_occupancy_pct"] is None  # build-check did not see it


# ------------------------------------------------------------------------------------------ reports
def test_assessment_html_and_markdown_show_the_trio_per_hot_kernel():
    result = compare_profiles(load_profile(NCU), load_profile(AMD))
    doc = build_assessment(comparison=result, inputs={"baseline": str(NCU), "candidate": str(AMD)})
    hot = doc["parity"]["hot_kernels"]
    assert [short(h["label"]) for h in hot] == ["gemm_tile_kernel", "vec_add"]  # by share of baseline time
    assert hot[0]["ratio"] == pytest.approx(80000 / 52000)
    assert hot[0]["occupancy"] == "25% → 8%" and hot[0]["dram_pct"] == "20% → 1%"
    assert hot[0]["baseline"]["achieved_occupancy_pct"] == 24.6
    html = render_html(doc)
    assert "Hot kernels: time, occupancy, memory throughput" in html
    assert "25% → 8%" in html and "fewer waves in flight on the candidate" in html
    assert "<th class=\"n\">achieved occupancy</th>" in html  # also beside the ratio in the all-rows table
    text = render_markdown(doc)
    assert "| kernel / operator | match | share | baseline ms | candidate ms | ratio | achieved occupancy | DRAM % of peak |" in text
    assert "### Hot kernels: time, occupancy, memory throughput" in text
    assert "25% → 8%" in text
    assert "bandwidth-bound on both" in text


def test_assess_cli_report_shows_the_trio(tmp_path: Path):
    out = tmp_path / "report"
    r = run("assess", str(REPO / "tests" / "data" / "realistic"), "--baseline", str(NCU), "--candidate", str(AMD),
            "--no-build-check", "-o", str(out))
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "assessment.json").read_text())
    hot = doc["parity"]["hot_kernels"]
    assert [short(h["label"]) for h in hot] == ["gemm_tile_kernel", "vec_add"]
    assert hot[0]["baseline"]["achieved_occupancy_pct"] == 24.6
    assert hot[1]["diagnosis"].startswith("DRAM 87% → 72% of peak: bandwidth-bound on both")
    html = (out / "index.html").read_text()
    assert 'id="hot-kernels"' in html and "25% → 8%" in html and "87% → 72%" in html
    md = (out / "report.md").read_text()
    assert "Hot kernels: time, occupancy, memory throughput" in md and "25% → 8%" in md


@needs_hipcc
@needs_nvcc
def test_assess_with_build_check_puts_theoretical_beside_achieved(tmp_path: Path):
    """A real build-check (hipcc and nvcc) of the two kernels of the written profiles: the candidate's theoretical
    occupancy on the CDNA3 target sits beside the achieved figure, and the diagnosis names its limiter."""
    out = tmp_path / "report"
    r = run("assess", str(DATA / "src"), "--baseline", str(NCU), "--candidate", str(AMD), "-o", str(out))
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "assessment.json").read_text())
    bc = {k["kernel"].split("(")[0].split()[-1]: k for k in doc["build_check"]["kernels"]}
    gemm_bc = bc["gemm_tile_kernel"]["occupancy"]
    cdna3 = next(a for a in ("gfx942", "gfx940") if a in gemm_bc)
    hot = {short(h["label"]): h for h in doc["parity"]["hot_kernels"]}
    gemm = hot["gemm_tile_kernel"]
    assert gemm["candidate"]["theoretical_occupancy_pct"] == pytest.approx(100 * gemm_bc[cdna3]["occupancy"])
    assert f"theoretical {100 * gemm_bc[cdna3]['occupancy']:.0f}% on {cdna3}" in gemm["diagnosis"]
    assert "LDS limit waves" in gemm["diagnosis"]
    assert f"(theor. {100 * gemm_bc[cdna3]['occupancy']:.0f}%)" in (out / "index.html").read_text()


def test_compare_takes_a_build_check_document(tmp_path: Path):
    bc = tmp_path / "bc.json"
    bc.write_text(json.dumps({"schema": "hipgauge.build-check/1", "kernels": [
        {"kernel": "gemm_tile_kernel", "occupancy": {"gfx942": {"occupancy": 0.25, "limiter": "registers"}}}]}))
    d = json.loads(run("compare", str(NCU), str(AMD), "--build-check", str(bc), "--json").stdout)
    gemm = next(r for r in d["rows"] if short(r["label"]) == "gemm_tile_kernel")["counters"]
    assert gemm["candidate"]["theoretical_occupancy_pct"] == 25.0
    assert gemm["diagnosis"] == ("achieved occupancy 25% → 8% and theoretical 25% on gfx942: VGPRs limit waves; "
                                 "see build-check")
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    r = run("compare", str(NCU), str(AMD), "--build-check", str(bad))
    assert r.returncode == 2 and str(bad) in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
