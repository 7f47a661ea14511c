"""AMD profilers: rocprof v1, rocprofv3 (CSV, JSON, rocpd SQLite) and rocprof-compute.

Conventions across these readers:
- ``grid`` is in workgroups (blocks) like CUDA's; AMD files give the grid in work-items, so each
  dimension is divided (rounding up) by the workgroup size. Files that only give 1-D totals
  (rocprof v1, rocprof-compute) leave ``grid``/``block`` null rather than guess the shape.
- ``registers`` is the arch VGPR count; ``shared_mem_bytes`` the LDS per workgroup.
- ``range`` is the roctx range: the v1 ``roctx-range`` column, the rocpd ``region`` when it differs
  from the kernel name, or (rocprofv3 CSV) the innermost ``marker_api_trace.csv`` range on the
  launching thread when that file and ``hip_api_trace.csv`` sit beside the kernel trace.
- ``*_stats.csv`` inputs are aggregate: expanded to one row per call with the average duration.
"""

from __future__ import annotations

import math
import re
import sqlite3
from pathlib import Path
from typing import Any

import orjson
import polars as pl

from hipgauge.errors import InputError
from hipgauge.kernel_names import KD_SUFFIX
from hipgauge.model import Profile

from .chrome_json import ChromeTrace
from .files import open_sqlite, read_bytes, sqlite_columns
from .finish import finish_profile
from .frame import AGGREGATE_WARNING, expand_aggregate
from .ranges import attribute_ranges
from .registry import Format, Head
from .table import Table, number, read_table

VENDOR = "amd"


def _profile(path: Path, fmt: str, df: pl.DataFrame, warnings: list[str], metadata: dict[str, str] | None = None,
             device: str | None = None) -> Profile:
    return finish_profile(path, fmt, VENDOR, df, device=device, metadata=metadata, warnings=warnings,
                          empty="no kernel dispatches", negative="dispatch(es)")


def _i(v: float | None) -> int | None:
    return None if v is None else int(round(v))


def _blocks(grid: list[float | None], wg: list[float | None]) -> tuple[str | None, str | None]:
    if any(v is None for v in grid) or any(v is None for v in wg):
        return None, None
    g = [int(v) for v in grid if v is not None]
    w = [int(v) for v in wg if v is not None]
    blocks = [math.ceil(a / b) if b > 0 else a for a, b in zip(g, w)]
    return ",".join(map(str, blocks)), ",".join(map(str, w))


def _cell(t: Table, f: list[str], *names: str) -> str | None:
    i = t.col(*names)
    return None if i is None else f[i]


def _num(t: Table, f: list[str], line: int, *names: str) -> float | None:
    i = t.col(*names)
    return None if i is None else number(f[i], t.path, line, t.header[i])


# --------------------------------------------------------------------------- rocprof v1 CSV
def read_rocprof_v1_csv(path: str | Path, max_bytes: int | None = None) -> Profile:
    path = Path(path)
    t = read_table(path, lambda f: "KernelName" in f and "DurationNs" in f, max_bytes, what="rocprof results.csv")
    rows: list[dict[str, Any]] = []
    for line, f in t.rows:
        begin, end = _num(t, f, line, "BeginNs"), _num(t, f, line, "EndNs")
        dur = _num(t, f, line, "DurationNs")
        if dur is None and begin is not None and end is not None:
            dur = end - begin
        if dur is None:
            continue
        rows.append({
            "raw_name": _cell(t, f, "KernelName"), "start_ns": _i(begin), "duration_ns": _i(dur),
            "stream": _i(_num(t, f, line, "queue-id")), "registers": _i(_num(t, f, line, "arch_vgpr")),
            "shared_mem_bytes": _i(_num(t, f, line, "lds")), "correlation": _i(_num(t, f, line, "Index")),
            "gpu": _i(_num(t, f, line, "gpu-id")),
        })
    df = pl.DataFrame(rows, schema={"raw_name": pl.String, "start_ns": pl.Int64, "duration_ns": pl.Int64, "stream": pl.Int64,
                                    "registers": pl.Int64, "shared_mem_bytes": pl.Int64, "correlation": pl.Int64, "gpu": pl.Int64})
    warnings = ["rocprof v1 gives 1-D grid totals: grid/block shapes are not recorded"]
    return _profile(path, "rocprof-v1", df.drop("gpu"), warnings)


