"""The same-spell host ratio and its order-statistic interval (hipgauge/profiles/spell_ratio.py), on a real capture
where one spell of the host hit the reference's blocks (blind12/regx04, H200) and on small series written here."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipgauge.profiles.readers.capture_manifest import trace_host_times_for
from hipgauge.profiles.spell_ratio import median_interval, round_ratios, spell_ratio, transfer_factors

REGX04 = Path(__file__).parent / "data" / "h200" / "hosttime" / "blind12" / "regx04"


def test_the_interval_of_a_median_is_two_order_statistics_with_binomial_coverage() -> None:
    xs = [0.9, 1.0, 1.1, 1.2, 0.8, 1.05, 0.95, 1.3]
    lo, hi, cov = median_interval(xs, 0.90)
    # n = 8: the 2nd smallest and 2nd largest cover the median with 1 - 2 * 9/256 = 0.9297
    assert (lo, hi) == (0.9, 1.2) and cov == pytest.approx(1 - 2 * 9 / 256)
    # too few values for 90%: the extremes, and the coverage they have (n = 3: 0.75)
    lo, hi, cov = median_interval([3.0, 1.0, 2.0], 0.90)
    assert (lo, hi, cov) == (1.0, 3.0, pytest.approx(0.75))
    # many values: k grows, the interval closes in on the median
    lo, hi, cov = median_interval([float(i) for i in range(101)], 0.90)
    assert 40 <= lo < 50 < hi <= 60 and cov >= 0.90
    with pytest.raises(ValueError):
        median_interval([], 0.9)


def test_round_ratios_pair_each_block_with_the_reference_block_of_its_round() -> None:
    values = [2.0, 2.0, 2.0, 6.0, 6.0, 6.0]
    reference = [1.0, 1.0, 9.0, 3.0, 3.0, 3.0]
    assert round_ratios(values, reference, 3) == [2.0, 2.0]  # block medians: the 9.0 outlier is outvoted
    assert round_ratios(values[:5], reference, 3) == [2.0]  # an incomplete round is left out


def test_a_spell_that_hit_the_reference_widens_the_ratio_on_a_real_capture() -> None:
    """RegNetX-400MF on the H200 (blind12): TF32's 8 rounds agree within ±4%; fp16 channels_last's reference blocks
    met three ~20 ms spells and its rounds run 0.53-1.67 around 0.97 (the whole run says 1.11)."""
    tf32 = trace_host_times_for(REGX04 / "regx04_bs32_tf32_trace.json.gz")
    fp16 = trace_host_times_for(REGX04 / "regx04_bs32_fp16_cl_trace.json.gz")
    assert tf32 is not None and tf32.same_spell is not None and fp16 is not None and fp16.same_spell is not None
    assert tf32.same_spell.rounds == 8 and tf32.same_spell.settled(0.05)
    assert fp16.same_spell.ratio == pytest.approx(0.973, abs=0.001) and fp16.same_spell_ratio == fp16.same_spell.ratio
    assert fp16.same_spell.below == pytest.approx(0.206, abs=0.001)
    assert fp16.same_spell.above == pytest.approx(0.260, abs=0.001)
    # the whole run's ratio lies inside the interval, as it must for the projection's host term to hold it
    assert fp16.same_spell.ratio * (1 - fp16.same_spell.below) <= 1.11 <= fp16.same_spell.ratio * (1 + fp16.same_spell.above)
    d = fp16.to_dict()
    assert d["same_spell_rounds"] == 8 and d["same_spell_interval"][0] < 0.8 < 1.2 < d["same_spell_interval"][1]


def test_the_projection_moves_the_ratio_by_the_wider_of_the_floor_and_its_own_interval() -> None:
    steady = spell_ratio([6.0] * 40, [5.0] * 40, 5)
    assert steady is not None and steady.ratio == pytest.approx(1.2) and steady.below == steady.above == 0.0
    assert transfer_factors(steady, 0.10) == (0.10, 0.10)
    assert transfer_factors(None, 0.10) == (0.10, 0.10)
    # one outlying round each way is outvoted (the 2nd smallest and 2nd largest of 8 rounds bound the median) ...
    one = spell_ratio([6.0] * 40, [5.0] * 20 + [2.5] * 5 + [5.0] * 5 + [10.0] * 5 + [5.0] * 5, 5)
    assert one is not None and transfer_factors(one, 0.10) == (0.10, 0.10)
    # ... two are not
    two = spell_ratio([6.0] * 40, [2.5] * 10 + [5.0] * 20 + [10.0] * 10, 5)
    assert two is not None
    below, above = transfer_factors(two, 0.10)
    assert below == pytest.approx(0.5) and above == pytest.approx(1.0)


def test_the_harness_timed_on_until_the_rounds_agreed_on_a_real_capture() -> None:
    """blind14/effb5 (H100, captured at 2af033a): the host was unsteady beside the traces and the harness took 23
    and 13 rounds; each ratio's interval ends within ±5% and the reader pairs every round it wrote."""
    folder = Path(__file__).parent / "data" / "h200" / "hosttime" / "blind14" / "effb5"
    rounds = {}
    for name in ("effb5_bs4_tf32", "effb5_bs4_fp16_cl"):
        times = trace_host_times_for(folder / f"{name}_trace.json.gz")
        assert times is not None and times.same_spell is not None and times.reference == "effb5_bs4_fp32"
        assert times.same_spell.settled(0.05)
        rounds[name] = times.same_spell.rounds
    assert rounds == {"effb5_bs4_tf32": 23, "effb5_bs4_fp16_cl": 13}
