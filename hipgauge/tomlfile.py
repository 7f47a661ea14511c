"""Reading a user-written TOML file (``hipgauge.toml``, a ``--map`` file): any problem is one InputError
naming the file."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from hipgauge.errors import InputError


def read_toml_file(path: Path, not_found: str, unreadable: str) -> dict[str, Any]:
    """The parsed file; InputError(``not_found``), InputError(``unreadable: <error class>``) or
    InputError(``not valid TOML: …``), each naming ``path``."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # a leading UTF-8 BOM (Windows editors) is not TOML
    except FileNotFoundError:
        raise InputError(not_found, path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{unreadable}: {exc.__class__.__name__}", path) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", path) from None
