"""Per-architecture hardware limits (data: ``hipgauge/data/arch_limits.toml``), keyed by arch name.

The occupancy calculators in ``toolchain/occupancy.py`` and the build-check's vendor split read these.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from hipgauge.datafiles import load_data_toml


@lru_cache(maxsize=1)
def load_arch_limits() -> dict[str, dict[str, Any]]:
    """All arch tables of ``hipgauge/data/arch_limits.toml`` keyed by arch name (the file's top-level ``as_of`` and
    ``sources`` are its provenance, read by ``hipgauge.knowledge.provenance``, not archs)."""
    return {name: table for name, table in load_data_toml("arch_limits.toml").items() if isinstance(table, dict)}


def arch_limits(arch: str) -> dict[str, Any] | None:
    """The limits of ``arch`` (a ``:feature`` suffix such as ``gfx942:xnack-`` is ignored), or None."""
    return load_arch_limits().get(arch.split(":")[0])


def known_archs(vendor: str | None = None) -> list[str]:
    """Every arch the table lists, or those of one vendor (``nvidia`` / ``amd``)."""
    return [a for a, v in load_arch_limits().items() if vendor is None or v["vendor"] == vendor]
