"""CONTRIBUTING.md stays true: every file it tells a contributor to touch or run exists, and the tests it says
prove its lists are there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEXT = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
#: repository paths in backticks (placeholders such as hgNNN_<topic>.py and globs are not checked)
PATH = re.compile(r"`((?:hipgauge|tests|scripts|docs|benchmarks)/[\w./-]+|\.ci/run)`")


def test_every_named_path_exists() -> None:
    named = set(PATH.findall(TEXT))
    assert len(named) > 20, "the path pattern no longer matches the file"
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert not missing, f"CONTRIBUTING.md names files that do not exist: {missing}"


def test_it_has_the_three_recipes_and_the_layer_table() -> None:
    for heading in ("## Layers", "## Add a rule", "## Add a profile format", "## Add a report section",
                    "## Data files", "## Checks to run"):
        assert heading in TEXT, heading
    assert "`hipgauge/layers.py`" in TEXT and "tests/test_architecture_imports.py" in TEXT
    # the tests that prove the rule and format lists complete
    assert "tests/test_rules_add_a_rule.py" in TEXT and "tests/test_profiles_registry.py" in TEXT


def test_checks_to_run_match_ci() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for command in ("ruff check hipgauge tests", "mypy hipgauge"):
        assert command in TEXT and command in ci, command
