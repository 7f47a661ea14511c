"""record_assessment on real hipgauge.assessment/1 documents (build_assessment over a real scan and comparison)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipgauge.app import scan as scanner
from hipgauge.profiles import load, parity
from hipgauge.report import assessment
from hipgauge.store import HistoryStore, record_assessment

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data" / "store"


def _doc(cand_name: str):
    base = load.load_profile(DATA / "base_h100_cuda124.json")
    cand = load.load_profile(DATA / cand_name)
    scan = scanner.scan_tree([TESTS / "data" / "realistic"], scanner.ScanOptions())
    comparison = parity.compare_profiles(base, cand, target_ms=20.0)
    doc = assessment.build_assessment(scan=scan, comparison=comparison,
                                      inputs={"source": str(TESTS / "data" / "realistic"),
                                              "baseline": str(DATA / "base_h100_cuda124.json"),
                                              "candidate": str(DATA / cand_name)})
    return doc, base, cand, scan


def test_two_real_assessments_make_a_history(tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    doc62, base, cand62, scan = _doc("cand_mi300x_rocm62.json")
    record_assessment(doc62, db, baseline=base, candidate=cand62, probe_compilers=False,
                      meta={"date": "2026-01-05T10:00:00", "project": "detector"})
    doc63, _, _, _ = _doc("cand_mi300x_rocm63.json")
    # no profiles passed: their metadata is read from the paths the document names
    record_assessment(doc63, db, probe_compilers=False, meta={"date": "2026-02-09T10:00:00", "project": "detector"})

    store = HistoryStore(db)
    first, second = store.assessments()
    assert first.toolchain["hip"] == "6.2.41134" and second.toolchain["hip"] == "6.3.42131"
    assert second.toolchain["cuda"] == "12.4" and second.toolchain["gpu.candidate"] == "AMD Instinct MI300X"
    assert second.hipgauge_version and second.document_schema == "hipgauge.assessment/1"
    assert second.translation_share == pytest.approx(doc63["scan"]["translation_share"])
    assert sum(n for _, n in second.findings.values()) == len(scan.findings)
    decode = next(p for p in second.parity if p.label.startswith("decode_boxes_kernel"))
    assert decode.candidate_ns == pytest.approx(1.6e6) and decode.ratio == pytest.approx(1600 / 1200)
    assert second.target_ms == 20.0 and second.projected_ms is not None

    (trend,) = store.trend("decode_boxes*")
    assert trend.points[1].changes == ["HIP 6.2.41134 → 6.3.42131"]
    assert trend.points[1].step == pytest.approx(1600 / 1250)


def test_record_assessment_default_path_is_hipgauge_home_not_cwd(tmp_path: Path, monkeypatch) -> None:
    """#17 row 3 (changed on purpose): the default store is in $HIPGAUGE_HOME, never the working folder."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HIPGAUGE_HOME", str(tmp_path / "home"))
    doc, base, cand, _ = _doc("cand_mi300x_rocm62.json")
    record_assessment(doc, None, baseline=base, candidate=cand, probe_compilers=False)
    assert (tmp_path / "home" / "history.duckdb").is_file()
    assert not (tmp_path / ".hipgauge").exists()
    assert not (TESTS / "data" / "realistic" / ".hipgauge").exists()  # never inside the scanned tree


def test_assess_store_then_history_and_gate(tmp_path: Path, capsys, monkeypatch) -> None:
    """The issue's "must show", end to end through the CLI: two stored assessments (HIP 6.2 → 6.3), history shows
    the regressed hot kernel, gate --against-last exits 1 naming it and 0 when the threshold allows it."""
    from hipgauge.cli import main
    from hipgauge.cli.app import err, out

    monkeypatch.setattr(out, "_width", 240)
    monkeypatch.setattr(err, "_width", 240)
    monkeypatch.chdir(tmp_path)

    def run(argv: list[str]) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as info:
            main(argv)
        captured = capsys.readouterr()
        return int(info.value.code or 0), captured.out, captured.err

    db = tmp_path / "h.duckdb"
    code, _, _ = run(["assess", str(TESTS / "data" / "realistic"), "-o", str(tmp_path / "r1"), "--no-build-check",
                      "--baseline", str(DATA / "base_h100_cuda124.json"), "--candidate", str(DATA / "cand_mi300x_rocm62.json"),
                      "--store", "--db", str(db), "--json"])
    assert code == 0 and db.is_file()
    code, _, err_text = run(["gate", str(DATA / "cand_mi300x_rocm63.json"), "--against-last", "--db", str(db)])
    assert code == 1 and "decode_boxes_kernel" in err_text
    code, _, _ = run(["gate", str(DATA / "cand_mi300x_rocm63.json"), "--against-last", "--db", str(db), "--max-regression", "30%"])
    assert code == 0
    code, _, _ = run(["assess", str(TESTS / "data" / "realistic"), "-o", str(tmp_path / "r2"), "--no-build-check",
                      "--baseline", str(DATA / "base_h100_cuda124.json"), "--candidate", str(DATA / "cand_mi300x_rocm63.json"),
                      "--store", "--db", str(db), "--json"])
    assert code == 0
    code, out_text, _ = run(["history", "--db", str(db), "--kernel", "decode*"])
    assert code == 0 and "HIP 6.2.41134 → 6.3.42131" in out_text and "1.333×" in out_text
