"""The generated reference docs (docs/rules.md, configuration.md, commands.md) match the code.

scripts/gen_docs.py is run into a temporary folder; the committed files must be identical, so a
rule, config key or option added without regenerating the docs fails here (and in CI).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import load_script

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _gen_docs():
    return load_script("gen_docs")


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("docs")
    _gen_docs().generate(out)
    return out


@pytest.mark.parametrize("name", ["rules.md", "configuration.md", "commands.md"])
def test_committed_doc_is_what_the_generator_writes(generated: Path, name: str) -> None:
    committed = (DOCS / name).read_text(encoding="utf-8")
    fresh = (generated / name).read_text(encoding="utf-8")
    assert committed == fresh, f"docs/{name} is out of date: run `python scripts/gen_docs.py`"


def test_every_rule_code_is_documented() -> None:
    from hipgauge.rules.engine import all_rules
    from hipgauge.rules.spec import load_catalogue

    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    codes = {r.code for r in all_rules()} | set(load_catalogue())
    assert codes
    for code in sorted(codes):
        assert f"### {code}\n" in text, code
        assert f"[{code}](#{code.lower()})" in text, code


def test_every_config_key_is_documented_and_the_example_loads(tmp_path: Path) -> None:
    from hipgauge import config

    text = (DOCS / "configuration.md").read_text(encoding="utf-8")
    for section, keys in config.SCHEMA.items():
        if section:
            assert f"## [{section}]\n" in text, section
        for key in keys:
            assert f"| `{key}` |" in text, f"{section}.{key}"
    example = re.search(r"## Example.*?```toml\n(.*?)```", text, re.S).group(1)
    data = tomllib.loads(example)
    assert set(data) - set(config.SCHEMA) <= set(config.SCHEMA[""])
    path = tmp_path / "hipgauge.toml"
    path.write_text(example, encoding="utf-8")
    cfg = config.load(path)
    defaults = config.defaults()
    assert cfg.values == defaults.values  # the example restates the defaults, nothing else


def test_every_command_help_is_documented() -> None:
    import click
    import typer

    from hipgauge.cli import app

    group = typer.main.get_command(app)
    ctx = click.Context(group, info_name="hipgauge")
    text = (DOCS / "commands.md").read_text(encoding="utf-8")
    names = group.list_commands(ctx)
    assert {"scan", "compare", "project", "assess", "demo"} <= set(names)
    for name in names:
        assert f"## hipgauge {name}\n" in text, name
        assert f"Usage: hipgauge {name} " in text, name


def test_check_mode_flags_a_stale_file(generated: Path, tmp_path: Path) -> None:
    gen = _gen_docs()
    for p in generated.iterdir():
        (tmp_path / p.name).write_text(p.read_text(encoding="utf-8"), encoding="utf-8")
    assert gen.main(["--check", "--out", str(tmp_path)]) == 0
    (tmp_path / "rules.md").write_text("stale\n", encoding="utf-8")
    assert gen.main(["--check", "--out", str(tmp_path)]) == 1
