"""What a detector returns: where, how sure, and an optional detail appended to the rule's message."""

from __future__ import annotations

from typing import Any, NamedTuple

from hipgauge.model import Confidence


class Hit(NamedTuple):
    """A detector's hit on a syntax node (source files)."""

    node: Any
    confidence: Confidence | None = None  # None: the rule's own (``RULE.confidence``)
    detail: str = ""
    #: for rules that fold (``FOLD`` in the module): "call", "include" or "reference" (a type, enum, constant…)
    kind: str = ""


class LineHit(NamedTuple):
    """A detector's hit on a line of a build file (1-based line and column)."""

    line: int
    column: int
    confidence: Confidence | None = None  # None: the rule's own (``RULE.confidence``)
    detail: str = ""


HIGH, MEDIUM, LOW = Confidence.HIGH, Confidence.MEDIUM, Confidence.LOW
