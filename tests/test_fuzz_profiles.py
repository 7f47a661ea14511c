"""Fuzz every profile reader through ``load_profile``: random and mutated real inputs.

Invariant: a Profile (possibly with warnings) or ``InputError`` — never any other exception.
Each test is bounded (``max_examples``, no deadline) so the whole fuzz part stays well under 2 minutes
on 2 cores; ``scripts/fuzz.py --minutes N`` runs the same properties with many more examples.
"""

from __future__ import annotations

import random

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from test_fuzz_support import (Scratch, fuzz_settings, json_text, mutate_bytes, mutate_json, mutate_lines, profile_outcome,
                               profile_seeds, seed_bytes, weird_values, write_sqlite_seed)

FAST = fuzz_settings(60)
SEEDS = profile_seeds()
JSON_SEEDS = [(p, f) for p, f in SEEDS if f in ("kineto", "rocprof-v1-json", "rocprofv3-json")]
TEXT_SEEDS = [(p, f) for p, f in SEEDS if f not in ("kineto", "rocprof-v1-json", "rocprofv3-json")]
FORMATS_FOR_RANDOM = ("kineto", "nsys-csv", "ncu-csv", "rocprof-v1", "rocprof-v1-json", "rocprof-stats",
                      "rocprofv3-csv", "rocprofv3-json", "rocprof-compute", None)


def _ids(seeds):
    return [f"{f}:{p.name}" for p, f in seeds]


@pytest.fixture(scope="module")
def scratch() -> Scratch:
    return Scratch()


@pytest.mark.parametrize("seed", SEEDS, ids=_ids(SEEDS))
def test_mutated_bytes(seed, scratch):
    """Byte damage (truncate, flip, delete, insert) to every real seed, read by auto-detection and by its reader."""
    path, fmt = seed
    data = seed_bytes(str(path))

    @FAST
    @given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.booleans(), st.booleans())
    def run(rnd_seed, n_ops, compress, force):
        damaged = mutate_bytes(data, random.Random(rnd_seed), n_ops)
        f = scratch.write(damaged, path.name.removesuffix(".gz"), compress=compress)
        profile_outcome(f, fmt if force else None)

    run()


@pytest.mark.parametrize("seed", TEXT_SEEDS, ids=_ids(TEXT_SEEDS))
def test_mutated_lines(seed, scratch):
    """CSV damage: shuffled lines, duplicated headers, other delimiters, decimal commas, odd cells, skew."""
    path, fmt = seed
    data = seed_bytes(str(path))

    @FAST
    @given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.booleans())
    def run(rnd_seed, n_ops, force):
        damaged = mutate_lines(data, random.Random(rnd_seed), n_ops)
        profile_outcome(scratch.write(damaged, path.name), fmt if force else None)

    run()


@pytest.mark.parametrize("seed", JSON_SEEDS, ids=_ids(JSON_SEEDS))
def test_mutated_json_structure(seed, scratch):
    """JSON damage that still parses: deleted keys, changed types, negative/overflowing numbers, dropped events."""
    path, fmt = seed
    data = seed_bytes(str(path))

    @FAST
    @given(st.integers(0, 2**32 - 1), st.integers(1, 8), st.lists(weird_values(), min_size=1, max_size=4),
           st.booleans(), st.booleans())
    def run(rnd_seed, n_ops, values, compress, force):
        doc = mutate_json(orjson.loads(data), random.Random(rnd_seed), n_ops, values)
        f = scratch.write(json_text(doc), path.name.removesuffix(".gz").removesuffix(".json") + ".json", compress=compress)
        profile_outcome(f, fmt if force else None)

    run()


_EVENT = st.fixed_dictionaries(
    {"ph": st.sampled_from(["X", "B", "E", "i", "s", "f", "M"]),
     "cat": st.sampled_from(["kernel", "Kernel", "cpu_op", "user_annotation", "gpu_user_annotation", "cuda_runtime",
                             "gpu_memcpy", "gpu_memset", "ac2g", "Runtime", "python_function"])},
    optional={"name": st.one_of(st.text(max_size=20), st.sampled_from(["ProfilerStep#1", "ProfilerStep#2", "aten::mm"]),
                                weird_values()),
              "ts": st.one_of(st.floats(-1e18, 1e18), st.integers(-(2**64), 2**64), weird_values()),
              "dur": st.one_of(st.floats(-1e9, 1e9), st.integers(-(2**64), 2**64), weird_values()),
              "pid": st.one_of(st.integers(-3, 3), weird_values()),
              "tid": st.one_of(st.integers(-3, 3), weird_values()),
              "id": st.one_of(st.integers(-3, 3), weird_values()),
              "args": st.one_of(st.fixed_dictionaries({}, optional={
                  "correlation": st.one_of(st.integers(-3, 5), weird_values()),
                  "External id": st.one_of(st.integers(-3, 5), weird_values()),
                  "device": weird_values(), "stream": weird_values(), "grid": weird_values(), "block": weird_values(),
                  "registers per thread": weird_values(), "shared memory": weird_values()}), weird_values())},
)


