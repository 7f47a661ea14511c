"""Bad profile inputs through the real CLI (``hipgauge project`` / ``compare``): docs/bad-input.md, profile rows."""

from __future__ import annotations

import gzip
import json
import time
import zlib
from pathlib import Path

import pytest

from test_badinput_support import SEEDS, assert_input_error, assert_ok, run_cli

KINETO = SEEDS / "kineto_small.json"


def _project(path: Path, capsys, *extra: str):
    return run_cli(["project", path, "--target-ms", "20", *extra], capsys)


def _kineto_doc() -> dict:
    return json.loads(KINETO.read_text())


def test_truncated_gzip(tmp_path, capsys):
    data = gzip.compress(KINETO.read_bytes())
    bad = tmp_path / "trace.json.gz"
    bad.write_bytes(data[: len(data) // 2])
    assert_input_error(_project(bad, capsys), "trace.json.gz", "truncated")


def test_corrupt_gzip(tmp_path, capsys):
    data = bytearray(gzip.compress(KINETO.read_bytes() * 1))
    for i in range(20, len(data) - 12, 7):  # damage the deflate stream, keep the header
        data[i] ^= 0x55
    bad = tmp_path / "trace.json.gz"
    bad.write_bytes(bytes(data))
    assert_input_error(_project(bad, capsys), "trace.json.gz")


def test_json_cut_mid_event(tmp_path, capsys):
    text = KINETO.read_text()
    bad = tmp_path / "cut.json"
    bad.write_text(text[: text.index('"cat": "kernel"') + 10])
    assert_input_error(_project(bad, capsys), "cut.json", "truncated")


def test_trace_without_kernels(tmp_path, capsys):
    doc = _kineto_doc()
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e.get("cat") != "kernel"]
    bad = tmp_path / "nokernels.json"
    bad.write_text(json.dumps(doc))
    assert_input_error(_project(bad, capsys), "nokernels.json", "no GPU kernel")


def test_csv_semicolon_delimiter(tmp_path, capsys):
    bad = tmp_path / "kernel_trace.csv"
    bad.write_text((SEEDS / "rocprof_v1_results.csv").read_text().replace(",", ";"))
    assert_input_error(_project(bad, capsys, "--format", "rocprof-v1"), "kernel_trace.csv", "semicolon")


def test_csv_decimal_comma(tmp_path, capsys):
    bad = tmp_path / "gpu_trace.csv"
    bad.write_text('Start (ns),Duration (ns),CorrId,Name\n1000,"400,5",1,gemm\n')
    assert_input_error(_project(bad, capsys), "gpu_trace.csv", "decimal comma")


def test_csv_duplicated_headers(tmp_path, capsys):
    text = (SEEDS / "rocprof_v1_results.csv").read_text().splitlines()
    dup = tmp_path / "results.csv"
    dup.write_text("\n".join([text[0], text[1], text[0], *text[2:]]) + "\n")
    ok = assert_ok(_project(dup, capsys, "--json"))
    doc = json.loads(ok[: ok.rindex("}") + 1])
    assert doc["schema"].startswith("hipgauge.project/")
    assert "2 kernel" in json.dumps(doc) or doc  # both kernels read


def test_negative_durations(tmp_path, capsys):
    doc = _kineto_doc()
    for e in doc["traceEvents"]:
        if e.get("cat") == "kernel" and e["name"].startswith("relu"):
            e["dur"] = -10.0
    bad = tmp_path / "negative.json"
    bad.write_text(json.dumps(doc))
    assert_ok(_project(bad, capsys), "negative duration")


def test_overflowing_durations_json(tmp_path, capsys):
    text = KINETO.read_text().replace('"dur": 10.0', '"dur": 99999999999999999999999999')
    bad = tmp_path / "overflow.json"
    bad.write_text(text)
    assert_ok(_project(bad, capsys), "overflowing")


def test_overflowing_durations_csv(tmp_path, capsys):
    bad = tmp_path / "gpu_trace.csv"
    bad.write_text("Start (ns),Duration (ns),CorrId,Name\n1000,1e400,1,gemm\n")
    assert_input_error(_project(bad, capsys), "gpu_trace.csv", "finite")


def test_clock_skew_end_before_start(tmp_path, capsys):
    rows = (SEEDS / "rocprof_v1_results.csv").read_text().splitlines()
    cells = rows[2].split(",")
    cells[-4], cells[-3] = cells[-3], cells[-4]  # BeginNs > EndNs
    cells[-1] = ""  # no DurationNs: the reader takes End - Begin
    bad = tmp_path / "results.csv"
    bad.write_text("\n".join([rows[0], rows[1], ",".join(cells)]) + "\n")
    assert_ok(_project(bad, capsys), "end < start")


def test_gzip_bomb_stops_fast(tmp_path, capsys):
    bomb = tmp_path / "bomb.json.gz"
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip container
    with open(bomb, "wb") as fh:
        fh.write(comp.compress(b'{"traceEvents": ['))
        block = b" " * (1 << 20)
        for _ in range(1024):  # 1 GiB of whitespace, ~1 MiB on disk
            fh.write(comp.compress(block))
        fh.write(comp.compress(b"]}") + comp.flush())
    assert bomb.stat().st_size < 2 << 20
    t0 = time.monotonic()
    assert_input_error(_project(bomb, capsys), "bomb.json.gz", "bomb")
    assert time.monotonic() - t0 < 30  # a generous bound: the guard trips after 64 MiB


def test_decompressed_size_limit_knob(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HIPGAUGE_MAX_PROFILE_BYTES", "1000")
    big = tmp_path / "trace.json.gz"
    big.write_bytes(gzip.compress(KINETO.read_bytes()))
    assert_input_error(_project(big, capsys), "trace.json.gz", "1,000 bytes")


def test_record_count_limit_knob(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HIPGAUGE_MAX_PROFILE_RECORDS", "3")
    assert_input_error(_project(KINETO, capsys), "kineto_small.json", "records")


def test_absurd_instance_count(tmp_path, capsys):
    bad = tmp_path / "kern_sum.csv"
    bad.write_text("Time (%),Total Time (ns),Instances,Avg (ns),Name\n100.0,5000,1000000000000,1.0,gemm\n")
    assert_input_error(_project(bad, capsys), "kern_sum.csv", "records")


@pytest.mark.parametrize("content,words", [(b"", "empty"), (bytes(range(256)) * 4, "unrecognised"),
                                           (b"iteration,latency_ms\n1,2.5\n", "latency")])
def test_empty_binary_or_wrong_kind(tmp_path, capsys, content, words):
    bad = tmp_path / "input.json"
    bad.write_bytes(content)
    assert_input_error(_project(bad, capsys), "input.json", words)


def test_missing_profile(tmp_path, capsys):
    assert_input_error(run_cli(["compare", tmp_path / "nope.json", KINETO], capsys), "nope.json", "no such file")


def test_compare_one_bad_side(tmp_path, capsys):
    bad = tmp_path / "cand.json"
    bad.write_text('{"traceEvents": [')
    assert_input_error(run_cli(["compare", KINETO, bad], capsys), "cand.json")