# --------------------------------------------------------------------------- stats (aggregate)
_NOT_KERNEL_STATS = re.compile(r"(hip_api|hsa_api|domain|hip_stats|copy_stats|memory_copy|marker|rccl|scratch)", re.I)


def read_rocprof_stats(path: str | Path, max_bytes: int | None = None) -> Profile:
    path = Path(path)
    if _NOT_KERNEL_STATS.search(path.name):
        raise InputError("is an API/copy statistics file, not kernel statistics (use results.stats.csv or "
                         "*kernel_stats.csv)", path)
    t = read_table(path, lambda f: {"Name", "Calls", "TotalDurationNs"} <= set(f), max_bytes, what="rocprof stats CSV")
    names, counts, totals = [], [], []
    for line, f in t.rows:
        calls = _num(t, f, line, "Calls")
        total = _num(t, f, line, "TotalDurationNs")
        if calls is None or total is None:
            continue
        if calls < 0 or total < 0:
            raise InputError("negative Calls or TotalDurationNs", path, line)
        names.append(_cell(t, f, "Name") or "")
        counts.append(int(calls))
        totals.append(int(round(total)))
    fmt = "rocprof-stats"
    return _profile(path, fmt, expand_aggregate(names, counts, totals), [AGGREGATE_WARNING], {"aggregate": "true"})


# --------------------------------------------------------------------------- rocprof v1 JSON
def read_rocprof_v1_json(path: str | Path, max_bytes: int | None = None) -> Profile:
    """Chrome trace from ``rocprof --hip-trace/--sys-trace``: GPU rows (pid ``GPU<n>``) with exact ns
    in ``args.BeginNs/EndNs/DurationNs`` (strings); ``ts``/``dur`` are truncated µs and not used."""
    path = Path(path)
    trace = ChromeTrace(path, max_bytes=max_bytes)
    rows: list[dict[str, Any]] = []
    for events in trace.events():
        for e in events:
            if e.get("ph") != "X":
                continue
            args = e.get("args") or {}
            pid = str(e.get("pid", ""))
            if not pid.upper().startswith("GPU") and "BeginNs" not in args:
                continue
            if not pid.upper().startswith("GPU"):
                continue
            try:
                begin = int(str(args["BeginNs"]))
                end = int(str(args["EndNs"]))
                dur = int(str(args["DurationNs"])) if "DurationNs" in args else end - begin
            except (KeyError, ValueError):
                ts, d = e.get("ts"), e.get("dur")
                if ts is None or d is None:
                    continue
                begin, dur = int(round(float(ts) * 1000)), int(round(float(d) * 1000))
            rows.append({"raw_name": str(e.get("name", "")), "start_ns": begin, "duration_ns": dur,
                         "stream": _i(number(str(e.get("tid"))) if str(e.get("tid", "")).isdigit() else None),
                         "correlation": _i(number(str(args["Index"]))) if "Index" in args else None})
    df = pl.DataFrame(rows, schema={"raw_name": pl.String, "start_ns": pl.Int64, "duration_ns": pl.Int64,
                                    "stream": pl.Int64, "correlation": pl.Int64})
    return _profile(path, "rocprof-v1-json", df, [])


# --------------------------------------------------------------------------- rocprof v1 DB
def read_rocprof_v1_db(path: str | Path, max_bytes: int | None = None) -> Profile:
    path = Path(path)
    con, tables = open_sqlite(path)
    try:
        ops = next((t for t in tables if t.lower() == "ops"), None)
        if ops is None:
            raise InputError("no OPS table: not a rocprof v1 results.db", path)
        cols = sqlite_columns(con, ops)

        def c(name: str) -> str:
            return f'"{name}"' if name in cols else "NULL"

        dur = c("DurationNs") if "DurationNs" in cols else '("EndNs" - "BeginNs")'
        q = (f'SELECT {c("Name")}, {c("BeginNs")}, {dur}, {c("queue-id")}, {c("stream-id")}, {c("roctx-range")}, {c("Index")} '
             f'FROM "{ops}"')
        data = con.execute(q).fetchall()
    except sqlite3.Error as exc:
        raise InputError(f"SQLite query failed: {exc}", path) from None
    finally:
        con.close()
    df = pl.DataFrame(data, schema={"raw_name": pl.String, "start_ns": pl.Int64, "duration_ns": pl.Int64, "queue": pl.Int64,
                                    "stream": pl.Int64, "range": pl.String, "correlation": pl.Int64}, orient="row")
    df = df.with_columns(pl.coalesce("stream", "queue").alias("stream"),
                         pl.when(pl.col("range").str.strip_chars() == "").then(None).otherwise(pl.col("range")).alias("range"))
    return _profile(path, "rocprof-v1-db", df.drop("queue"), [])


