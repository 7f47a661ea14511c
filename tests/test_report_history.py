"""History in the report: per-kernel ratio trends from the history store, the toolchain change at each step."""

from __future__ import annotations

import json
import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from hipgauge.cli import main
from hipgauge.report.assessment import history_section
from hipgauge.report.html import render_html
from hipgauge.report.markdown import render_markdown
from hipgauge.store import HistoryStore

HERE = Path(__file__).parent
REALISTIC = HERE / "data" / "realistic"
COMPARE = HERE / "data" / "compare"


def _doc(ratio: float, rocm: str) -> dict:
    """A hand-made assessment document (the parts the store reads)."""
    return {"schema": "hipgauge.assessment/1", "project": "detector", "toolchain": {"rocm": rocm},
            "parity": {"rows": [
                {"label": "decode_boxes_kernel", "match": "exact", "baseline_ms": 1.2, "candidate_ms": 1.2 * ratio,
                 "ratio": ratio, "share": 0.6, "baseline_count": 5, "candidate_count": 5},
                {"label": "<b>nasty</b>_kernel", "match": "exact", "baseline_ms": 0.4, "candidate_ms": 0.42,
                 "ratio": 1.05, "share": 0.2, "baseline_count": 5, "candidate_count": 5}]}}


def _store(tmp_path: Path) -> HistoryStore:
    store = HistoryStore(tmp_path / "h.duckdb")
    store.record(_doc(1.04, "6.2"), {"date": "2026-01-05T10:00:00"})
    store.record(_doc(1.31, "6.3"), {"date": "2026-02-09T10:00:00", "commit": "ab" * 20})
    return store


def test_history_section_html_trend_plot_and_markdown_table(tmp_path):
    store = _store(tmp_path)
    hist = history_section(store.trend(project="detector"), str(store.path), 2, "detector", current_id=2)
    decode = next(k for k in hist["kernels"] if k["label"] == "decode_boxes_kernel")
    assert [p["ratio"] for p in decode["points"]] == pytest.approx([1.04, 1.31])
    assert decode["points"][1]["changes"] == ["ROCm 6.2 → 6.3"]
    from test_assess_cli import worked_example_doc

    doc = worked_example_doc()
    doc["history"] = hist
    html = render_html(doc)
    section = html[html.index('<section id="history">'):html.index("</section>", html.index('<section id="history">'))]
    assert section.count("<svg") == 2  # one trend plot per kernel, inline
    assert "ROCm 6.2 → 6.3" in section and "1.31×" in section and "step 1.26×" in section
    assert "&lt;b&gt;nasty&lt;/b&gt;" in section and "<b>nasty" not in section
    assert "http://" not in section.replace('xmlns="http://www.w3.org/2000/svg"', "")
    text = render_markdown(doc)
    assert "## History across toolchain releases" in text
    row = next(line for line in text.splitlines() if line.startswith("| decode_boxes_kernel") and "#2" in line)
    assert "1.310" in row and "ROCm 6.2 → 6.3" in row and "1.260×" in row


def _run(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    cap = capsys.readouterr()
    return int(exc.value.code or 0), cap.out, cap.err


def test_assess_with_db_shows_trends_ending_at_this_assessment(tmp_path, capsys):
    if not (COMPARE / "det_base.json").exists():
        pytest.skip("compare fixtures not present")
    src = tmp_path / "detector"
    shutil.copytree(REALISTIC, src)
    db = tmp_path / "hist.duckdb"
    argv = ["assess", str(src), "--baseline", str(COMPARE / "det_base.json"), "--candidate", str(COMPARE / "det_cand.json"),
            "--target-ms", "20", "--no-build-check", "--db", str(db), "-o", str(tmp_path / "r1")]
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    first = json.loads((tmp_path / "r1" / "assessment.json").read_text())
    assert first["history"]["assessments"] == 1 and first["history"]["current_assessment_id"] == 1
    # an earlier assessment "made" with a ROCm recorded, then this run: the report shows three points per kernel
    store = HistoryStore(db)
    rec = store.last()
    rec.id, rec.toolchain = None, {**rec.toolchain, "rocm": "6.3.1"}
    rec.recorded_at = rec.recorded_at - timedelta(days=1)
    store.record(rec)
    argv[-1] = str(tmp_path / "r2")
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    doc = json.loads((tmp_path / "r2" / "assessment.json").read_text())
    hist = doc["history"]
    assert hist["assessments"] == 3 and hist["current_assessment_id"] == 3 and hist["project"] == "detector"
    top = hist["kernels"][0]
    assert [p["assessment_id"] for p in top["points"]] == [2, 1, 3]  # by date
    assert top["points"][1]["changes"] == ["ROCm 6.3.1 → (not recorded)"]
    assert top["points"][-1]["ratio"] == pytest.approx(1.4)  # the conv operator's two rows, summed
    html = (tmp_path / "r2" / "index.html").read_text()
    assert 'id="history"' in html and "ROCm 6.3.1 → (not recorded)" in html
    assert "## History across toolchain releases" in (tmp_path / "r2" / "report.md").read_text()


def test_no_store_no_history_section(capsys, tmp_path):
    from test_assess_cli import worked_example_doc

    doc = worked_example_doc()
    assert doc["history"] is None
    assert 'id="history"' not in render_html(doc) and "History across" not in render_markdown(doc)
