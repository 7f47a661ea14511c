"""Nsight Compute ``--csv`` output: the details page (one row per metric) and the raw page (one row
per launch, metrics as columns, a second row of units).

Both may have ``==PROF==`` lines and the application's own output mixed in, trailing commas, and
thousands separators (``"17,984"``). Durations come from ``gpu__time_duration.sum`` (raw page, or
a details row of that name) or the details page's ``Duration`` metric, in whatever unit the row
or the units row gives (ns, nsecond, usecond, msecond, us, ms, s). ncu serializes and replays each
kernel (with locked clocks unless ``--clock-control none``): durations are per-kernel measurements,
``start_ns`` is null, and there are no iterations.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from hipgauge.errors import InputError
from hipgauge.model import Profile

from .finish import finish_profile
from .registry import Format
from .table import BYTE_UNITS, TIME_UNITS, Table, number, read_table

FORMAT = "ncu-csv"
_DURATION_METRICS = ("gpu__time_duration.sum", "gpu__time_duration.avg", "Duration")


def _is_header(f: list[str]) -> bool:
    return "Kernel Name" in f and ("ID" in f or "Process ID" in f)


def _min_fields(header: list[str]) -> int:
    return header.index("Metric Value") + 1 if "Metric Value" in header else len(header)


def _time_ns(value: float, unit: str, t: Table, line: int) -> float:
    u = unit.strip().lower()
    if u == "":
        u = "ns"
    if u not in TIME_UNITS:
        raise InputError(f"unknown time unit {unit!r}", t.path, line)
    return value * TIME_UNITS[u]


def _bytes(value: float | None, unit: str) -> float | None:
    if value is None:
        return None
    u = unit.strip().lower().split("/")[0]
    return value * BYTE_UNITS.get(u, 1)


def _dims(cell: str) -> str | None:
    s = cell.strip().strip("()[]")
    if not s:
        return None
    return ",".join(p.strip() for p in s.split(","))


def read_ncu_csv(path: str | Path, max_bytes: int | None = None) -> Profile:
    path = Path(path)
    t = read_table(path, _is_header, max_bytes, what="Nsight Compute CSV", min_fields=_min_fields)
    if t.col("Metric Name") is not None and t.col("Metric Value") is not None:
        df, meta = _details(t)
    else:
        df, meta = _raw(t)
    warnings = ["ncu serializes and replays kernels: durations are per-kernel, not end-to-end; no start times or iterations"]
    if t.skipped_lines:
        warnings.append(f"{t.skipped_lines} non-table line(s) (==PROF==, application output) were ignored")
    device = meta.get("device_name")
    return finish_profile(path, FORMAT, "nvidia", df, device=device, metadata=meta, warnings=warnings,
                          empty="no kernel launches with a duration")


def _meta_from(cc: str | None, meta: dict[str, str]) -> None:
    if cc:
        meta["compute_capability"] = cc
        try:
            major, minor = cc.split(".")
            meta["arch"] = f"sm_{int(major)}{int(minor)}"
        except ValueError:
            pass


def _details(t: Table) -> tuple[pl.DataFrame, dict[str, str]]:
    c = t.col
    ci = {k: c(k) for k in ("ID", "Process ID", "Kernel Name", "Stream", "Block Size", "Grid Size", "CC",
                            "Metric Name", "Metric Unit", "Metric Value")}
    ci_kname, ci_metric, ci_value = ci["Kernel Name"], ci["Metric Name"], ci["Metric Value"]
    if ci_kname is None or ci_metric is None or ci_value is None:
        raise InputError("details page without Kernel Name / Metric Name / Metric Value columns", t.path, t.header_line)
    launches: dict[tuple[str, str], dict] = {}
    cc = None
    for line, f in t.rows:
        key = (f[ci["ID"]] if ci["ID"] is not None else "", f[ci["Process ID"]] if ci["Process ID"] is not None else "")
        rec = launches.get(key)
        if rec is None:
            rec = launches[key] = {
                "raw_name": f[ci_kname],
                "stream": number(f[ci["Stream"]]) if ci["Stream"] is not None else None,
                "block": _dims(f[ci["Block Size"]]) if ci["Block Size"] is not None else None,
                "grid": _dims(f[ci["Grid Size"]]) if ci["Grid Size"] is not None else None,
                "durations": {}, "registers": None, "static": None, "dynamic": None, "order": len(launches),
            }
            if ci["CC"] is not None and f[ci["CC"]].strip():
                cc = f[ci["CC"]].strip()
        metric = f[ci_metric].strip()
        unit = f[ci["Metric Unit"]] if ci["Metric Unit"] is not None else ""
        raw_value = f[ci_value]
        if metric in _DURATION_METRICS:
            v = number(raw_value, t.path, line, metric)
            if v is not None:
                rec["durations"][metric] = _time_ns(v, unit, t, line)
        elif metric in ("Registers Per Thread", "launch__registers_per_thread"):
            rec["registers"] = number(raw_value, t.path, line, metric)
        elif metric in ("Static Shared Memory Per Block", "launch__shared_mem_per_block_static"):
            rec["static"] = _bytes(number(raw_value, t.path, line, metric), unit)
        elif metric in ("Dynamic Shared Memory Per Block", "launch__shared_mem_per_block_dynamic"):
            rec["dynamic"] = _bytes(number(raw_value, t.path, line, metric), unit)
    rows = []
    missing = 0
    for (lid, _pid), rec in launches.items():
        dur = next((rec["durations"][m] for m in _DURATION_METRICS if m in rec["durations"]), None)
        if dur is None:
            missing += 1
            continue
        smem = None if rec["static"] is None and rec["dynamic"] is None else (rec["static"] or 0) + (rec["dynamic"] or 0)
        rows.append({"raw_name": rec["raw_name"], "duration_ns": int(round(dur)), "stream": _i(rec["stream"]),
                     "block": rec["block"], "grid": rec["grid"], "registers": _i(rec["registers"]),
                     "shared_mem_bytes": _i(smem), "correlation": _i(number(lid) if lid.strip().isdigit() else None)})
    meta: dict[str, str] = {"page": "details"}
    _meta_from(cc, meta)
    if missing:
        meta["launches_without_duration"] = str(missing)
    return _frame(rows), meta


def _raw(t: Table) -> tuple[pl.DataFrame, dict[str, str]]:
    c = t.col
    ci_id, ci_name = c("ID"), c("Kernel Name")
    ci_dur = next((c(m) for m in _DURATION_METRICS[:2] if c(m) is not None), None)
    if ci_name is None:
        raise InputError("raw page without a Kernel Name column", t.path, t.header_line)
    if ci_dur is None:
        raise InputError("raw page without gpu__time_duration.sum (profile with --metrics gpu__time_duration.sum)",
                         t.path, t.header_line)
    ci_reg = c("launch__registers_per_thread")
    ci_ss, ci_ds = c("launch__shared_mem_per_block_static"), c("launch__shared_mem_per_block_dynamic")
    ci_stream = c("Stream") if c("Stream") is not None else c("launch__stream_id")
    ci_block, ci_grid, ci_cc = c("Block Size"), c("Grid Size"), c("CC")
    ci_devname = c("device__attribute_display_name")
    units = [""] * len(t.header)
    rows = []
    cc = None
    devname = None
    for line, f in t.rows:
        if ci_id is not None and f[ci_id].strip() == "" and f[ci_name].strip() == "":
            units = f  # the units row
            continue
        v = number(f[ci_dur], t.path, line, t.header[ci_dur])
        if v is None:
            continue
        dur = _time_ns(v, units[ci_dur] or "ns", t, line)
        ss = _bytes(number(f[ci_ss]), units[ci_ss]) if ci_ss is not None else None
        ds = _bytes(number(f[ci_ds]), units[ci_ds]) if ci_ds is not None else None
        if ci_cc is not None and f[ci_cc].strip():
            cc = f[ci_cc].strip()
        if ci_devname is not None and f[ci_devname].strip():
            devname = f[ci_devname].strip()
        rows.append({
            "raw_name": f[ci_name], "duration_ns": int(round(dur)),
            "stream": _i(number(f[ci_stream])) if ci_stream is not None else None,
            "block": _dims(f[ci_block]) if ci_block is not None else None,
            "grid": _dims(f[ci_grid]) if ci_grid is not None else None,
            "registers": _i(number(f[ci_reg])) if ci_reg is not None else None,
            "shared_mem_bytes": _i(None if ss is None and ds is None else (ss or 0) + (ds or 0)),
            "correlation": _i(number(f[ci_id])) if ci_id is not None else None,
        })
    meta: dict[str, str] = {"page": "raw"}
    _meta_from(cc, meta)
    if devname:
        meta["device_name"] = devname
    return _frame(rows), meta


def _i(v: float | None) -> int | None:
    return None if v is None else int(round(v))


def _frame(rows: list[dict]) -> pl.DataFrame:
    schema = {"raw_name": pl.String, "duration_ns": pl.Int64, "stream": pl.Int64, "block": pl.String, "grid": pl.String,
              "registers": pl.Int64, "shared_mem_bytes": pl.Int64, "correlation": pl.Int64}
    return pl.DataFrame(rows, schema=schema)


FORMATS = (Format(FORMAT, read_ncu_csv, lambda head: head.csv_score(_is_header)),)
