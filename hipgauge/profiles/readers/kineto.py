"""PyTorch profiler (Kineto) Chrome traces: CUDA and ROCm builds, ``.json`` / ``.json.gz``.

What each column means here:

- ``operator``: the ``cpu_op`` whose ``External id`` the kernel carries (or, when the kernel lacks
  one, the one its runtime call carries, linked by ``correlation``). Kineto links a launch to the
  *innermost* op active when it happened (``aten::addmm``, ``aten::_flash_attention_forward``).
- ``range``: the *outermost* CPU range (``cpu_op`` or ``user_annotation`` / record_function, never
  ``ProfilerStep#N``) enclosing the launching runtime call on its thread, e.g. ``aten::linear`` or
  ``aten::scaled_dot_product_attention``, or a user's ``record_function("decoder")``. Backends
  differ in the inner ops they dispatch to, so this top-level op is what matches across vendors.
- ``iteration``: N of the ``ProfilerStep#N`` whose CPU span holds the launch (falling back to the
  ``gpu_user_annotation`` span holding the kernel); without any ``ProfilerStep#N``, the outermost user
  range numbering an iteration (``record_function("iteration_3")``, see ``ranges.ITER_RE``). ``Profile.iterations`` are GPU-side windows:
  the ``gpu_user_annotation`` ProfilerStep#N spans when present, else first start to last end of
  the kernels, memcpys and memsets attributed to that step.
- Only kernels go into ``kernels``. Memory copies and sets are summed into ``metadata``
  (``memcpy_count``, ``memcpy_ns``, ``memset_count``, ``memset_ns``).
- Timestamps are µs (float with ns decimals, or int in older traces) → int ns, rounding the
  fractional part separately so large epoch values keep their nanoseconds.
- Kernel ↔ runtime links use the ``correlation`` argument; when a kernel lacks it, the ``ac2g`` /
  ``async_cpu_to_gpu`` flow ending at the kernel gives the same id.

The file is streamed (see ``chrome_json``) and decoded by msgspec into typed structs, in parallel byte
ranges when it is large (``kineto_events`` says how and why): memory stays bounded by the compact
per-event columns.

Reading runs in named phases: ``kineto_events.parse_events`` (the event stream → compact columns) →
``_describe`` (vendor, device, metadata from the trace header) → ``_frames`` (polars tables of CPU
ops, runtime calls and GPU events) → ``_link_launches`` (GPU event → runtime call → innermost
``cpu_op``) → ``_attribute`` (outermost CPU range and ProfilerStep iteration of each launch) →
``_gpu_step_windows`` (GPU-side iteration windows and fallback) → ``_kernel_table`` (memory totals,
names looked up) → ``finish_profile``.
"""

from __future__ import annotations

import gc
from array import array
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import polars as pl

from hipgauge.errors import InputError
from hipgauge.model import Profile

from .finish import finish_profile
from .frame import dims
from .kineto_events import (
    G_KERNEL,
    G_MEMCPY,
    G_MEMSET,
    KIND_OP,
    KIND_STEP,
    STEP_PREFIX,
    KinetoEvents,
    parse_events,
    step_number,
)
from .kineto_timeline import TimelineColumns, build_timeline
from .ranges import iteration_of
from .registry import Format, Head

FORMAT = "kineto"

def _to_ns(col: str) -> pl.Expr:
    """µs float column → int ns, the integral and fractional µs rounded separately."""
    c = pl.col(col)
    whole = c.floor()
    return (whole.cast(pl.Int64) * 1000 + ((c - whole) * 1000).round(0).cast(pl.Int64)).alias(col)


def _sorted_key(df: pl.DataFrame, col: str) -> pl.DataFrame:
    """``df`` with ``col`` marked sorted when it is ascending and has no null (a check of a few ms): polars then
    joins on it by merging instead of hashing (on the 1M-kernel trace 0.17 s → 0.02 s per join). Kineto
    writes correlations and External ids in increasing order, so both keys usually are."""
    key = df.get_column(col)
    if key.null_count() == 0 and key.is_sorted():
        return df.with_columns(key.set_sorted())
    return df


