"""The one last step of every reader: a table of kernel rows → a validated ``Profile``.

``finish_profile`` drops rows with a negative duration (with a warning), puts the rows in start
order, fills ``metadata["device_name"]`` and the ``device`` column from the device, derives the
iteration windows from an ``iteration`` column unless the reader measured them itself, builds the
``KERNEL_RECORD_SCHEMA`` table (``frame.kernel_frame``) and returns the ``Profile``, with any extra
tables the reader found (a CPU timeline, counters) as ``attachments``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from hipgauge.errors import InputError
from hipgauge.model import Profile

from .frame import iteration_windows, kernel_frame


def finish_profile(path: str | Path, fmt: str, vendor: str, df: pl.DataFrame, *, device: str | None = None,
                   metadata: dict[str, str] | None = None, warnings: list[str] | None = None,
                   iterations: list[tuple[int, int, int]] | None = None, empty: str | None = None,
                   negative: str = "kernel(s)", sort_by_start: bool = True,
                   attachments: dict[str, Any] | None = None, **constants: Any) -> Profile:
    """``empty``: the error when ``df`` has no rows (None: an empty profile is allowed).
    ``negative``: what a row is called in the warning about negative durations.
    ``sort_by_start``: False keeps the reader's row order (Kineto's file order, for one).
    ``constants``: column values for columns ``df`` lacks (see ``kernel_frame``)."""
    path = Path(path)
    warnings = warnings if warnings is not None else []
    if empty is not None and df.height == 0:
        raise InputError(empty, path)
    if "duration_ns" in df.columns:
        bad = df.filter(pl.col("duration_ns") < 0).height
        if bad:
            warnings.append(f"{bad} {negative} with end < start were dropped")
            df = df.filter(pl.col("duration_ns") >= 0)
    if sort_by_start and "start_ns" in df.columns:
        df = df.sort("start_ns", nulls_last=True, maintain_order=True)
    metadata = dict(metadata or {})
    if device:
        metadata.setdefault("device_name", device)
        if "device" not in df.columns:
            df = df.with_columns(pl.lit(device, dtype=pl.String).alias("device"))
    if iterations is None:
        iterations = iteration_windows(df)
    return Profile(path=str(path), source_format=fmt, vendor=vendor,
                   kernels=kernel_frame(df, vendor=vendor, source_format=fmt, **constants), device=device,
                   iterations=iterations, metadata=metadata, warnings=warnings, attachments=dict(attachments or {}))
