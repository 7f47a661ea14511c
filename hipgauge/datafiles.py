"""The bundled knowledge files under ``hipgauge/data/``, read from the installed package.

They are read as plain files beside this module (``importlib.resources`` costs ~15 ms of imports at every start,
a tenth of a translate run); a package that is not on the file system (a zip) falls back to it.
"""

from __future__ import annotations

import os
from typing import Any

from hipgauge.tomlfile import toml_module


DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def read_data_text(name: str) -> str:
    """The text of ``hipgauge/data/<name>``."""
    try:
        with open(os.path.join(DATA_DIR, name), encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        if os.path.isdir(DATA_DIR):
            raise
    from importlib import resources  # noqa: PLC0415 - only for a package that is not on the file system

    return resources.files("hipgauge").joinpath("data").joinpath(name).read_text(encoding="utf-8")


def load_data_toml(name: str) -> dict[str, Any]:
    """``hipgauge/data/<name>`` parsed as TOML (a broken bundled file is a programming error: it raises)."""
    return toml_module().loads(read_data_text(name))
