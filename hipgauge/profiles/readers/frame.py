"""Build the normalized kernel table (``KERNEL_RECORD_SCHEMA``) from whatever columns a reader has."""

from __future__ import annotations

from typing import Any

import polars as pl

from hipgauge.kernel_names import demangle, normalize_key
from hipgauge.model import KERNEL_RECORD_SCHEMA, OPTIONAL_KERNEL_COLUMNS

from .files import check_records

POLARS_TYPES: dict[str, Any] = {name: getattr(pl, dtype) for name, dtype in KERNEL_RECORD_SCHEMA.items()}


def empty_kernels() -> pl.DataFrame:
    return pl.DataFrame(schema=POLARS_TYPES)


def kernel_frame(df: pl.DataFrame, **constants: Any) -> pl.DataFrame:
    """Return ``df`` with exactly the schema's columns, in order, with the schema's dtypes (then any of
    ``OPTIONAL_KERNEL_COLUMNS`` that ``df`` has).

    Missing columns are filled from ``constants`` (e.g. ``vendor="amd"``) or with nulls;
    ``name`` and ``key`` are derived from ``raw_name`` when absent (once per distinct name).
    """
    exprs = []
    for col, value in constants.items():
        if col not in df.columns:
            exprs.append(pl.lit(value, dtype=POLARS_TYPES[col]).alias(col))
    if exprs:
        df = df.with_columns(exprs)
    if "raw_name" not in df.columns:
        raise ValueError("kernel_frame needs raw_name")
    if "name" not in df.columns or "key" not in df.columns:
        uniques = df.get_column("raw_name").unique().drop_nulls().to_list()
        names = {u: demangle(u) for u in uniques}
        keys = {u: normalize_key(u) for u in uniques}
        add = []
        if "name" not in df.columns:
            add.append(pl.col("raw_name").replace_strict(names, default=None, return_dtype=pl.String).alias("name"))
        if "key" not in df.columns:
            add.append(pl.col("raw_name").replace_strict(keys, default=None, return_dtype=pl.String).alias("key"))
        df = df.with_columns(add)
    cols = []
    for col, dtype in POLARS_TYPES.items():
        if col in df.columns:
            cols.append(pl.col(col).cast(dtype, strict=False))
        else:
            cols.append(pl.lit(None, dtype=dtype).alias(col))
    for col, dtype_name in OPTIONAL_KERNEL_COLUMNS.items():  # kept, after the schema's, only when the reader has them
        if col in df.columns:
            cols.append(pl.col(col).cast(getattr(pl, dtype_name), strict=False))
    return df.select(cols)


def dims(x: Any) -> str | None:
    """``[a, b, c]`` / ``(a, b, c)`` / ``{x:,y:,z:}`` → ``"a,b,c"``; None when absent."""
    if x is None:
        return None
    if isinstance(x, dict):
        x = [x.get("x"), x.get("y"), x.get("z")]
    if isinstance(x, (list, tuple)):
        return ",".join(str(int(v)) if isinstance(v, (int, float)) else str(v) for v in x)
    return str(x)


def iteration_windows(df: pl.DataFrame) -> list[tuple[int, int, int]]:
    """(iteration, first start, last end) over the rows that carry an iteration and a start."""
    if "iteration" not in df.columns or df.get_column("iteration").null_count() == df.height:
        return []
    spans = (
        df.filter(pl.col("iteration").is_not_null() & pl.col("start_ns").is_not_null())
        .group_by("iteration", maintain_order=True)
        .agg(pl.col("start_ns").min().alias("s"), (pl.col("start_ns") + pl.col("duration_ns")).max().alias("e"))
        .sort("iteration")
    )
    return [(int(i), int(s), int(e)) for i, s, e in spans.iter_rows()]


def expand_aggregate(names: list[str], counts: list[int], totals: list[int], extra: dict[str, list] | None = None) -> pl.DataFrame:
    """Aggregate rows → one row per instance with duration total // count (the remainder spread as
    +1 ns over the first rows), so that counts and totals stay exact."""
    extra = extra or {}
    check_records(sum(max(int(n), 0) for n in counts))  # an absurd instance count must not exhaust memory
    out_name: list[str] = []
    out_dur: list[int] = []
    out_extra: dict[str, list] = {k: [] for k in extra}
    for i, (name, n, total) in enumerate(zip(names, counts, totals)):
        if n <= 0:
            continue
        base, rem = divmod(total, n)
        out_name.extend([name] * n)
        out_dur.extend([base + 1] * rem + [base] * (n - rem))
        for k, v in extra.items():
            out_extra[k].extend([v[i]] * n)
    return pl.DataFrame({"raw_name": out_name, "duration_ns": out_dur, **out_extra},
                        schema_overrides={"raw_name": pl.String, "duration_ns": pl.Int64})


AGGREGATE_WARNING = ("aggregate: per-instance durations are averages (a summary report has no per-launch times, "
                     "no iterations and no percentiles)")
