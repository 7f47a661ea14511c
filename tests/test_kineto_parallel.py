"""The Kineto reader's parallel parts: a trace read in N byte ranges gives the same profile as one pass.

The real H200 Faster R-CNN trace (tests/data, committed) is decompressed to plain JSON, so that it can be
split, and read with the parallel threshold lowered: every kernel row, iteration window, metadata entry,
warning and the replay timeline must equal the one-pass read. A child that fails makes the reader fall
back to one pass and say so; split points never land inside a string.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

from hipgauge.profiles.readers import kineto_events
from hipgauge.profiles.readers.kineto import read_kineto

TRACE = Path(__file__).parent / "data" / "h200" / "pairs" / "frcnn_fp32_tf32_trace.json.gz"


@pytest.fixture
def plain_trace(tmp_path: Path) -> Path:
    out = tmp_path / "frcnn.pt.trace.json"
    out.write_bytes(gzip.decompress(TRACE.read_bytes()))
    return out


def _same(a, b) -> None:
    assert a.kernels.equals(b.kernels)
    assert a.iterations == b.iterations
    assert a.metadata == b.metadata
    assert a.warnings == b.warnings
    ta, tb = a.attachments["timeline"](), b.attachments["timeline"]()
    assert ta.ops.equals(tb.ops) and ta.calls.equals(tb.calls)


@pytest.mark.parametrize("parts", [2, 3, 5])
def test_parts_give_the_one_pass_profile(plain_trace: Path, monkeypatch: pytest.MonkeyPatch, parts: int) -> None:
    one = read_kineto(plain_trace, parts=1)
    monkeypatch.setattr(kineto_events, "PARALLEL_MIN_BYTES", 1024)
    size = plain_trace.stat().st_size
    cuts = kineto_events.split_points(plain_trace, size, parts)
    assert len(cuts) == parts - 1 and all(0 < c < size for c in cuts)
    data = plain_trace.read_bytes()
    assert all(data[c:c + 1] == b"{" for c in cuts)
    many = read_kineto(plain_trace, parts=parts)
    _same(one, many)
    assert one.kernels.height > 1000


def test_small_chunks_and_parts_agree(plain_trace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunk cuts inside nested objects are retried in every part, not only the first."""
    one = read_kineto(plain_trace, parts=1)
    monkeypatch.setattr(kineto_events, "PARALLEL_MIN_BYTES", 1024)
    _same(one, read_kineto(plain_trace, parts=2, chunk_bytes=3000))


