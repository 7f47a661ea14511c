"""The counters phase of loading a profile: find the hardware counters that belong to its kernel records and
attach them as ``Profile.counters`` (``model.COUNTER_RECORD_SCHEMA``), plus the reader of a rocprofv3
``counter_collection.csv`` given on its own (format ``rocprofv3-counters``).

Where the counters are, per format:

- ``ncu-csv``: in the same file (raw page columns or details page rows);
- ``rocprof-v1``: in the same ``results.csv`` (``rocprof --pmc`` adds one column per counter);
- ``rocprofv3-csv``: ``counter_collection.csv`` (or ``RUN_counter_collection.csv``) beside the kernel trace;
- ``rocprofv3-json``: ``callback_records.counter_collection`` in the same JSON;
- ``rocprof-compute``: ``pmc_perf.csv`` of the workload folder (the file itself, or beside ``timestamps.csv``),
  with ``sysinfo.csv`` for the part's limits.

A counters file that cannot be read is a warning on the profile, never a failure of the load: the durations
stand on their own.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from hipgauge.errors import InputError
from hipgauge.model import Profile

from .counters_ncu import read_ncu_counters
from .counters_rocprof import (
    compute_counters,
    read_agent_info,
    read_sysinfo,
    read_v3_counter_table,
    sibling,
    v1_counters,
    v3_counters,
    v3_dispatches,
    v3_json_counters,
)
from .counters_table import CounterSample, counter_frame, counter_frames, join_note
from .finish import finish_profile
from .registry import Format, Head
from .rocprof import _v3_agent_name, read_rocprofv3_csv

FORMAT_V3_COUNTERS = "rocprofv3-counters"
_PASS_DIR = re.compile(r"^pass_\d+$")
MAX_PASS_FILES = 64
_V3_COUNTER_NAMES = ("counter_collection.csv",)
_V3_TRACE_MARKERS = ("kernel_trace.csv", "kernel_stats.csv")


def _v3_counter_files(path: Path) -> list[Path]:
    """The counter_collection.csv files of a rocprofv3 run: beside the kernel trace, and in the ``pass_N/`` folders
    rocprofv3 writes one per pass of a multi-pass ``-i`` input (each joined on its own)."""
    found = []
    first = sibling(path, _V3_COUNTER_NAMES, _V3_TRACE_MARKERS)
    if first is not None:
        found.append(first)
    base = path.parent
    for up in (base, *list(base.parents)[:2]):
        if _PASS_DIR.match(up.name):
            base = up.parent
            break
    for p in sorted(base.glob("pass_*/**/*counter_collection.csv"))[:MAX_PASS_FILES]:
        if p not in found:
            found.append(p)
    return found


def _gather(profile: Profile, path: Path, max_bytes: int | None) -> tuple[list[list[CounterSample]], dict[str, str]]:
    """The counter samples of each counter file that belongs to ``profile`` (each file is joined on its own), and
    where they came from."""
    fmt = profile.source_format
    if fmt == "ncu-csv":
        samples, meta = read_ncu_counters(path, max_bytes)
        return [samples], {"file": str(path), "format": f"ncu {meta.get('page', '')} page".strip()}
    if fmt == "rocprof-v1":
        return [v1_counters(path, max_bytes)], {"file": str(path), "format": "rocprof v1 --pmc"}
    if fmt == "rocprofv3-csv":
        files = _v3_counter_files(path)
        if not files:
            return [], {}
        groups = [v3_counters(read_v3_counter_table(f, max_bytes)) for f in files]
        return groups, {"file": ", ".join(str(f) for f in files), "format": "rocprofv3 counter_collection.csv",
                        **_agent_limits_beside(path, profile)}
    if fmt == "rocprofv3-json":
        samples, part = v3_json_counters(path, max_bytes)
        return [samples], {"file": str(path), "format": "rocprofv3 JSON counter_collection", **part}
    if fmt == "rocprof-compute":
        pmc = path if path.name.startswith("pmc_perf") else path.with_name("pmc_perf.csv")
        source: dict[str, str] = {}
        sysinfo = path.with_name("sysinfo.csv")
        if sysinfo.exists():
            try:
                source.update(read_sysinfo(sysinfo))
                source["limits_file"] = str(sysinfo)
            except InputError as exc:
                profile.warnings.append(f"sysinfo.csv not used for the part's limits: {exc}")
        if not pmc.exists():
            return [], source
        return [compute_counters(pmc, max_bytes)], {"file": str(pmc), "format": "rocprof-compute pmc_perf.csv",
                                                    **source}
    return [], {}


def _agent_limits_beside(path: Path, profile: Profile) -> dict[str, str]:
    """The part's limits from ``agent_info.csv`` beside a rocprofv3 output file (none when absent or unreadable)."""
    info = sibling(path, ("agent_info.csv",), _V3_TRACE_MARKERS + _V3_COUNTER_NAMES)
    if info is None:
        return {}
    try:
        limits = read_agent_info(info)
    except InputError as exc:
        profile.warnings.append(f"agent_info.csv not used for the part's limits: {exc}")
        return {}
    return {**limits, "limits_file": str(info)} if limits else {}


