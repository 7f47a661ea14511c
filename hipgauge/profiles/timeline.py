"""``Timeline``: what a trace says about the order of host and device work, for replay.

A timeline reader (``readers/kineto_timeline.py``, ``readers/nsys_timeline.py``) fills two tables and
the iteration windows; ``profiles/replay.py`` builds the dependency graph from them. Nothing here
knows a file format.

``calls`` (one row per host runtime/driver API call, sorted by ``start_ns``):
  ``thread`` (Int64, the reader's own numbering), ``start_ns``, ``end_ns`` (Int64), ``name`` (String),
  ``kind`` (Int8, ``CALL_*`` below), ``corr`` (Int64 correlation id, null when absent),
  ``blocking`` (Boolean: the call returns only once the device work before it is done), ``iteration``
  (Int64, the window holding the call's start; null outside every window).

``ops`` (one row per device activity: kernels, memory copies and sets, sorted by ``start_ns``):
  ``stream`` (Int64), ``start_ns``, ``end_ns`` (Int64), ``name`` (String), ``kind`` (Int8, ``OP_*``),
  ``corr`` (Int64), ``call`` (Int64: row of ``calls`` whose correlation id launched it; null when
  none), ``iteration`` (Int64: the launching call's window, else the window holding the op's start).

Edges are not stored: they follow from the two tables (launch → op by ``call``; stream order by
``stream``/``start_ns``; a blocking call waits for every op launched before it; several ops under
one call are a CUDA-graph launch). ``edges()`` lists them explicitly for inspection and tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

CALL_OTHER, CALL_LAUNCH, CALL_GRAPH, CALL_MEMCPY, CALL_MEMSET, CALL_SYNC, CALL_EVENT_RECORD, CALL_STREAM_WAIT = range(8)
CALL_KIND_NAMES = ("other", "launch", "graph-launch", "memcpy", "memset", "synchronize", "event-record", "stream-wait")
OP_KERNEL, OP_MEMCPY, OP_MEMSET = 0, 1, 2

CALLS_SCHEMA: dict[str, Any] = {
    "thread": pl.Int64, "start_ns": pl.Int64, "end_ns": pl.Int64, "name": pl.String, "kind": pl.Int8,
    "corr": pl.Int64, "blocking": pl.Boolean, "iteration": pl.Int64,
}
OPS_SCHEMA: dict[str, Any] = {
    "stream": pl.Int64, "start_ns": pl.Int64, "end_ns": pl.Int64, "name": pl.String, "kind": pl.Int8,
    "corr": pl.Int64, "call": pl.Int64, "iteration": pl.Int64,
}


def call_kind(name: str) -> int:
    """The role of a CUDA/HIP runtime or driver API call, from its name."""
    n = name or ""
    if "GraphLaunch" in n:
        return CALL_GRAPH
    if "Launch" in n and "Kernel" in n:
        return CALL_LAUNCH
    if "Memcpy" in n or "MemcpyDtoH" in n or "MemcpyHtoD" in n:
        return CALL_MEMCPY
    if "Memset" in n:
        return CALL_MEMSET
    if "Synchronize" in n:
        return CALL_SYNC
    if "EventRecord" in n:
        return CALL_EVENT_RECORD
    if "StreamWaitEvent" in n:
        return CALL_STREAM_WAIT
    return CALL_OTHER


def memcpy_call_blocks(call_name: str, op_name: str | None) -> bool:
    """A copy call that returns only when its copy is done: the synchronous API (``cudaMemcpy``,
    ``cuMemcpyDtoH``), or an async copy from device to pageable host memory (staged, then waited for)."""
    if "Async" not in call_name:
        return True
    op = op_name or ""
    return "Pageable" in op and ("DtoH" in op or "Device -> Pageable" in op)


@dataclass
class Timeline:
    """Host calls and device ops of one trace, with iteration windows (see the module doc)."""

    path: str
    source_format: str
    calls: pl.DataFrame
    ops: pl.DataFrame
    #: (iteration, start_ns, end_ns) host-side windows, sorted by start
    windows: list[tuple[int, int, int]] = field(default_factory=list)
    #: how the windows were found: "ProfilerStep" | "user ranges" | "NVTX ranges" | "inferred" | "none"
    window_source: str = "none"
    warnings: list[str] = field(default_factory=list)
    #: per iteration: host events the profiler recorded (runtime calls + framework ops such as cpu_op),
    #: a measure of the host work in it that does not depend on how fast the host ran
    host_events: dict[int, int] = field(default_factory=dict)

    @property
    def iterations(self) -> list[int]:
        return [w[0] for w in self.windows]

    def edges(self, iteration: int | None = None) -> pl.DataFrame:
        """The dependency edges, one row each: ``kind`` (launch | stream-order | sync-wait),
        ``src`` and ``dst`` (``call:N`` / ``op:N`` with N the row in ``calls`` / ``ops``)."""
        calls = self.calls.with_row_index("crow")
        ops = self.ops.with_row_index("orow")
        if iteration is not None:
            calls = calls.filter(pl.col("iteration") == iteration)
            ops = ops.filter(pl.col("iteration") == iteration)
        parts: list[pl.DataFrame] = []
        launch = ops.filter(pl.col("call").is_not_null()).select(
            pl.lit("launch").alias("kind"), ("call:" + pl.col("call").cast(pl.String)).alias("src"),
            ("op:" + pl.col("orow").cast(pl.String)).alias("dst"))
        parts.append(launch)
        order = ops.sort(["stream", "start_ns"]).with_columns(pl.col("orow").shift(1).over("stream").alias("prev"))
        parts.append(order.filter(pl.col("prev").is_not_null()).select(
            pl.lit("stream-order").alias("kind"), ("op:" + pl.col("prev").cast(pl.String)).alias("src"),
            ("op:" + pl.col("orow").cast(pl.String)).alias("dst")))
        blocking = calls.filter(pl.col("blocking"))
        if blocking.height and ops.height:
            # a blocking call waits for the last op (per stream) launched before it
            launched = ops.join(calls.select(pl.col("crow").alias("call"), pl.col("start_ns").alias("c_ts")),
                                on="call", how="inner")
            rows = []
            for crow, cts in blocking.select("crow", "start_ns").iter_rows():
                before = launched.filter(pl.col("c_ts") <= cts)
                if before.height:
                    last = before.sort("start_ns").group_by("stream").agg(pl.col("orow").last())
                    rows += [("sync-wait", f"op:{o}", f"call:{crow}") for o in last["orow"].to_list()]
            parts.append(pl.DataFrame(rows, schema={"kind": pl.String, "src": pl.String, "dst": pl.String},
                                      orient="row"))
        return pl.concat(parts, how="vertical") if parts else pl.DataFrame(
            schema={"kind": pl.String, "src": pl.String, "dst": pl.String})


def assign_iterations(calls: pl.DataFrame, ops: pl.DataFrame,
                      windows: list[tuple[int, int, int]]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Fill ``calls.iteration`` (window holding the call's start) and ``ops.iteration`` (its launching
    call's window, else the window holding its start)."""
    if not windows:
        return (calls.with_columns(pl.lit(None, dtype=pl.Int64).alias("iteration")),
                ops.with_columns(pl.lit(None, dtype=pl.Int64).alias("iteration")))
    w = pl.DataFrame({"w_start": [x[1] for x in windows], "w_end": [x[2] for x in windows],
                      "w_it": [x[0] for x in windows]},
                     schema={"w_start": pl.Int64, "w_end": pl.Int64, "w_it": pl.Int64}).sort("w_start")

    def within(df: pl.DataFrame, col: str) -> pl.Series:
        j = df.select(pl.col(col).alias("w_start")).with_row_index("_r").sort("w_start").join_asof(
            w, on="w_start", strategy="backward")
        j = j.with_columns(pl.when(pl.col("w_start") < pl.col("w_end")).then(pl.col("w_it")).alias("it")).sort("_r")
        return j["it"]

    calls = calls.with_columns(within(calls, "start_ns").alias("iteration"))
    call_it = calls["iteration"]
    launched_it = ops.select(pl.col("call")).join(
        pl.DataFrame({"call": pl.int_range(0, calls.height, dtype=pl.Int64, eager=True), "cit": call_it}),
        on="call", how="left", maintain_order="left")["cit"]
    ops = ops.with_columns(launched_it.alias("_l"), within(ops, "start_ns").alias("_w")).with_columns(
        pl.coalesce("_l", "_w").alias("iteration")).drop("_l", "_w")
    return calls, ops


def count_host_events(calls: pl.DataFrame, other_ts: pl.Series, windows: list[tuple[int, int, int]]) -> dict[int, int]:
    """Runtime calls + other recorded host events (``other_ts``, ns) per iteration window."""
    out: dict[int, int] = {}
    if not windows:
        return out
    ts = np.sort(other_ts.to_numpy()) if other_ts.len() else np.zeros(0, dtype=np.int64)
    per_call = calls.group_by("iteration").len()
    n_calls = {int(i): int(n) for i, n in per_call.iter_rows() if i is not None}
    for it, s, e in windows:
        out[it] = n_calls.get(it, 0) + int(np.searchsorted(ts, e) - np.searchsorted(ts, s))
    return out
