"""Checks of the command-line flags several commands share (one-line InputError on a bad value)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from hipgauge.errors import InputError


def check_percentile_target(percentile: float | None, target_ms: float | None) -> None:
    """``--percentile`` in (0, 100] and ``--target-ms`` positive, when given."""
    if percentile is not None and not math.isfinite(percentile):
        raise InputError(f"--percentile {percentile}: must be a finite number")
    if target_ms is not None and not math.isfinite(target_ms):
        raise InputError(f"--target-ms {target_ms}: must be a finite number of milliseconds")
    if percentile is not None and not (0 < percentile <= 100):
        raise InputError(f"--percentile {percentile:g}: must be in (0, 100]")
    if target_ms is not None and not (target_ms > 0):
        raise InputError(f"--target-ms {target_ms:g}: must be a positive number of milliseconds")


def check_archs(option: str, archs: list[str] | None, vendor: str) -> None:
    """Each of ``archs`` (given with ``option``) is a target of ``vendor`` (``amd``/``nvidia``) listed in
    ``hipgauge/data/arch_limits.toml`` (a ``:feature`` suffix such as ``gfx942:xnack-`` is allowed)."""
    from hipgauge.knowledge.arch_limits import arch_limits, known_archs

    for arch in archs or []:
        limits = arch_limits(arch) if arch.strip() else None
        if limits is None or limits.get("vendor") != vendor:
            what = "an empty name" if not arch.strip() else f"not a known {vendor.upper() if vendor == 'amd' else 'NVIDIA'} target"
            raise InputError(f"{option} {arch!r}: {what} (known: {', '.join(known_archs(vendor))})")


def include_folders(given: list[Path] | None, cfg: Any = None) -> list[Path]:
    """``-I`` folders (each must exist; InputError naming it), then, with ``cfg``, the config's
    ``build.include_dirs`` (relative to the config file's folder)."""
    folders: list[Path] = []
    for d in given or []:
        if not d.is_dir():
            raise InputError("--include-dir: not a folder", d)
        folders.append(d.resolve())
    if cfg is None:
        return folders
    base = Path(cfg.path).parent if cfg.path else Path.cwd()
    for d in cfg.get("build.include_dirs"):
        p = Path(d) if Path(d).is_absolute() else base / d
        if p.is_dir() and p not in folders:
            folders.append(p)
    return folders
