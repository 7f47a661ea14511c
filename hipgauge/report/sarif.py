"""SARIF 2.1.0 output (placeholder: the rules issue replaces this)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hipgauge.model import Finding


def sarif_document(findings: list[Finding], rules: list[Any] | None = None) -> dict[str, Any]:
    return {"version": "2.1.0", "runs": []}


def write_sarif(findings: list[Finding], path: Path | str) -> None:
    import json

    Path(path).write_text(json.dumps(sarif_document(findings)), encoding="utf-8")
