"""Adding a rule touches its module (and its example files) only: discovery, the engine, ``explain``,
``hipgauge rules`` and the generated docs pick it up from the module alone.

A throwaway rule module is written into ``tmp_path`` and loaded through the same discovery the real rules
use (``registry.RULE_DIRS``); nothing under the repository is written.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from conftest import load_script
from typer.testing import CliRunner

from hipgauge.model import Confidence
from hipgauge.rules import registry as reg
from hipgauge.rules.engine import all_rules, check_file
from hipgauge.rules.examples import snippet_file
from hipgauge.rules.spec import RuleDoc

ROOT = Path(__file__).resolve().parent.parent

THROWAWAY = '''"""HG899: a call to `demo_vendor_only()`, which has no ROCm counterpart.

What it does
------------
Flags each call of `demo_vendor_only`.

Why is this bad?
----------------
`demo_vendor_only` exists only in the vendor toolkit this test pretends to port from.

Example
-------
```cuda
void f() { demo_vendor_only(); }
```

Use instead
-----------
```cuda
void f() { demo_portable(); }
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import usage, words
from hipgauge.rules.spec import RuleMeta

CODE = "HG899"
RULE = RuleMeta(
    title="Throwaway vendor-only call",
    category="api",
    severity="blocker",
    confidence="medium",
    message="demo_vendor_only() has no ROCm counterpart",
    fix="Call demo_portable() instead.",
    effort=(0.5, 1),
    sources=("https://example.org/demo_vendor_only",),
)
NODE = None
ANCHOR = words(r"demo_vendor_only")


def check(node, ctx):
    return usage(node, ctx)
'''


def _tree_digest() -> str:
    h = hashlib.sha256()
    for path in sorted((ROOT / "hipgauge").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(ROOT)).encode() + path.read_bytes())
    for path in (ROOT / "docs" / "rules.md",):
        h.update(path.read_bytes())
    return h.hexdigest()


@pytest.fixture()
def with_throwaway_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    folder = tmp_path / "more_rules"
    folder.mkdir()
    (folder / "hg899_demo_vendor_only.py").write_text(THROWAWAY, encoding="utf-8")
    (folder / "helper_not_a_rule.py").write_text("X = 1\n", encoding="utf-8")  # only hgNNN_*.py are rules
    before = _tree_digest()
    monkeypatch.setattr(reg, "RULE_DIRS", reg.RULE_DIRS + ((folder, None),))
    reg.clear_caches()
    yield folder
    monkeypatch.undo()
    reg.clear_caches()
    assert _tree_digest() == before, "adding a rule wrote into the repository"


def _gen_docs():
    return load_script("gen_docs")


def test_a_new_rule_module_is_discovered_run_and_documented(with_throwaway_rule: Path) -> None:
    assert "HG899" not in {r.code for r in reg.discover(*reg.RULE_DIRS[:1])}
    rule = reg.by_code()["HG899"]
    assert rule in all_rules() and rule.rationale.startswith("`demo_vendor_only` exists only")

    # the engine runs it on its Example and not on its Use-instead, with the declared default confidence
    (_lang, example), = RuleDoc.code_blocks(rule.doc.example)
    found = [f for f in check_file(snippet_file(example), None, set()) if f.code == "HG899"]
    assert len(found) == 1 and found[0].confidence == Confidence.MEDIUM and found[0].severity.value == "blocker"
    assert found[0].message == "demo_vendor_only() has no ROCm counterpart" and found[0].effort_hours == 0.75
    (_lang, near), = RuleDoc.code_blocks(rule.doc.use_instead)
    assert not [f for f in check_file(snippet_file(near), None, set()) if f.code == "HG899"]
    assert "HG899" not in {f.code for f in check_file(snippet_file(example), None, {"HG899"})}

    # explain and rules document it
    from hipgauge.cli import app

    runner = CliRunner()
    text = runner.invoke(app, ["explain", "hg899"])
    assert text.exit_code == 0, text.output
    for part in ("HG899: Throwaway vendor-only call", "Flags each call of `demo_vendor_only`", "demo_portable();",
                 "Call demo_portable() instead.", "https://example.org/demo_vendor_only"):
        assert part in text.output, part
    doc = json.loads(runner.invoke(app, ["explain", "HG899", "--json"]).output)
    assert doc["confidence"] == "medium" and doc["rationale"] == rule.rationale
    listed = json.loads(runner.invoke(app, ["rules", "--category", "api", "--json"]).output)["rules"]
    assert "HG899" in {r["code"] for r in listed}

    # the generated docs and ledger would carry it
    gen = _gen_docs()
    assert "### HG899\n" in gen.rules_md() and "[HG899](#hg899)" in gen.rules_md()
    assert 'code = "HG899"' in gen.rules_toml()


def test_a_rule_module_missing_its_declaration_is_named(tmp_path: Path) -> None:
    (tmp_path / "hg898_broken.py").write_text(THROWAWAY.replace("HG899", "HG898").split("RULE = ")[0], encoding="utf-8")
    with pytest.raises(ValueError, match="hg898_broken: no RULE"):
        reg.discover((tmp_path, None))


def test_a_reused_code_is_refused(tmp_path: Path) -> None:
    (tmp_path / "hg101_again.py").write_text(THROWAWAY.replace("HG899", "HG101"), encoding="utf-8")
    with pytest.raises(ValueError, match="code HG101 is already used"):
        reg.discover(*reg.RULE_DIRS, (tmp_path, None))


def test_a_retired_rule_keeps_its_code_and_page_but_does_not_run(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    text = THROWAWAY.replace("HG899", "HG898").replace("    sources=", "    retired=True,\n    sources=")
    (tmp_path / "hg898_retired_demo.py").write_text(text, encoding="utf-8")
    monkeypatch.setattr(reg, "RULE_DIRS", reg.RULE_DIRS + ((tmp_path, None),))
    reg.clear_caches()
    try:
        assert "HG898" not in {r.code for r in all_rules()}
        assert reg.by_code()["HG898"].retired
        example = RuleDoc.code_blocks(reg.by_code()["HG898"].doc.example)[0][1]
        assert "HG898" not in {f.code for f in check_file(snippet_file(example), None, set())}
        gen = _gen_docs()
        assert "### HG898\n" in gen.rules_md() and 'code = "HG898"' in gen.rules_toml()
        assert 'retired = true' in gen.rules_toml().split('code = "HG898"')[1]
    finally:
        monkeypatch.undo()
        reg.clear_caches()
