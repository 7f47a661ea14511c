"""Rule engine (placeholder: the rules issue replaces this with the real engine)."""

from __future__ import annotations

from typing import Any

from hipgauge.model import Finding


def check_file(pf: Any, inventory: Any, ignore: set[str] | frozenset[str] = frozenset()) -> list[Finding]:
    return []


def all_rules() -> list[Any]:
    return []
