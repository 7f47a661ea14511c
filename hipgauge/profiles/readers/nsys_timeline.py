"""Nsight Systems SQLite export (``nsys export --type sqlite``) → ``Timeline``.

Host calls from ``CUPTI_ACTIVITY_KIND_RUNTIME`` (names through ``StringIds``), device ops from
``CUPTI_ACTIVITY_KIND_KERNEL`` / ``_MEMCPY`` / ``_MEMSET``, linked by correlation id within the process.
Iteration windows: NVTX push/pop or start/end ranges named like an iteration (``ProfilerStep#N``,
``iteration_N``, ``step N``; ``ranges.ITER_RE``), the outermost ones.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import polars as pl

from hipgauge.errors import InputError
from hipgauge.profiles.timeline import (
    CALL_MEMCPY,
    CALL_SYNC,
    CALLS_SCHEMA,
    OP_KERNEL,
    OP_MEMCPY,
    OP_MEMSET,
    OPS_SCHEMA,
    Timeline,
    assign_iterations,
    call_kind,
    count_host_events,
    memcpy_call_blocks,
)

from .files import open_sqlite, sqlite_columns
from .ranges import iteration_of

FORMAT = "nsys-sqlite"
_PID = 0x1000000
_COPY_KIND = {1: "HtoD", 2: "DtoH", 3: "HtoA", 4: "AtoH", 5: "AtoA", 6: "AtoD", 7: "DtoA", 8: "DtoD", 9: "HtoH",
              10: "PtoP"}
_MEM_KIND = {0: "Unknown", 1: "Pageable", 2: "Pinned", 3: "Device", 4: "Array", 5: "Managed", 6: "Device",
             7: "Managed"}


#: one GPU op as the queries below select it (kernel, memcpy, memset alike)
_OP_ROW = {"stream": pl.Int64, "start_ns": pl.Int64, "end_ns": pl.Int64, "name": pl.String, "kind": pl.Int8,
           "corr": pl.Int64, "pid": pl.Int64}


def read_nsys_timeline(path: str | Path, max_bytes: int | None = None) -> Timeline:
    path = Path(path)
    con, tables = open_sqlite(path)
    try:
        if "CUPTI_ACTIVITY_KIND_RUNTIME" not in tables or "CUPTI_ACTIVITY_KIND_KERNEL" not in tables:
            raise InputError("no CUPTI_ACTIVITY_KIND_RUNTIME and KERNEL tables: no timeline to replay", path)
        return _read(con, path, tables)
    except sqlite3.Error as exc:
        raise InputError(f"SQLite query failed: {exc}", path) from None
    finally:
        con.close()


def _read(con: sqlite3.Connection, path: Path, tables: set[str]) -> Timeline:
    strings = "StringIds" in tables
    rcols = sqlite_columns(con, "CUPTI_ACTIVITY_KIND_RUNTIME")
    rname = ("(SELECT value FROM StringIds s WHERE s.id = r.nameId)" if strings and "nameId" in rcols
             else "r.name" if "name" in rcols else "NULL")
    rows = con.execute(f'SELECT r.globalTid, r.start, r."end", {rname}, r.correlationId '
                       f'FROM CUPTI_ACTIVITY_KIND_RUNTIME r').fetchall()
    calls = pl.DataFrame(rows, schema={"thread": pl.Int64, "start_ns": pl.Int64, "end_ns": pl.Int64, "name": pl.String,
                                       "corr": pl.Int64}, orient="row").sort("start_ns", maintain_order=True)
    calls = calls.with_columns(pl.col("name").fill_null(""), (pl.col("thread") // _PID * _PID).alias("pid"))
    calls = calls.with_columns(pl.col("name").map_elements(call_kind, return_dtype=pl.Int8).alias("kind"))

    parts = []
    kcols = sqlite_columns(con, "CUPTI_ACTIVITY_KIND_KERNEL")
    kname_col = next((c for c in ("demangledName", "shortName", "mangledName", "name") if c in kcols), None)
    kname = (f"(SELECT value FROM StringIds s WHERE s.id = k.{kname_col})" if strings and kname_col
             else f"k.{kname_col}" if kname_col else "NULL")
    pid = "k.globalPid" if "globalPid" in kcols else "NULL"
    parts.append(pl.DataFrame(con.execute(
        f'SELECT k.streamId, k.start, k."end", {kname}, {OP_KERNEL}, k.correlationId, {pid} '
        f'FROM CUPTI_ACTIVITY_KIND_KERNEL k').fetchall(),
        schema=_OP_ROW, orient="row"))
    if "CUPTI_ACTIVITY_KIND_MEMCPY" in tables:
        mcols = sqlite_columns(con, "CUPTI_ACTIVITY_KIND_MEMCPY")
        pidm = "m.globalPid" if "globalPid" in mcols else "NULL"
        ck = "m.copyKind" if "copyKind" in mcols else "NULL"
        sk = "m.srcKind" if "srcKind" in mcols else "NULL"
        dk = "m.dstKind" if "dstKind" in mcols else "NULL"
        rows = con.execute(f'SELECT m.streamId, m.start, m."end", {ck}, {sk}, {dk}, m.correlationId, {pidm} '
                           f'FROM CUPTI_ACTIVITY_KIND_MEMCPY m').fetchall()
        parts.append(pl.DataFrame(
            [(s, a, b, f"Memcpy {_COPY_KIND.get(c, '?')} ({_MEM_KIND.get(sk_, '?')} -> {_MEM_KIND.get(dk_, '?')})",
              OP_MEMCPY, corr, p) for s, a, b, c, sk_, dk_, corr, p in rows],
            schema=_OP_ROW, orient="row"))
    if "CUPTI_ACTIVITY_KIND_MEMSET" in tables:
        scols = sqlite_columns(con, "CUPTI_ACTIVITY_KIND_MEMSET")
        pids = "m.globalPid" if "globalPid" in scols else "NULL"
        parts.append(pl.DataFrame(con.execute(
            f"SELECT m.streamId, m.start, m.\"end\", 'Memset', {OP_MEMSET}, m.correlationId, {pids} "
            f"FROM CUPTI_ACTIVITY_KIND_MEMSET m").fetchall(),
            schema=_OP_ROW, orient="row"))
    ops = pl.concat(parts).filter(pl.col("end_ns") >= pl.col("start_ns")).sort("start_ns", maintain_order=True)
    if ops.height == 0:
        raise InputError("no kernels, copies or sets: no device timeline to replay", path)

    crow = calls.with_row_index("call").select(pl.col("call").cast(pl.Int64), "corr", "pid")
    if ops["pid"].null_count() < ops.height:
        ops = ops.join(crow.unique(["corr", "pid"], keep="first"), on=["corr", "pid"], how="left",
                       maintain_order="left")
    else:
        ops = ops.join(crow.drop("pid").unique("corr", keep="first"), on="corr", how="left", maintain_order="left")
    copy_ops = ops.filter(pl.col("call").is_not_null() & (pl.col("kind") == OP_MEMCPY)).group_by("call").agg(
        pl.col("name").first().alias("op_name"))
    calls = calls.with_row_index("call").with_columns(pl.col("call").cast(pl.Int64)).join(
        copy_ops, on="call", how="left", maintain_order="left")
    calls = calls.with_columns(
        ((pl.col("kind") == CALL_SYNC)
         | ((pl.col("kind") == CALL_MEMCPY)
            & pl.struct("name", "op_name").map_elements(lambda r: memcpy_call_blocks(r["name"], r["op_name"]),
                                                        return_dtype=pl.Boolean))).alias("blocking"))

    windows: list[tuple[int, int, int]] = []
    source = "none"
    nvtx_starts: list[int] = []
    if "NVTX_EVENTS" in tables:
        ncols = sqlite_columns(con, "NVTX_EVENTS")
        text = ("COALESCE(n.text, (SELECT value FROM StringIds s WHERE s.id = n.textId))"
                if "textId" in ncols and strings else "n.text")
        rng = con.execute(f'SELECT n.start, n."end", {text} FROM NVTX_EVENTS n '
                          f'WHERE n.eventType IN (59, 60) AND n."end" IS NOT NULL ORDER BY n.start').fetchall()
        nvtx_starts = [int(r[0]) for r in rng]
        end = -1
        for s, e, t in sorted(rng, key=lambda r: (r[0], -r[1])):
            n = iteration_of(t)
            if n is not None and s >= end:
                windows.append((n, int(s), int(e)))
                end = e
        if windows:
            source = "NVTX ranges"
    calls = calls.select(["thread", "start_ns", "end_ns", "name", "kind", "corr", "blocking"])
    ops = ops.select(["stream", "start_ns", "end_ns", "name", "kind", "corr", "call"])
    calls, ops = assign_iterations(calls, ops, windows)
    host_events = count_host_events(calls, pl.Series(nvtx_starts, dtype=pl.Int64), windows)
    return Timeline(path=str(path), source_format=FORMAT,
                    calls=calls.select([pl.col(c).cast(t) for c, t in CALLS_SCHEMA.items()]),
                    ops=ops.select([pl.col(c).cast(t) for c, t in OPS_SCHEMA.items()]),
                    windows=windows, window_source=source, host_events=host_events)


#: the profile format whose host/device timeline this module reads (discovered by ``profiles.timeline_load``)
TIMELINES = {FORMAT: read_nsys_timeline}
