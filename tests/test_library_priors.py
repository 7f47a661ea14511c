"""Before any AMD profile: the baseline's library-backed hot operators with their per-ROCm-release priors, labelled
"prior, not measured"; the rubric cites them by kernel time, and a candidate profile replaces them with measured rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipgauge.profiles.library_priors import LABEL, _conv_facts, library_priors, prior_for
from hipgauge.profiles.load import load_profile

PAIR = "pytorch_kineto/tracelens_pairs"
NAME = "Falconsai_nsfw_image_detection__1016002.json.gz"


def test_conv_facts_from_input_and_weight_dims() -> None:
    assert _conv_facts([[8, 64, 56, 56], [64, 1, 3, 3]]) == {"spatial": 2, "groups": 64, "depthwise": True,
                                                             "grouped": False}
    assert _conv_facts([[8, 64, 56, 56], [128, 16, 3, 3]])["grouped"] is True
    assert _conv_facts([[1, 96, 6, 482, 834], [96, 96, 3, 3, 3]])["spatial"] == 3


@pytest.mark.parametrize(("facts", "case", "expectation"), [
    ({"group": "convolution", "spatial": 3, "groups": 1, "depthwise": False, "grouped": False}, "conv3d", "weak"),
    ({"group": "convolution", "spatial": 2, "depthwise": True}, "depthwise-conv", "weak"),
    ({"group": "convolution", "spatial": 2, "grouped": True, "depthwise": False}, "grouped-conv", "partial"),
    ({"group": "convolution", "spatial": 2, "layout": "NCHW", "half": True}, "nchw-half-conv", "partial"),
    ({"group": "convolution", "spatial": 2, "layout": "NCHW", "half": False}, "conv2d", "tuned"),
    ({"group": "gemm", "library": "cuBLAS/cuBLASLt"}, "gemm", "tuned"),
    ({"group": "gemm", "library": "CUTLASS"}, "cutlass-template", "none"),
])
def test_priors_per_case(facts: dict, case: str, expectation: str) -> None:
    p = prior_for(facts)
    assert p is not None and p["case"] == case and p["expectation"] == expectation
    assert p["per_release"] and all(r["sources"] for r in p["per_release"])
    assert all(s.startswith("https://") for r in p["per_release"] for s in r["sources"])


def test_an_nvidia_only_trace_lists_library_operators_with_priors(real_dir: Path) -> None:
    priors = library_priors(load_profile(real_dir / PAIR / "h100" / NAME).kernels)
    assert priors is not None and priors["label"] == LABEL
    rows = {r["operator"]: r for r in priors["rows"]}
    conv = rows["aten::cudnn_convolution"]
    assert (conv["shape"], conv["dtype"], conv["layout"]) == ("[4,3,224,224]×[768,3,16,16]", "bf16", "NCHW")
    assert conv["library"] == "cuDNN" and conv["prior"]["case"] == "nchw-half-conv"
    assert rows["aten::addmm"]["prior"]["case"] == "gemm"
    assert rows["aten::_flash_attention_forward"]["prior"]["case"] == "attention"
    assert all(r["label"] == LABEL for r in priors["rows"])
    assert priors["rows"] == sorted(priors["rows"], key=lambda r: -r["ns"])


def test_nhwc_convolutions_of_the_h200_trace(h200_dir: Path) -> None:
    priors = library_priors(load_profile(h200_dir / "resnet50_bs8_fp16_nhwc_trace.json.gz").kernels)
    assert priors is not None
    convs = [r for r in priors["rows"] if r["group"] == "convolution" and r["layout"]]
    assert convs and all(r["layout"] == "NHWC" and r["prior"]["case"] == "nhwc-conv" for r in convs)


def test_the_rubric_cites_priors_then_measured_rows(real_dir: Path) -> None:
    from hipgauge.decide.rubric import decide
    from hipgauge.profiles.parity import compare_profiles

    base = load_profile(real_dir / PAIR / "h100" / NAME)
    sig = {s.id: s for s in decide(None, baseline=base).signals}["library_dependence"]
    cited = [e for e in sig.evidence if e.startswith("prior, not measured")]
    assert cited and "aten::addmm" in cited[0] and "32.7%" in cited[0]  # weighted by kernel time, largest first
    assert "prior, not measured" in sig.summary and sig.details["library_priors"]["rows"]
    comparison = compare_profiles(base, load_profile(real_dir / PAIR / "mi300" / NAME))
    sig = {s.id: s for s in decide(None, comparison=comparison, baseline=base).signals}["library_dependence"]
    assert not [e for e in sig.evidence if e.startswith("prior")]
    measured = [e for e in sig.evidence if e.startswith("measured:")]
    assert measured and any("MIOpen implicit-GEMM" in e for e in measured)
    assert "library_priors" not in sig.details and sig.details["library_rows"]["basis"] == "measured (compare)"


def test_project_and_its_views_carry_the_priors(real_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hipgauge.cli import main

    with pytest.raises(SystemExit) as info:
        main(["project", str(real_dir / PAIR / "h100" / NAME), "--target-ms", "10"])
    assert info.value.code in (0, None)
    text = " ".join(capsys.readouterr().out.split())
    assert "library fast path (prior, not measured)" in text
    assert "aten::cudnn_convolution [4,3,224,224]×[768,3,16,16] bf16 NCHW" in text

    from hipgauge.profiles.projection import project_baseline
    from hipgauge.report.assessment import build_assessment
    from hipgauge.report.html import render_html
    from hipgauge.report.markdown import render_markdown

    doc = build_assessment(projection=project_baseline(load_profile(real_dir / PAIR / "h100" / NAME), 10.0))
    assert doc["slack"]["library_priors"]["rows"]
    assert "### Library fast path (prior, not measured)" in render_markdown(doc)
    assert "Library fast path (prior, not measured)</h3>" in render_html(doc)