def _nonneg(col: str) -> pl.Expr:
    return pl.when(pl.col(col) >= 0).then(pl.col(col)).otherwise(None).alias(col)


#: timestamps/durations (µs) at or beyond this cannot be int64 ns (epoch µs today are ~1.8e15)
_MAX_US = 9e15


def _sane(*cols: str) -> pl.Expr:
    """Rows whose µs columns are finite and within ±_MAX_US (an overflowing value cannot become int ns)."""
    return pl.all_horizontal([pl.col(c).is_finite() & (pl.col(c).abs() < _MAX_US) for c in cols])


def _version(key: str, value: Any) -> str | None:
    """13000 → "13.0" (CUDA); 60443483 → "6.4.43483" (HIP); else None."""
    try:
        v = int(value)
    except (TypeError, ValueError):
        return None
    if key.startswith("cuda"):
        return f"{v // 1000}.{(v % 1000) // 10}"
    if key.startswith("hip"):
        return f"{v // 10_000_000}.{(v // 100_000) % 100}.{v % 100_000}"
    return None


def _innermost_ops(ops: pl.DataFrame, launches: pl.DataFrame) -> pl.DataFrame:
    """For each launch (row, r_thread, r_ts): the innermost cpu_op on that thread enclosing it."""
    threads = set(launches.get_column("r_thread").unique().to_list())
    cand = ops.filter((pl.col("kind") == KIND_OP) & pl.col("thread").is_in(list(threads)))
    events: list[tuple[int, int, int, int, Any]] = []  # (thread, ts, 0=op/1=launch, end, (name_id, sig, ext) or row)
    for th, ts, end, nid, sig, ext in cand.select("thread", "ts", "end", "name_id", "sig", "ext").iter_rows():
        events.append((th, ts, 0, end, (nid, sig, ext)))
    for row, th, ts in launches.iter_rows():
        events.append((th, ts, 1, 0, row))
    # ops before launches at the same ts; longer (outer) ops first
    events.sort(key=lambda e: (e[0], e[1], e[2], -e[3] if e[2] == 0 else 0))
    out_rows: list[int] = []
    out_ids: list[int | None] = []
    out_sigs: list[int | None] = []
    out_ext: list[int | None] = []
    stack: list[tuple[int, Any]] = []  # (end, (name_id, sig, ext))
    current = None
    for th, ts, order, end, payload in events:
        if th != current:
            stack.clear()
            current = th
        while stack and stack[-1][0] < ts:
            stack.pop()
        if order == 0:
            stack.append((end, payload))
        else:
            out_rows.append(payload)
            top = stack[-1][1] if stack else (None, None, None)
            out_ids.append(top[0])
            out_sigs.append(top[1])
            out_ext.append(top[2] if top[2] is not None and top[2] >= 0 else None)
    return pl.DataFrame({"row": out_rows, "in_id": out_ids, "in_sig": out_sigs, "in_ext": out_ext},
                        schema={"row": pl.UInt32, "in_id": pl.Int64, "in_sig": pl.Int64, "in_ext": pl.Int64})



def _user_iterations(annot: pl.DataFrame, names: list[str]) -> list[tuple[int, int, int]]:
    """Without ProfilerStep#N: the outermost user ranges numbering an iteration (``record_function("iteration_3")``)."""
    found = sorted(((ts, -end, n) for ts, end, nid in annot.iter_rows() if (n := iteration_of(names[nid])) is not None))
    out: list[tuple[int, int, int]] = []
    last_end = None
    for ts, neg_end, n in found:
        if last_end is None or ts >= last_end:
            out.append((n, ts, -neg_end))
            last_end = -neg_end
    return sorted(out)


