"""The rule record: one module under ``hipgauge/rules/checks/`` per rule holds all of it.

A rule module declares its ``CODE``, what it *says* (``RULE = RuleMeta(...)``: title, category, severity,
default confidence, effort, message, fix, rubric roles, sources) and what it *looks for* (its detector);
its docstring is its page (What it does / Why is this bad? / Example / Use instead), which
``hipgauge explain`` prints and from which the rule's rationale is taken (the "Why is this bad?"
section: it is written once). ``hipgauge/data/rules.toml`` is generated from the modules
(``scripts/gen_docs.py``) and doubles as the ledger of every code ever issued.

Where the rules' facts come from: the HIP documentation (ROCm/HIP @c5e11fc, 2024-10-16, and the
rocm-systems projects/hip docs, ROCm 7.x), the HIPIFY tables (ROCm/HIPIFY @014177b, 2024-10-24), the ROCm
GPU specs (ROCm/ROCm @e396b48, 2025-03-21) and the public issues and pull requests each rule cites.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from hipgauge.datafiles import load_data_toml
from hipgauge.model import Confidence, Severity

CATEGORIES = ("warp", "tensor-core", "asm", "occupancy", "memory", "library", "build", "api")
CategoryName = Literal["warp", "tensor-core", "asm", "occupancy", "memory", "library", "build", "api"]
SeverityName = Literal["blocker", "wrong-results", "slow", "info"]
ConfidenceName = Literal["high", "medium", "low"]
#: what a rule's findings count toward in the decision rubric (``hipgauge/data/rubric.toml``,
#: ``hipgauge.decide.rubric``): library use with a well-covered ROCm path, library use with none, and a
#: vendor-specific precision trick. Every ``library`` rule has one of the two library roles.
RUBRIC_ROLES = ("covered-library", "exotic-library", "vendor-precision")
RubricRole = Literal["covered-library", "exotic-library", "vendor-precision"]
LIBRARY_ROLES = ("covered-library", "exotic-library")
CODE_PATTERN = re.compile(r"HG[1-8]\d\d")
#: where the catalogue's shared facts come from (each rule's own sources are in its module), and when it was read
CATALOGUE_AS_OF = "2026-11-29"
CATALOGUE_SOURCES = (
    "https://github.com/ROCm/HIP/tree/c5e11fc (HIP documentation, 2024-10-16)",
    "https://github.com/ROCm/rocm-systems/tree/develop/projects/hip (HIP documentation, ROCm 7.x)",
    "https://github.com/ROCm/HIPIFY/tree/014177b (HIPIFY tables, 2024-10-24)",
    "https://github.com/ROCm/ROCm/tree/e396b48 (ROCm GPU specs, 2025-03-21)",
)
SOURCE_KINDS = frozenset({"cuda", "cpp", "header"})
BUILD_KINDS = frozenset({"cmake", "make", "setup.py"})

_SECTION = re.compile(r"^(What it does|Why is this bad\?|Example|Use instead)\n-{3,}\n", re.M)
_FENCE = re.compile(r"```(\w[\w.]*)?\n(.*?)```", re.S)


@dataclass(frozen=True)
class RuleMeta:
    """What a rule says, declared once in its module as ``RULE = RuleMeta(...)`` (beside ``CODE``).

    ``effort``: (low, high) engineer hours to fix ONE finding, an estimate modelled on SYCLomatic/dpct
    effort levels (low ≈ 0.25-1 h, medium ≈ 1-4 h, high ≈ 4-40 h); a finding carries the midpoint.
    ``confidence``: the confidence of a hit whose detector states none. ``sources``: public URLs (with a
    commit or date where one is known). ``retired``: the rule no longer fires; its code is never reused.
    """

    title: str
    category: CategoryName
    severity: SeverityName
    message: str
    fix: str
    effort: tuple[float, float]
    sources: tuple[str, ...]
    confidence: ConfidenceName = "high"
    rubric: tuple[RubricRole, ...] = ()
    retired: bool = False

    def problems(self) -> list[str]:
        """What is missing or out of range (empty when the declaration is complete)."""
        out = [f"{name} is empty" for name in ("title", "message", "fix")
               if not isinstance(getattr(self, name), str) or not getattr(self, name).strip()]
        if self.category not in CATEGORIES:
            out.append(f"unknown category {self.category!r}")
        if self.severity not in get_args(SeverityName):
            out.append(f"unknown severity {self.severity!r}")
        if self.confidence not in get_args(ConfidenceName):
            out.append(f"unknown confidence {self.confidence!r}")
        if len(self.effort) != 2 or not 0 <= self.effort[0] <= self.effort[1] or self.effort[1] <= 0:
            out.append(f"effort must be (low, high) hours with 0 <= low <= high, high > 0, got {self.effort!r}")
        if not self.sources:
            out.append("no sources")
        out += [f"source {s!r} is not a public https URL" for s in self.sources if not s.startswith("https://")]
        out += [f"unknown rubric role {r!r}" for r in self.rubric if r not in RUBRIC_ROLES]
        if self.category == "library" and not set(self.rubric) & set(LIBRARY_ROLES):
            out.append(f"a library rule needs a rubric role: one of {', '.join(LIBRARY_ROLES)}")
        return out


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
    """A discovered rule: its declaration (``RuleMeta``), documentation and module."""

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
    confidence: Confidence = Confidence.HIGH  # of a hit whose detector states none
    rubric: tuple[str, ...] = ()  # roles in the decision rubric (RUBRIC_ROLES)
    retired: bool = False

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
            "kinds": sorted(self.kinds), "confidence": self.confidence.value, "rubric": list(self.rubric),
            "doc": {"what": self.doc.what, "why": self.doc.why, "example": self.doc.example,
                    "use_instead": self.doc.use_instead},
        }


def rationale_of(doc: RuleDoc) -> str:
    """The rule's rationale: its "Why is this bad?" section as one paragraph (prose, no code)."""
    return " ".join(_FENCE.sub(" ", doc.why).split())


def load_catalogue() -> dict[str, dict[str, Any]]:
    """``code -> row`` of the generated ledger ``hipgauge/data/rules.toml``: every code ever issued (a retired
    rule keeps its row). The modules are the source; ``scripts/gen_docs.py`` writes this file from them."""
    return {row["code"]: row for row in load_data_toml("rules.toml").get("rule", [])}