def attach_counters(profile: Profile, path: str | Path, max_bytes: int | None = None) -> Profile:
    """Attach the counters that belong to ``profile`` (read from ``path``, or files beside it); returns it."""
    path = Path(path)
    if profile.counters is not None:
        return profile
    try:
        groups, source = _gather(profile, path, max_bytes)
    except InputError as exc:
        profile.warnings.append(f"hardware counters not read: {exc}")
        return profile
    src = {k: v for k, v in source.items() if v}
    if src:
        profile.attachments["counter_source"] = src
    if not any(groups):
        return profile
    df, stats = counter_frames(profile.kernels, groups)
    note = join_note(stats, f"counters ({source.get('format', 'counters')})")
    if note:
        profile.warnings.append(note)
    if df.height:
        profile.attachments["counters"] = df
        src["joined_by"] = "launch id" if not stats["by_name_order"] else (
            "launch id, then kernel name and order" if stats["by_launch_id"] else "kernel name and order")
        profile.attachments["counter_source"] = src
    return profile


def read_rocprofv3_counters_csv(path: str | Path, max_bytes: int | None = None) -> Profile:
    """A ``counter_collection.csv`` given as the profile. The 2025 column set has each dispatch's start and end:
    those are the kernel records (measured while counters were collected: the profiler serializes dispatches).
    The 2024 set has no times: the kernel trace of the same run (``kernel_trace.csv`` beside it) gives them."""
    path = Path(path)
    t = read_v3_counter_table(path, max_bytes)
    dispatches = v3_dispatches(t)
    if not dispatches:
        raise InputError("no counter rows", path)
    if any(d["duration_ns"] is None for d in dispatches):
        trace = sibling(path, _V3_TRACE_MARKERS[:1], _V3_COUNTER_NAMES)
        if trace is None:
            raise InputError("counter collection without Start_Timestamp/End_Timestamp (rocprofv3 2024 column set): "
                             "give the kernel_trace.csv of the same run (counters beside it are joined), or collect "
                             "with --kernel-trace --pmc", path)
        profile = read_rocprofv3_csv(trace, max_bytes=max_bytes)
        return attach_counters(profile, trace, max_bytes)
    df = pl.DataFrame(dispatches, schema={"raw_name": pl.String, "start_ns": pl.Int64, "duration_ns": pl.Int64,
                                          "stream": pl.Int64, "registers": pl.Int64, "shared_mem_bytes": pl.Int64,
                                          "correlation": pl.Int64})
    warnings = [("counter collection: dispatches were serialized while counters were read; durations are per "
                 "kernel, not end-to-end")]
    profile = finish_profile(path, FORMAT_V3_COUNTERS, "amd", df, device=_agent_name(path),
                             metadata={"column_set": "2025"}, warnings=warnings, empty="no counter rows",
                             negative="dispatch(es)")
    df_c, stats = counter_frame(profile.kernels, v3_counters(t))
    note = join_note(stats, "counters")
    if note:
        profile.warnings.append(note)
    if df_c.height:
        profile.attachments["counters"] = df_c
    profile.attachments["counter_source"] = {"file": str(path), "format": "rocprofv3 counter_collection.csv",
                                             "joined_by": "launch id", **_agent_limits_beside(path, profile)}
    return profile


def _sniff_v3_counters(head: Head) -> float | None:
    return head.csv_score(lambda f: "Counter_Name" in f and "Counter_Value" in f)


FORMATS = (
    Format(FORMAT_V3_COUNTERS, read_rocprofv3_counters_csv, _sniff_v3_counters, files=(("*counter_collection.csv", 60),)),
)


def _agent_name(path: Path) -> str | None:
    """The GPU's product name from ``agent_info.csv`` beside a counter_collection.csv (the rocprof reader's lookup)."""
    for marker in _V3_COUNTER_NAMES:
        if path.name.endswith(marker):
            fake = path.with_name(path.name[: -len(marker)] + "kernel_trace.csv")
            return _v3_agent_name(fake)
    return None