def read_kineto(path: str | Path, max_bytes: int | None = None, chunk_bytes: int | None = None,
                parts: int | None = None) -> Profile:
    """``parts``: how many byte ranges to read in parallel (None: one per CPU, see ``kineto_events``)."""
    # The cyclic GC would rescan the millions of short-lived event structs (3-4x slower); nothing here
    # creates reference cycles, so it is paused while reading.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _read(Path(path), max_bytes, chunk_bytes, parts)
    finally:
        if enabled:
            gc.enable()


def _read(path: Path, max_bytes: int | None, chunk_bytes: int | None, parts: int | None) -> Profile:
    ev = parse_events(path, max_bytes, chunk_bytes, parts)
    warnings = ev.warnings
    if ev.gpu["gkind"].count(G_KERNEL) == 0:
        if not ev.header and ev.seen == 0:
            raise InputError("no trace events: not a PyTorch profiler trace", path)
        if ev.bad:  # the kernels were there but malformed: say which field of which event
            raise InputError(f"no usable GPU kernel event: {ev.warnings[0]}", path)
        raise InputError("no GPU kernel events in this trace (was the profiler run with the CUDA activity?)", path)
    vendor, device, dev_names, metadata = _describe(ev.header, ev.runtime_names)
    try:
        timeline: TimelineColumns | None = _timeline_columns(ev)
    except (KeyError, IndexError, TypeError, ValueError):  # the timeline is an extra: never fail the profile for it
        ev.runtime.pop("r_dur", None)
        ev.runtime.pop("r_name", None)
        timeline = None
    ops, runtime, g = _frames(ev, path)
    link = _link_launches(g, ops, runtime, ev)
    link = _attribute(link, ops, ev.names)
    del ops, runtime
    link, gsteps = _gpu_step_windows(link, ev.gpu_steps)
    g = g.drop("corr", "ext", "g_thread").join(link.drop("start_ns").sort("row"), on="row", how="left")  # a merge join
    del link
    iterations = [(n, s, e) for n, (s, e) in gsteps] if gsteps else _launch_windows(g)
    k = _kernel_table(g, ev, dev_names, device, metadata)
    return finish_profile(path, FORMAT, vendor, k, device=device, metadata=metadata, warnings=warnings,
                          iterations=iterations, sort_by_start=False,
                          attachments={"timeline": partial(build_timeline, timeline, path)} if timeline else None)


def _timeline_columns(ev: KinetoEvents) -> TimelineColumns:
    """The columns the replay timeline needs, taken from this pass (built into a ``Timeline`` only when a
    projection asks for it: ``Profile.attachments['timeline']`` is that builder)."""
    r_dur, r_name = ev.runtime.pop("r_dur"), ev.runtime.pop("r_name")
    kinds = np.frombuffer(ev.ops["kind"], dtype=np.int8) if len(ev.ops["kind"]) else np.zeros(0, np.int8)
    ts = np.frombuffer(ev.ops["ts"], dtype=np.float64) if len(ev.ops["ts"]) else np.zeros(0)
    steps: list[tuple[int, float, float]] = []
    user: list[tuple[int, float, float, int]] = []
    for i in np.nonzero(kinds == KIND_STEP)[0].tolist():
        name = ev.names[ev.ops["name_id"][i]]
        if name.startswith(STEP_PREFIX):
            n = step_number(name)
            if n is not None:
                steps.append((n, float(ev.ops["ts"][i]), float(ev.ops["dur"][i])))
        elif (n := iteration_of(name)) is not None:
            user.append((n, float(ev.ops["ts"][i]), float(ev.ops["dur"][i]), int(ev.ops["thread"][i])))
    gpu, flows = ev.gpu, ev.flows
    return TimelineColumns(
        c_thread=ev.runtime["r_thread"], c_ts=ev.runtime["r_ts"], c_dur=r_dur, c_name=r_name,
        c_corr=ev.runtime["corr"], g_stream=gpu["stream"], g_ts=gpu["start_ns"], g_dur=gpu["duration_ns"],
        g_name=gpu["name_id"], g_kind=gpu["gkind"], g_corr=gpu["corr"], g_tid=gpu["g_thread"],
        f_tid=flows["g_thread"], f_ts=flows["start_ns"], f_id=flows["fid"], h_ts=ts[kinds == KIND_OP].copy(),
        steps=steps, user=user, names=ev.names)


