"""The public Python API: what a notebook or a script calls instead of the command line.

    >>> import hipgauge
    >>> result = hipgauge.scan("path/to/cuda/tree")        # a ScanResult (hipgauge.model)
    >>> len(result.kernels), result.findings[0].code
    >>> cmp = hipgauge.compare("h200_trace.json", "mi300x_trace.json", target_ms=20)
    >>> cmp.to_dict()["projection"]

Each function takes paths (``str`` or ``Path``), runs the same pipeline as its command and returns the
typed result; ``.to_dict()`` gives the JSON document the command prints with ``--json``. Bad input raises
``hipgauge.errors.InputError`` (its ``str()`` is the one-line message the CLI prints); nothing is written
anywhere. ``import hipgauge`` stays light: this module (and polars, tree-sitter…) loads on first use of
``hipgauge.scan`` / ``hipgauge.compare``. See docs/python-api.md.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Sequence

from hipgauge import config as config_mod
from hipgauge.app.scan import ScanOptions, scan_tree
from hipgauge.errors import InputError
from hipgauge.model import ScanResult
from hipgauge.profiles.load import load_profile
from hipgauge.profiles.match import load_user_map
from hipgauge.profiles.parity import ComparisonResult, compare_profiles

PathLike = str | os.PathLike[str]

__all__ = ["scan", "compare"]


def scan(path: PathLike | Sequence[PathLike], *, exclude: Sequence[str] = (), config: PathLike | None = None,
         ignore: Sequence[str] = (), workers: int | None = 1) -> ScanResult:
    """Scan a CUDA tree (a folder, a file, or several of either), as ``hipgauge scan`` does.

    ``exclude``: gitignore-style globs added to the config's; ``config``: a hipgauge.toml (default: the
    nearest one at or above the first path); ``ignore``: rule codes never reported; ``workers``: processes
    (default 1, serial: friendly to notebooks; None = all cores). Returns the ``ScanResult`` (kernels, launch
    sites, API calls, findings, per-file statistics, skipped files and warnings)."""
    paths = [Path(path)] if isinstance(path, (str, os.PathLike)) else [Path(p) for p in path]
    if not paths:
        raise InputError("no path to scan")
    for p in paths:
        if not p.exists() and not p.is_symlink():
            raise InputError("not found", p)
    cfg = config_mod.load(Path(config) if config is not None else None, start=None if config else paths[0])
    options = ScanOptions(exclude=(*cfg.get("exclude"), *exclude), ignore=(*cfg.get("ignore"), *ignore),
                          max_file_bytes=int(cfg.get("max_file_bytes")), workers=workers)
    return scan_tree(paths, options)


def compare(base: PathLike, cand: PathLike, *, percentile: float = 99.0, target_ms: float | None = None,
            map_file: PathLike | None = None, base_latency_csv: PathLike | None = None,
            cand_latency_csv: PathLike | None = None) -> ComparisonResult:
    """Per-kernel parity of the candidate profile ``cand`` (the port) against ``base``, and the projection
    at ``percentile`` against ``target_ms``, as ``hipgauge compare BASE CAND`` does. Profiles of every
    supported format are detected from their content. Returns the ``ComparisonResult``."""
    if not (math.isfinite(percentile) and 0 < percentile <= 100):
        raise InputError(f"percentile {percentile}: must be in (0, 100]")
    if target_ms is not None and not (math.isfinite(target_ms) and target_ms > 0):
        raise InputError(f"target_ms {target_ms}: must be a finite number of milliseconds > 0")
    user_map = load_user_map(Path(map_file)) if map_file is not None else None
    b = load_profile(Path(base), latency_csv=Path(base_latency_csv) if base_latency_csv else None)
    c = load_profile(Path(cand), latency_csv=Path(cand_latency_csv) if cand_latency_csv else None)
    return compare_profiles(b, c, user_map=user_map, percentile=percentile, target_ms=target_ms)
