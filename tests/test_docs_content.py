"""The hand-written docs stay true: links resolve, every format and match level is described, and the
figures quoted from real runs are what the code computes today."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hipgauge.model import MatchLevel
from hipgauge.profiles.load import FORMATS, load_profile

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
COMPARE = ROOT / "tests" / "data" / "compare"
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return {_slug(m.group(1)) for m in re.finditer(r"^#+\s+(.*)$", text, re.M)}


@pytest.mark.parametrize("doc", sorted([*DOCS.glob("*.md"), ROOT / "README.md", ROOT / "CONTRIBUTING.md"]),
                         ids=lambda p: p.name)
def test_relative_links_resolve(doc: Path) -> None:
    text = re.sub(r"```.*?```", "", doc.read_text(encoding="utf-8"), flags=re.S)
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # http(s), mailto
        file, _, anchor = target.partition("#")
        path = (doc.parent / file).resolve() if file else doc
        assert path.exists(), f"{doc.name}: broken link {target}"
        if anchor and path.suffix == ".md":
            assert anchor in _anchors(path), f"{doc.name}: no heading for #{anchor} in {path.name}"


def test_docs_index_lists_every_doc() -> None:
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    for doc in DOCS.glob("*.md"):
        if doc.name != "README.md":
            assert f"]({doc.name})" in index, doc.name


def test_profiles_doc_names_every_format() -> None:
    text = (DOCS / "profiles.md").read_text(encoding="utf-8")
    for fmt in FORMATS:
        assert f"| `{fmt}` |" in text, fmt


def test_matching_doc_names_every_level() -> None:
    text = (DOCS / "matching.md").read_text(encoding="utf-8")
    for level in MatchLevel:
        assert f"| `{level.value}` |" in text, level


def test_worked_example_figures_are_what_project_computes() -> None:
    from hipgauge.profiles.projection import project_baseline

    base = load_profile(COMPARE / "det_base.json", latency_csv=COMPARE / "det_base_latency_ms.csv")
    slack = project_baseline(base, 20.0, 99.0)
    conv = next(g for g in slack.groups if g.name == "convolution")
    text = (DOCS / "matching.md").read_text(encoding="utf-8")
    assert f"{slack.latency.value_ms:.3f}" == "17.794" and "17.794 ms" in text
    assert f"{conv.time_ms:.3f} ms" in text and f"{conv.max_ratio:.2f}×" in text
    for ratio in (1.4, 1.03):
        what_if = project_baseline(base, 20.0, 99.0, {"convolution": ratio})
        assert f"{what_if.projection.projected_ms:.3f} ms" in text, ratio


def test_bert_pair_figures_are_what_compare_computes(real_dir: Path) -> None:
    from hipgauge.profiles.parity import compare_profiles

    pair = real_dir / "pytorch_kineto" / "tracelens_pairs"
    name = "gaunernst_bert-small-uncased__1016001.json.gz"
    b, c = load_profile(pair / "h100" / name), load_profile(pair / "mi300" / name)
    bn, cn = set(b.kernels["name"].to_list()), set(c.kernels["name"].to_list())
    assert (len(bn), len(cn), len(bn & cn)) == (11, 11, 3)
    doc = compare_profiles(b, c).to_dict()
    by_level = doc["coverage"]["baseline_by_level"]
    text = (DOCS / "matching.md").read_text(encoding="utf-8")
    line = (f"exact {by_level['exact']:.1%}, normalized {by_level['normalized']:.1%}, "
            f"operator {by_level['operator']:.1%}")
    assert line in text
    flash = next(r for r in doc["rows"] if r["label"] == "aten::_flash_attention_forward")
    assert flash["level"] == "operator" and f"{flash['ratio']:.2f}×" in text