# --------------------------------------------------------------------------- rocprofv3 CSV
def read_rocprofv3_csv(path: str | Path, max_bytes: int | None = None) -> Profile:
    path = Path(path)
    t = read_table(path, lambda f: "Kernel_Name" in f and "Start_Timestamp" in f, max_bytes, what="rocprofv3 kernel_trace.csv")
    rows: list[dict[str, Any]] = []
    agents: set[str] = set()
    for line, f in t.rows:
        start, end = _num(t, f, line, "Start_Timestamp"), _num(t, f, line, "End_Timestamp")
        if start is None or end is None:
            continue
        grid, block = _blocks([_num(t, f, line, f"Grid_Size_{a}") for a in "XYZ"],
                              [_num(t, f, line, f"Workgroup_Size_{a}") for a in "XYZ"])
        agent = _cell(t, f, "Agent_Id")
        if agent:
            agents.add(agent.strip())
        lds = _num(t, f, line, "LDS_Block_Size", "Lds_Block_Size", "Group_Segment_Size")
        rows.append({
            "raw_name": _cell(t, f, "Kernel_Name"), "start_ns": _i(start), "duration_ns": _i(end - start),
            "stream": _i(_num(t, f, line, "Stream_Id")) if t.col("Stream_Id") is not None else _i(_num(t, f, line, "Queue_Id")),
            "registers": _i(_num(t, f, line, "VGPR_Count", "Arch_VGPR_Count")), "shared_mem_bytes": _i(lds),
            "correlation": _i(_num(t, f, line, "Correlation_Id")), "tid": _i(_num(t, f, line, "Thread_Id")),
            "grid": grid, "block": block,
        })
    schema = {"raw_name": pl.String, "start_ns": pl.Int64, "duration_ns": pl.Int64, "stream": pl.Int64, "registers": pl.Int64,
              "shared_mem_bytes": pl.Int64, "correlation": pl.Int64, "tid": pl.Int64, "grid": pl.String, "block": pl.String}
    df = pl.DataFrame(rows, schema=schema)
    warnings: list[str] = []
    df, found = _v3_markers(path, df, warnings)
    meta = {"column_set": "2025" if t.col("Stream_Id") is not None else "2024"}
    if found:
        meta["markers"] = found
    device = _v3_agent_name(path)
    if device is None and len(agents) == 1:
        meta["agent"] = next(iter(agents))
    return _profile(path, "rocprofv3-csv", df.drop("tid"), warnings, meta, device=device)


def _sibling(path: Path, suffix: str) -> Path | None:
    """``RUN_kernel_trace.csv`` → ``RUN_<suffix>`` (or ``<suffix>``) in the same folder."""
    stem = path.name
    for marker in ("kernel_trace.csv", "kernel_stats.csv"):
        if stem.endswith(marker):
            cand = path.with_name(stem[: -len(marker)] + suffix)
            if cand.exists():
                return cand
    cand = path.with_name(suffix)
    return cand if cand.exists() else None


def _v3_agent_name(path: Path) -> str | None:
    info = _sibling(path, "agent_info.csv")
    if info is None:
        return None
    try:
        t = read_table(info, lambda f: "Agent_Type" in f or "Product_Name" in f or "Name" in f, what="agent_info.csv")
    except InputError:
        return None
    for _, f in t.rows:
        if (_cell(t, f, "Agent_Type") or "").strip().upper() == "GPU":
            return (_cell(t, f, "Product_Name", "Marketing_Name") or _cell(t, f, "Name") or "").strip() or None
    return None


