"""Discovers the rule modules under ``hipgauge/rules/checks/`` and joins them with ``rules.toml``.

A rule module (one per rule, named ``hgNNN_<topic>.py``) defines:

* ``CODE`` — the stable ``HGnnn`` code (its row in ``hipgauge/data/rules.toml``);
* for source files: ``NODE`` (the syntax node type(s) its ``check`` inspects, or ``None`` for the
  anchor token's own node), ``ANCHOR`` (a bytes regex naming the tokens that can start a hit — the
  engine scans for all anchors at once and climbs from each token to the nearest ``NODE``), and
  ``check(node, ctx) -> Iterable[Hit]``;
* for build files: ``check_build(lines, ctx) -> Iterable[LineHit]`` over comment-blanked lines;
* optionally ``SUPERSEDES`` (codes this rule replaces on the same line) and ``IN_STRINGS``
  (anchors inside string literals count, e.g. PTX text inside ``asm``).

Its docstring is its documentation: What it does / Why is this bad? / Example / Use instead.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import lru_cache
from typing import Any

from hipgauge.model import Severity
from hipgauge.rules.spec import BUILD_KINDS, SOURCE_KINDS, RuleDoc, RuleSpec, load_catalogue


@lru_cache(maxsize=1)
def registry() -> tuple[RuleSpec, ...]:
    from hipgauge.rules import checks

    catalogue = load_catalogue()
    specs: list[RuleSpec] = []
    for info in sorted(pkgutil.iter_modules(checks.__path__), key=lambda i: i.name):
        if not re.fullmatch(r"hg\d{3}_\w+", info.name):
            continue
        mod = importlib.import_module(f"{checks.__name__}.{info.name}")
        code = mod.CODE
        if not info.name.startswith(code.lower()):
            raise ValueError(f"{info.name}: CODE {code} does not match the module name")
        row = catalogue.get(code)
        if row is None:
            raise ValueError(f"{info.name}: {code} has no row in hipgauge/data/rules.toml")
        kinds: set[str] = set()
        if hasattr(mod, "check"):
            kinds |= set(getattr(mod, "KINDS", SOURCE_KINDS))
        if hasattr(mod, "check_build"):
            kinds |= BUILD_KINDS
        node = getattr(mod, "NODE", None) if hasattr(mod, "check") else "line"
        specs.append(RuleSpec(
            code=code, title=row["title"], category=row["category"], severity=Severity(row["severity"]),
            message=row["message"], rationale=row["rationale"], fix=row["fix"],
            effort_low=float(row["effort_hours"][0]), effort_high=float(row["effort_hours"][1]),
            sources=tuple(row.get("sources", [])), doc=RuleDoc.parse(mod.__doc__ or ""),
            node=node, kinds=frozenset(kinds), module=mod,
        ))
    return tuple(specs)


def by_code() -> dict[str, RuleSpec]:
    return {r.code: r for r in registry()}


class AnchorIndex:
    """One combined regex over every source rule's anchor, and a cache token → rules."""

    def __init__(self, rules: tuple[RuleSpec, ...]):
        self.rules = [r for r in rules if hasattr(r.module, "check")]
        self._own = [(r, re.compile(r.module.ANCHOR)) for r in self.rules]
        alternatives = sorted({r.module.ANCHOR for r in self.rules}, key=len, reverse=True)
        self.regex = re.compile(b"|".join(b"(?:" + a + b")" for a in alternatives))
        self._cache: dict[bytes, tuple[RuleSpec, ...]] = {}

    def rules_for(self, token: bytes) -> tuple[RuleSpec, ...]:
        hit = self._cache.get(token)
        if hit is None:
            hit = tuple(r for r, rx in self._own if rx.fullmatch(token))
            if len(self._cache) < 100_000:
                self._cache[token] = hit
        return hit


@lru_cache(maxsize=1)
def anchor_index() -> AnchorIndex:
    return AnchorIndex(registry())


def module_of(code: str) -> Any:
    return by_code()[code].module
