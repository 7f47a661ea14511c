"""The rule record: catalogue data (``hipgauge/data/rules.toml``) joined with its detector module.

The TOML holds what a rule *says* (title, severity, message, rationale, fix, effort, sources);
the module under ``hipgauge/rules/checks/`` holds what it *looks for* and, in its docstring, the
documentation ``hipgauge explain`` prints (What it does / Why is this bad? / Example / Use instead).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from hipgauge.datafiles import load_data_toml
from hipgauge.model import Severity

CATEGORIES = ("warp", "tensor-core", "asm", "occupancy", "memory", "library", "build", "api")
SOURCE_KINDS = frozenset({"cuda", "cpp", "header"})
BUILD_KINDS = frozenset({"cmake", "make", "setup.py"})

_SECTION = re.compile(r"^(What it does|Why is this bad\?|Example|Use instead)\n-{3,}\n", re.M)
_FENCE = re.compile(r"```(\w[\w.]*)?\n(.*?)```", re.S)


@dataclass(frozen=True)
class RuleDoc:
    """The four documentation sections of a rule module's docstring."""

    summary: str
    what: str
    why: str
    example: str  # the whole section (prose + fenced code)
    use_instead: str

    @staticmethod
    def parse(doc: str) -> "RuleDoc":
        doc = (doc or "").strip("\n")
        parts = _SECTION.split(doc)
        summary = parts[0].strip()
        sections = {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
        return RuleDoc(summary, sections.get("What it does", ""), sections.get("Why is this bad?", ""),
                       sections.get("Example", ""), sections.get("Use instead", ""))

    @staticmethod
    def code_blocks(section: str) -> list[tuple[str, str]]:
        """``(language, code)`` of every fenced block in a section; language defaults to ``cuda``."""
        return [((m.group(1) or "cuda"), m.group(2)) for m in _FENCE.finditer(section)]


@dataclass(frozen=True)
class RuleSpec:
    code: str
    title: str
    category: str
    severity: Severity
    message: str
    rationale: str
    fix: str
    effort_low: float
    effort_high: float
    sources: tuple[str, ...]
    doc: RuleDoc
    node: str | tuple[str, ...] | None  # the syntax node type(s) the detector inspects ("line" for build files)
    kinds: frozenset[str]
    module: Any = field(default=None, compare=False, repr=False)

    @property
    def effort_hours(self) -> float:
        """Midpoint of the effort range, the figure a finding carries (estimated)."""
        return round((self.effort_low + self.effort_high) / 2, 2)

    @property
    def name(self) -> str:
        """A PascalCase identifier for SARIF ``rules[].name``."""
        words = re.findall(r"[A-Za-z0-9]+", self.title)
        name = "".join(w[:1].upper() + w[1:] for w in words)[:80]
        return name if name[:1].isalpha() else self.code + name

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code, "title": self.title, "category": self.category,
            "severity": self.severity.value, "message": self.message, "rationale": self.rationale,
            "fix": self.fix, "effort_hours": {"low": self.effort_low, "high": self.effort_high,
                                              "midpoint": self.effort_hours, "source": "estimated"},
            "sources": list(self.sources), "node": self.node if isinstance(self.node, (str, type(None))) else list(self.node),
            "kinds": sorted(self.kinds),
            "doc": {"what": self.doc.what, "why": self.doc.why, "example": self.doc.example,
                    "use_instead": self.doc.use_instead},
        }


@lru_cache(maxsize=1)
def load_catalogue() -> dict[str, dict[str, Any]]:
    """``code -> row`` from ``hipgauge/data/rules.toml`` (validated; a broken file is a programming error)."""
    data = load_data_toml("rules.toml")
    rows: dict[str, dict[str, Any]] = {}
    for row in data.get("rule", []):
        code = row["code"]
        if not re.fullmatch(r"HG[1-8]\d\d", code):
            raise ValueError(f"rules.toml: bad code {code!r}")
        if code in rows:
            raise ValueError(f"rules.toml: duplicate code {code}")
        if row["category"] not in CATEGORIES:
            raise ValueError(f"rules.toml: {code}: unknown category {row['category']!r}")
        Severity(row["severity"])
        low, high = row["effort_hours"]
        if not 0 <= low <= high:
            raise ValueError(f"rules.toml: {code}: effort_hours must be [low, high]")
        rows[code] = row
    return rows
