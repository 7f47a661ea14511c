"""The compare and project commands end to end: --json keys, exit codes, rendered tables."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data" / "compare"
BASE = DATA / "det_base.json"
CAND = DATA / "det_cand.json"
LAT = DATA / "det_base_latency_ms.csv"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hipgauge", *args], capture_output=True, text=True, timeout=120,
                          env={"COLUMNS": "100", "PATH": "/usr/bin:/bin"})


def test_compare_json_worked_example_measured_case():
    r = run("compare", str(BASE), str(CAND), "--latency-csv", str(LAT), "--target-ms", "20", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["schema"] == "hipgauge.compare/1"
    row = d["rows"][0]
    for key in ("baseline_ns", "candidate_ns", "ratio", "match"):
        assert key in row
    assert row["match"] == "operator" and row["ratio"] == pytest.approx(1.4)
    assert any("igemm_fwd" in n for n in row["candidate_names"])
    assert d["coverage"]["baseline_time_matched"] == pytest.approx(1.0)
    p = d["projection"]
    for key in ("baseline_ms", "projected_ms", "target_ms", "percentile"):
        assert key in p
    assert p["source"] == "estimated" and p["meets_target"] is False and p["target_ms"] == 20
    assert p["projected_ms"] == pytest.approx(p["baseline_ms"] + 4.8, rel=1e-6)
    assert d["totals"]["per_iteration"] is True


def test_compare_human_output_exit_0_even_when_target_missed():
    r = run("compare", str(BASE), str(CAND), "--latency-csv", str(LAT), "--target-ms", "20")
    assert r.returncode == 0, r.stderr
    assert "misses the 20 ms target" in r.stdout
    assert "coverage" in r.stdout and "unmatched baseline kernels" in r.stdout
    assert "estimated" in r.stdout


def test_project_json_and_human():
    r = run("project", str(BASE), "--latency-csv", str(LAT), "--target-ms", "20", "--assume", "conv*=1.4", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["schema"] == "hipgauge.project/1"
    conv = next(g for g in d["groups"] if g["name"] == "convolution")
    for key in ("name", "share", "max_ratio"):
        assert key in conv
    assert 1.0 < conv["max_ratio"] < 1.4
    p = d["projection"]
    assert p["meets_target"] is False and p["percentile"] == 99
    for key in ("baseline_ms", "projected_ms", "target_ms", "percentile"):
        assert key in p
    h = run("project", str(BASE), "--latency-csv", str(LAT), "--target-ms", "20")
    assert h.returncode == 0 and "convolution" in h.stdout and "max slowdown" in h.stdout


def test_project_without_latency_csv_says_iterations_too_few():
    r = run("project", str(BASE), "--target-ms", "20")
    assert r.returncode == 0, r.stderr
    assert "P99 needs ≥100" in r.stdout


@pytest.mark.parametrize("assume", ["conv*", "conv*=x", "conv*=-2"])
def test_project_bad_assume_exit_2_one_line(assume: str):
    r = run("project", str(BASE), "--target-ms", "20", "--assume", assume)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "--assume" in r.stderr


def test_compare_bad_map_exit_2_names_file(tmp_path: Path):
    bad = tmp_path / "map.toml"
    bad.write_text("[[map]]\nbaseline = 3\n", encoding="utf-8")
    r = run("compare", str(BASE), str(CAND), "--map", str(bad))
    assert r.returncode == 2 and "map.toml" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_compare_user_map_level(tmp_path: Path):
    m = tmp_path / "map.toml"
    m.write_text('[[map]]\nbaseline = "sm90_xmma_gemm*"\ncandidate = "Cijk_*"\n', encoding="utf-8")
    r = run("compare", str(BASE), str(CAND), "--map", str(m), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert any(row["match"] == "user-map" for row in d["rows"]) and d["user_map"] == str(m)


def test_compare_missing_file_exit_2(tmp_path: Path):
    r = run("compare", str(tmp_path / "nope.json"), str(CAND))
    assert r.returncode == 2 and "nope.json" in r.stderr


def test_compare_bad_percentile_exit_2():
    r = run("compare", str(BASE), str(CAND), "--percentile", "150")
    assert r.returncode == 2 and "--percentile" in r.stderr


def test_compare_real_bert_pair_json(real_dir: Path):
    d = real_dir / "pytorch_kineto" / "tracelens_pairs"
    name = "gaunernst_bert-small-uncased__1016001.json.gz"
    r = run("compare", str(d / "h100" / name), str(d / "mi300" / name), "--json", "--target-ms", "5")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["coverage"]["baseline_time_matched"] >= 0.95
    assert doc["baseline"]["vendor"] == "nvidia" and doc["candidate"]["vendor"] == "amd"
    attn = [row for row in doc["rows"] if "attn_fwd" in row["candidate_names"]]
    assert attn and attn[0]["match"] == "operator"
    assert doc["projection"]["enough_iterations"] is False


def test_shorten_keeps_both_ends():
    from hipgauge.report.compare_terminal import shorten

    s = shorten("a" * 50 + "MIDDLE" + "z" * 50, 21)
    assert len(s) == 21 and s.startswith("aaaa") and s.endswith("zzzz") and "…" in s
    assert shorten("short", 21) == "short"
