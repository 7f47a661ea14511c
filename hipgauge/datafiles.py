"""The bundled knowledge files under ``hipgauge/data/``, read from the installed package."""

from __future__ import annotations

import sys
from importlib import resources
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def read_data_text(name: str) -> str:
    """The text of ``hipgauge/data/<name>``."""
    return resources.files("hipgauge").joinpath("data").joinpath(name).read_text(encoding="utf-8")


def load_data_toml(name: str) -> dict[str, Any]:
    """``hipgauge/data/<name>`` parsed as TOML (a broken bundled file is a programming error: it raises)."""
    return tomllib.loads(read_data_text(name))