# ---------------------------------------------------------------- phase 2: vendor, device, metadata
def _describe(header: dict[str, Any], runtime_names: set[str]) -> tuple[str, str | None, dict[int, str], dict[str, str]]:
    """(vendor, device name, device id → name, metadata) from the trace header and the runtime call names."""
    metadata: dict[str, str] = {}
    for key in ("cuda_runtime_version", "cuda_driver_version", "cupti_version", "hip_runtime_version",
                "hip_driver_version", "roctracer_version", "schemaVersion", "traceName"):
        if key in header and header[key] is not None:
            metadata[key] = str(header[key])
            pretty = _version(key, header[key]) if key.endswith("_version") else None
            if pretty:
                metadata[key.replace("_version", "")] = pretty
    dist = header.get("distributedInfo")
    if isinstance(dist, dict) and "rank" in dist:
        metadata["rank"] = str(dist["rank"])
    props = header.get("deviceProperties") or []
    dev_names: dict[int, str] = {}
    for p in props if isinstance(props, list) else []:
        if isinstance(p, dict) and "name" in p:
            dev_names[int(p.get("id", len(dev_names)))] = str(p["name"])
    first_prop = props[0] if isinstance(props, list) and props and isinstance(props[0], dict) else {}

    vendor = "unknown"
    rt = " ".join(runtime_names)
    dname = " ".join(dev_names.values())
    if "cuda_runtime_version" in header or "cupti_version" in header or "NVIDIA" in dname or "cudaLaunch" in rt:
        vendor = "nvidia"
    if "hip_runtime_version" in header or "roctracer_version" in header or "AMD" in dname or "hipLaunch" in rt or "hipExtModule" in rt:
        vendor = "amd"
    if vendor == "unknown" and first_prop.get("warpSize") == 64:
        vendor = "amd"
    if first_prop:
        if "computeMajor" in first_prop:
            cc = f"{first_prop.get('computeMajor')}.{first_prop.get('computeMinor', 0)}"
            metadata["compute_capability"] = cc
            if vendor == "nvidia":
                metadata["arch"] = f"sm_{first_prop.get('computeMajor')}{first_prop.get('computeMinor', 0)}"
        for k in ("numSms", "warpSize", "totalGlobalMem"):
            if k in first_prop:
                metadata[k] = str(first_prop[k])
    device = next(iter(dev_names.values()), None)
    if device:
        metadata["device_name"] = device
    if len(dev_names) > 1:
        metadata["devices"] = ", ".join(f"{i}: {n}" for i, n in sorted(dev_names.items()))
    return vendor, device, dev_names, metadata


# ---------------------------------------------------------------- phase 3: columns → frames
_ARRAY_TYPES = {"i": pl.Int32, "d": pl.Float64, "q": pl.Int64, "b": pl.Int8}
_NUMPY_TYPES = {"i": np.int32, "d": np.float64, "q": np.int64, "b": np.int8}


def _columns(cols: dict[str, array]) -> pl.DataFrame:
    """A frame of typed arrays, with their types even when empty (a GPU-only trace has no CPU ops:
    untyped empty columns would be null-typed and break the arithmetic)."""
    return pl.DataFrame({k: pl.Series(k, np.frombuffer(v, dtype=_NUMPY_TYPES[v.typecode]), dtype=_ARRAY_TYPES[v.typecode])
                         if len(v) else pl.Series(k, [], dtype=_ARRAY_TYPES[v.typecode]) for k, v in cols.items()})


