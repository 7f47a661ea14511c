"""Share of profiled kernel time per kernel, keyed so source kernels can find themselves in it.

A source kernel ``warp_softmax_kernel`` and a profiled ``void warp_softmax_kernel<float>(float const*, …)``
meet on their *base name*: the normalized key without namespaces, lower-cased (``kernel_names.base_name``).
Shares come from, in order of preference: the baseline profile's kernel table, the parity rows of a
comparison, or the kernel lists of a projection's groups (a group's share split evenly over its kernels).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import polars as pl

from hipgauge.kernel_names import base_name

if TYPE_CHECKING:
    from hipgauge.model import Profile
    from hipgauge.profiles.parity import ComparisonResult
    from hipgauge.profiles.projection import ProjectionResult


@dataclass
class KernelShares:
    """base name → (share of baseline kernel time 0..1, a full name as profiled)."""

    shares: dict[str, float] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    ratios: dict[str, float] = field(default_factory=dict)  # base name → candidate/baseline, when compared
    #: full name as profiled → share: what the kernel-library classifier reads (base names merge kernels of two
    #: libraries, e.g. cuBLAS's and an application's ``cutlass::Kernel2<…>``)
    by_name: dict[str, float] = field(default_factory=dict)
    origin: str = ""  # "baseline profile", "comparison rows", "projection groups", "" (none)

    def __bool__(self) -> bool:
        return bool(self.shares)

    def share_of(self, name: str) -> float | None:
        return self.shares.get(base_name(name))


def kernel_shares(baseline: Profile | None = None, comparison: ComparisonResult | None = None,
                  projection: ProjectionResult | None = None) -> KernelShares:
    result = KernelShares()
    if baseline is not None and baseline.kernels is not None:
        try:
            df = baseline.kernels
            if len(df):
                col = "name" if "name" in df.columns else "raw_name"
                grouped = df.group_by(col, maintain_order=True).agg(pl.col("duration_ns").sum().alias("t"))
                total = float(grouped["t"].sum() or 0)
                if total > 0:
                    for name, t in zip(grouped[col].to_list(), grouped["t"].to_list()):
                        _add(result, name or "", float(t or 0) / total)
                    result.origin = "baseline profile"
        except Exception:  # noqa: BLE001 - fall through to the other sources
            result = KernelShares()
    if comparison is not None:
        for row in comparison.rows:
            names = list(row.baseline_names) or [row.label]
            share = float(row.share)
            ratio = row.ratio
            for n in names:
                if result.origin in ("", "comparison rows"):
                    _add(result, n, share / len(names))
                if ratio is not None:
                    result.ratios.setdefault(base_name(n), float(ratio))
        if result.shares and not result.origin:
            result.origin = "comparison rows"
    if not result.shares and projection is not None:
        for group in projection.groups:
            kernels = list(group.kernels)
            share = float(group.share)
            for n in kernels:
                _add(result, n, share / len(kernels))
        if result.shares:
            result.origin = "projection groups"
    return result


def _add(result: KernelShares, name: str, share: float) -> None:
    key = base_name(name)
    if not key:
        return
    result.shares[key] = result.shares.get(key, 0.0) + share
    result.names.setdefault(key, name)
    result.by_name[name] = result.by_name.get(name, 0.0) + share
