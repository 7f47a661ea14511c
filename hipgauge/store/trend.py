"""Per-kernel ratio trend across stored assessments, and the toolchain change that came with each step."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable

from hipgauge.kernel_names import key_or_name
from hipgauge.model import Record
from hipgauge.store.record import COMPONENT_LABELS, AssessmentRecord


def component_label(component: str) -> str:
    """``rocm`` → "ROCm"; ``gpu.candidate`` → "GPU (candidate)"."""
    base, _, side = component.partition(".")
    label = COMPONENT_LABELS.get(base, base)
    return f"{label} ({side})" if side else label


def toolchain_changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """What changed between two toolchains, as "ROCm 6.2 → 6.3" lines (known components first)."""
    order = list(COMPONENT_LABELS)

    def rank(component: str) -> tuple[int, str]:
        base = component.split(".", 1)[0]
        return (order.index(base) if base in order else len(order), component)

    changes = []
    for component in sorted(set(before) | set(after), key=rank):
        old, new = before.get(component), after.get(component)
        if old == new:
            continue
        name = component_label(component)
        if old is None:
            changes.append(f"{name} {new} (new)")
        elif new is None:
            changes.append(f"{name} {old} → (not recorded)")
        else:
            changes.append(f"{name} {old} → {new}")
    return changes


@dataclass
class TrendPoint(Record):
    assessment_id: int | None
    recorded_at: datetime
    commit: str | None
    ratio: float | None  # candidate / baseline time of this kernel in that assessment
    baseline_ns: float | None
    candidate_ns: float | None
    share: float | None
    match: str | None
    toolchain: dict[str, str] = field(default_factory=dict)
    step: float | None = None  # ratio / previous ratio (None for the first point)
    changes: list[str] = field(default_factory=list)  # toolchain changes since the previous point

    def to_dict(self) -> dict:
        d = super().to_dict()
        d["recorded_at"] = self.recorded_at.isoformat() if isinstance(self.recorded_at, datetime) else self.recorded_at
        return d


@dataclass
class KernelTrend(Record):
    project: str
    label: str
    points: list[TrendPoint] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"project": self.project, "label": self.label, "latest_ratio": self.latest_ratio,
                "change": self.change, "points": [p.to_dict() for p in self.points]}

    @property
    def latest_ratio(self) -> float | None:
        return self.points[-1].ratio if self.points else None

    @property
    def change(self) -> float | None:
        """Last ratio / first ratio (how much the kernel drifted over the whole history)."""
        if len(self.points) < 2 or not self.points[0].ratio or self.points[-1].ratio is None:
            return None
        return self.points[-1].ratio / self.points[0].ratio


def trend_key(label: str) -> str:
    """The key rows of one kernel share across assessments: its normalized name (an exact match in one
    assessment and a normalized one in the next then stay one trend)."""
    return key_or_name(label)


def build_trends(records: list[AssessmentRecord], keep: Callable[[str], bool]) -> list[KernelTrend]:
    """One trend per (project, kernel) over ``records`` (oldest first), for the labels ``keep`` accepts
    (it is asked about both the stored label and its normalized key)."""
    trends: dict[tuple[str, str], KernelTrend] = {}
    for rec in records:
        for row in rec.parity:
            key = trend_key(row.label)
            if not (keep(row.label) or keep(key)):
                continue
            trend = trends.setdefault((rec.project, key), KernelTrend(rec.project, row.label))
            trend.label = row.label  # shown as the latest assessment labels it
            point = TrendPoint(rec.id, rec.recorded_at, rec.commit, row.ratio, row.baseline_ns, row.candidate_ns,
                               row.share, row.match, dict(rec.toolchain))
            if trend.points:
                prev = trend.points[-1]
                if prev.ratio and point.ratio is not None:
                    point.step = point.ratio / prev.ratio
                point.changes = toolchain_changes(prev.toolchain, point.toolchain)
            trend.points.append(point)
    # hottest first (latest share), then by name, so the kernels that matter lead the table
    return sorted(trends.values(), key=lambda t: (t.project, -(t.points[-1].share or 0.0), t.label))