def _v3_markers(path: Path, df: pl.DataFrame, warnings: list[str]) -> tuple[pl.DataFrame, str | None]:
    markers, api = _sibling(path, "marker_api_trace.csv"), _sibling(path, "hip_api_trace.csv")
    if markers is None or api is None:
        return df, None
    try:
        mt = read_table(markers, lambda f: "Function" in f and "Start_Timestamp" in f, what="marker_api_trace.csv")
        at = read_table(api, lambda f: "Function" in f and "Correlation_Id" in f, what="hip_api_trace.csv")
    except InputError as exc:
        warnings.append(f"roctx markers not used: {exc}")
        return df, None
    ranges = []
    for line, f in mt.rows:
        s, e = _num(mt, f, line, "Start_Timestamp"), _num(mt, f, line, "End_Timestamp")
        if s is not None and e is not None and e > s:
            ranges.append((_i(_num(mt, f, line, "Thread_Id")), _i(s), _i(e), _cell(mt, f, "Function")))
    launch = {}
    for line, f in at.rows:
        corr = _i(_num(at, f, line, "Correlation_Id"))
        if corr is not None:
            launch[corr] = (_i(_num(at, f, line, "Thread_Id")), _i(_num(at, f, line, "Start_Timestamp")))
    points = [launch.get(c, (None, None)) for c in df.get_column("correlation").to_list()]
    rng, it = attribute_ranges(points, ranges)
    df = df.with_columns(pl.Series("range", rng, dtype=pl.String), pl.Series("iteration", it, dtype=pl.Int64))
    return df, markers.name


# --------------------------------------------------------------------------- rocprofv3 JSON
def read_rocprofv3_json(path: str | Path, max_bytes: int | None = None) -> Profile:
    path = Path(path)
    try:
        doc = orjson.loads(read_bytes(path, max_bytes))
    except orjson.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc}", path) from None
    tools = doc.get("rocprofiler-sdk-tool") if isinstance(doc, dict) else None
    if not isinstance(tools, list) or not tools:
        raise InputError("no rocprofiler-sdk-tool section: not rocprofv3 JSON output", path)
    rows: list[dict[str, Any]] = []
    meta: dict[str, str] = {}
    device = None
    for ti, tool in enumerate(tools):
        syms = {s.get("kernel_id"): s for s in tool.get("kernel_symbols") or [] if isinstance(s, dict)}
        agents = {}
        for a in tool.get("agents") or []:
            handle = (a.get("id") or {}).get("handle") if isinstance(a.get("id"), dict) else a.get("id")
            agents[handle] = a
        for n, k in enumerate(((tool.get("buffer_records") or {}).get("kernel_dispatch")) or []):
            try:
                info = k["dispatch_info"]
                start, end = int(k["start_timestamp"]), int(k["end_timestamp"])
            except (KeyError, TypeError, ValueError):
                raise InputError("kernel_dispatch record without dispatch_info/start/end", path,
                                 f"rocprofiler-sdk-tool[{ti}].buffer_records.kernel_dispatch[{n}]") from None
            sym = syms.get(info.get("kernel_id"), {})
            agent = agents.get((info.get("agent_id") or {}).get("handle"), {})
            wg, gs = info.get("workgroup_size") or {}, info.get("grid_size") or {}
            grid, block = _blocks([gs.get(a) for a in "xyz"], [wg.get(a) for a in "xyz"])
            corr = k.get("correlation_id") or {}
            stream = (k.get("stream_id") or {}).get("handle") if isinstance(k.get("stream_id"), dict) else None
            if stream is None:
                stream = (info.get("queue_id") or {}).get("handle")
            rows.append({
                "raw_name": sym.get("kernel_name") or sym.get("formatted_kernel_name") or str(info.get("kernel_id")),
                "name": sym.get("demangled_kernel_name") or sym.get("kernel_name"),
                "device": agent.get("product_name") or agent.get("name"),
                "start_ns": start, "duration_ns": end - start, "stream": stream,
                "registers": sym.get("arch_vgpr_count"),
                "shared_mem_bytes": info.get("group_segment_size", sym.get("group_segment_size")),
                "correlation": corr.get("internal") if isinstance(corr, dict) else corr, "grid": grid, "block": block,
            })
            if device is None and agent:
                device = agent.get("product_name") or agent.get("name")
                if agent.get("name"):
                    meta["arch"] = str(agent["name"])
        md = tool.get("metadata") or {}
        if "pid" in md:
            meta.setdefault("pid", str(md["pid"]))
    schema = {"raw_name": pl.String, "name": pl.String, "device": pl.String, "start_ns": pl.Int64, "duration_ns": pl.Int64,
              "stream": pl.Int64, "registers": pl.Int64, "shared_mem_bytes": pl.Int64, "correlation": pl.Int64,
              "grid": pl.String, "block": pl.String}
    df = pl.DataFrame(rows, schema=schema)
    # demangled names from the tool keep ".kd"; strip it for the readable name
    df = df.with_columns(pl.col("name").str.replace(KD_SUFFIX, ""))
    return _profile(path, "rocprofv3-json", df, [], meta, device=device)


