"""The HTML parity table names what each row was paired on (the call signature), as the Markdown does."""

from __future__ import annotations

import copy

from hipgauge.report.html import render_html
from hipgauge.report.markdown import render_markdown

from test_report_render import nasty_assessment


def _with_signatures() -> dict:
    doc = copy.deepcopy(nasty_assessment())
    rows = doc["parity"]["rows"]
    rows[0]["baseline_signatures"] = [{"signature": "aten::conv2d [8,64,56,56]×[64,64,3,3] fp16"}]
    rows[0]["candidate_signatures"] = [{"signature": "aten::conv2d [8,64,56,56]×[64,64,3,3] bf16"}]
    rows[1]["mixed_signatures"] = 3
    rows[2]["baseline_signatures"] = [{"signature": "aten::mm <script>alert(1)</script>"}]
    return doc


def test_html_rows_show_their_signature_like_the_markdown() -> None:
    doc = _with_signatures()
    html, text = render_html(doc), render_markdown(doc)
    assert "aten::conv2d [8,64,56,56]×[64,64,3,3] fp16 → aten::conv2d [8,64,56,56]×[64,64,3,3] bf16" in html
    assert "mixed signatures: 3" in html
    assert "aten::conv2d" in text and "bf16" in text  # the Markdown had it already (escaped for Markdown)


def test_signature_text_is_escaped() -> None:
    html = render_html(_with_signatures())
    assert "aten::mm &lt;" in html and "<script>alert" not in html


def test_rows_without_signatures_add_nothing() -> None:
    doc = copy.deepcopy(nasty_assessment())
    for r in doc["parity"]["rows"]:
        r["baseline_signatures"], r["candidate_signatures"], r["mixed_signatures"] = [], [], 0
    assert "what this row was paired on" not in render_html(doc)
