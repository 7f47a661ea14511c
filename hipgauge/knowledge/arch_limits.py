"""Per-architecture hardware limits and per-device peak bandwidth (data: ``hipgauge/data/arch_limits.toml``).

The arch tables (keyed by arch name) feed the occupancy calculators in ``toolchain/occupancy.py`` and the
build-check's vendor split. The ``[[parts]]`` list (one entry per device: peak DRAM bandwidth, SM/CU count,
waves per CU, the vendor page it came from and when) feeds the counters' "% of peak" (``profiles/counters.py``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from hipgauge.datafiles import load_data_toml


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    return load_data_toml("arch_limits.toml")


@lru_cache(maxsize=1)
def load_arch_limits() -> dict[str, dict[str, Any]]:
    """All arch tables of ``hipgauge/data/arch_limits.toml`` keyed by arch name (the file's top-level ``as_of`` and
    ``sources`` are its provenance, read by ``hipgauge.knowledge.provenance``, and ``[[parts]]`` is the per-device
    list read by ``known_parts``: neither is an arch)."""
    return {name: table for name, table in _table().items() if isinstance(table, dict)}


def arch_limits(arch: str) -> dict[str, Any] | None:
    """The limits of ``arch`` (a ``:feature`` suffix such as ``gfx942:xnack-`` is ignored), or None."""
    return load_arch_limits().get(arch.split(":")[0])


def known_archs(vendor: str | None = None) -> list[str]:
    """Every arch the table lists, or those of one vendor (``nvidia`` / ``amd``)."""
    return [a for a, v in load_arch_limits().items() if vendor is None or v["vendor"] == vendor]


def known_parts() -> tuple[dict[str, Any], ...]:
    """The ``[[parts]]`` entries, in file order (specific names first)."""
    return tuple(_table().get("parts", []))


def find_part(name: str | None, vendor: str | None = None) -> dict[str, Any] | None:
    """The first ``[[parts]]`` entry one of whose ``match`` strings occurs in ``name`` (case-insensitive), or None."""
    if not name:
        return None
    low = name.lower()
    for p in known_parts():
        if vendor and p.get("vendor") != vendor:
            continue
        if any(m.lower() in low for m in p.get("match", [])):
            return p
    return None