def _frames(ev: KinetoEvents, path: Path) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """(ops, runtime, gpu) frames in int ns, insane and negative rows dropped with a warning. The
    attribution works on narrow frames (ids and times only) and joins the results back once, so the
    5M-row op table and the wide GPU table are never copied through a chain of joins. Each family's
    arrays are released as soon as its frame is built."""
    ops = _columns(ev.ops)
    ev.ops = {}
    ops = (
        ops.lazy()
        .filter(_sane("ts", "dur"))
        .with_columns(_to_ns("ts"), (pl.col("dur") * 1000).round(0).cast(pl.Int64).alias("dur"))
        .select("thread", "ts", (pl.col("ts") + pl.col("dur")).alias("end"), "ext", "name_id", "kind", "sig", "top")
        .collect()
    )
    runtime = _columns(ev.runtime).filter(_sane("r_ts"))
    ev.runtime = {}
    runtime = runtime.with_columns(_to_ns("r_ts"), _nonneg("r_ext"))
    if runtime.get_column("corr").n_unique() < runtime.height:  # a repeated correlation: its first call links
        runtime = runtime.unique("corr", keep="first", maintain_order=False)
    g = _columns(ev.gpu)
    ev.gpu = {}
    insane = g.height - (g := g.filter(_sane("start_ns", "duration_ns"))).height
    if insane:
        ev.warnings.append(f"{insane} GPU event(s) with a non-finite or overflowing ts/dur were dropped")
        if not g.filter(pl.col("gkind") == G_KERNEL).height:
            raise InputError("no GPU kernel event with a usable ts/dur", path)
    g = g.with_columns(
        _to_ns("start_ns"), (pl.col("duration_ns") * 1000).round(0).cast(pl.Int64).alias("duration_ns"),
        _nonneg("ext"), _nonneg("corr"), _nonneg("registers"), _nonneg("shared_mem_bytes"), _nonneg("stream"), _nonneg("dev"),
    ).with_row_index("row")
    neg = g.filter(pl.col("duration_ns") < 0).height
    if neg:
        ev.warnings.append(f"{neg} GPU event(s) with a negative duration were dropped")
        g = g.filter(pl.col("duration_ns") >= 0)
    return ops, runtime, g