@FAST
@given(st.lists(_EVENT, max_size=25), st.dictionaries(st.sampled_from(["deviceProperties", "cuda_runtime_version",
                                                                      "hip_runtime_version", "distributedInfo",
                                                                      "schemaVersion"]), weird_values()),
       st.booleans())
def test_random_kineto_traces(events, header, array_form):
    """Generated Chrome traces with events of every category and any field value or type."""
    scratch = _SCRATCH
    doc = events if array_form else {**header, "traceEvents": events}
    profile_outcome(scratch.write(json_text(doc), "trace.json"), None)
    profile_outcome(scratch.write(json_text(doc), "trace.json"), "kineto")


@FAST
@given(st.binary(max_size=2048), st.sampled_from(FORMATS_FOR_RANDOM), st.booleans())
def test_random_bytes(data, fmt, compress):
    """Arbitrary bytes, read by auto-detection and by every reader forced with --format."""
    profile_outcome(_SCRATCH.write(data, "random.bin", compress=compress), fmt)


_CELL = st.one_of(st.sampled_from(["", "0", "-1", "1e999", "nan", "1,5", "99999999999999999999", "abc", '"x,y"', "1e18"]),
                  st.integers(-(2**65), 2**65).map(str), st.floats(allow_nan=True).map(repr), st.text(max_size=8))
_HEADERS = {
    "nsys-csv": ["Start (ns)", "Duration (ns)", "CorrId", "Strm", "Device", "Name"],
    "nsys-sum": ["Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Name"],
    "rocprof-v1": ["Index", "KernelName", "BeginNs", "EndNs", "DurationNs", "queue-id", "arch_vgpr", "lds"],
    "rocprof-stats": ["Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage"],
    "rocprofv3-csv": ["Kind", "Agent_Id", "Kernel_Name", "Correlation_Id", "Start_Timestamp", "End_Timestamp",
                      "Workgroup_Size_X", "Grid_Size_X", "VGPR_Count", "Stream_Id"],
    "rocprof-compute": ["Dispatch_ID", "Kernel_Name", "Start_Timestamp", "End_Timestamp", "Arch_VGPR"],
    "ncu-raw": ["ID", "Kernel Name", "gpu__time_duration.sum", "launch__registers_per_thread", "Block Size", "Grid Size"],
}


@FAST
@given(st.sampled_from(sorted(_HEADERS)), st.lists(st.lists(_CELL, min_size=0, max_size=10), max_size=8),
       st.sampled_from([",", ";", "\t"]), st.booleans())
def test_random_csv_tables(kind, rows, delimiter, dup_header):
    """Each CSV reader's own header with random rows: odd numbers, widths, delimiters, duplicated headers."""
    header = _HEADERS[kind]
    lines = [delimiter.join(header)]
    if dup_header:
        lines.append(delimiter.join(header))
    lines += [delimiter.join(r) for r in rows]
    profile_outcome(_SCRATCH.write("\n".join(lines).encode("utf-8", "surrogatepass"), f"{kind}.csv"), None)


_SQL_VALUE = st.one_of(st.integers(-(2**63), 2**63 - 1), st.none(), st.text(max_size=6), st.floats(allow_nan=True),
                       st.binary(max_size=4))


@FAST
@given(st.sampled_from(["nsys-sqlite", "rocpd", "rocprof-v1-db"]),
       st.lists(st.tuples(st.one_of(st.text(max_size=10), st.none(), st.integers(-5, 5)), _SQL_VALUE, _SQL_VALUE),
                min_size=0, max_size=6),
       st.integers(0, 2**32 - 1), st.booleans())
def test_sqlite_exports(kind, rows, rnd_seed, damage):
    """nsys / rocpd / rocprof v1 databases with values of any type (SQLite is dynamically typed), or byte damage."""
    f = _SCRATCH.write(b"", "export.sqlite")
    f.unlink()
    write_sqlite_seed(f, kind, rows)
    if damage:
        f.write_bytes(mutate_bytes(f.read_bytes(), random.Random(rnd_seed), 2))
    profile_outcome(f, None)
    profile_outcome(f, kind)


_SCRATCH = Scratch()
