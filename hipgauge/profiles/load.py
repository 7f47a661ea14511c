"""``load_profile``: any supported profile file (or a tool's output folder) → ``Profile``.

The format is detected from the content (``detect.py``); ``fmt`` overrides it. Every failure is an
``InputError`` naming the file; problems that leave the rest readable become ``Profile.warnings``.
"""

from __future__ import annotations

import importlib
import sqlite3
from pathlib import Path
from typing import Any

import polars as pl

from hipgauge.errors import InputError
from hipgauge.model import Profile

from .detect import detect_format, find_in_directory

#: format name → (module under readers/, function). ``source_format`` of the rows it yields is the same name.
_READERS: dict[str, tuple[str, str]] = {
    "kineto": ("kineto", "read_kineto"),
    "nsys-csv": ("nsys", "read_nsys_csv"),
    "nsys-sqlite": ("nsys", "read_nsys_sqlite"),
    "ncu-csv": ("ncu", "read_ncu_csv"),
    "rocprof-v1": ("rocprof", "read_rocprof_v1_csv"),
    "rocprof-v1-json": ("rocprof", "read_rocprof_v1_json"),
    "rocprof-v1-db": ("rocprof", "read_rocprof_v1_db"),
    "rocprof-stats": ("rocprof", "read_rocprof_stats"),
    "rocprofv3-csv": ("rocprof", "read_rocprofv3_csv"),
    "rocprofv3-json": ("rocprof", "read_rocprofv3_json"),
    "rocpd": ("rocprof", "read_rocpd"),
    "rocprof-compute": ("rocprof", "read_rocprof_compute"),
    "rocprofv3-counters": ("counters", "read_rocprofv3_counters_csv"),
}

FORMATS: tuple[str, ...] = tuple(_READERS)


def reader_for(fmt: str) -> Any:
    module, func = _READERS[fmt]
    return getattr(importlib.import_module(f"hipgauge.profiles.readers.{module}"), func)


def load_profile(path: str | Path, fmt: str | None = None, latency_csv: str | Path | None = None,
                 max_bytes: int | None = None) -> Profile:
    path = Path(path)
    if not path.exists():
        raise InputError("no such file or folder", path)
    if path.is_dir():
        found = find_in_directory(path)
        if found is None:
            raise InputError("no profile file found in this folder (known: " + ", ".join(FORMATS) + ")", path)
        path = found
    if fmt is not None and fmt not in _READERS:
        raise InputError(f"unknown profile format {fmt!r} (known: {', '.join(FORMATS)})", path)
    if fmt is None:
        if path.stat().st_size == 0:
            raise InputError("is empty", path)
        fmt = detect_format(path)
        if fmt == "latency-csv":
            raise InputError("is a per-iteration latency CSV, not a kernel profile: give it with --latency-csv", path)
        if fmt is None:
            raise InputError("unrecognised profile format (use --format; known: " + ", ".join(FORMATS) + ")", path)
    reader = reader_for(fmt)
    try:
        profile: Profile = reader(path, max_bytes=max_bytes)
    except InputError as exc:
        if exc.path is None:  # raised below the reader without the file name: add it
            raise InputError(str(exc), path) from None
        raise
    except MemoryError:
        raise InputError("too large to load in memory", path) from None
    except RecursionError:
        raise InputError(f"cannot read as {fmt}: nested too deeply", path) from None
    except (ValueError, KeyError, TypeError, IndexError, OSError, UnicodeError, ArithmeticError, AttributeError,
            pl.exceptions.PolarsError, sqlite3.Error) as exc:
        # the last line of defence for a malformed file: one line naming it, never a traceback
        raise InputError(f"cannot read as {fmt}: {type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}",
                         path) from None
    _attach_counters(profile, path, max_bytes)
    if latency_csv is not None:
        from .readers.latency import read_latency

        profile.latency_ms = read_latency(Path(latency_csv))
        profile.latency_source = str(latency_csv)
    return profile


def _attach_counters(profile: Profile, path: Path, max_bytes: int | None) -> None:
    """The counters phase (readers/counters.py): hardware counters joined onto the kernel records, when the
    file (or its folder) holds any. Never fails the load: the durations stand on their own."""
    from .readers.counters import attach_counters

    try:
        attach_counters(profile, path, max_bytes)
    except (ValueError, KeyError, TypeError, IndexError, OSError, UnicodeError, ArithmeticError, AttributeError,
            pl.exceptions.PolarsError) as exc:
        profile.warnings.append(f"hardware counters not read: {type(exc).__name__}: {str(exc)[:200]}")