# ---------------------------------------------------------------- phase 4: GPU event → launch → operator
def _link_launches(g: pl.DataFrame, ops: pl.DataFrame, runtime: pl.DataFrame, ev: KinetoEvents) -> pl.DataFrame:
    """Per GPU event (row, start_ns, corr): the innermost operator (op_id) and the launching thread
    and time (l_thread, l_ts), through correlation → runtime call → External id → cpu_op."""
    link = g.select("row", "g_thread", "start_ns", "ext", "corr")
    # kernel ↔ flow fallback, for GPU events without a correlation argument
    if link.get_column("corr").null_count() and len(ev.flows["fid"]):
        flows = _columns(ev.flows).filter(_sane("start_ns"))
        flows = flows.with_columns(_to_ns("start_ns"))
        flows = flows.unique(["g_thread", "start_ns"], keep="first")
        link = link.join(flows, on=["g_thread", "start_ns"], how="left").with_columns(
            pl.coalesce("corr", _nonneg("fid")).alias("corr")).drop("fid")
    ev.flows = {}
    link = link.drop("g_thread")

    # kernel → runtime call (launch point, External id)
    link = _sorted_key(link, "corr").join(_sorted_key(runtime, "corr"), on="corr", how="left")
    link = link.with_columns(pl.coalesce("ext", "r_ext").alias("ext")).drop("r_ext")
    # External id → innermost op (cpu_op preferred over a user annotation), among the ids kernels carry
    wanted = link.get_column("ext").drop_nulls().unique()
    ext_ops = (
        ops.lazy()
        .filter((pl.col("kind") != KIND_STEP) & pl.col("ext").is_in(wanted.implode()))
        .select("ext", pl.col("name_id").alias("op_id"), pl.col("sig").alias("op_sig"), pl.col("ext").alias("op_ext"),
                pl.col("thread").alias("op_thread"), pl.col("ts").alias("op_ts"), "kind")
        .collect()
    )
    if ext_ops.get_column("ext").n_unique() < ext_ops.height:  # an id on several ranges: the cpu_op wins
        ext_ops = ext_ops.sort("kind").unique("ext", keep="first", maintain_order=False)
    ext_ops = ext_ops.drop("kind")
    link = _sorted_key(link, "ext").join(_sorted_key(ext_ops, "ext"), on="ext", how="left")
    del ext_ops, wanted
    # the External id must name an op that encloses the runtime call (2022 traces reuse the
    # correlation as External id): otherwise find the innermost enclosing op by time
    bad_link = pl.col("r_ts").is_not_null() & (
        pl.col("op_id").is_null() | (pl.col("op_thread") != pl.col("r_thread")) | (pl.col("op_ts") > pl.col("r_ts"))
    )
    if link.select(bad_link.any()).item():
        fixed = _innermost_ops(ops, link.filter(bad_link).select("row", "r_thread", "r_ts"))
        link = link.join(fixed, on="row", how="left").with_columns(
            pl.when(bad_link).then(pl.col("in_id")).otherwise(pl.col("op_id")).alias("op_id"),
            pl.when(bad_link).then(pl.col("in_sig")).otherwise(pl.col("op_sig")).alias("op_sig"),
            pl.when(bad_link).then(pl.col("in_ext")).otherwise(pl.col("op_ext")).alias("op_ext"),
            pl.when(bad_link).then(pl.col("r_thread")).otherwise(pl.col("op_thread")).alias("op_thread"),
            pl.when(bad_link).then(pl.col("r_ts")).otherwise(pl.col("op_ts")).alias("op_ts"),
        ).drop("in_id", "in_sig", "in_ext")
    return link.select(
        "row", "start_ns", "corr", "op_id", "op_sig", "op_ext",
        pl.coalesce("r_thread", "op_thread").alias("l_thread"),
        pl.coalesce("r_ts", "op_ts").alias("l_ts"),
    )


# ---------------------------------------------------------------- phase 5: range and CPU iteration
def _ends_so_far(ranges: pl.DataFrame) -> pl.Series:
    """Per row of ``ranges`` (sorted by thread, then start): the latest end among the earlier rows of its
    thread (null for a thread's first row). A running maximum per thread segment in numpy: polars'
    ``cum_max().over("thread")`` costs a window pass over millions of rows for what is usually one thread."""
    if not ranges.height:
        return pl.Series("prev_end", [], dtype=pl.Int64)
    ends = ranges.get_column("end").to_numpy()
    threads = ranges.get_column("thread").to_numpy()
    out = np.empty(len(ends), dtype=np.int64)
    starts = np.flatnonzero(np.diff(threads)) + 1
    bounds = [0, *starts.tolist(), len(ends)]
    first = np.zeros(len(ends), dtype=bool)
    for a, b in zip(bounds[:-1], bounds[1:], strict=False):
        np.maximum.accumulate(ends[a:b], out=out[a:b])
        first[a] = True
    prev = np.empty_like(out)
    prev[1:] = out[:-1]
    prev[0] = 0
    return pl.Series("prev_end", prev).set(pl.Series(first), None)


