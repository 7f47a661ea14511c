"""PyTorch profiler (Kineto) Chrome trace → ``Timeline`` (host runtime calls, device ops, iterations).

Reads what replay needs and nothing else: every ``cuda_runtime`` / ``cuda_driver`` (ROCm builds:
``Runtime`` / ``Driver``) call with its thread, start, duration and correlation id; every kernel,
memcpy and memset with its stream, start, duration and correlation id (the ``ac2g`` flow gives the
id when the argument is missing); and the iteration windows, in this order of preference:

1. ``ProfilerStep#N`` CPU ranges (``user_annotation``);
2. explicit user ranges whose name numbers an iteration (``record_function("iteration_N")``,
   ``"step 3"``; see ``ranges.ITER_RE``), outermost first;
3. none: the caller may infer them (``profiles.replay`` uses the repeating launch sequence).
"""

from __future__ import annotations

import gc
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
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

from .chrome_json import ChromeTrace
from .kineto_events import (
    ANNOT_CATS,
    FLOW_CATS,
    KERNEL_CATS,
    MEMCPY_CATS,
    MEMSET_CATS,
    OP_CATS,
    RUNTIME_CATS,
    STEP_PREFIX,
)
from .ranges import iteration_of

FORMAT = "kineto"



#: µs values at or beyond this cannot be int64 ns
_MAX_US = 9e15


def _ns(values: Sequence[float]) -> pl.Series:
    """µs → int ns; null where the value is not finite or would overflow (the row is dropped later)."""
    us = pl.Series(values, dtype=pl.Float64)
    ok = us.is_finite() & (us.abs() < _MAX_US)
    return (us * 1000.0).round(0).zip_with(ok, pl.Series([None] * len(us), dtype=pl.Float64)).cast(
        pl.Int64, strict=False)


def read_kineto_timeline(path: str | Path, max_bytes: int | None = None) -> Timeline:
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _read(Path(path), max_bytes)
    finally:
        if enabled:
            gc.enable()


def _read(path: Path, max_bytes: int | None) -> Timeline:
    trace = ChromeTrace(path, max_bytes=max_bytes)
    threads: dict[object, int] = {}
    names: dict[str, int] = {}
    c_thread, c_ts, c_dur, c_name, c_corr = array("q"), array("d"), array("d"), array("q"), array("q")
    g_stream, g_ts, g_dur, g_name, g_kind, g_corr, g_tid = (array("q"), array("d"), array("d"), array("q"),
                                                            array("b"), array("q"), array("q"))
    f_tid, f_ts, f_id = array("q"), array("d"), array("q")
    h_ts = array("d")  # framework ops (cpu_op): host events the profiler recorded besides the runtime calls
    steps: list[tuple[int, float, float]] = []
    user: list[tuple[int, float, float, int]] = []  # (iteration, ts, dur, thread)
    bad = 0
    for events in trace.events():
        for e in events:
            cat = e.get("cat")
            if cat is None:
                continue
            try:
                if cat in RUNTIME_CATS:
                    if e.get("ph", "X") != "X":
                        continue
                    ts, dur = float(e["ts"]), float(e.get("dur", 0))
                    args = e.get("args") or {}
                    corr = args.get("correlation", -1)
                    c_thread.append(threads.setdefault((e.get("pid"), e.get("tid")), len(threads)))
                    c_ts.append(ts)
                    c_dur.append(dur)
                    c_name.append(names.setdefault(str(e.get("name", "")), len(names)))
                    c_corr.append(corr if isinstance(corr, int) else -1)
                elif cat in KERNEL_CATS or cat in MEMCPY_CATS or cat in MEMSET_CATS:
                    if e.get("ph", "X") != "X":
                        continue
                    ts, dur = float(e["ts"]), float(e["dur"])
                    args = e.get("args") or {}
                    stream = args.get("stream", e.get("tid"))
                    corr = args.get("correlation", -1)
                    g_ts.append(ts)
                    g_dur.append(dur)
                    g_stream.append(stream if isinstance(stream, int) else -1)
                    g_name.append(names.setdefault(str(e.get("name", "")), len(names)))
                    g_kind.append(OP_KERNEL if cat in KERNEL_CATS else OP_MEMCPY if cat in MEMCPY_CATS else OP_MEMSET)
                    g_corr.append(corr if isinstance(corr, int) else -1)
                    g_tid.append(threads.setdefault((e.get("pid"), e.get("tid")), len(threads)))
                elif cat in FLOW_CATS:
                    if e.get("ph") == "f":
                        fid = e.get("id", -1)
                        f_ts.append(float(e["ts"]))
                        f_tid.append(threads.setdefault((e.get("pid"), e.get("tid")), len(threads)))
                        f_id.append(fid if isinstance(fid, int) else -1)
                elif cat in OP_CATS:
                    h_ts.append(float(e["ts"]))
                elif cat in ANNOT_CATS and e.get("ph", "X") == "X":
                    name = str(e.get("name", ""))
                    if name.startswith(STEP_PREFIX):
                        try:
                            steps.append((int(name[len(STEP_PREFIX):]), float(e["ts"]), float(e.get("dur", 0))))
                        except ValueError:
                            pass
                    else:
                        n = iteration_of(name)
                        if n is not None:
                            user.append((n, float(e["ts"]), float(e.get("dur", 0)),
                                         threads.setdefault((e.get("pid"), e.get("tid")), len(threads))))
            except (KeyError, TypeError, ValueError, OverflowError):
                bad += 1
                for group in ((c_thread, c_ts, c_dur, c_name, c_corr),
                              (g_stream, g_ts, g_dur, g_name, g_kind, g_corr, g_tid), (f_tid, f_ts, f_id)):
                    n = min(len(c) for c in group)
                    for c in group:
                        del c[n:]
    cols = TimelineColumns(c_thread=c_thread, c_ts=c_ts, c_dur=c_dur, c_name=c_name, c_corr=c_corr,
                           g_stream=g_stream, g_ts=g_ts, g_dur=g_dur, g_name=g_name, g_kind=g_kind, g_corr=g_corr,
                           g_tid=g_tid, f_tid=f_tid, f_ts=f_ts, f_id=f_id, h_ts=h_ts, steps=steps, user=user,
                           names=list(names), bad=bad)
    return build_timeline(cols, path)


