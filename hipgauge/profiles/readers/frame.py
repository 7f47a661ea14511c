"""Build the normalized kernel table (``KERNEL_RECORD_SCHEMA``) from whatever columns a reader has."""

from __future__ import annotations

from typing import Any

import polars as pl

from hipgauge.model import KERNEL_RECORD_SCHEMA

from ..normalize import demangle, normalize_key

POLARS_TYPES: dict[str, Any] = {name: getattr(pl, dtype) for name, dtype in KERNEL_RECORD_SCHEMA.items()}


def empty_kernels() -> pl.DataFrame:
    return pl.DataFrame(schema=POLARS_TYPES)


def kernel_frame(df: pl.DataFrame, **constants: Any) -> pl.DataFrame:
    """Return ``df`` with exactly the schema's columns, in order, with the schema's dtypes.

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