def _attribute(link: pl.DataFrame, ops: pl.DataFrame, names: list[str]) -> pl.DataFrame:
    """Adds ``top_id`` (the outermost CPU range enclosing the launch on its thread) and ``iteration``
    (the CPU ProfilerStep#N span holding the launch)."""
    ranges = (
        ops.lazy()
        .filter((pl.col("kind") != KIND_STEP) & (pl.col("top") != 0))  # kineto_events.top_candidates
        .select("thread", "ts", "end", "name_id", "sig")
        .sort(["thread", "ts", "end"], descending=[False, False, True])
        .collect()
    )
    tops = (
        ranges.with_columns(_ends_so_far(ranges).alias("prev_end"))
        .lazy()
        .filter(pl.col("prev_end").is_null() | (pl.col("ts") >= pl.col("prev_end")))
        .select(pl.col("thread").alias("l_thread"), pl.col("ts").alias("l_ts"), pl.col("end").alias("top_end"),
                pl.col("name_id").alias("top_id"), pl.col("sig").alias("top_sig"))
        .sort("l_ts")
        .collect()
    )
    del ranges
    step_rows = ops.filter(pl.col("kind") == KIND_STEP).select("ts", "end", "name_id")
    launched = link.filter(pl.col("l_ts").is_not_null()).sort("l_ts")
    unlaunched = link.filter(pl.col("l_ts").is_null())
    del link
    if tops.height and launched.height:
        launched = launched.join_asof(tops, on="l_ts", by="l_thread", strategy="backward", check_sortedness=False)
        launched = launched.with_columns(
            pl.when(pl.col("l_ts") <= pl.col("top_end")).then(pl.col("top_id")).otherwise(None).alias("top_id"),
            pl.when(pl.col("l_ts") <= pl.col("top_end")).then(pl.col("top_sig")).otherwise(None).alias("top_sig"),
        ).drop("top_end")
    else:
        launched = launched.with_columns(pl.lit(None, dtype=pl.Int32).alias("top_id"), pl.lit(None, dtype=pl.Int32).alias("top_sig"))
    del tops

    cpu_steps = sorted(
        (n, ts, end) for ts, end, nid in step_rows.iter_rows() if (n := step_number(names[nid])) is not None
    )
    if not cpu_steps:
        cpu_steps = _user_iterations(step_rows, names)
    if cpu_steps and launched.height:
        steps_df = pl.DataFrame(
            {"l_ts": [s[1] for s in cpu_steps], "step_end": [s[2] for s in cpu_steps], "iteration": [s[0] for s in cpu_steps]},
            schema={"l_ts": pl.Int64, "step_end": pl.Int64, "iteration": pl.Int64},
        ).sort("l_ts")
        launched = launched.join_asof(steps_df, on="l_ts", strategy="backward").with_columns(
            pl.when(pl.col("l_ts") <= pl.col("step_end")).then(pl.col("iteration")).otherwise(None).alias("iteration")
        ).drop("step_end")
    else:
        launched = launched.with_columns(pl.lit(None, dtype=pl.Int64).alias("iteration"))
    unlaunched = unlaunched.with_columns(pl.lit(None, dtype=pl.Int32).alias("top_id"), pl.lit(None, dtype=pl.Int32).alias("top_sig"),
                                         pl.lit(None, dtype=pl.Int64).alias("iteration"))
    return pl.concat([launched, unlaunched], how="diagonal_relaxed").select(
        "row", "start_ns", "corr", "op_id", "op_sig", "op_ext", "top_id", "top_sig", "iteration")


# ---------------------------------------------------------------- phase 6: GPU-side iteration windows
def _gpu_step_windows(link: pl.DataFrame, gpu_steps: list[tuple[int, float, float]]
                      ) -> tuple[pl.DataFrame, list[tuple[int, tuple[int, int]]]]:
    """The gpu_user_annotation ProfilerStep#N windows (N → (start ns, end ns)), and the iteration of the
    events without a CPU launch taken from the window holding them."""
    gsteps = sorted({n: (round(ts * 1000), round((ts + dur) * 1000)) for n, ts, dur in gpu_steps}.items())
    if gsteps:
        gs = pl.DataFrame(
            {"start_ns": [s[1][0] for s in gsteps], "gs_end": [s[1][1] for s in gsteps], "g_iter": [s[0] for s in gsteps]},
            schema={"start_ns": pl.Int64, "gs_end": pl.Int64, "g_iter": pl.Int64},
        ).sort("start_ns")
        link = link.sort("start_ns").join_asof(gs, on="start_ns", strategy="backward").with_columns(
            pl.coalesce("iteration", pl.when(pl.col("start_ns") <= pl.col("gs_end")).then(pl.col("g_iter"))).alias("iteration")
        ).drop("gs_end", "g_iter")
    return link, gsteps