# --------------------------------------------------------------------------- rocpd SQLite
def read_rocpd(path: str | Path, max_bytes: int | None = None) -> Profile:
    path = Path(path)
    con, tables = open_sqlite(path)
    try:
        if "kernels" not in tables:
            raise InputError("no 'kernels' view: not a rocpd database (schema 3)", path)
        kcols = sqlite_columns(con, "kernels")

        def c(name: str) -> str:
            return f"k.{name}" if name in kcols else "NULL"

        vgpr = "NULL"
        if "rocpd_info_kernel_symbol" in tables and "kernel_id" in kcols:
            vgpr = "(SELECT s.arch_vgpr_count FROM rocpd_info_kernel_symbol s WHERE s.id = k.kernel_id" + (
                " AND s.guid = k.guid)" if "guid" in kcols else ")")
        q = (f"SELECT {c('name')}, {c('region')}, {c('start')}, {c('end')}, {c('stream_id')}, {c('queue_id')}, "
             f"{c('grid_x')}, {c('grid_y')}, {c('grid_z')}, {c('workgroup_x')}, {c('workgroup_y')}, {c('workgroup_z')}, "
             f"{c('lds_size')}, {c('corr_id')}, {vgpr}, {c('agent_abs_index')} FROM kernels k")
        data = con.execute(q).fetchall()
        agent_names: dict[Any, str] = {}
        if "rocpd_info_agent" in tables:
            acols = sqlite_columns(con, "rocpd_info_agent")
            label = "product_name" if "product_name" in acols else "name" if "name" in acols else None
            if label and "absolute_index" in acols:
                for idx, nm, *rest in con.execute(f"SELECT absolute_index, {label}" + (", type" if "type" in acols else "")
                                                  + " FROM rocpd_info_agent"):
                    if not rest or str(rest[0]).upper() == "GPU":
                        agent_names[idx] = str(nm)
    except sqlite3.Error as exc:
        raise InputError(f"SQLite query failed: {exc}", path) from None
    finally:
        con.close()
    rows = []
    for (name, region, start, end, stream, queue, gx, gy, gz, wx, wy, wz, lds, corr, vgpr, agent) in data:
        grid, block = _blocks([gx, gy, gz], [wx, wy, wz])
        rows.append({"raw_name": name, "range": region if region and region != name else None, "start_ns": start,
                     "duration_ns": (end - start) if start is not None and end is not None else None,
                     "stream": stream if stream is not None else queue, "grid": grid, "block": block,
                     "shared_mem_bytes": lds, "correlation": corr, "registers": vgpr, "device": agent_names.get(agent)})
    schema = {"raw_name": pl.String, "range": pl.String, "start_ns": pl.Int64, "duration_ns": pl.Int64, "stream": pl.Int64,
              "grid": pl.String, "block": pl.String, "shared_mem_bytes": pl.Int64, "correlation": pl.Int64,
              "registers": pl.Int64, "device": pl.String}
    df = pl.DataFrame(rows, schema=schema).filter(pl.col("duration_ns").is_not_null())
    devices = {d for d in df.get_column("device").drop_nulls().unique().to_list()}
    return _profile(path, "rocpd", df, [], device=next(iter(devices)) if len(devices) == 1 else None)


