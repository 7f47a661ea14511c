"""Every rule module declares everything a rule says, once; codes are unique and never reused.

A rule is one module (``hipgauge/rules/checks/hgNNN_*.py``): ``CODE``, ``RULE = RuleMeta(...)``, a detector
and a docstring in four sections. ``hipgauge/data/rules.toml`` is generated from the modules and is the
ledger of every code ever issued. The Example / Use-instead blocks are run by tests/test_rules_examples.py.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest
from conftest import load_script

from hipgauge.rules import checks
from hipgauge.rules.registry import catalogue, codes_with_role, registry
from hipgauge.rules.spec import CATEGORIES, LIBRARY_ROLES, RUBRIC_ROLES, RuleDoc, RuleMeta, load_catalogue

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(i.name for i in pkgutil.iter_modules(checks.__path__) if re.fullmatch(r"hg\d{3}_\w+", i.name))
SEVERITIES = {"blocker", "wrong-results", "slow", "info"}


def _module(name: str):
    return importlib.import_module(f"{checks.__name__}.{name}")


def _gen_docs():
    return load_script("gen_docs")


def test_every_module_is_a_rule() -> None:
    assert len(MODULES) >= 45
    assert [r.module.__name__.rsplit(".", 1)[1] for r in catalogue()] == MODULES


@pytest.mark.parametrize("name", MODULES)
def test_rule_module_declares_everything(name: str) -> None:
    mod = _module(name)
    assert re.fullmatch(r"HG[1-8]\d\d", mod.CODE) and name.startswith(mod.CODE.lower())
    meta = mod.RULE
    assert isinstance(meta, RuleMeta)
    assert meta.problems() == [], name
    for field in ("title", "message", "fix"):
        assert getattr(meta, field).strip(), f"{name}: {field}"
    assert meta.category in CATEGORIES and meta.severity in SEVERITIES
    assert CATEGORIES[int(mod.CODE[2]) - 1] == meta.category, f"{name}: HG{mod.CODE[2]}xx codes are {CATEGORIES[int(mod.CODE[2]) - 1]}"
    low, high = meta.effort
    assert 0 <= low <= high and high > 0
    assert meta.sources and all(s.startswith("https://") for s in meta.sources)
    assert set(meta.rubric) <= set(RUBRIC_ROLES)
    if meta.category == "library":
        assert len(set(meta.rubric) & set(LIBRARY_ROLES)) == 1, f"{name}: a library rule needs one library role"
    doc = RuleDoc.parse(mod.__doc__)
    assert doc.summary.startswith(f"{mod.CODE}: "), name
    assert doc.what and doc.why and doc.example and doc.use_instead, name
    assert RuleDoc.code_blocks(doc.example) and RuleDoc.code_blocks(doc.use_instead), name
    assert hasattr(mod, "check") or hasattr(mod, "check_build"), f"{name}: no detector"


def test_rationale_is_the_docstring_why_section() -> None:
    for r in registry():
        assert r.rationale and r.rationale.split()[:5] == r.doc.why.split()[:5], r.code


def test_an_incomplete_declaration_is_named() -> None:
    broken = RuleMeta(title="", category="gpu", severity="fatal", message="m", fix="f", effort=(3, 1),
                      sources=("risk-catalogue HG000",), rubric=("nope",))  # type: ignore[arg-type]
    problems = "; ".join(broken.problems())
    for part in ("title is empty", "unknown category", "unknown severity", "effort", "not a public https URL",
                 "unknown rubric role"):
        assert part in problems
    assert "needs a rubric role" in "; ".join(
        RuleMeta(title="t", category="library", severity="info", message="m", fix="f", effort=(1, 2),
                 sources=("https://example.org",)).problems())


def test_codes_are_unique_and_every_issued_code_keeps_its_module() -> None:
    codes = [r.code for r in catalogue()]
    assert len(codes) == len(set(codes))
    ledger = load_catalogue()
    assert ledger, "hipgauge/data/rules.toml lists no codes"
    assert set(ledger) <= set(codes), "a rule module was deleted: retire it (retired=True), codes are never reused"


def test_the_ledger_is_generated_from_the_modules() -> None:
    committed = (ROOT / "hipgauge" / "data" / "rules.toml").read_text(encoding="utf-8")
    assert committed == _gen_docs().rules_toml(), "hipgauge/data/rules.toml is out of date: run scripts/gen_docs.py"


def test_generating_the_ledger_refuses_to_drop_a_code(monkeypatch: pytest.MonkeyPatch) -> None:
    from hipgauge.rules import spec

    gen = _gen_docs()
    ledger = dict(load_catalogue(), HG899={"code": "HG899"})
    monkeypatch.setattr(spec, "load_catalogue", lambda: ledger)
    with pytest.raises(SystemExit, match="HG899 lost their module"):
        gen.rules_toml()


def test_the_rubric_reads_its_codes_from_the_rule_modules() -> None:
    from hipgauge.decide.rubric import load_rubric

    rubric = load_rubric()
    lib = rubric["library_dependence"]
    assert lib["covered_codes"] == codes_with_role("covered-library")
    assert lib["exotic_codes"] == codes_with_role("exotic-library")
    assert rubric["precision_path"]["vendor_specific_codes"] == codes_with_role("vendor-precision")
    library = {r.code for r in registry() if r.category == "library"}
    assert library == set(lib["covered_codes"]) | set(lib["exotic_codes"])
    assert not set(lib["covered_codes"]) & set(lib["exotic_codes"])
    assert {"HG608", "HG614"} <= library  # the two that had no role before