@dataclass
class TimelineColumns:
    """What a timeline needs from a Kineto trace, as the columns one streaming pass collects (µs floats as the
    trace has them). ``kineto.read_kineto`` fills the same from its own pass, so a profile carries its timeline
    without a second read."""

    c_thread: Sequence[int]
    c_ts: Sequence[float]
    c_dur: Sequence[float]
    c_name: Sequence[int]  # into names
    c_corr: Sequence[int]  # -1: none
    g_stream: Sequence[int]
    g_ts: Sequence[float]
    g_dur: Sequence[float]
    g_name: Sequence[int]
    g_kind: Sequence[int]  # OP_KERNEL / OP_MEMCPY / OP_MEMSET
    g_corr: Sequence[int]
    g_tid: Sequence[int]
    f_tid: Sequence[int]
    f_ts: Sequence[float]
    f_id: Sequence[int]
    h_ts: Sequence[float]  # framework ops (cpu_op) start times
    steps: list[tuple[int, float, float]]  # ProfilerStep#N CPU ranges: (N, ts, dur)
    user: list[tuple[int, float, float, int]]  # user ranges numbering an iteration: (N, ts, dur, thread)
    names: list[str]
    bad: int = 0


def build_timeline(cols: TimelineColumns, path: str | Path) -> Timeline:
    """The ``Timeline`` of a Kineto trace from its columns."""
    c_thread, c_ts, c_dur, c_name, c_corr = cols.c_thread, cols.c_ts, cols.c_dur, cols.c_name, cols.c_corr
    g_stream, g_ts, g_dur, g_name, g_kind, g_corr, g_tid = (cols.g_stream, cols.g_ts, cols.g_dur, cols.g_name,
                                                            cols.g_kind, cols.g_corr, cols.g_tid)
    f_tid, f_ts, f_id, h_ts, steps, user, names, bad = (cols.f_tid, cols.f_ts, cols.f_id, cols.h_ts, cols.steps,
                                                        cols.user, cols.names, cols.bad)
    if not len(g_ts):
        raise InputError("no GPU kernel, memcpy or memset events: no device timeline to replay", path)
    name_values = pl.Series("v", list(names), dtype=pl.String)
    warnings: list[str] = []
    if bad:
        warnings.append(f"{bad} trace event(s) with missing or malformed fields were skipped")

    calls = pl.DataFrame({"thread": pl.Series(c_thread, dtype=pl.Int64), "start_ns": _ns(c_ts),
                          "dur": _ns(c_dur), "name_id": pl.Series(c_name, dtype=pl.Int64),
                          "corr": pl.Series(c_corr, dtype=pl.Int64)})
    insane = calls.height
    calls = calls.drop_nulls(["start_ns", "dur"])
    insane -= calls.height
    calls = calls.with_columns(
        (pl.col("start_ns") + pl.col("dur").clip(0)).alias("end_ns"),
        pl.col("name_id").map_batches(lambda s: name_values.gather(s), return_dtype=pl.String).alias("name"),
        pl.when(pl.col("corr") >= 0).then(pl.col("corr")).alias("corr"),
    ).sort("start_ns", maintain_order=True)
    calls = calls.with_columns(pl.col("name").map_elements(call_kind, return_dtype=pl.Int8).alias("kind"))

    ops = pl.DataFrame({"stream": pl.Series(g_stream, dtype=pl.Int64), "start_ns": _ns(g_ts), "dur": _ns(g_dur),
                        "name_id": pl.Series(g_name, dtype=pl.Int64), "kind": pl.Series(g_kind, dtype=pl.Int8),
                        "corr": pl.Series(g_corr, dtype=pl.Int64), "tid": pl.Series(g_tid, dtype=pl.Int64)})
    n_ops = ops.height
    ops = ops.drop_nulls(["start_ns", "dur"]).filter(pl.col("dur") >= 0)
    insane += n_ops - ops.height
    if insane:
        warnings.append(f"{insane} event(s) with a non-finite, overflowing or negative ts/dur were dropped")
    if ops.height == 0:
        raise InputError("no GPU event with a usable ts/dur: no device timeline to replay", path)
    ops = ops.with_columns(
        (pl.col("start_ns") + pl.col("dur")).alias("end_ns"),
        pl.col("name_id").map_batches(lambda s: name_values.gather(s), return_dtype=pl.String).alias("name"),
        pl.when(pl.col("corr") >= 0).then(pl.col("corr")).alias("corr"),
    )
    if ops["corr"].null_count() and len(f_id):
        flows = pl.DataFrame({"tid": pl.Series(f_tid, dtype=pl.Int64), "start_ns": _ns(f_ts),
                              "fid": pl.Series(f_id, dtype=pl.Int64)}).unique(["tid", "start_ns"], keep="first")
        ops = ops.join(flows, on=["tid", "start_ns"], how="left", maintain_order="left").with_columns(
            pl.coalesce("corr", pl.when(pl.col("fid") >= 0).then(pl.col("fid"))).alias("corr")).drop("fid")
    ops = ops.sort("start_ns", maintain_order=True)

    # launch edge: the call with the op's correlation id (first one when an id repeats)
    call_rows = (calls.with_row_index("call").filter(pl.col("corr").is_not_null())
                 .unique("corr", keep="first", maintain_order=True).select(pl.col("call").cast(pl.Int64), "corr"))
    ops = ops.join(call_rows, on="corr", how="left", maintain_order="left")

    # blocking: synchronize calls, synchronous copies and async copies into pageable host memory
    copy_ops = ops.filter(pl.col("call").is_not_null() & (pl.col("kind") == OP_MEMCPY)).group_by("call").agg(
        pl.col("name").first().alias("op_name"))
    calls = calls.with_row_index("call").with_columns(pl.col("call").cast(pl.Int64)).join(
        copy_ops, on="call", how="left", maintain_order="left")
    calls = calls.with_columns(
        ((pl.col("kind") == CALL_SYNC)
         | ((pl.col("kind") == CALL_MEMCPY)
            & pl.struct("name", "op_name").map_elements(lambda r: memcpy_call_blocks(r["name"], r["op_name"]),
                                                        return_dtype=pl.Boolean))).alias("blocking"))

    # windows
    windows: list[tuple[int, int, int]]
    source = "none"
    if steps:
        uniq = sorted({n: (round(ts * 1000), round((ts + dur) * 1000)) for n, ts, dur in steps}.items(),
                      key=lambda kv: kv[1][0])
        windows = [(n, s, e) for n, (s, e) in uniq]
        source = "ProfilerStep"
    elif user:
        # the outermost numbered ranges (a range inside another numbered one is not an iteration of its own)
        ordered = sorted(user, key=lambda u: (u[1], -u[2]))
        windows = []
        end = float("-inf")
        for n, ts, dur, _ in ordered:
            if ts >= end:
                windows.append((n, round(ts * 1000), round((ts + dur) * 1000)))
                end = ts + dur
        source = "user ranges"
    else:
        windows = []
    calls = calls.select(["thread", "start_ns", "end_ns", "name", "kind", "corr", "blocking"])
    ops = ops.select(["stream", "start_ns", "end_ns", "name", "kind", "corr", "call"])
    calls, ops = assign_iterations(calls, ops, windows)
    host_events = count_host_events(calls, _ns(h_ts), windows)
    calls = calls.select([pl.col(c).cast(t) for c, t in CALLS_SCHEMA.items()])
    ops = ops.select([pl.col(c).cast(t) for c, t in OPS_SCHEMA.items()])
    return Timeline(path=str(path), source_format=FORMAT, calls=calls, ops=ops, windows=windows,
                    window_source=source, warnings=warnings, host_events=host_events)


#: the profile format whose host/device timeline this module reads (discovered by ``profiles.timeline_load``)
TIMELINES = {FORMAT: read_kineto_timeline}
