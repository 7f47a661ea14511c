"""Classify kernels into groups (convolution, gemm, attention, normalization, …).

The rules are data: ``hipgauge/data/kernel_groups.toml``. The launching operator is tried first
(it says what the work is whichever library kernel does it); the kernel's demangled name second,
case-sensitively except for a rule's ``any_case`` words; a kernel that matches no rule is ``custom``.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from functools import lru_cache

import polars as pl

from hipgauge.datafiles import load_data_toml

CUSTOM = "custom"
GROUP_COLUMN = "group"


@dataclass(frozen=True)
class GroupRule:
    group: str
    patterns: tuple[str, ...]  # case-sensitive
    any_case: tuple[str, ...] = ()  # lower-cased; matched against the lower-cased value

    def matches(self, value: str) -> bool:
        if any(fnmatch.fnmatchcase(value, p) for p in self.patterns):
            return True
        if self.any_case:
            v = value.lower()
            return any(fnmatch.fnmatchcase(v, p) for p in self.any_case)
        return False


@dataclass(frozen=True)
class GroupRules:
    operator: tuple[GroupRule, ...]
    kernel: tuple[GroupRule, ...]

    @property
    def groups(self) -> list[str]:
        seen: list[str] = []
        for r in self.operator + self.kernel:
            if r.group not in seen:
                seen.append(r.group)
        return seen + [CUSTOM]


def _rules(items: list[dict]) -> tuple[GroupRule, ...]:
    return tuple(GroupRule(str(it["group"]), tuple(str(p) for p in it.get("patterns", [])),
                           tuple(str(p).lower() for p in it.get("any_case", []))) for it in items)


@lru_cache(maxsize=1)
def load_group_rules() -> GroupRules:
    data = load_data_toml("kernel_groups.toml")
    return GroupRules(_rules(data.get("operator", [])), _rules(data.get("kernel", [])))


@lru_cache(maxsize=65536)
def group_of_operator(operator: str) -> str | None:
    for rule in load_group_rules().operator:
        if rule.matches(operator):
            return rule.group
    return None


@lru_cache(maxsize=65536)
def group_of_kernel_name(name: str) -> str:
    for rule in load_group_rules().kernel:
        if rule.matches(name):
            return rule.group
    return CUSTOM


def classify(name: str, operator: str | None = None) -> str:
    """The group of one kernel: by its operator when a rule knows it, else by its name."""
    if operator:
        g = group_of_operator(operator)
        if g is not None:
            return g
    return group_of_kernel_name(name or "")


def add_groups(df: pl.DataFrame) -> pl.DataFrame:
    """The kernel table with a ``group`` column (one lookup per distinct name/operator pair)."""
    if df.height == 0:
        return df.with_columns(pl.lit(None, dtype=pl.String).alias(GROUP_COLUMN))
    names = df["name"] if "name" in df.columns else df["raw_name"]
    ops = df["operator"] if "operator" in df.columns else pl.Series([None] * df.height, dtype=pl.String)
    pairs = pl.DataFrame({"name": names.fill_null(""), "operator": ops})
    distinct = pairs.unique()
    lookup = distinct.with_columns(
        pl.Series(GROUP_COLUMN, [classify(n, o) for n, o in zip(distinct["name"].to_list(), distinct["operator"].to_list())],
                  dtype=pl.String)
    )
    grouped = pairs.join(lookup, on=["name", "operator"], how="left", nulls_equal=True, maintain_order="left")
    return df.with_columns(grouped[GROUP_COLUMN])
