"""Iterations inferred from a repeating launch sequence when the profile marks none (ncu captures)."""

from __future__ import annotations

import polars as pl

from hipgauge.model import KERNEL_RECORD_SCHEMA, Profile
from hipgauge.profiles import percentiles as pct


def _profile(keys: list[str], dur: int = 1000) -> Profile:
    rows = {c: [None] * len(keys) for c in KERNEL_RECORD_SCHEMA}
    rows.update(vendor=["nvidia"] * len(keys), source_format=["ncu-csv"] * len(keys), raw_name=keys, name=keys,
                key=keys, duration_ns=[dur] * len(keys))
    df = pl.DataFrame(rows, schema={c: getattr(pl, t) for c, t in KERNEL_RECORD_SCHEMA.items()})
    return Profile(path="x.csv", source_format="ncu-csv", vendor="nvidia", kernels=df)


def test_period_of_a_serving_loop() -> None:
    loop = ["norm", "conv", "relu", "conv", "relu", "gemm", "nms"]
    assert pct.infer_launch_period(loop * 5 + loop[:3]) == len(loop)


def test_no_period_in_unstructured_sequences() -> None:
    assert pct.infer_launch_period(["a", "b", "c", "d", "e", "f"]) is None
    assert pct.infer_launch_period(["a"] * 50) is None
    assert pct.infer_launch_period(["a", "b"]) is None


def test_iteration_view_divides_by_complete_iterations_and_leaves_the_tail_out() -> None:
    loop = ["norm", "conv", "relu", "gemm"]
    view = pct.iteration_view(_profile(loop * 6 + loop[:2]))
    assert view.inferred_period == 4
    assert view.iterations == 6
    assert view.excluded_count == 2
    assert view.kernels.height == 24


def test_marked_iterations_are_not_overridden() -> None:
    prof = _profile(["a", "b"] * 4)
    prof.kernels = prof.kernels.with_columns(pl.Series("iteration", [0, 0, 1, 1, 2, 2, 3, 3], dtype=pl.Int64))
    view = pct.iteration_view(prof)
    assert view.inferred_period is None and view.iterations == 4
