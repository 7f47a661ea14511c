"""`hipgauge history`: two assessments with different toolchains and a regressed hot kernel between them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hipgauge.cli import main
from hipgauge.profiles import load, parity
from hipgauge.store import HistoryStore

DATA = Path(__file__).resolve().parent / "data" / "store"


@pytest.fixture(autouse=True)
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    from hipgauge.cli.app import err, out

    monkeypatch.setattr(out, "_width", 240)
    monkeypatch.setattr(err, "_width", 240)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(argv)
    captured = capsys.readouterr()
    code = info.value.code
    return (0 if code is None else int(code)), captured.out, captured.err


@pytest.fixture
def two_assessments(tmp_path: Path) -> Path:
    """Two assessments of the same port recorded from real compare output of the test traces: HIP 6.2 then 6.3."""
    db = tmp_path / "history.duckdb"
    store = HistoryStore(db)
    base = load.load_profile(DATA / "base_h100_cuda124.json")
    for name, rocm, date in (("cand_mi300x_rocm62.json", "6.2", "2026-01-05T10:00:00"),
                             ("cand_mi300x_rocm63.json", "6.3", "2026-02-09T10:00:00")):
        cand = load.load_profile(DATA / name)
        doc = {"schema": "hipgauge.assessment/1", "project": "detector",
               "comparison": parity.compare_profiles(base, cand, target_ms=20.0).to_dict()}
        store.record(doc, {"date": date, "toolchain": {"rocm": rocm}})
    return db


def test_history_shows_the_regression_and_the_toolchain_step(two_assessments: Path, capsys) -> None:
    code, out, _ = run(["history", "--db", str(two_assessments)], capsys)
    assert code == 0
    assert "decode_boxes_kernel" in out
    assert "ROCm 6.2 → 6.3" in out and "HIP 6.2.41134 → 6.3.42131" in out
    assert "1.042×" in out and "1.333×" in out
    assert "+28.0%" in out  # the step of decode_boxes_kernel


def test_history_json_and_kernel_filter(two_assessments: Path, capsys) -> None:
    code, out, _ = run(["history", "--db", str(two_assessments), "--kernel", "decode*", "--json"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["schema"] == "hipgauge.history/1" and doc["assessments"] == 2
    (kernel,) = doc["kernels"]
    assert kernel["label"].startswith("decode_boxes_kernel")
    first, second = kernel["points"]
    assert first["toolchain"]["rocm"] == "6.2" and second["toolchain"]["rocm"] == "6.3"
    assert "ROCm 6.2 → 6.3" in second["changes"]
    assert second["ratio"] == pytest.approx(1600 / 1200)
    assert kernel["change"] == pytest.approx((1600 / 1200) / (1250 / 1200))


def test_history_project_filter_and_no_match(two_assessments: Path, capsys) -> None:
    code, out, _ = run(["history", "--db", str(two_assessments), "--project", "other"], capsys)
    assert code == 0 and "no assessments" in out
    code, out, _ = run(["history", "--db", str(two_assessments), "--kernel", "gemm*"], capsys)
    assert code == 0 and "no kernel matching" in out


def test_history_missing_db_exits_2(tmp_path: Path, capsys) -> None:
    code, _, err = run(["history", "--db", str(tmp_path / "nope.duckdb")], capsys)
    assert code == 2
    assert "nope.duckdb" in err and len(err.strip().splitlines()) == 1


def test_history_default_store_empty(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["history", "--json"], capsys)
    assert code == 0 and json.loads(out)["kernels"] == []
    assert not (tmp_path / ".hipgauge").exists()
