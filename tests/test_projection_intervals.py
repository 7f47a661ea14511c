"""The interval on a projected percentile (the baseline's sampling and the model's own error) and the verdict
against a target it allows: meets, misses, or cannot tell at this sample size with the iterations that settle it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from hipgauge.profiles import intervals as iv
from hipgauge.profiles import percentiles as pct
from hipgauge.profiles.load import load_profile
from hipgauge.profiles.parity import compare_profiles
from hipgauge.profiles.projection import project_baseline
from hipgauge.profiles.readers.latency import read_latency
from hipgauge.profiles.stability import assess
from hipgauge.profiles.timeline_load import load_timeline
from hipgauge.report.assessment import build_assessment
from hipgauge.report.markdown import render_markdown

DATA = Path(__file__).resolve().parent / "data" / "h200"
PAIRS = DATA / "pairs"


def _steady(ci: tuple[float, float] = (9.5, 10.5), n: int = 300):
    st = assess([10.0] * 5 + [9.0, 11.0] * 10, 99.0)
    st.percentile_ms, st.percentile_ci_ms, st.n = 10.0, ci, n
    return st


def test_measured_interval_is_the_bootstrap_interval() -> None:
    i = iv.interval_for(10.0, _steady(), iv.METHOD_MEASURED, 99.0)
    assert i is not None and (i.lo_ms, i.hi_ms) == pytest.approx((9.5, 10.5)) and i.model_error == 0


def test_model_error_combines_in_quadrature() -> None:
    i = iv.interval_for(10.0, _steady((9.6, 10.3)), iv.METHOD_OWN, 99.0)
    e = iv.model_error(iv.METHOD_OWN, 99.0)
    assert i is not None
    assert i.hi_ms - 10.0 == pytest.approx(10.0 * (0.03 ** 2 + e ** 2) ** 0.5)
    assert 10.0 - i.lo_ms == pytest.approx(10.0 * (0.04 ** 2 + e ** 2) ** 0.5)
    assert iv.model_error(iv.METHOD_OWN, 50.0) < e  # P50 is projected better than P99


def test_the_prediction_interval_takes_the_sampling_twice_and_the_host_ratio_spread_once() -> None:
    """A measurement of the candidate samples the host again: its prediction interval doubles the sampling
    variance, not the model's error nor the host ratio's spread; a measured figure has none."""
    i = iv.interval_for(10.0, _steady((9.6, 10.3)), iv.METHOD_OWN, 99.0, host_ratio_span_ms=(9.2, 10.9))
    e = iv.model_error(iv.METHOD_OWN, 99.0)
    assert i is not None and i.host_transfer == pytest.approx((0.08, 0.09))
    assert i.hi_ms - 10.0 == pytest.approx(10.0 * (0.03 ** 2 + e ** 2 + 0.09 ** 2) ** 0.5)
    assert i.prediction_ms is not None
    assert 10.0 - i.prediction_ms[0] == pytest.approx(10.0 * (2 * 0.04 ** 2 + e ** 2 + 0.08 ** 2) ** 0.5)
    assert i.prediction_ms[1] - 10.0 == pytest.approx(10.0 * (2 * 0.03 ** 2 + e ** 2 + 0.09 ** 2) ** 0.5)
    assert i.to_dict()["prediction_interval_ms"] == pytest.approx(list(i.prediction_ms))
    measured = iv.interval_for(10.0, _steady(), iv.METHOD_MEASURED, 99.0)
    assert measured is not None and measured.prediction_ms is None
    # without a host ratio there is no third part, and the text says only what went in
    plain = iv.interval_for(10.0, _steady((9.6, 10.3)), iv.METHOD_OWN, 99.0)
    assert plain is not None and plain.host_transfer is None and "same-spell" not in plain.describe()


def test_a_what_if_error_is_a_share_of_the_change() -> None:
    same = iv.interval_for(10.0, _steady(), iv.METHOD_ASSUMED, 99.0, baseline_ms=10.0)
    moved = iv.interval_for(12.0, _steady(), iv.METHOD_ASSUMED, 99.0, baseline_ms=10.0)
    assert same is not None and moved is not None and same.model_error == 0
    assert moved.model_error * 12.0 == pytest.approx(2.0 * iv.model_error(iv.METHOD_ASSUMED, 99.0))


def test_verdicts_and_the_iterations_that_settle_one() -> None:
    i = iv.interval_for(10.0, _steady(), iv.METHOD_MEASURED, 99.0)
    assert i is not None
    assert i.verdict(11.0)[0] == iv.MEETS and i.verdict(9.0)[0] == iv.MISSES
    status, need, text = i.verdict(10.25)
    assert status == iv.CANNOT_TELL and need == 1200  # half-width 0.5 → 0.25: four times the iterations
    assert "1200 iterations" in text
    own = iv.interval_for(10.0, _steady(), iv.METHOD_OWN, 99.0)
    assert own is not None
    status, need, text = own.verdict(10.5)  # the model's ±1 ms alone reaches a target 0.5 ms away
    assert status == iv.CANNOT_TELL and need is None and "will not settle it" in text


def test_no_interval_without_a_latency_csv() -> None:
    assert iv.interval_for(10.0, None, iv.METHOD_OWN, 99.0) is None
    assert iv.interval_for(None, _steady(), iv.METHOD_OWN, 99.0) is None


def _pairs(data: Path) -> list[tuple[str, str]]:
    with open(data / "pairs.csv", newline="", encoding="utf-8") as f:
        return [(r["base"], r["cand"]) for r in csv.DictReader(f)]


@pytest.mark.slow
@pytest.mark.parametrize("base,cand", _pairs(DATA / "heldout"))
def test_the_interval_holds_the_measured_candidate_on_the_blind_pairs(base: str, cand: str) -> None:
    d = DATA / "heldout"
    bp = load_profile(d / f"{base}_trace.json.gz", latency_csv=d / f"{base}_latency_ms.csv")
    cp = load_profile(d / f"{cand}_trace.json.gz")
    btl, _ = load_timeline(bp)
    ctl, _ = load_timeline(cp)
    measured = read_latency(d / f"{cand}_latency_ms.csv")
    for p in (50.0, 99.0):
        res = compare_profiles(bp, cp, percentile=p, base_timeline=btl, cand_timeline=ctl)
        i = res.interval
        assert i is not None and i.method == iv.METHOD_OWN
        m = pct.summarize(measured, p)[0]
        assert i.lo_ms <= m <= i.hi_ms, (p, i.lo_ms, m, i.hi_ms)
        assert i.width_share <= 0.30


def test_compare_and_project_json_carry_the_interval(capsys: pytest.CaptureFixture[str]) -> None:
    from hipgauge.cli import main

    b = PAIRS / "r50_bs8_fp16_nchw"
    with pytest.raises(SystemExit):
        main(["compare", f"{b}_trace.json.gz", str(PAIRS / "r50_bs8_bf16_nchw_trace.json.gz"), "--latency-csv",
              f"{b}_latency_ms.csv", "--target-ms", "20", "--json"])
    proj = json.loads(capsys.readouterr().out)["projection"]
    lo, hi = proj["interval_ms"]
    assert lo < proj["projected_ms"] < hi and proj["target_verdict"] == "meets" and proj["meets_target"] is True
    assert proj["interval"]["method"] == "own-timeline" and proj["interval"]["model_error"] > 0
    with pytest.raises(SystemExit):
        main(["project", f"{b}_trace.json.gz", "--latency-csv", f"{b}_latency_ms.csv", "--target-ms", "5.3", "--json"])
    doc = json.loads(capsys.readouterr().out)
    proj = doc["projection"]
    assert proj["target_verdict"] == iv.CANNOT_TELL and proj["meets_target"] is None
    assert proj["interval"]["iterations_to_settle"] > 300
    lo, hi = proj["slack_interval_ms"]
    assert lo < proj["slack_ms"] < hi and lo < 0 < hi
    conv = next(g for g in doc["groups"] if g["name"] == "convolution")
    assert conv["max_ratio_at_interval"] is None or conv["max_ratio_at_interval"] < conv["max_ratio"]


def test_project_slack_at_the_upper_end_of_the_interval_is_smaller() -> None:
    b = PAIRS / "r50_bs8_fp16_nchw"
    base = load_profile(f"{b}_trace.json.gz", latency_csv=f"{b}_latency_ms.csv")
    res = project_baseline(base, 6.0, 99.0)  # no timeline: the linear slack
    for g in res.groups:
        sure = res.sure_ratio[g.name]
        assert g.max_ratio is not None and sure is not None and 1.0 < sure < g.max_ratio


def test_decide_says_the_interval() -> None:
    from hipgauge.decide.rubric import decide

    b = PAIRS / "r50_bs8_fp16_nchw"
    base = load_profile(f"{b}_trace.json.gz", latency_csv=f"{b}_latency_ms.csv")
    text = decide(None, projection=project_baseline(base, 5.3, 99.0)).triage.measurement
    assert "interval" in text and "cannot tell at this sample size" in text and "iterations (now 300)" in text


HARNESS = DATA / "harness"
#: the one harness pair whose projection misses: EfficientNet-B0 fp32 (replayed host share 0.10, α weakly
#: identified) → fp16 channels_last (host-bound): the replay is 15% high at P50 (docs/measuring.md)
KNOWN_MISS = ("effb0_bs32_fp32", "effb0_bs32_fp16_cl")
HARNESS_PAIRS = [(d, b, c) for d in ("resnet18", "effb0", "convnext") for b, c in _pairs(HARNESS / d)]


@pytest.mark.parametrize("folder,base,cand", [
    pytest.param(d, b, c, marks=pytest.mark.xfail(strict=True, reason="replay 15% high: see KNOWN_MISS"))
    if (b, c) == KNOWN_MISS else (d, b, c) for d, b, c in HARNESS_PAIRS])
def test_on_unseen_harness_pairs_the_p50_interval_holds_and_is_narrow(folder: str, base: str, cand: str) -> None:
    d = HARNESS / folder
    bp = load_profile(d / f"{base}_trace.json.gz", latency_csv=d / f"{base}_latency_ms.csv")
    cp = load_profile(d / f"{cand}_trace.json.gz")
    btl, _ = load_timeline(bp)
    ctl, _ = load_timeline(cp)
    res = compare_profiles(bp, cp, percentile=50.0, base_timeline=btl, cand_timeline=ctl)
    i = res.interval
    assert i is not None and i.method == iv.METHOD_OWN and i.iterations == 600
    m = pct.summarize(read_latency(d / f"{cand}_latency_ms.csv"), 50.0)[0]
    assert i.lo_ms <= m <= i.hi_ms, (i.lo_ms, m, i.hi_ms)
    assert i.width_share <= 0.30


def test_a_gpu_bound_baseline_gives_a_bounded_projection() -> None:
    d = HARNESS / "rounds6" / "convnext"
    bp = load_profile(d / "cnxt_bs32_fp32_trace.json.gz", latency_csv=d / "cnxt_bs32_fp32_latency_ms.csv")
    cp = load_profile(d / "cnxt_bs32_bf16_trace.json.gz")
    btl, _ = load_timeline(bp)
    ctl, _ = load_timeline(cp)
    res = compare_profiles(bp, cp, percentile=50.0, target_ms=8.0, base_timeline=btl, cand_timeline=ctl)
    i = res.interval
    m = pct.summarize(read_latency(d / "cnxt_bs32_bf16_latency_ms.csv"), 50.0)[0]
    assert i is not None and i.low_bound_ms is not None and i.lo_ms <= m <= i.hi_ms
    assert res.to_dict()["projection"]["target_verdict"] == iv.CANNOT_TELL
    assert "GPU-bound baseline" in i.describe()
    assert any("GPU-bound" in n for n in res.to_dict()["replay"]["replay"]["notes"])


def test_decide_json_carries_the_interval() -> None:
    from hipgauge.decide.rubric import decide

    b = PAIRS / "r50_bs8_fp16_nchw"
    base = load_profile(f"{b}_trace.json.gz", latency_csv=f"{b}_latency_ms.csv")
    tri = decide(None, projection=project_baseline(base, 5.3, 99.0)).to_dict()["triage"]
    assert tri["measurement_interval"]["target_verdict"] == iv.CANNOT_TELL
    assert tri["measurement_interval"]["interval_ms"][0] < 5.3 < tri["measurement_interval"]["interval_ms"][1]
    assert decide(None).to_dict()["triage"]["measurement_interval"] is None


def test_no_interval_when_the_figure_is_the_maximum_of_too_few_iterations(tmp_path: Path) -> None:
    b = PAIRS / "r50_bs8_fp16_nchw"
    few = tmp_path / "few.csv"
    few.write_text("iteration,latency_ms\n" + "".join(f"{i},{4 + i / 100}\n" for i in range(50)))
    base = load_profile(f"{b}_trace.json.gz", latency_csv=few)
    res = project_baseline(base, 6.0, 99.0)
    assert not res.latency.enough_iterations and res.interval is None
    assert res.to_dict()["projection"]["interval_ms"] is None


def test_every_what_if_row_carries_an_interval_and_a_three_way_verdict() -> None:
    """A group's 'P99 at r×' is a projection like any other: the baseline's sampling plus the what-if model's error
    on the change, so at 1× the interval is the measured one and it widens with r."""
    b = PAIRS / "r50_bs8_fp16_nchw"
    base = load_profile(f"{b}_trace.json.gz", latency_csv=f"{b}_latency_ms.csv")
    L = pct.percentile(read_latency(f"{b}_latency_ms.csv"), 99.0)
    res = project_baseline(base, L * 1.02, 99.0)  # a target 2% over the baseline: small slowdowns straddle it
    g = max(res.groups, key=lambda g: g.time_ms)
    one, small, big = res.what_if(g.name, 1.0), res.what_if(g.name, 1.01), res.what_if(g.name, 3.0)
    assert res.interval is not None and one["interval_ms"] == pytest.approx([res.interval.lo_ms, res.interval.hi_ms])
    widths = [w["interval_ms"][1] - w["interval_ms"][0] for w in (one, small, big)]
    assert widths[0] < widths[1] < widths[2]
    assert big["target_verdict"] == iv.MISSES and big["meets_target"] is False
    assert small["interval_ms"][0] <= L * 1.02 <= small["interval_ms"][1]
    assert small["target_verdict"] == iv.CANNOT_TELL and small["meets_target"] is None
    md = render_markdown(build_assessment(projection=res, inputs={"source": "test"}, whatif_ratios=[1.01, 3.0]))
    row = next(line for line in md.splitlines() if line.startswith(f"| {g.name}"))
    assert row.rstrip(" |").endswith("✗") and " ?" in row


def test_the_headline_slack_says_the_ratio_that_keeps_the_whole_interval_under_the_target() -> None:
    """"may be ≤ r× slower" is the point figure; the renderers add the smaller ratio at which even the interval's
    upper end stays under the target, from the same projection."""
    b = PAIRS / "r50_bs8_fp16_nchw"
    base = load_profile(f"{b}_trace.json.gz", latency_csv=f"{b}_latency_ms.csv")
    L = pct.percentile(read_latency(f"{b}_latency_ms.csv"), 99.0)
    doc = build_assessment(projection=project_baseline(base, L * 1.2, 99.0), inputs={"source": "test"})
    tight = doc["headline"]["parity"]["tightest_group"]
    assert tight["max_ratio_at_interval"] < tight["max_ratio"]
    md = render_markdown(doc)
    assert f"{tight['max_ratio_at_interval']:.2f}× for the whole interval" in md


def test_the_interval_says_when_its_sampling_part_was_widened_at_the_tail() -> None:
    st = _steady((9.6, 10.8))
    st.tail_widening = 2.65  # stability.tail_widening(600, 99.0)
    i = iv.interval_for(10.0, st, iv.METHOD_OWN, 99.0)
    assert i is not None and i.tail_widening == 2.65
    assert "its upper side widened ×2.65" in i.describe() and i.to_dict()["tail_widening"] == 2.65
    st.tail_widening = 1.0
    plain = iv.interval_for(10.0, st, iv.METHOD_OWN, 99.0)
    assert plain is not None and "widened" not in plain.describe()
