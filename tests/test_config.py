"""Config loading: valid files, provenance, and one-line errors naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipgauge import config
from hipgauge.errors import InputError


def write(tmp_path: Path, text: str, name: str = "hipgauge.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_defaults_when_no_file(tmp_path: Path) -> None:
    cfg = config.load(start=tmp_path)
    assert cfg.path is None
    assert cfg.get("objectives.percentile") == 99.0
    assert cfg.source("objectives.percentile") == "default"


def test_values_and_sources(tmp_path: Path) -> None:
    write(tmp_path, 'ignore = ["HG101"]\n[objectives]\nlatency_target_ms = 20\nprimary = "portability"\n')
    cfg = config.load(start=tmp_path / "sub" / "x.cu")
    assert cfg.get("ignore") == ["HG101"]
    assert cfg.get("objectives.latency_target_ms") == 20
    assert cfg.source("objectives.latency_target_ms") == "config"
    assert cfg.source("economics.hourly_rate") == "default"


def test_pyproject_tool_table(tmp_path: Path) -> None:
    write(tmp_path, '[project]\nname="x"\n[tool.hipgauge.economics]\nhourly_rate = 99\n', "pyproject.toml")
    cfg = config.load(start=tmp_path)
    assert cfg.get("economics.hourly_rate") == 99


def test_pyproject_without_our_table_is_ignored(tmp_path: Path) -> None:
    write(tmp_path, '[project]\nname="x"\n', "pyproject.toml")
    assert config.load(start=tmp_path).path is None


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("[economics]\nhourly_rat = 5\n", "economics.hourly_rat: unknown key"),
        ("[economics]\nhourly_rate = 'cheap'\n", "economics.hourly_rate: expected a number"),
        ("[economics]\nvalidation_hours_per_release = -3\n", "economics.validation_hours_per_release: must be ≥ 0"),
        ("[objectives]\npercentile = 150\n", "objectives.percentile: must be in (0, 100]"),
        ("[objectives]\nprimary = 'speed'\n", "objectives.primary: must be one of"),
        ("colour = 'red'\n", "colour: unknown key"),
        ("[objectives\n", "not valid TOML"),
        ("objectives = 3\n", "objectives: expected a table"),
        ("[economics]\nhourly_rate = true\n", "got a boolean"),
    ],
)
def test_errors_are_one_line_and_name_the_key(tmp_path: Path, text: str, fragment: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as info:
        config.load(path)
    message = str(info.value)
    assert fragment in message
    assert "\n" not in message
    assert str(path) in message


def test_override_from_flag_is_validated() -> None:
    cfg = config.defaults()
    cfg.override("economics.hourly_rate", 120)
    assert cfg.source("economics.hourly_rate") == "flag"
    with pytest.raises(InputError, match="economics.hourly_rate"):
        cfg.override("economics.hourly_rate", -1)


def test_missing_explicit_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="config file not found"):
        config.load(tmp_path / "nope.toml")


def test_a_pyproject_without_hipgauge_is_passed_over_unparsed(tmp_path):
    from hipgauge.config import find_config

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n[tool.ruff]\nline-length = 100\n")
    sub = tmp_path / "src"
    sub.mkdir()
    assert find_config(sub) is None
    (sub / "pyproject.toml").write_text("[tool.hipgauge]\nignore = ['HG101']\n")
    assert find_config(sub) == sub / "pyproject.toml"
    (sub / "pyproject.toml").write_text("not toml at all = = =\n")  # no [tool.hipgauge] can be in it either way
    assert find_config(sub) is None
