"""The same inputs give the same assessment.json, run after run (only times and paths may differ)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hipgauge.cli import main

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "detector"
VOLATILE = {"generated", "generated_at", "duration_s", "seconds", "elapsed_s", "output", "wall_s"}


def _strip(x):
    if isinstance(x, dict):
        return {k: _strip(v) for k, v in x.items() if k not in VOLATILE}
    if isinstance(x, list):
        return [_strip(v) for v in x]
    return x


def _assess(out: Path) -> dict:
    args = ["assess", str(EXAMPLE), "--baseline", str(EXAMPLE / "captures" / "detector_ncu_raw.csv"),
            "--latency-csv", str(EXAMPLE / "captures" / "detector_latency_ms.csv"), "--no-build-check", "-o", str(out)]
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 0
    return json.loads((out / "assessment.json").read_text(encoding="utf-8"))


def test_two_runs_give_the_same_document(tmp_path: Path) -> None:
    a, b = _assess(tmp_path / "a"), _assess(tmp_path / "b")
    assert json.dumps(_strip(a), sort_keys=False) == json.dumps(_strip(b), sort_keys=False)
