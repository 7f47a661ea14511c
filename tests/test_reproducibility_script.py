"""scripts/reproducibility.py, the check behind the tail widening of measurement.toml: how it splits a run's rounds,
where it reads the GPU, and one CSV's coverage rows (the whole table is the script's to print, docs/measuring.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "h200" / "hosttime"


@pytest.fixture(scope="module")
def script():
    return load_script("reproducibility")


def test_rounds_are_split_interleaved_or_consecutive_and_each_way(script) -> None:
    labels = list(range(8))
    assert script.splits(labels, 2) == [([0, 2, 4, 6], [1, 3, 5, 7]), ([1, 3, 5, 7], [0, 2, 4, 6])]
    assert script.splits(labels, 2, later=True) == [([0, 1, 2, 3], [4, 5, 6, 7]), ([4, 5, 6, 7], [0, 1, 2, 3])]
    quarters = script.splits(labels, 4)
    assert quarters[0] == ([0, 4], [1, 5]) and quarters[2] == ([2, 6], [3, 7]) and len(quarters) == 4


def test_the_gpu_comes_from_the_nearest_env_txt(script, tmp_path: Path) -> None:
    h100 = DATA / "blind8" / "r34" / "r34_bs16_fp32_latency_ms.csv"
    if not h100.exists():
        pytest.skip("the blind8 capture is not here")
    assert script.gpu_of(h100) == "NVIDIA H100 80GB HBM3"
    assert script.gpu_of(DATA / "dev7" / "vgg" / "vgg_bs8_fp32_latency_ms.csv") == "NVIDIA H200"
    assert script.gpu_of(tmp_path / "x_latency_ms.csv") == "unknown"


def test_one_csv_gives_a_row_per_direction_and_percentile(script, tmp_path: Path) -> None:
    csv = DATA / "dev7" / "vgg" / "vgg_bs8_tf32_latency_ms.csv"
    rows = script.coverage(csv)
    assert len(rows) == 2 * len(script.PERCENTILES)
    p99 = [r for r in rows if r["p"] == 99.0]
    # the split tests/test_latency_stability.py pins: the other half's P99 lay above the bootstrap's prediction
    # interval and inside the widened one; the other way round it lay below, where nothing is widened (4 of the 47
    # H200 P99 misses were below), so that direction misses both
    up = next(r for r in p99 if r["other_half"] > r["value"])
    down = next(r for r in p99 if r["other_half"] < r["value"])
    assert not up["bootstrap_held"] and up["assessed_held"]
    assert not down["bootstrap_held"] and not down["assessed_held"]
    assert all(r["widening"] > 1 for r in p99) and all(r["assessed_width"] >= r["bootstrap_width"] for r in p99)
    few = tmp_path / "few_latency_ms.csv"
    few.write_text("iteration,round,latency_ms\n" + "".join(f"{i},{i // 10},1.0\n" for i in range(40)))
    assert script.coverage(few) == []  # 4 rounds: fewer than the 8 a split needs
