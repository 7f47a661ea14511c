"""`hipgauge gate`: BASE CAND profiles and --against-last; exit 1 naming the regressed hot kernel, 0 when allowed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hipgauge.cli import main
from hipgauge.store import HistoryStore

DATA = Path(__file__).resolve().parent / "data" / "store"
BASE = str(DATA / "base_h100_cuda124.json")
CAND62 = str(DATA / "cand_mi300x_rocm62.json")
CAND63 = str(DATA / "cand_mi300x_rocm63.json")


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


def test_gate_fails_naming_the_regressed_hot_kernel(capsys) -> None:
    code, out, err = run(["gate", BASE, CAND63, "--max-regression", "5%"], capsys)
    assert code == 1
    assert "decode_boxes_kernel" in err and "REGRESSED" in out
    # nms (1.117×, 16%) also regressed past 5%; topk (2.4×) holds <1% of the time: not gated
    assert "nms_kernel" in err and "topk_kernel" not in err


def test_gate_passes_when_the_threshold_allows_it(capsys) -> None:
    code, out, _ = run(["gate", BASE, CAND63, "--max-regression", "0.40"], capsys)
    assert code == 0 and "gate: PASS" in out
    code, _, _ = run(["gate", BASE, CAND62, "--max-regression", "12%"], capsys)
    assert code == 0


def test_gate_hot_share_decides_what_is_gated(capsys) -> None:
    # topk_kernel doubles but holds ~0.3% of baseline time: gated only when the hot share is below that
    code, out, _ = run(["gate", BASE, CAND63, "--max-regression", "40%", "--hot-share", "0.1%", "--json"], capsys)
    assert code == 1
    doc = json.loads(out)
    assert doc["schema"] == "hipgauge.gate/1" and not doc["passed"]
    assert [k.split("(")[0] for k in doc["regressed"]] == ["topk_kernel"]


def test_gate_target_latency(capsys) -> None:
    code, out, err = run(["gate", BASE, CAND62, "--max-regression", "50%", "--target-ms", "1.0"], capsys)
    assert code == 1 and "target 1 ms" in err
    code, _, _ = run(["gate", BASE, CAND62, "--max-regression", "50%", "--target-ms", "20"], capsys)
    assert code == 0


def test_gate_against_last_stored_assessment(tmp_path: Path, capsys) -> None:
    from hipgauge.profiles.load import load_profile
    from hipgauge.profiles.parity import compare_profiles

    db = tmp_path / "h.duckdb"
    doc = {"schema": "hipgauge.assessment/1", "project": "detector",
           "comparison": compare_profiles(load_profile(BASE), load_profile(CAND62)).to_dict()}
    HistoryStore(db).record(doc, {"toolchain": {"rocm": "6.2"}})

    code, out, err = run(["gate", CAND63, "--against-last", "--db", str(db), "--max-regression", "5%", "--json"], capsys)
    assert code == 1
    result = json.loads(out)
    assert result["mode"] == "against-last"
    assert [k.split("(")[0] for k in result["regressed"]] == ["decode_boxes_kernel"]  # 1600 / 1250 µs
    decode = next(k for k in result["kernels"] if k["label"].startswith("decode"))
    assert decode["ratio"] == pytest.approx(1600 / 1250)

    code, out, _ = run(["gate", CAND63, "--against-last", "--db", str(db), "--max-regression", "30%"], capsys)
    assert code == 0 and "gate: PASS" in out
    # the same run against itself never fails
    code, _, _ = run(["gate", CAND62, "--against-last", "--db", str(db), "--max-regression", "0%"], capsys)
    assert code == 0


@pytest.mark.parametrize("args, needle", [
    (["--max-regression", "five"], "--max-regression"),
    (["--max-regression", "5"], "ambiguous"),
    (["--hot-share", "-1%"], "--hot-share"),
    (["--hot-share", "150%"], "--hot-share"),
    (["--target-ms", "0"], "--target-ms"),
])
def test_gate_bad_values_exit_2_with_one_line(args: list[str], needle: str, capsys) -> None:
    code, _, err = run(["gate", BASE, CAND63, *args], capsys)
    assert code == 2
    assert needle in err and len(err.strip().splitlines()) == 1


def test_gate_usage_errors_exit_2(tmp_path: Path, capsys) -> None:
    code, _, err = run(["gate", BASE], capsys)
    assert code == 2 and "BASE and CAND" in err
    code, _, err = run(["gate", BASE, str(tmp_path / "missing.json")], capsys)
    assert code == 2 and "missing.json" in err
    code, _, err = run(["gate", CAND63, "--against-last", "--db", str(tmp_path / "none.duckdb")], capsys)
    assert code == 2 and "none.duckdb" in err
