"""Every rule's documented Example triggers it and its Use-instead (near miss) does not."""

from __future__ import annotations

import pytest

from hipgauge.rules.engine import all_rules, check_file
from hipgauge.rules.examples import FENCE_KIND, snippet_file
from hipgauge.rules.spec import CATEGORIES, RuleDoc

RULES = all_rules()
IDS = [r.code for r in RULES]


def _codes(code: str, lang: str) -> list[str]:
    kind = FENCE_KIND.get(lang, "cuda")
    return [f.code for f in check_file(snippet_file(code, kind), None, set())]


def test_catalogue_size_and_categories():
    assert len(RULES) >= 45
    assert {r.category for r in RULES} == set(CATEGORIES)
    assert len(set(IDS)) == len(IDS)


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_rule_is_documented(rule):
    doc = rule.doc
    assert doc.what and doc.why and doc.example and doc.use_instead, rule.code
    assert RuleDoc.code_blocks(doc.example) and RuleDoc.code_blocks(doc.use_instead)
    assert rule.effort_low <= rule.effort_high and rule.sources and rule.fix and rule.message


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_example_triggers(rule):
    for lang, code in RuleDoc.code_blocks(rule.doc.example):
        assert rule.code in _codes(code, lang), f"{rule.code} example did not trigger:\n{code}"


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_near_miss_does_not_trigger(rule):
    for lang, code in RuleDoc.code_blocks(rule.doc.use_instead):
        assert rule.code not in _codes(code, lang), f"{rule.code} fired on its near miss:\n{code}"


@pytest.mark.parametrize("rule", [r for r in RULES if "cuda" in r.kinds], ids=[r.code for r in RULES if "cuda" in r.kinds])
def test_example_in_comment_or_string_never_fires(rule):
    for lang, code in RuleDoc.code_blocks(rule.doc.example):
        if FENCE_KIND.get(lang, "cuda") != "cuda":
            continue
        commented = "\n".join("// " + line for line in code.splitlines())
        block = "/*\n" + code.replace("*/", "* /") + "\n*/"
        as_string = 'const char* s = R"(' + code.replace(")\"", ") \"") + ')";'
        for variant in (commented, block, as_string):
            assert rule.code not in _codes(variant, "cuda"), f"{rule.code} fired inside:\n{variant}"
