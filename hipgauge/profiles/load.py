"""``load_profile``: any supported profile file (or a tool's output folder) → ``Profile``.

The format is detected from the content (``detect.py``, over the formats the reader modules declare:
``readers/registry.py``); ``fmt`` overrides it. Every failure is an
``InputError`` naming the file; problems that leave the rest readable become ``Profile.warnings``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import polars as pl

from hipgauge.errors import InputError
from hipgauge.model import Profile

from .detect import detect_format, find_in_directory
from .readers.counters import attach_counters
from .readers.capture_manifest import trace_host_times_for
from .readers.latency import read_latency_series
from .readers.registry import PROFILE, formats, profile_format_names

#: the kernel-profile formats, as found in ``readers/`` when this module was imported (see ``registry``)
FORMATS: tuple[str, ...] = profile_format_names()


def reader_for(fmt: str) -> Any:
    """The read function of a kernel-profile format (KeyError when there is none)."""
    f = formats()[fmt]
    if f.role != PROFILE:
        raise KeyError(fmt)
    return f.read


def load_profile(path: str | Path, fmt: str | None = None, latency_csv: str | Path | None = None,
                 max_bytes: int | None = None) -> Profile:
    path = Path(path)
    if not path.exists():
        raise InputError("no such file or folder", path)
    known = ", ".join(profile_format_names())
    if path.is_dir():
        found = find_in_directory(path)
        if found is None:
            raise InputError(f"no profile file found in this folder (known: {known})", path)
        path = found
    if fmt is not None and fmt not in profile_format_names():
        raise InputError(f"unknown profile format {fmt!r} (known: {known})", path)
    if fmt is None:
        if path.stat().st_size == 0:
            raise InputError("is empty", path)
        fmt = detect_format(path)
        if fmt is not None and formats()[fmt].role != PROFILE:
            raise InputError(formats()[fmt].not_a_profile or f"is a {fmt} file, not a kernel profile", path)
        if fmt is None:
            raise InputError(f"unrecognised profile format (use --format; known: {known})", path)
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
    if path.is_file():
        trace_host = trace_host_times_for(path)
        if trace_host is not None:
            profile.attachments["trace_host"] = trace_host
    if latency_csv is not None:
        profile.latency_ms, rounds, host = read_latency_series(Path(latency_csv))
        if rounds is not None:
            profile.attachments["latency_rounds"] = rounds
        if host is not None:
            profile.attachments["latency_host_ms"] = host
        profile.latency_source = str(latency_csv)
    return profile


def _attach_counters(profile: Profile, path: Path, max_bytes: int | None) -> None:
    """The counters phase (readers/counters.py): hardware counters joined onto the kernel records, when the
    file (or its folder) holds any. Never fails the load: the durations stand on their own."""
    try:
        attach_counters(profile, path, max_bytes)
    except (ValueError, KeyError, TypeError, IndexError, OSError, UnicodeError, ArithmeticError, AttributeError,
            pl.exceptions.PolarsError) as exc:
        profile.warnings.append(f"hardware counters not read: {type(exc).__name__}: {str(exc)[:200]}")
