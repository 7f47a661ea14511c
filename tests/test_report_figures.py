"""report.figures: the one place a figure becomes text (every renderer and the CLI tables use it)."""

from __future__ import annotations

import pytest

from hipgauge.report import figures
from hipgauge.report.figures import MISSING, duration, latency, ms_of_ns, num, pct, ratio, usd


@pytest.mark.parametrize(("ns", "text"), [
    (0, "0 ns"), (999, "999 ns"), (1_000, "1.0 µs"), (1_500, "1.5 µs"), (999_949, "999.9 µs"),
    (1_000_000, "1.000 ms"), (2_345_678, "2.346 ms"), (1_000_000_000, "1.000 s"), (61_500_000_000, "61.500 s"),
])
def test_duration_scales_ns_us_ms_s(ns, text):
    assert duration(ns) == text


@pytest.mark.parametrize(("ns", "text"), [
    (-2_000_000, "-2.000 ms"), (-1_500, "-1.5 µs"), (-12, "-12 ns"), (-3_000_000_000, "-3.000 s"),
])
def test_negative_durations_scale_like_positive_ones(ns, text):
    assert duration(ns) == text
    assert duration(ns, signed=True) == text  # a negative delta already carries its sign


def test_signed_duration_marks_growth_and_zero():
    assert duration(2_000_000, signed=True) == "+2.000 ms"
    assert duration(0, signed=True) == "+0 ns"
    assert duration(None, signed=True) == MISSING


def test_ms_of_ns_and_latency():
    assert ms_of_ns(1_234_567) == "1.235"
    assert ms_of_ns(-2_000_000) == "-2.000"
    assert ms_of_ns(1_234_567_890, 1) == "1,234.6"
    assert ms_of_ns(None) == MISSING
    assert latency(12.3456) == "12.346 ms" and latency(None) == MISSING


@pytest.mark.parametrize(("x", "digits", "text"), [(0.5, 1, "50.0%"), (0.12345, 2, "12.35%"), (1, 0, "100%"),
                                                   (-0.031, 1, "-3.1%"), (None, 1, MISSING)])
def test_percentages(x, digits, text):
    assert pct(x, digits) == text


@pytest.mark.parametrize(("x", "digits", "text"), [(1.0, 2, "1.00×"), (1.2549, 3, "1.255×"), (0.5, 2, "0.50×"),
                                                   (None, 2, MISSING)])
def test_ratios(x, digits, text):
    assert ratio(x, digits) == text


def test_num_and_usd():
    assert num(1234.5678) == "1,234.57" and num(3) == "3" and num(12345, group_ints=True) == "12,345"
    assert num(True) == "yes" and num(None) == MISSING
    assert usd(1234567.8) == "1,234,568 USD" and usd(None) == MISSING


def test_units_are_the_documented_constants():
    assert (figures.NS_PER_US, figures.NS_PER_MS, figures.NS_PER_S) == (10**3, 10**6, 10**9)