# --------------------------------------------------------------------------- rocprof-compute
def read_rocprof_compute(path: str | Path, max_bytes: int | None = None) -> Profile:
    """``timestamps.csv`` of a rocprof-compute workload (MI200 v1-style or MI300 v2-style columns)."""
    path = Path(path)
    t = read_table(path, lambda f: "Kernel_Name" in f and "Start_Timestamp" in f, max_bytes, what="rocprof-compute timestamps.csv")
    rows = []
    rounded = 0
    for line, f in t.rows:
        s_cell, e_cell = _cell(t, f, "Start_Timestamp") or "", _cell(t, f, "End_Timestamp") or ""
        start, end = number(s_cell, path, line, "Start_Timestamp"), number(e_cell, path, line, "End_Timestamp")
        if start is None or end is None:
            continue
        if "e" in s_cell.lower() or "e" in e_cell.lower():
            rounded += 1
        rows.append({"raw_name": _cell(t, f, "Kernel_Name"), "start_ns": _i(start), "duration_ns": _i(end - start),
                     "stream": _i(_num(t, f, line, "queue-id", "Queue_ID")), "registers": _i(_num(t, f, line, "Arch_VGPR")),
                     "shared_mem_bytes": _i(_num(t, f, line, "LDS_Per_Workgroup")),
                     "correlation": _i(_num(t, f, line, "Dispatch_ID"))})
    warnings = ["rocprof-compute timestamps give 1-D grid totals: grid/block shapes are not recorded"]
    if rounded:
        warnings.append(f"{rounded} row(s) store timestamps in rounded scientific notation: their durations are not "
                        "measurable from this file (read as the rounded difference)")
    df = pl.DataFrame(rows, schema={"raw_name": pl.String, "start_ns": pl.Int64, "duration_ns": pl.Int64, "stream": pl.Int64,
                                    "registers": pl.Int64, "shared_mem_bytes": pl.Int64, "correlation": pl.Int64})
    meta: dict[str, str] = {}
    device = None
    sysinfo = path.with_name("sysinfo.csv")
    if sysinfo.exists():
        try:
            st = read_table(sysinfo, lambda f: "gpu_model" in f or "gpu_arch" in f, what="sysinfo.csv")
            if st.rows:
                _, f = st.rows[0]
                for key, col in (("gpu_model", "gpu_model"), ("arch", "gpu_arch"), ("rocm_version", "rocm_version"),
                                 ("workload", "workload_name")):
                    v = _cell(st, f, col)
                    if v and v.strip():
                        meta[key] = v.strip()
                device = meta.get("gpu_model")
        except InputError as exc:
            warnings.append(f"sysinfo.csv not used: {exc}")
    return _profile(path, "rocprof-compute", df, warnings, meta, device=device)


# --------------------------------------------------------------------------- the formats
def _sniff_v1_csv(head: Head) -> float | None:
    return head.csv_score(lambda f: "KernelName" in f and "DurationNs" in f)


def _sniff_stats(head: Head) -> float | None:
    return head.csv_score(lambda f: {"Name", "Calls", "TotalDurationNs"} <= set(f))


def _not_counters(f: list[str]) -> bool:
    """rocprofv3 counter collection (one row per counter) is not a kernel trace."""
    return "Counter_Name" not in f and "Counter_Value" not in f


def _sniff_v3_csv(head: Head) -> float | None:
    return head.csv_score(lambda f: _not_counters(f) and "Kernel_Name" in f and ("Kind" in f or "Kernel_Id" in f))


def _sniff_compute(head: Head) -> float | None:
    return head.csv_score(lambda f: _not_counters(f) and "Kernel_Name" in f and "Start_Timestamp" in f
                          and "Kind" not in f and "Kernel_Id" not in f)


def _sniff_v1_json(head: Head) -> float | None:
    if head.is_json and (head.has(b'"BeginNs"', b'"DataFlow"') or head.search(rb'"pid"\s*:\s*"GPU')):
        return 2.0  # above a Kineto trace, below rocprofv3 JSON
    return None


def _sniff_v3_json(head: Head) -> float | None:
    return 3.0 if head.is_json and head.has(b"rocprofiler-sdk-tool") else None


def _sniff_rocpd(head: Head) -> float | None:
    return 2.0 if any(n.lower().startswith("rocpd_") for n in head.sqlite_tables) else None


def _sniff_v1_db(head: Head) -> float | None:
    return 1.0 if "ops" in {n.lower() for n in head.sqlite_tables} else None


FORMATS = (
    Format("rocprof-v1", read_rocprof_v1_csv, _sniff_v1_csv, files=(("results.csv", 50),)),
    Format("rocprof-v1-json", read_rocprof_v1_json, _sniff_v1_json),
    Format("rocprof-v1-db", read_rocprof_v1_db, _sniff_v1_db),
    Format("rocprof-stats", read_rocprof_stats, _sniff_stats,
           files=(("*kernel_stats.csv", 100), ("results.stats.csv", 130))),
    Format("rocprofv3-csv", read_rocprofv3_csv, _sniff_v3_csv, files=(("*kernel_trace.csv", 20),)),
    Format("rocprofv3-json", read_rocprofv3_json, _sniff_v3_json, files=(("*results.json", 40),)),
    Format("rocpd", read_rocpd, _sniff_rocpd, files=(("*_results.db", 30),)),
    Format("rocprof-compute", read_rocprof_compute, _sniff_compute, files=(("timestamps.csv", 10),)),
)
