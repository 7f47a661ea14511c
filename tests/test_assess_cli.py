"""assess / decide / demo end to end: the worked example, the four files, the browser check."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import shutil
from pathlib import Path

import pytest

from conftest import needs_chromium
from hipgauge.cli import main
from hipgauge.decide.cost import estimate_cost
from hipgauge.decide.rubric import decide
from hipgauge.profiles.parity import compare_profiles
from hipgauge.profiles.projection import project_baseline
from hipgauge.report.assessment import build_assessment
from hipgauge.report.html import render_html
from hipgauge.report.markdown import render_markdown

HERE = Path(__file__).parent
REALISTIC = HERE / "data" / "realistic"
COMPARE = HERE / "data" / "compare"
_spec = importlib.util.spec_from_file_location("report_profiles", HERE / "data" / "report" / "report_profiles.py")
rp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rp)  # type: ignore[union-attr]
FOUR = {"index.html", "report.md", "assessment.json", "findings.sarif"}


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    cap = capsys.readouterr()
    return int(exc.value.code or 0), cap.out, cap.err


def worked_example_doc() -> dict:
    base = rp.worked_baseline()
    projection = project_baseline(base, 20.0, 99.0, assume={"conv*": 1.4})
    comparison = compare_profiles(base, rp.worked_candidate(1.4), target_ms=20.0)
    cost = estimate_cost(None, comparison)
    return build_assessment(projection=projection, comparison=comparison, cost=cost,
                            decision=decide(None, comparison, projection, baseline=base, cost=cost),
                            inputs={"source": "worked example", "baseline": "det_base", "candidate": "det_cand"})


def test_worked_example_conv_at_1_4x_breaks_the_20ms_target_and_says_what_it_could_take():
    doc = worked_example_doc()
    conv = next(g for g in doc["slack"]["groups"] if "conv" in g["name"])
    assert conv["share"] == pytest.approx(0.75) and conv["time_ms"] == pytest.approx(12.0)
    L = doc["slack"]["projection"]["baseline_ms"]
    assert conv["max_ratio"] == pytest.approx(1 + (20.0 - L) / 12.0, rel=1e-6)
    assert 1.1 < conv["max_ratio"] < 1.4
    at = {w["ratio"]: w for w in conv["whatif"]}
    assert at[1.4]["meets_target"] is False and at[1.05]["meets_target"] is True
    assert doc["parity"]["projection"]["meets_target"] is False
    worst = doc["headline"]["parity"]["worst"]
    assert worst["ratio"] == pytest.approx(1.4)
    html, text = render_html(doc), render_markdown(doc)
    max_r = f"{conv['max_ratio']:.3f}×"
    assert max_r in html and max_r in text
    assert "misses the target" in html and "misses the target" in text
    row = next(line for line in text.splitlines() if line.startswith("| convolution"))
    assert "✗" in row.split("|")[-3]  # the 1.4× column: over the target


def test_assess_cli_writes_four_files_and_reruns(tmp_path, capsys):
    base = COMPARE / "det_base.json"
    if not base.exists():
        pytest.skip("compare fixtures not present")
    out = tmp_path / "report"
    argv = ["assess", str(REALISTIC), "--baseline", str(base), "--candidate", str(COMPARE / "det_cand.json"),
            "--latency-csv", str(COMPARE / "det_base_latency_ms.csv"), "--target-ms", "20", "--assume", "conv*=1.4",
            "--no-build-check", "-o", str(out)]
    code, stdout, err = _run(argv, capsys)
    assert code == 0, err
    assert {p.name for p in out.iterdir()} == FOUR
    doc = json.loads((out / "assessment.json").read_text())
    assert doc["schema"] == "hipgauge.assessment/1"
    assert doc["parity"]["projection"]["meets_target"] is False
    assert next(s for s in doc["stages"] if s["name"] == "build-check")["status"] == "not run"
    assert "--no-build-check" in doc["build_check"]["reason"]
    assert json.loads((out / "findings.sarif").read_text())["version"] == "2.1.0"
    code, stdout, _ = _run([*argv, "--json"], capsys)
    assert code == 0 and json.loads(stdout)["schema"] == "hipgauge.assessment/1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


def test_assess_refuses_output_inside_the_source_tree(tmp_path, capsys):
    src = tmp_path / "src"
    shutil.copytree(REALISTIC, src)
    code, _, err = _run(["assess", str(src), "--no-build-check", "-o", str(src / "report")], capsys)
    assert code == 2 and "inside the scanned source tree" in err
    assert sorted(p.name for p in src.iterdir()) == ["EXPECTED.md", "realistic.cu"]


def test_bad_profile_is_exit_2_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    code, _, err = _run(["decide", str(REALISTIC), "--baseline", str(bad)], capsys)
    assert code == 2 and str(bad) in err and "Traceback" not in err


def test_decide_cli_json(capsys):
    code, out, _ = _run(["decide", str(REALISTIC), "--json"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["schema"] == "hipgauge.decide/1"
    assert [s["id"] for s in doc["signals"]] == ["primary_objective", "hot_kernel_makeup", "library_dependence",
                                                 "precision_path", "team_economics"]


def test_demo_produces_the_four_files(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(["demo", "--no-build-check"], capsys)
    assert code == 0, err
    folder = tmp_path / "hipgauge-report"
    assert {p.name for p in folder.iterdir()} == FOUR
    assert "hipgauge-report" in out and "index.html" in out
    doc = json.loads((folder / "assessment.json").read_text())
    assert doc["scan"]["summary"]["kernels"] > 0


@needs_chromium
@pytest.mark.needs_chromium
def test_html_report_loads_in_headless_chromium_with_charts(tmp_path):
    doc = worked_example_doc()
    doc["inputs"]["source"] = rp.NASTY  # hostile text on the page too
    page = tmp_path / "index.html"
    page.write_text(render_html(doc), encoding="utf-8")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    common = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'ud'}",
              "--enable-logging=stderr", "--v=0", "--window-size=1400,3000"]
    shot = tmp_path / "shot.png"
    r = subprocess.run([*common, f"--screenshot={shot}", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "CONSOLE" not in r.stderr and "Uncaught" not in r.stderr
    assert shot.exists() and shot.stat().st_size > 20_000
    dom = subprocess.run([*common, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert "CONSOLE" not in dom.stderr and "Uncaught" not in dom.stderr
    assert dom.stdout.count("<svg") >= 3 and "<script" not in dom.stdout.lower()
    assert "misses the target" in dom.stdout
