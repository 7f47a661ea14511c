"""The report renderers: escaping of every trace/source value, and the atomic report writer."""

from __future__ import annotations

import importlib.util
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from hipgauge.decide.cost import estimate_cost
from hipgauge.decide.rubric import decide
from hipgauge.errors import InputError
from hipgauge.model import ApiCall, Confidence, Finding, Kernel, ScanResult, Severity
from hipgauge.profiles.parity import compare_profiles
from hipgauge.profiles.projection import project_baseline
from hipgauge.report.assessment import build_assessment
from hipgauge.report.charts import short_name
from hipgauge.report.html import render_html
from hipgauge.report.markdown import fence, md, render_markdown
from hipgauge.report.writer import text_writer, write_report

_spec = importlib.util.spec_from_file_location("report_profiles", Path(__file__).parent / "data" / "report" / "report_profiles.py")
rp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rp)  # type: ignore[union-attr]
NASTY = rp.NASTY


def nasty_assessment() -> dict:
    """An assessment where every name that comes from a trace or a source file is hostile."""
    scan = ScanResult(
        root=f"/src/{NASTY}", files=[f"{NASTY}.cu"], lines_scanned=10,
        kernels=[Kernel(name=NASTY, file=f"{NASTY}.cu", line=3, end_line=9)],
        api_calls=[ApiCall(file=f"{NASTY}.cu", line=4, cuda_name=NASTY, library="cudnn", hip_name=None, status="unsupported")],
        findings=[Finding(code="HG106", severity=Severity.WRONG_RESULTS, category="warp", confidence=Confidence.HIGH,
                          file=f"{NASTY}.cu", line=5, message=f"shuffle in {NASTY}", kernel=NASTY, fix=NASTY,
                          effort_hours=2, snippet=f"x = __shfl_xor_sync(0xffffffff, v, 16); // ``` {NASTY}")])
    base = rp.worked_baseline(extra=[(NASTY, 0.5, NASTY)])
    cand = rp.worked_candidate(extra=[(NASTY + "_amd", 0.7, None)])
    comparison = compare_profiles(base, cand, target_ms=20.0)
    projection = project_baseline(base, 20.0, 99.0, assume={"conv*": 1.4})
    cost = estimate_cost(scan, comparison)
    decision = decide(scan, comparison, projection, baseline=base, cost=cost)
    return build_assessment(scan=scan, comparison=comparison, projection=projection, decision=decision, cost=cost,
                            build_check={"status": "not run", "reason": NASTY}, inputs={"source": NASTY, "baseline": NASTY},
                            stages=[{"name": "scan", "status": "ok", "reason": NASTY, "seconds": 0.1}], warnings=[NASTY])


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)


def test_html_escapes_every_trace_and_source_value():
    doc = nasty_assessment()
    html = render_html(doc)
    assert "<script" not in html.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    # the template text is shown, never evaluated (the page's own timestamp may hold a "49", so look at cells only)
    assert "{{ 7*7 }}" in html and not re.search(r">\s*49\s*<", html)
    parser = _Tags()
    parser.feed(html)
    assert "script" not in parser.tags
    assert not any(k.startswith("on") for k, _ in parser.attrs)  # no event-handler attributes anywhere
    assert parser.tags.count("svg") >= 2  # parity and slack charts are inline
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in html


def test_markdown_escapes_and_fences_code():
    doc = nasty_assessment()
    text = render_markdown(doc)
    assert "&lt;script&gt;" in text
    fenced = re.findall(r"^(`{3,})cuda$", text, flags=re.M)
    assert fenced and all(len(f) >= 4 for f in fenced)  # longer than the ``` inside the snippet
    # outside code fences, every backtick and pipe from a name is escaped
    outside = re.sub(r"^(`{3,})cuda\n.*?\n\1$", "", text, flags=re.M | re.S)
    assert not re.search(r"(?<!\\)`", outside)
    assert "<script>" not in outside  # inside a fence it is literal code text, which Markdown never interprets
    for line in outside.splitlines():
        if line.startswith("|") and "alert(1)" in line.replace("\\", ""):
            assert "\\|\\*\\_" in line


def test_md_and_fence_helpers():
    assert md("a|b`c<d>") == "a\\|b\\`c&lt;d&gt;"
    assert md("line1\nline2") == "line1 line2"
    assert fence("x ```` y").startswith("`````")


def test_short_names_keep_both_ends():
    name = "void at::native::vectorized_elementwise_kernel<8, at::native::clamp_min_scalar_kernel_impl>(int, float)"
    short = short_name(name)
    assert len(short) <= 44 and "<…>" in short and "(" not in short
    assert short_name("k") == "k"


def test_assessment_document_shape():
    doc = nasty_assessment()
    assert doc["schema"] == "hipgauge.assessment/1"
    assert set(doc["headline"]) == {"translation_share", "parity", "hours_to_close", "lockin_minus_upkeep", "caveat",
                                    "amd"}
    assert doc["parity"]["rows"] and doc["slack"]["groups"]
    assert json.loads(json.dumps(doc)) == doc
    assert {p["source"] for p in doc["provenance"]} <= {"measured", "estimated", "assumed", "default", "unknown", "config"}


# ---------------------------------------------------------------------------------------------- writer


def _renderers(tag: str, fail_at: str | None = None) -> dict:
    def make(name: str):
        def render() -> str:
            if name == fail_at:
                raise RuntimeError("boom while rendering")
            return json.dumps({"schema": "hipgauge.assessment/1", "tag": tag}) if name == "assessment.json" else f"{name} {tag}"
        return text_writer(render)
    return {n: make(n) for n in ("assessment.json", "report.md", "index.html", "findings.sarif")}


def test_rerun_replaces_folder_and_failure_leaves_old_report_intact(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    out = tmp_path / "report"
    write_report(out, _renderers("one"), [src])
    assert (out / "report.md").read_text() == "report.md one"
    write_report(out, _renderers("two"), [src])
    assert (out / "report.md").read_text() == "report.md two"
    before = {p.name: p.read_text() for p in out.iterdir()}
    with pytest.raises(RuntimeError, match="boom"):
        write_report(out, _renderers("three", fail_at="index.html"), [src])
    assert {p.name: p.read_text() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report", "src"]  # no temporary folder left behind
    # a first run that fails leaves nothing
    with pytest.raises(RuntimeError):
        write_report(tmp_path / "fresh", _renderers("x", fail_at="report.md"), [src])
    assert not (tmp_path / "fresh").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report", "src"]


def test_writer_refuses_folders_overlapping_the_source_or_not_a_report(tmp_path):
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.cu").write_text("__global__ void k() {}\n")
    for bad in (src, src / "sub", src / "report", tmp_path):
        with pytest.raises(InputError):
            write_report(bad, _renderers("x"), [src])
    assert (src / "a.cu").read_text() == "__global__ void k() {}\n" and sorted(p.name for p in src.iterdir()) == ["a.cu", "sub"]
    other = tmp_path / "notes"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    with pytest.raises(InputError, match="not a hipgauge report"):
        write_report(other, _renderers("x"), [src])
    assert (other / "keep.txt").read_text() == "mine"
