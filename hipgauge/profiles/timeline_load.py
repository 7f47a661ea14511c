"""``load_timeline``: the host/device timeline of a profile whose format records one (Kineto, Nsight
Systems SQLite), for replay; None for formats without one (Nsight Compute, rocprof-compute, CSV
summaries), which keep the additive model."""

from __future__ import annotations

import importlib
import pkgutil
import sqlite3
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import polars as pl

from hipgauge.errors import InputError
from hipgauge.model import Profile
from hipgauge.profiles import readers
from hipgauge.profiles.timeline import Timeline


def _discover() -> dict[str, Callable[..., Timeline]]:
    """Every module of ``profiles.readers`` that declares ``TIMELINES = {format name: reader}`` (as reader modules
    declare ``FORMATS`` for the registry): nothing here knows a format by name."""
    found: dict[str, Callable[..., Timeline]] = {}
    for info in pkgutil.iter_modules(readers.__path__):
        if not info.name.endswith("_timeline"):
            continue
        module = importlib.import_module(f"{readers.__name__}.{info.name}")
        found.update(getattr(module, "TIMELINES", {}))
    return found


@lru_cache(maxsize=1)
def timeline_readers() -> dict[str, Callable[..., Timeline]]:
    return _discover()


def has_timeline(source_format: str) -> bool:
    return source_format in timeline_readers()


def load_timeline(profile: Profile) -> tuple[Timeline | None, str | None]:
    """(timeline, None), or (None, why not) when the format has none or it cannot be read."""
    attached = getattr(profile, "attachments", {}).get("timeline")
    if isinstance(attached, Timeline):  # a reader that built it in its own pass: no second read
        return attached, None
    reader = timeline_readers().get(profile.source_format)
    if reader is None and not callable(attached):
        return None, (f"{profile.source_format} profiles record no host/device timeline: the additive model is "
                      f"used for {Path(profile.path).name}")
    try:
        if callable(attached):  # the columns the reader kept from its own pass: built now, no second read
            built = attached()
            profile.attachments["timeline"] = built
            return built, None
        assert reader is not None
        return reader(profile.path), None
    except InputError as exc:
        return None, f"{Path(profile.path).name}: no replayable timeline ({exc}); the additive model is used"
    except (ValueError, KeyError, TypeError, IndexError, OSError, MemoryError, ArithmeticError,
            pl.exceptions.PolarsError, sqlite3.Error) as exc:
        return None, f"{Path(profile.path).name}: timeline unreadable ({type(exc).__name__}); the additive model is used"
