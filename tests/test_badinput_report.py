"""Report safety end to end: hostile file names, kernel names and source excerpts through ``assess``.

Extends the renderer tests in test_report_render.py (which feed the renderers a hand-made document): here
the names come from a real scan of a tree whose file name holds ``<script>``, quotes, a backtick and a pipe.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser

from test_badinput_support import assert_ok, run_cli

NAME = "e<script>alert(1)</script>|`q'&.cu".replace("/", "_")


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.scripts: list[str] = []
        self._in = False

    def handle_starttag(self, tag, attrs):
        self._in = tag == "script"

    def handle_data(self, data):
        if self._in:
            self.scripts.append(data)

    def handle_endtag(self, tag):
        self._in = False


def test_hostile_names_are_escaped_in_every_report(tmp_path, capsys):
    src = tmp_path / "src"
    src.mkdir()
    (src / NAME).write_text(
        "template <typename T, int N> __global__ void k_lt_gt(T* p) {  // <script>alert(2)</script> | `tick`\n"
        "  p[0] = __shfl_down_sync(0xffffffff, p[0], 1); /* </textarea><img src=x onerror=alert(3)> */\n}\n"
        "void run(float* p) { k_lt_gt<float, 4><<<1, 32>>>(p); cudaMalloc(&p, 4); }\n")
    out = tmp_path / "report"
    assert_ok(run_cli(["assess", src, "-o", out, "--no-build-check"], capsys))
    html = (out / "index.html").read_text()
    assert "<script>alert" not in html and "<img src=x" not in html
    tags = _Tags()
    tags.feed(html)
    assert not any("alert(" in s for s in tags.scripts)  # the report's own scripts never carry the names raw
    md = (out / "report.md").read_text()
    rows = [ln for ln in md.splitlines() if "alert(1)" in ln or "alert\\(1\\)" in ln]
    assert rows, "the hostile file is named in report.md"
    for line in rows:
        assert "<script>" not in line, line
        assert "|`q" not in line, line  # the name's pipe and backtick are escaped (\\|\\`), not table/code syntax
    sarif = json.loads((out / "findings.sarif").read_text())
    uris = [loc["physicalLocation"]["artifactLocation"]["uri"]
            for run in sarif.get("runs", []) for res in run.get("results", []) for loc in res.get("locations", [])]
    assert uris, "the hostile file's findings are in the SARIF"
    assert all("<" not in u and " " not in u and "`" not in u for u in uris), uris
