"""The shared vocabulary of every record: severities, confidences, provenances, and the ``Record`` mixin
(``to_dict()`` for the JSON documents). Imported by both sides (``hipgauge.model.source``,
``hipgauge.model.profile``); ``from hipgauge.model import X`` serves every name (``hipgauge/model/__init__.py``).
"""

from __future__ import annotations

from dataclasses import asdict
from enum import Enum
from typing import Any

# --------------------------------------------------------------------------------------------
# Shared vocabulary
# --------------------------------------------------------------------------------------------


class Severity(str, Enum):
    """How bad a port risk is, worst first (order matters for sorting and SARIF levels)."""

    BLOCKER = "blocker"  # will not compile, link or launch on ROCm
    WRONG_RESULTS = "wrong-results"  # compiles, can silently compute wrong output or hang
    SLOW = "slow"  # correct, leaves significant performance behind
    INFO = "info"  # worth a note

    @property
    def rank(self) -> int:
        return [Severity.BLOCKER, Severity.WRONG_RESULTS, Severity.SLOW, Severity.INFO].index(self)


class Confidence(str, Enum):
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class Provenance(str, Enum):
    """Where a number came from. Every figure the tool prints carries one."""

    MEASURED = "measured"  # read from a profile, a compiler, or the source tree
    ESTIMATED = "estimated"  # computed by a stated model
    ASSUMED = "assumed"  # given by the user (config, --assume, flags)
    DEFAULT = "default"  # a documented default the user did not override
    UNKNOWN = "unknown"


def _clean(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


class Record:
    """Mixin: JSON-ready dict of a dataclass, enums as their values."""

    def to_dict(self) -> dict[str, Any]:
        return _clean(asdict(self))  # type: ignore[call-overload]
