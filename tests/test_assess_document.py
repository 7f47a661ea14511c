"""The assessment document's additions: findings_by_code, parity counts, operators, unmatched lists, workloads."""

from __future__ import annotations

import json

import pytest

import hipgauge.report.assessment as assessment_mod
from hipgauge.model import Confidence, Finding, ScanResult, Severity
from hipgauge.profiles.parity import compare_profiles
from hipgauge.report.assessment import build_assessment
from hipgauge.report.html import render_html
from hipgauge.report.markdown import render_markdown
from hipgauge.store.gate import rows_against_last
from hipgauge.store.record import record_from_document

from test_assess_cli import _run, rp


def _scan(n_warp: int, n_info: int) -> ScanResult:
    def f(code: str, sev: Severity, i: int) -> Finding:
        return Finding(code=code, severity=sev, category="warp", confidence=Confidence.HIGH, file="a.cu", line=i,
                       message="m")
    findings = [f("HG101", Severity.BLOCKER, i) for i in range(n_warp)] + [f("HG900", Severity.INFO, i) for i in range(n_info)]
    return ScanResult(root="/src", files=["a.cu"], findings=findings)


def test_findings_by_code_counts_all_findings_not_only_those_kept(monkeypatch):
    monkeypatch.setattr(assessment_mod, "MAX_FINDINGS", 5)
    doc = build_assessment(scan=_scan(4, 9))
    scan = doc["scan"]
    assert len(scan["findings"]) == 5 and scan["findings_truncated"] == 8
    assert scan["findings_by_code"] == [{"code": "HG900", "count": 9, "severity": "info", "notes": 0},
                                        {"code": "HG101", "count": 4, "severity": "blocker", "notes": 0}]
    # the history store takes these complete counts
    assert record_from_document(doc).findings == {"HG101": ("blocker", 4), "HG900": ("info", 9)}


def _compare_doc(extra_base: int = 0, extra_cand: int = 0) -> dict:
    base = rp.worked_baseline(extra=[(f"base_only_kernel_{i}", 0.01, None) for i in range(extra_base)])
    cand = rp.worked_candidate(1.4, extra=[(f"cand_only_kernel_{i}", 0.01, None) for i in range(extra_cand)])
    return build_assessment(comparison=compare_profiles(base, cand, target_ms=20.0))


def test_parity_rows_carry_launch_counts_the_gate_reads():
    doc = _compare_doc()
    rows = doc["parity"]["rows"]
    assert rows and all(r["baseline_count"] == r["candidate_count"] and r["baseline_count"] in (10, 20) for r in rows)
    assert max(r["baseline_count"] for r in rows) == 20  # the two convolutions, matched at the operator level
    entries = record_from_document(doc).parity
    assert [(e.baseline_count, e.candidate_count) for e in entries] == [(r["baseline_count"], r["candidate_count"]) for r in rows]
    # gate --against-last compares per launch when the stored rows are totals: it needs candidate_count
    from hipgauge.store.record import AssessmentRecord

    last = AssessmentRecord(project="p", recorded_at=__import__("datetime").datetime(2026, 1, 1), parity=entries)
    gate_rows, basis, _ = rows_against_last(last, rp.worked_candidate(1.4))
    exact = [r for r in gate_rows if r.match != "operator"]
    assert exact and all(r.ratio == pytest.approx(1.0) for r in exact)
    assert doc["parity"]["per_iteration"] is True and "per iteration" in doc["parity"]["time_basis"]


def test_operator_table_and_unmatched_lists_are_never_dropped():
    doc = _compare_doc(extra_base=31, extra_cand=27)
    parity = doc["parity"]
    assert len(parity["unmatched_baseline"]) == 31 and len(parity["unmatched_candidate"]) == 27
    assert all(u["ns"] == pytest.approx(10_000) for u in parity["unmatched_baseline"])
    ops = {o["operator"]: o for o in parity["operators"]}
    assert "aten::cudnn_convolution" in ops or any("conv" in k for k in ops)
    html, text = render_html(doc), render_markdown(doc)
    for page in (html, text):
        assert "… and 6 more kernels, all in assessment.json." in page  # 31 − 25 shown
        assert "… and 2 more kernels, all in assessment.json." in page  # 27 − 25
        assert "Per operator" in page
    assert "base_only_kernel_0" in html and "cand_only_kernel_0" in text  # #17 row 15: no escape inside a word


def test_demo_report_has_the_torchvision_workload_as_a_separate_section(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(["demo", "--no-build-check", "-o", str(tmp_path / "rep")], capsys)
    assert code == 0, err
    doc = json.loads((tmp_path / "rep" / "assessment.json").read_text())
    if not doc["workloads"]:
        pytest.skip("torchvision capture not in this checkout")
    w = doc["workloads"][0]
    assert "torchvision" in w["name"] and "separate" in w["name"]
    assert w["target_ms"] == 30.0 and "stated" in w["target_from"]
    assert any("host-bound" in n and "Random weights" in n for n in w["notes"])
    conv = next(g for g in w["slack"]["groups"] if g["name"] == "convolution")
    p = w["slack"]["projection"]
    assert p["percentile"] == 99.0 and p["iterations"] >= 200
    # the capture is a Kineto trace: slack comes from the timeline replay (issue #13), and on this host-bound
    # workload a slower convolution first fills the time the GPU waits on the host: more than the linear formula
    assert w["slack"]["slack_method"] == "timeline replay, bisection"
    assert conv["max_ratio"] > 1 + (30.0 - p["baseline_ms"]) / conv["time_ms"]
    html = (tmp_path / "rep" / "index.html").read_text()
    md = (tmp_path / "rep" / "report.md").read_text()
    assert 'id="workloads"' in html and "Other workloads (separate from the code base above)" in html
    assert "## Other workload: torchvision" in md and "host-bound" in md
    # the main workload is untouched by it: its slack and headline are still the detector's
    assert doc["slack"]["projection"]["target_ms"] == 2.7


def test_amd_build_leads_and_truncation_is_said(monkeypatch):
    """A tree that already builds for AMD: the headline leads with it; a cut findings list says what it left out;
    a rule's severity is its worst finding that is not a zero-hour note."""
    from dataclasses import replace

    scan = _scan(2, 400)
    note = replace(scan.findings[0], code="HG202", severity=Severity.INFO, branch="cuda-only", effort_hours=0.0)
    worst = replace(scan.findings[0], code="HG202", severity=Severity.BLOCKER, line=99)
    scan = replace(scan, findings=[note, *scan.findings, worst],
                   dual_target={"builds_for_amd": True, "amd_build_evidence": ["build: CMakeLists.txt:10-20"],
                                "amd_headline": "This tree already builds for AMD (build: CMakeLists.txt:10-20)"})
    doc = build_assessment(scan=scan)
    assert doc["headline"]["amd"]["builds_for_amd"] is True
    by_code = {c["code"]: c for c in doc["scan"]["findings_by_code"]}
    assert by_code["HG202"]["severity"] == "blocker" and by_code["HG202"]["notes"] == 1
    text = render_markdown(doc)
    assert text.index("This tree already builds for AMD") < text.index("## The three measurements")
    assert "the 300 most severe of the 404 findings (104 left out" in text
    assert "This tree already builds for AMD" in render_html(doc)