def test_a_failing_part_falls_back_to_one_pass(plain_trace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    one = read_kineto(plain_trace, parts=1)
    monkeypatch.setattr(kineto_events, "PARALLEL_MIN_BYTES", 1024)

    def broken(*_args, **_kw):
        return subprocess.Popen([sys.executable, "-c", "import sys; sys.stderr.write('boom'); sys.exit(3)"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    monkeypatch.setattr(kineto_events, "_spawn", broken)
    got = read_kineto(plain_trace, parts=2)
    assert got.kernels.equals(one.kernels)
    assert any("parallel parts failed (boom)" in w for w in got.warnings)


def test_gzip_and_small_files_are_read_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_spawn(*_args, **_kw):
        raise AssertionError("no child expected")

    monkeypatch.setattr(kineto_events, "_spawn", no_spawn)
    assert read_kineto(TRACE, parts=4).kernels.height > 1000  # gzip cannot be split


def test_split_point_skips_boundaries_inside_strings() -> None:
    event = {"ph": "X", "cat": "kernel", "name": "k", "ts": 1.0, "dur": 2.0}
    fake = dict(event, name="lambda}, {lambda")  # a '}, {' inside a kernel name
    body = ",\n".join(json.dumps(e) for e in [fake] + [event] * 40_000).encode()
    cut = kineto_events._first_boundary(body)
    assert cut is not None
    # the first candidate is inside the string: the chosen one is the start of the second event
    assert body[cut:].startswith(b'{"ph"') and cut > body.index(b"lambda")


def test_workers_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPGAUGE_INGEST_WORKERS", "3")
    assert kineto_events.parts_wanted() == 3
    monkeypatch.setenv("HIPGAUGE_INGEST_WORKERS", "many")
    from hipgauge.errors import InputError

    with pytest.raises(InputError, match="HIPGAUGE_INGEST_WORKERS"):
        kineto_events.parts_wanted()


def test_no_child_process_at_all_falls_back(plain_trace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Python that cannot start a child (an embedded interpreter, a process limit): one pass, said once."""
    one = read_kineto(plain_trace, parts=1)
    monkeypatch.setattr(kineto_events, "PARALLEL_MIN_BYTES", 1024)

    def cannot(*_args, **_kw):
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr(kineto_events, "_spawn", cannot)
    got = read_kineto(plain_trace, parts=3)
    assert got.kernels.equals(one.kernels)
    assert any("Resource temporarily unavailable" in w for w in got.warnings)


def test_a_malformed_file_is_reported_as_in_one_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A part that hits a truncation gives the one-pass error, not a merge of what the parts read."""
    from hipgauge.errors import InputError

    body = gzip.decompress(TRACE.read_bytes())
    cut = tmp_path / "truncated.pt.trace.json"
    cut.write_bytes(body[: len(body) * 3 // 4])
    monkeypatch.setattr(kineto_events, "PARALLEL_MIN_BYTES", 1024)
    with pytest.raises(InputError) as many:
        read_kineto(cut, parts=3)
    with pytest.raises(InputError) as one:
        read_kineto(cut, parts=1)
    assert str(many.value) == str(one.value)


def test_flows_pass_when_kernels_lack_correlation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first pass skips flow events; when GPU events lack their correlation, a second pass (in parts too)
    reads the flow ends and links those events as the correlation would have: the same operators."""
    doc = json.loads(gzip.decompress(TRACE.read_bytes()))
    whole = tmp_path / "whole.pt.trace.json"
    whole.write_text(json.dumps(doc))
    stripped = 0
    for e in doc["traceEvents"]:
        if e.get("cat") == "kernel" and "correlation" in e.get("args", {}):
            del e["args"]["correlation"]
            del e["args"]["External id"]
            stripped += 1
    p = tmp_path / "no_corr.pt.trace.json"
    p.write_text(json.dumps(doc))
    assert stripped > 1000
    reference = read_kineto(whole, parts=1).kernels
    one = read_kineto(p, parts=1)
    assert one.kernels["operator"].equals(reference["operator"])
    assert one.kernels["correlation"].equals(reference["correlation"])
    monkeypatch.setattr(kineto_events, "PARALLEL_MIN_BYTES", 1024)
    _same(one, read_kineto(p, parts=3))


def test_flow_events_are_decoded_only_by_the_flows_pass() -> None:
    body = b'[{"ph": "f", "cat": "ac2g", "name": "ac2g", "id": 7, "pid": 0, "tid": 7, "ts": 5.5, "bp": "e"},' \
           b' {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 7, "pid": 1, "tid": 1, "ts": "bad"},' \
           b' {"ph": "X", "cat": "kernel", "name": "k", "ts": 1.0, "dur": 2.0}]'
    first = kineto_events.decode_chunk(body)
    assert [e.cat for e in first] == [None, None, "kernel"]  # both flow events skipped, the bad ts unread
    flows = kineto_events.decode_flows(body)
    assert isinstance(flows[0], kineto_events.FlowEnd) and flows[0].id == 7 and flows[0].ts == 5.5
    assert [e.cat for e in flows[1:]] == [None, None]
    bad_end = body.replace(b'"ts": 5.5', b'"ts": "late"')
    assert [e.cat for e in kineto_events.decode_flows(bad_end)] == ["\0bad", None, None]
