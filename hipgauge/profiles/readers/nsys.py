"""Nsight Systems: ``nsys stats`` CSV reports and the ``nsys export --type sqlite`` database.

CSV reports:
- ``cuda_gpu_trace`` (per launch; memcpy/memset rows are skipped and summed into metadata);
- ``cuda_gpu_kern_sum`` and the older ``gpukernsum`` (aggregate). Aggregate inputs are expanded to
  one row per instance whose duration is the average (the remainder of the integer division is
  spread over the first rows), so counts and totals stay exact; ``start_ns`` is null and a
  warning says per-instance durations are averages.
Units come from the column headers (``(ns)``, ``(us)``… after ``--timeunit``), ns when absent.

SQLite: kernels from ``CUPTI_ACTIVITY_KIND_KERNEL`` (names through ``StringIds``), linked to
their ``CUPTI_ACTIVITY_KIND_RUNTIME`` launch by correlation id within the process, and to the
innermost NVTX push/pop or start/end range on the launching thread (``range``). Ranges named like
``ProfilerStep#N`` / ``iteration N`` / ``step N`` give iterations.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import polars as pl

from hipgauge.errors import InputError
from hipgauge.model import Profile

from .files import open_sqlite, sqlite_columns
from .finish import finish_profile
from .frame import AGGREGATE_WARNING, expand_aggregate
from .ranges import attribute_ranges
from .registry import Format, Head
from .table import BYTE_UNITS, TIME_UNITS, Table, number, read_table

CSV, SQLITE = "nsys-csv", "nsys-sqlite"
VENDOR = "nvidia"
_UNIT_RE = re.compile(r"\(([^)]*)\)\s*$")
_DEVICE_RE = re.compile(r"^(.*?)\s*\((\d+)\)\s*$")


def _is_nsys_header(f: list[str]) -> bool:
    s = set(f)
    return ("Name" in s and ("Instances" in s or any(x.startswith("Start") for x in f))) and any(
        x.startswith("Total Time") or x.startswith("Duration") or x.startswith("Start") for x in f
    )


def _unit(header: str, default: float = 1.0) -> float:
    m = _UNIT_RE.search(header)
    if not m:
        return default
    u = m.group(1).strip().lower()
    return TIME_UNITS.get(u, default)


def _byte_unit(header: str) -> int:
    """Bytes per unit of a shared-memory column (``StcSMem (MB)``); MB (2**20) when the header names none."""
    m = _UNIT_RE.search(header)
    return BYTE_UNITS.get((m.group(1) if m else "mb").lower(), 1 << 20)


def _dims_ws(cell: str) -> str | None:
    parts = cell.split()
    return ",".join(parts) if parts else None


def read_nsys_csv(path: str | Path, max_bytes: int | None = None) -> Profile:
    path = Path(path)
    t = read_table(path, _is_nsys_header, max_bytes, what="nsys stats CSV")
    if t.col("Instances") is not None:
        return _kern_sum(t)
    return _gpu_trace(t)


def _kern_sum(t: Table) -> Profile:
    ci_total = t.col_prefix("Total Time")
    ci_n = t.col("Instances")
    ci_name = t.col("Name")
    ci_grid = t.col("GridXYZ")
    ci_block = t.col("BlockXYZ")
    if ci_total is None or ci_n is None or ci_name is None:
        raise InputError("kernel summary without Total Time / Instances / Name columns", t.path, t.header_line)
    scale = _unit(t.header[ci_total])
    names, counts, totals = [], [], []
    grids, blocks = [], []
    for line, f in t.rows:
        n = number(f[ci_n], t.path, line, "Instances")
        total = number(f[ci_total], t.path, line, "Total Time")
        if n is None or total is None:
            continue
        if n < 0 or total < 0:
            raise InputError("negative Instances or Total Time", t.path, line)
        names.append(f[ci_name])
        counts.append(int(n))
        totals.append(int(round(total * scale)))
        grids.append(_dims_ws(f[ci_grid]) if ci_grid is not None else None)
        blocks.append(_dims_ws(f[ci_block]) if ci_block is not None else None)
    if not names:
        raise InputError("no kernel rows", t.path)
    df = expand_aggregate(names, counts, totals, {"grid": grids, "block": blocks})
    return finish_profile(
        t.path, CSV, VENDOR, df,
        metadata={"aggregate": "true", "report": "gpukernsum" if "GridXYZ" in t.header else "cuda_gpu_kern_sum"},
        warnings=[AGGREGATE_WARNING],
    )


def _gpu_trace(t: Table) -> Profile:
    c = t.col
    ci_start = t.col_prefix("Start")
    ci_dur = t.col_prefix("Duration")
    ci_name = c("Name")
    if ci_start is None or ci_dur is None or ci_name is None:
        raise InputError("GPU trace without Start / Duration / Name columns", t.path, t.header_line)
    s_start, s_dur = _unit(t.header[ci_start]), _unit(t.header[ci_dur])
    ci_corr, ci_strm, ci_dev, ci_reg = c("CorrId"), c("Strm"), c("Device"), c("Reg/Trd")
    ci_grid = [c("GrdX"), c("GrdY"), c("GrdZ")]
    ci_blk = [c("BlkX"), c("BlkY"), c("BlkZ")]
    ci_ss, ci_ds = t.col_prefix("StcSMem"), t.col_prefix("DymSMem")
    smem_scale = [_byte_unit(t.header[i]) if i is not None else 0 for i in (ci_ss, ci_ds)]
    rows: dict[str, list] = {k: [] for k in ("raw_name", "start_ns", "duration_ns", "correlation", "stream", "device",
                                             "registers", "shared_mem_bytes", "grid", "block")}
    mem_n = mem_ns = 0
    dropped = 0
    devices: set[str] = set()
    for line, f in t.rows:
        name = f[ci_name]
        start = number(f[ci_start], t.path, line, "Start")
        dur = number(f[ci_dur], t.path, line, "Duration")
        if start is None or dur is None:
            dropped += 1
            continue
        if name.startswith("[CUDA mem") or name.startswith("[CUDA memset") or name.startswith("[CUDA memcpy"):
            mem_n += 1
            mem_ns += int(round(dur * s_dur))
            continue
        if dur < 0:
            dropped += 1
            continue
        rows["raw_name"].append(name)
        rows["start_ns"].append(int(round(start * s_start)))
        rows["duration_ns"].append(int(round(dur * s_dur)))
        rows["correlation"].append(_int(f, ci_corr))
        rows["stream"].append(_int(f, ci_strm))
        dev = f[ci_dev].strip() if ci_dev is not None else ""
        m = _DEVICE_RE.match(dev)
        dname = m.group(1) if m else (dev or None)
        if dname:
            devices.add(dname)
        rows["device"].append(dname)
        rows["registers"].append(_int(f, ci_reg))
        smem = 0.0
        have = False
        for i, sc in zip((ci_ss, ci_ds), smem_scale):
            v = number(f[i]) if i is not None else None
            if v is not None:
                smem += v * sc
                have = True
        rows["shared_mem_bytes"].append(int(round(smem)) if have else None)
        rows["grid"].append(_join(f, ci_grid))
        rows["block"].append(_join(f, ci_blk))
    if not rows["raw_name"]:
        raise InputError("no kernel rows (only memory operations?)", t.path)
    warnings = []
    if dropped:
        warnings.append(f"{dropped} row(s) without a valid start/duration were skipped")
    if t.skipped_lines:
        warnings.append(f"{t.skipped_lines} non-table line(s) were ignored")
    df = pl.DataFrame(rows, schema_overrides={"registers": pl.Int64, "shared_mem_bytes": pl.Int64, "correlation": pl.Int64,
                                              "stream": pl.Int64, "device": pl.String, "grid": pl.String, "block": pl.String})
    device = next(iter(devices)) if len(devices) == 1 else None
    return finish_profile(
        t.path, CSV, VENDOR, df, device=device, sort_by_start=False,
        metadata={"report": "cuda_gpu_trace", "memcpy_memset_count": str(mem_n), "memcpy_memset_ns": str(mem_ns)},
        warnings=warnings + ["no NVTX ranges or iterations in a cuda_gpu_trace CSV (use the SQLite export for them)"],
    )


def _int(f: list[str], i: int | None) -> int | None:
    if i is None:
        return None
    v = number(f[i])
    return None if v is None else int(v)


def _join(f: list[str], idx: list[int | None]) -> str | None:
    if any(i is None for i in idx):
        return None
    vals = [f[i].strip() for i in idx if i is not None]
    if not all(vals):
        return None
    try:
        return ",".join(str(int(float(v))) for v in vals)
    except (ValueError, OverflowError):  # a non-numeric or non-finite cell: shape unknown
        return None


# ------------------------------------------------------------------------------------ SQLite
def read_nsys_sqlite(path: str | Path, max_bytes: int | None = None) -> Profile:
    path = Path(path)
    con, tables = open_sqlite(path)
    try:
        if "CUPTI_ACTIVITY_KIND_KERNEL" not in tables:
            raise InputError("no CUPTI_ACTIVITY_KIND_KERNEL table: the report has no CUDA kernels", path)
        return _read_sqlite(con, path, tables)
    except sqlite3.Error as exc:
        raise InputError(f"SQLite query failed: {exc}", path) from None
    finally:
        con.close()


def _read_sqlite(con: sqlite3.Connection, path: Path, tables: set[str]) -> Profile:
    kcols = sqlite_columns(con, "CUPTI_ACTIVITY_KIND_KERNEL")
    name_col = next((c for c in ("demangledName", "shortName", "mangledName", "name") if c in kcols), None)
    if name_col is None:
        raise InputError("CUPTI_ACTIVITY_KIND_KERNEL has no name column", path)
    has_strings = "StringIds" in tables

    def opt(col: str, expr: str | None = None) -> str:
        return (expr or f"k.{col}") if col in kcols else "NULL"

    name_expr = f"(SELECT value FROM StringIds s WHERE s.id = k.{name_col})" if has_strings else f"k.{name_col}"
    smem = ("COALESCE(k.staticSharedMemory,0) + COALESCE(k.dynamicSharedMemory,0)"
            if {"staticSharedMemory", "dynamicSharedMemory"} <= kcols else "NULL")
    grid = "k.gridX || ',' || k.gridY || ',' || k.gridZ" if {"gridX", "gridY", "gridZ"} <= kcols else "NULL"
    block = "k.blockX || ',' || k.blockY || ',' || k.blockZ" if {"blockX", "blockY", "blockZ"} <= kcols else "NULL"
    q = f"""SELECT {name_expr} AS raw_name, k.start AS start_ns, k."end" - k.start AS duration_ns,
                   {opt('deviceId')} AS dev, {opt('streamId')} AS stream, {opt('correlationId')} AS correlation,
                   {opt('globalPid')} AS gpid, {opt('registersPerThread')} AS registers, {smem} AS shared_mem_bytes,
                   {grid} AS grid, {block} AS block
            FROM CUPTI_ACTIVITY_KIND_KERNEL k ORDER BY k.start"""
    rows = con.execute(q).fetchall()
    if not rows:
        raise InputError("no kernels in CUPTI_ACTIVITY_KIND_KERNEL", path)
    cols = ["raw_name", "start_ns", "duration_ns", "dev", "stream", "correlation", "gpid", "registers",
            "shared_mem_bytes", "grid", "block"]
    df = pl.DataFrame(rows, schema={c: (pl.String if c in ("raw_name", "grid", "block") else pl.Int64) for c in cols},
                      orient="row")
    warnings: list[str] = []
    bad = df.filter(pl.col("duration_ns") < 0).height
    if bad:  # dropped before the launch links are made (finish_profile would drop them after)
        warnings.append(f"{bad} kernel(s) with end < start were dropped")
        df = df.filter(pl.col("duration_ns") >= 0)

    # launch: runtime call with the same correlation id in the same process
    df = df.with_columns(pl.lit(None, dtype=pl.String).alias("range"), pl.lit(None, dtype=pl.Int64).alias("iteration"))
    if "CUPTI_ACTIVITY_KIND_RUNTIME" in tables and "NVTX_EVENTS" in tables:
        rt = pl.DataFrame(
            con.execute("SELECT correlationId, globalTid, start FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchall(),
            schema={"correlation": pl.Int64, "tid": pl.Int64, "r_start": pl.Int64}, orient="row",
        ).with_columns((pl.col("tid") // 0x1000000 * 0x1000000).alias("gpid"))
        df = df.join(rt, on=["correlation", "gpid"], how="left", nulls_equal=False) if df["gpid"].null_count() < df.height \
            else df.join(rt.drop("gpid").unique("correlation"), on="correlation", how="left")
        ncols = sqlite_columns(con, "NVTX_EVENTS")
        text = "COALESCE(n.text, (SELECT value FROM StringIds s WHERE s.id = n.textId))" if "textId" in ncols and has_strings else "n.text"
        ranges = con.execute(
            f'SELECT n.globalTid, n.start, n."end", {text} FROM NVTX_EVENTS n WHERE n.eventType IN (59, 60) AND n."end" IS NOT NULL'
        ).fetchall()
        rng, it = attribute_ranges(df.select("tid", "r_start").rows(), ranges)
        df = df.with_columns(pl.Series("range", rng, dtype=pl.String), pl.Series("iteration", it, dtype=pl.Int64))

    metadata: dict[str, str] = {}
    device = None
    if "TARGET_INFO_GPU" in tables:
        gcols = sqlite_columns(con, "TARGET_INFO_GPU")
        if "name" in gcols:
            names = [r[0] for r in con.execute("SELECT name FROM TARGET_INFO_GPU")]
            if names:
                device = str(names[0])
                metadata["device_name"] = device
        if {"computeMajor", "computeMinor"} <= gcols:
            r = con.execute("SELECT computeMajor, computeMinor FROM TARGET_INFO_GPU").fetchone()
            if r:
                metadata["compute_capability"] = f"{r[0]}.{r[1]}"
                metadata["arch"] = f"sm_{r[0]}{r[1]}"
    if "TARGET_INFO_CUDA_DEVICE" in tables and device is None and "name" in sqlite_columns(con, "TARGET_INFO_CUDA_DEVICE"):
        r = con.execute("SELECT name FROM TARGET_INFO_CUDA_DEVICE").fetchone()
        if r:
            device = str(r[0])
            metadata["device_name"] = device
    df = df.with_columns(pl.lit(device, dtype=pl.String).alias("device"))
    return finish_profile(path, SQLITE, VENDOR, df, device=device, metadata=metadata, warnings=warnings)


# ------------------------------------------------------------------------------------ the formats
def _sniff_csv(head: Head) -> float | None:
    def is_header(fields: list[str]) -> bool:
        f = set(fields)
        return bool(
            (("Total Time (ns)" in f or "Total Time" in f) and "Instances" in f and "Name" in f)
            or (any(x.startswith("Time(%)") or x.startswith("Time (%)") for x in fields) and "Instances" in f)
            or ("Start (ns)" in f and "Duration (ns)" in f and "Name" in f)
            or ("Start" in f and "Duration" in f and "CorrId" in f))
    return head.csv_score(is_header)


def _sniff_sqlite(head: Head) -> float | None:
    names = head.sqlite_tables
    if "CUPTI_ACTIVITY_KIND_KERNEL" in names or "StringIds" in names and any(n.startswith("CUPTI_") for n in names):
        return 3.0  # above rocpd and rocprof v1 databases
    return None


FORMATS = (
    Format(CSV, read_nsys_csv, _sniff_csv,
           files=(("*cuda_gpu_trace*.csv", 80), ("*cuda_gpu_kern_sum*.csv", 110), ("*gpukernsum*.csv", 120))),
    Format(SQLITE, read_nsys_sqlite, _sniff_sqlite, files=(("*.sqlite", 90),)),
)
