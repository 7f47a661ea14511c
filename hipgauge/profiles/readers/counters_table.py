"""The counters table (``model.COUNTER_RECORD_SCHEMA``) and how its rows find the kernel records they belong to.

Every counter reader yields ``CounterSample(launch, name, counter, value, unit)`` items: ``launch`` is the
profiler's own launch / dispatch id (ncu ``ID``, rocprof ``Index``, rocprofv3 ``Correlation_Id``,
rocprof-compute ``Dispatch_ID``), ``name`` the kernel name as the counter file writes it. ``counter_frame``
joins them onto ``Profile.kernels``: by launch id where it names exactly one kernel record (the readers put
that id in the kernel table's ``correlation`` column), else by kernel name (normalized key) and order: the
n-th sample launch of a name goes to the n-th kernel record of that name. Samples that find no record are
counted, never guessed.

Per-instance counters (``TCC_HIT[0]`` … ``TCC_HIT[15]``, one per L2 channel) also get their sum under the
name rocprof-compute uses for it (``TCC_HIT_sum``) when the file does not already hold that sum.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import polars as pl

from hipgauge.kernel_names import key_or_name
from hipgauge.model import COUNTER_RECORD_SCHEMA

POLARS_TYPES: dict[str, Any] = {name: getattr(pl, dtype) for name, dtype in COUNTER_RECORD_SCHEMA.items()}
_INSTANCE = re.compile(r"^(?P<base>.+)\[(?P<i>\d+)\]$")


@dataclass
class CounterSample:
    launch: int | None
    name: str | None
    counter: str
    value: float
    unit: str = ""
    #: which launch of the file the sample belongs to when ``launch`` alone does not say (a row number, or the
    #: n-th (ID, process) pair of an ncu details page with several processes); None: ``launch`` does
    seq: int | None = None


def empty_counters() -> pl.DataFrame:
    return pl.DataFrame(schema=POLARS_TYPES)


def _launch_rows(kernels: pl.DataFrame) -> dict[int, int]:
    """correlation id → row, for ids that name exactly one kernel record."""
    if kernels.height == 0 or "correlation" not in kernels.columns:
        return {}
    seen: dict[int, int] = {}
    dup: set[int] = set()
    for i, c in enumerate(kernels.get_column("correlation").to_list()):
        if c is None:
            continue
        if c in seen:
            dup.add(c)
        seen[c] = i
    return {c: i for c, i in seen.items() if c not in dup}


def _key(name: str | None) -> str:
    return key_or_name(name) if name else ""


def counter_frame(kernels: pl.DataFrame, samples: list[CounterSample]) -> tuple[pl.DataFrame, dict[str, int]]:
    """The counters table for ``kernels`` and join statistics (``by_launch_id``, ``by_name_order``,
    ``unjoined`` launches)."""
    by_id = _launch_rows(kernels)
    launches: dict[tuple[int | None, str | None, int | None], list[CounterSample]] = defaultdict(list)
    order: list[tuple[int | None, str | None, int | None]] = []
    for s in samples:
        k = (s.launch, s.name, s.seq)
        if k not in launches:
            order.append(k)
        launches[k].append(s)
    # name-and-order fallback: kernel rows of each key in table order
    rows_of_key: dict[str, list[int]] = defaultdict(list)
    if kernels.height:
        for i, raw in enumerate(kernels.get_column("raw_name").to_list()):
            rows_of_key[_key(raw)].append(i)
    taken: set[int] = set()
    stats = {"by_launch_id": 0, "by_name_order": 0, "unjoined": 0}
    assign: dict[tuple[int | None, str | None, int | None], int] = {}
    pending: list[tuple[int | None, str | None, int | None]] = []
    raw_names = kernels.get_column("raw_name").to_list() if kernels.height else []
    for k in order:
        launch, name, _seq = k
        row = by_id.get(launch) if launch is not None else None
        if row is not None and name and raw_names[row] and _key(name) != _key(raw_names[row]):
            row = None  # the same id names another kernel: not the same run; try name and order
        if row is not None and row not in taken:
            assign[k] = row
            taken.add(row)
            stats["by_launch_id"] += 1
        else:
            pending.append(k)
    cursor: dict[str, int] = defaultdict(int)
    for k in pending:
        key = _key(k[1])
        rows = rows_of_key.get(key, [])
        while cursor[key] < len(rows) and rows[cursor[key]] in taken:
            cursor[key] += 1
        if cursor[key] < len(rows):
            row = rows[cursor[key]]
            assign[k] = row
            taken.add(row)
            stats["by_name_order"] += 1
        else:
            stats["unjoined"] += 1
    out_row: list[int] = []
    out_counter: list[str] = []
    out_value: list[float] = []
    out_unit: list[str] = []
    for k, row in assign.items():
        values: dict[str, tuple[float, str]] = {}
        for s in launches[k]:
            if s.counter in values:  # the same counter twice for one launch (several passes): keep the first
                continue
            values[s.counter] = (s.value, s.unit)
        sums: dict[str, float] = defaultdict(float)
        for c, (v, _u) in values.items():
            m = _INSTANCE.match(c)
            if m:
                sums[m.group("base") + "_sum"] += v
        for c, v in sums.items():
            values.setdefault(c, (v, ""))
        for c, (v, u) in values.items():
            out_row.append(row)
            out_counter.append(c)
            out_value.append(v)
            out_unit.append(u)
    df = pl.DataFrame({"row": out_row, "counter": out_counter, "value": out_value, "unit": out_unit},
                      schema=POLARS_TYPES)
    return df.sort(["row", "counter"]), stats


def counter_frames(kernels: pl.DataFrame, groups: list[list[CounterSample]]) -> tuple[pl.DataFrame, dict[str, int]]:
    """``counter_frame`` of each group of samples (one counter file each: its launch ids are its own), merged; a
    counter a row already has from an earlier group is kept from the earlier one."""
    frames, total = [], {"by_launch_id": 0, "by_name_order": 0, "unjoined": 0}
    for samples in groups:
        if not samples:
            continue
        df, stats = counter_frame(kernels, samples)
        frames.append(df)
        for k, v in stats.items():
            total[k] += v
    if not frames:
        return empty_counters(), total
    merged = pl.concat(frames).unique(subset=["row", "counter"], keep="first", maintain_order=True)
    return merged.sort(["row", "counter"]), total


def join_note(stats: dict[str, int], what: str) -> str | None:
    """A warning when some counter launches found no kernel record or were joined by name and order."""
    parts = []
    if stats.get("by_name_order"):
        parts.append(f"{stats['by_name_order']} launch(es) joined by kernel name and order (no shared launch id)")
    if stats.get("unjoined"):
        parts.append(f"{stats['unjoined']} launch(es) matched no kernel record and were left out")
    return f"{what}: " + "; ".join(parts) if parts else None