def _launch_windows(g: pl.DataFrame) -> list[tuple[int, int, int]]:
    """Without GPU step annotations: first start to last end of the GPU events of each iteration
    (kernels, memcpys and memsets)."""
    spans = (
        g.filter(pl.col("iteration").is_not_null())
        .group_by("iteration", maintain_order=True)
        .agg(pl.col("start_ns").min().alias("s"), (pl.col("start_ns") + pl.col("duration_ns")).max().alias("e"))
        .sort("iteration")
    )
    return [(int(i), int(s), int(e)) for i, s, e in spans.iter_rows()]


# ---------------------------------------------------------------- phase 7: the kernel rows
def _kernel_table(g: pl.DataFrame, ev: KinetoEvents, dev_names: dict[int, str], device: str | None,
                  metadata: dict[str, str]) -> pl.DataFrame:
    """Memory operations summed into ``metadata``; the kernels in file order with their names, operator,
    range, launch shape and device looked up."""
    for kind, label in ((G_MEMCPY, "memcpy"), (G_MEMSET, "memset")):
        sub = g.filter(pl.col("gkind") == kind)
        metadata[f"{label}_count"] = str(sub.height)
        metadata[f"{label}_ns"] = str(int(sub.get_column("duration_ns").sum() or 0))

    k = g.filter(pl.col("gkind") == G_KERNEL).sort("row")
    name_values = pl.Series("v", ev.names, dtype=pl.String)
    shape_values = pl.Series("s", [dims(orjson.loads(k)) for k in ev.shapes], dtype=pl.String)
    sig_values = pl.Series("g", ev.signatures, dtype=pl.String)

    def lookup(col: str, values: pl.Series) -> pl.Expr:
        return pl.when(pl.col(col) >= 0).then(pl.col(col)).otherwise(None).map_batches(
            lambda s: values.gather(s), return_dtype=pl.String
        )

    k = k.with_columns(
        pl.col("name_id").map_batches(lambda s: name_values.gather(s), return_dtype=pl.String).alias("raw_name"),
        pl.col("op_id").map_batches(lambda s: name_values.gather(s), return_dtype=pl.String).alias("operator"),
        pl.col("top_id").map_batches(lambda s: name_values.gather(s), return_dtype=pl.String).alias("range"),
        lookup("grid_id", shape_values).alias("grid"),
        lookup("block_id", shape_values).alias("block"),
        (pl.col("dev").replace_strict(dev_names, default=device, return_dtype=pl.String) if dev_names
         else pl.lit(device, dtype=pl.String)).alias("device"),
        pl.col("corr").alias("correlation"),
        lookup("op_sig", sig_values).alias("operator_signature"),
        lookup("top_sig", sig_values).alias("range_signature"),
        pl.col("op_ext").alias("operator_id"),
    )
    unattributed = k.get_column("operator").null_count()
    if unattributed:
        metadata["kernels_without_operator"] = str(unattributed)
    return k


# ---------------------------------------------------------------- the format
def _sniff(head: Head) -> float | None:
    if not head.is_json:
        return None
    if head.has(b"traceEvents", b'"ph"'):
        return 1.0
    if not head.complete and head.stripped[:1] == b"{":
        return 0.5  # a JSON object whose first MiB is all metadata: let the trace reader judge it
    return None


FORMATS = (Format(FORMAT, read_kineto, _sniff, files=(("*.pt.trace.json.gz", 60), ("*.pt.trace.json", 70))),)
