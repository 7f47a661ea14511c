"""``kineto_events.top_candidates``: leaving the ranges it marks 0 out of ``kineto._attribute``'s sort changes
no launch's outermost range or iteration, whatever the ranges (nested, overlapping, zero or negative
durations, equal starts, several threads, starts a fraction of a nanosecond apart, insane values).

The same launches are attributed twice, from the ops frame with the candidates' marks and with every row
marked 1 (the sort over all ranges, as before the marks existed), and must agree row for row; the real
traces' readers are checked against one pass in ``test_kineto_parallel.py``.
"""

from __future__ import annotations

from array import array

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from hipgauge.profiles.readers import kineto as K
from hipgauge.profiles.readers.kineto_events import KIND_ANNOT, KIND_OP, KIND_STEP, top_candidates

#: starts: whole µs, ns steps and sub-ns steps (the µs → ns rounding must not change a decision)
_TS = st.one_of(st.integers(0, 40).map(float), st.integers(0, 40_000).map(lambda n: n / 1000),
                st.integers(0, 400_000).map(lambda n: n / 10_000), st.sampled_from([float("nan"), 1e16]))
_DUR = st.one_of(st.integers(-3, 30).map(float), st.integers(-2_000, 30_000).map(lambda n: n / 1000),
                 st.just(0.0), st.sampled_from([float("inf"), -1e16]))
_RANGE = st.tuples(st.integers(0, 2), _TS, _DUR, st.sampled_from([KIND_OP, KIND_OP, KIND_ANNOT, KIND_STEP]))


def _ops_frame(rows: list[tuple[int, float, float, int]], top: array) -> pl.DataFrame:
    """The ops frame as ``kineto._frames`` makes it, with the given ``top`` marks."""
    cols = {"thread": array("i", [r[0] for r in rows]), "ts": array("d", [r[1] for r in rows]),
            "dur": array("d", [r[2] for r in rows]), "ext": array("q", [-1] * len(rows)),
            "name_id": array("i", range(len(rows))), "kind": array("b", [r[3] for r in rows]),
            "sig": array("i", [-1] * len(rows)), "top": top}
    return (
        K._columns(cols).lazy()
        .filter(K._sane("ts", "dur"))
        .with_columns(K._to_ns("ts"), (pl.col("dur") * 1000).round(0).cast(pl.Int64).alias("dur"))
        .select("thread", "ts", (pl.col("ts") + pl.col("dur")).alias("end"), "ext", "name_id", "kind", "sig", "top")
        .collect()
    )


def _attributed(rows: list[tuple[int, float, float, int]], launches: list[tuple[int, int]], top: array) -> list:
    link = pl.DataFrame({"row": list(range(len(launches))), "start_ns": [0] * len(launches),
                         "corr": [None] * len(launches), "op_id": [None] * len(launches),
                         "op_sig": [None] * len(launches), "op_ext": [None] * len(launches),
                         "l_thread": [t for t, _ in launches], "l_ts": [ts for _, ts in launches]},
                        schema={"row": pl.UInt32, "start_ns": pl.Int64, "corr": pl.Int64, "op_id": pl.Int32,
                                "op_sig": pl.Int32, "op_ext": pl.Int64, "l_thread": pl.Int32, "l_ts": pl.Int64})
    names = [f"ProfilerStep#{i}" if r[3] == KIND_STEP else f"op{i}" for i, r in enumerate(rows)]
    out = K._attribute(link, _ops_frame(rows, top), names)
    return sorted(out.select("row", "top_id", "iteration").iter_rows())


@settings(max_examples=300, deadline=None)
@given(st.lists(_RANGE, min_size=0, max_size=40),
       st.lists(st.tuples(st.integers(0, 2), st.integers(0, 45_000)), min_size=1, max_size=30))
def test_leaving_out_the_non_candidates_changes_no_attribution(rows, launches) -> None:
    cols = {"thread": array("i", [r[0] for r in rows]), "ts": array("d", [r[1] for r in rows]),
            "dur": array("d", [r[2] for r in rows]), "kind": array("b", [r[3] for r in rows])}
    marks = top_candidates(cols)
    assert len(marks) == len(rows)
    every = array("b", b"\x01" * len(rows))
    assert _attributed(rows, launches, marks) == _attributed(rows, launches, every)


def test_nested_ranges_leave_only_the_outer_ones() -> None:
    # two iterations of outer [0,10] ⊃ [1,4] ⊃ [2,3], [5,9]; a second thread's range; a ProfilerStep
    rows = [(0, 0.0, 10.0, KIND_OP), (0, 1.0, 3.0, KIND_OP), (0, 2.0, 1.0, KIND_OP), (0, 5.0, 4.0, KIND_OP),
            (0, 20.0, 10.0, KIND_OP), (0, 21.0, 3.0, KIND_OP), (1, 2.0, 1.0, KIND_ANNOT), (0, 0.0, 40.0, KIND_STEP)]
    cols = {"thread": array("i", [r[0] for r in rows]), "ts": array("d", [r[1] for r in rows]),
            "dur": array("d", [r[2] for r in rows]), "kind": array("b", [r[3] for r in rows])}
    assert np.frombuffer(top_candidates(cols), dtype=np.int8).tolist() == [1, 0, 0, 0, 1, 0, 1, 1]
