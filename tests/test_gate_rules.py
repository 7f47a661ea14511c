"""Gate decisions on hand-made parity rows, and threshold parsing."""

from __future__ import annotations

import pytest

from hipgauge.errors import InputError
from hipgauge.store.gate import evaluate, parse_fraction
from hipgauge.store.record import ParityEntry


@pytest.mark.parametrize("text, value", [("5%", 0.05), ("0.05", 0.05), (" 12.5 % ", 0.125), ("0", 0.0), ("150%", 1.5), (0.02, 0.02)])
def test_parse_fraction(text, value) -> None:
    assert parse_fraction(text, "--max-regression") == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "5", "1", "abc", "5%%", "-0.1", "1e"])
def test_parse_fraction_refuses(text) -> None:
    with pytest.raises(InputError):
        parse_fraction(text, "--max-regression")


def rows() -> list[ParityEntry]:
    return [ParityEntry("conv_fwd", "operator", 12e6, 16.8e6, 1.4, 0.6),
            ParityEntry("gemm", "normalized", 5e6, 5.1e6, 1.02, 0.25),
            ParityEntry("tiny", "exact", 1e4, 5e4, 5.0, 0.0005)]


def test_hot_kernel_past_threshold_fails() -> None:
    result = evaluate(rows(), 0.05, 0.01)
    assert not result.passed and result.regressed == ["conv_fwd"]
    assert "conv_fwd" in result.failures[0] and "1.400×" in result.failures[0]


def test_threshold_that_allows_it_passes() -> None:
    assert evaluate(rows(), 0.5, 0.01).passed


def test_cold_kernel_is_not_gated_until_hot_share_drops() -> None:
    assert evaluate(rows(), 0.5, 0.01).passed
    result = evaluate(rows(), 0.5, 0.0001)
    assert result.regressed == ["tiny"]


def test_latency_target() -> None:
    result = evaluate(rows(), 0.5, 0.01, projected_ms=21.3, target_ms=20.0, percentile=99.0)
    assert not result.passed and result.failures == ["P99 latency 21.300 ms > target 20 ms"]
    assert evaluate(rows(), 0.5, 0.01, projected_ms=19.0, target_ms=20.0, percentile=99.0).passed
    unknown = evaluate(rows(), 0.5, 0.01, projected_ms=None, target_ms=20.0)
    assert unknown.passed and unknown.notes


def test_json_document() -> None:
    doc = evaluate(rows(), 0.05, 0.01).to_dict()
    assert doc["schema"] == "hipgauge.gate/1" and doc["passed"] is False
    assert doc["kernels"][0]["label"] == "conv_fwd" and doc["kernels"][0]["regressed"] is True
