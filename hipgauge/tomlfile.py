"""Reading a user-written TOML file (``hipgauge.toml``, a ``--map`` file): any problem is one InputError
naming the file."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from hipgauge.errors import InputError


def toml_module() -> Any:
    """``tomllib`` (``tomli`` before Python 3.11), imported on first use: a run that reads no TOML file (a small
    ``hipgauge scan``) does not load the parser."""
    if sys.version_info >= (3, 11):
        import tomllib  # noqa: PLC0415 - see the docstring
    else:  # pragma: no cover
        import tomli as tomllib  # noqa: PLC0415

    return tomllib


def read_toml_file(path: Path, not_found: str, unreadable: str) -> dict[str, Any]:
    """The parsed file; InputError(``not_found``), InputError(``unreadable: <error class>``) or
    InputError(``not valid TOML: …``), each naming ``path``."""
    try:
        text = path.read_text(encoding="utf-8-sig")  # a leading UTF-8 BOM (Windows editors) is not TOML
    except FileNotFoundError:
        raise InputError(not_found, path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{unreadable}: {exc.__class__.__name__}", path) from None
    tomllib = toml_module()
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", path) from None
