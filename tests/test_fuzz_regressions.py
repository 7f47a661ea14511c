"""Every crash the fuzz suite found, as a fixed example (the minimal input hypothesis reported, or its essence)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from hipgauge import config as config_mod
from hipgauge.errors import InputError
from hipgauge.profiles.load import load_profile
from test_fuzz_support import BADINPUT

KINETO = BADINPUT / "seeds" / "kineto_small.json"


def _outcome(path: Path, fmt: str | None = None):
    try:
        return load_profile(path, fmt=fmt)
    except InputError as exc:
        return exc


def test_kineto_event_failing_half_way_keeps_columns_aligned(tmp_path):
    """A kernel event without ``dur`` failed after ``ts`` was appended: polars ShapeError (columns 2 vs 3)."""
    doc = json.loads(KINETO.read_text())
    for e in doc["traceEvents"]:
        if e.get("cat") == "kernel" and e["name"].startswith("relu"):
            del e["dur"]
    f = tmp_path / "t.json"
    f.write_text(json.dumps(doc))
    prof = load_profile(f)
    assert prof.kernels.height == 1
    assert any("malformed" in w for w in prof.warnings)


def test_kineto_overflowing_duration_is_dropped(tmp_path):
    """``dur`` 1e26 µs: polars InvalidOperationError casting to Int64 ns."""
    f = tmp_path / "t.json"
    f.write_text(KINETO.read_text().replace('"dur": 10.0', '"dur": 1e26'))
    prof = load_profile(f)
    assert prof.kernels.height == 1
    assert any("overflowing" in w for w in prof.warnings)


def test_nsys_infinite_grid_cell(tmp_path):
    """``GrdX`` = 1e999: OverflowError in int(float('inf'))."""
    f = tmp_path / "gpu_trace.csv"
    f.write_text("Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Name\n1000,400,1,1e999,1,1,256,1,1,gemm\n")
    prof = load_profile(f)
    assert prof.kernels.get_column("grid").to_list() == [None]


@pytest.mark.parametrize("cell", ["1e400", "inf", "-inf"])
def test_csv_non_finite_numbers(tmp_path, cell):
    """A duration cell of 1e400: OverflowError deep in a reader; now 'is not a finite number' naming file and line."""
    f = tmp_path / "gpu_trace.csv"
    f.write_text(f"Start (ns),Duration (ns),CorrId,Name\n1000,{cell},1,gemm\n")
    err = _outcome(f)
    assert isinstance(err, InputError) and "finite" in str(err) and "gpu_trace.csv:2" in str(err)


def test_aggregate_with_absurd_instance_count(tmp_path):
    """``Instances`` = 10**12 in a kernel summary: expanded row by row → memory exhausted."""
    f = tmp_path / "kern_sum.csv"
    f.write_text("Time (%),Total Time (ns),Instances,Avg (ns),Name\n100.0,5000,1000000000000,1.0,gemm\n")
    t0 = time.monotonic()
    err = _outcome(f)
    assert isinstance(err, InputError) and "records" in str(err) and "kern_sum.csv" in str(err)
    assert time.monotonic() - t0 < 10


def test_rocprofv3_json_tool_not_an_object(tmp_path):
    """``"rocprofiler-sdk-tool": [5]``: AttributeError ('int' has no 'get')."""
    f = tmp_path / "results.json"
    f.write_text('{"rocprofiler-sdk-tool": [5]}')
    assert isinstance(_outcome(f, "rocprofv3-json"), InputError)


def test_chrome_trace_without_event_boundaries(tmp_path, monkeypatch):
    """``{"traceEvents": [`` then megabytes without a ``},{``: the pending buffer grew without bound."""
    import hipgauge.profiles.readers.chrome_json as cj

    monkeypatch.setattr(cj, "MAX_PENDING_BYTES", 1 << 20)
    f = tmp_path / "t.json"
    f.write_bytes(b'{"traceEvents": [' + b'"' + b"x" * (8 << 20) + b'"]}')
    err = cj.ChromeTrace(f, chunk_bytes=1 << 18)
    with pytest.raises(InputError, match="no event boundary"):
        for _ in err.events():
            pass


@pytest.mark.parametrize("text", ["tool = 5\n", "tool = [1, 2]\n", 'tool = "x"\n'])
def test_pyproject_tool_not_a_table(tmp_path, text):
    """``tool = 5`` in pyproject.toml: AttributeError in load, TypeError in find_config."""
    f = tmp_path / "pyproject.toml"
    f.write_text(text)
    assert isinstance(config_mod.load(f), config_mod.Config)
    assert config_mod.find_config(tmp_path) is None


def test_translate_very_deep_expression_is_refused_fast(tmp_path):
    """``x+x+…`` 80 000 deep: tree-sitter queries lose nodes past 65 535 levels and took minutes (quadratic)."""
    from hipgauge.source.parse import load_file
    from hipgauge.app.scan import ScanOptions, scan_file
    from hipgauge.source.walk import SourceEntry
    from hipgauge.translate.rewrite import translate_file

    f = tmp_path / "deep.cu"
    f.write_text("__global__ void k(int* p) {\n" + "x+" * 80000 + "1;\n}\n")
    entry = SourceEntry(f, "deep.cu", "cuda", f.stat().st_size)
    t0 = time.monotonic()
    res = scan_file(entry, ScanOptions())
    assert res.skipped is not None and "too deeply nested" in res.skipped.reason
    pf = load_file(entry)
    with pytest.raises(RecursionError, match="HIPGAUGE_MAX_TREE_DEPTH"):
        translate_file(pf)
    assert time.monotonic() - t0 < 20


def test_config_key_with_newline_keeps_error_on_one_line(tmp_path):
    """``[tool.hipgauge] "\\n" = …`` (found by scripts/fuzz.py): the unknown-key error spanned two lines."""
    f = tmp_path / "pyproject.toml"
    f.write_text('[tool.hipgauge]\n"a\\nb" = 1\n')
    with pytest.raises(InputError) as exc:
        config_mod.load(f)
    assert "\n" not in str(exc.value) and "'a\\nb'" in str(exc.value)


def test_input_error_is_one_line_whatever_it_quotes(tmp_path) -> None:
    """Found by scripts/fuzz.py: an nsys SQLite whose kernel name holds bytes that are not UTF-8 and a newline made
    sqlite's message (which quotes the text) a two-line error."""
    import sqlite3

    from hipgauge.errors import InputError

    err = InputError("SQLite query failed: Could not decode to UTF-8 column 'Name' with text '\n\xc5'", tmp_path / "x.sqlite")
    assert "\n" not in str(err) and "\\n" in str(err)
    db = tmp_path / "export.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)")
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, "
                "correlationId INTEGER, demangledName INTEGER, shortName INTEGER, mangledName INTEGER, gridX INTEGER, "
                "gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER, registersPerThread INTEGER, "
                "staticSharedMemory INTEGER, dynamicSharedMemory INTEGER)")
    con.execute("INSERT INTO StringIds VALUES (1, CAST(X'0A C5' AS TEXT))".replace(" C5", "C5"))
    con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (10, 20, 0, 7, 1, 1, 1, 1, 1, 1, 1, 32, 1, 1, 16, 0, 0)")
    con.commit()
    con.close()
    from hipgauge.profiles.load import load_profile

    try:
        load_profile(db)
    except InputError as exc:
        assert "\n" not in str(exc)
