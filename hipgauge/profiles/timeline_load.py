"""``load_timeline``: the host/device timeline of a profile whose format records one (Kineto, Nsight
Systems SQLite), for replay; None for formats without one (Nsight Compute, rocprof-compute, CSV
summaries), which keep the additive model."""

from __future__ import annotations

import importlib
import sqlite3
from pathlib import Path

import polars as pl

from hipgauge.errors import InputError
from hipgauge.model import Profile
from hipgauge.profiles.timeline import Timeline

#: profile format → (reader module, function)
TIMELINE_READERS: dict[str, tuple[str, str]] = {
    "kineto": ("kineto_timeline", "read_kineto_timeline"),
    "nsys-sqlite": ("nsys_timeline", "read_nsys_timeline"),
}


def has_timeline(source_format: str) -> bool:
    return source_format in TIMELINE_READERS


def load_timeline(profile: Profile) -> tuple[Timeline | None, str | None]:
    """(timeline, None), or (None, why not) when the format has none or it cannot be read."""
    if profile.source_format not in TIMELINE_READERS:
        return None, (f"{profile.source_format} profiles record no host/device timeline: the additive model is "
                      f"used for {Path(profile.path).name}")
    module, func = TIMELINE_READERS[profile.source_format]
    reader = getattr(importlib.import_module(f"hipgauge.profiles.readers.{module}"), func)
    try:
        return reader(profile.path), None
    except InputError as exc:
        return None, f"{Path(profile.path).name}: no replayable timeline ({exc}); the additive model is used"
    except (ValueError, KeyError, TypeError, IndexError, OSError, MemoryError, ArithmeticError,
            pl.exceptions.PolarsError, sqlite3.Error) as exc:
        return None, f"{Path(profile.path).name}: timeline unreadable ({type(exc).__name__}); the additive model is used"
