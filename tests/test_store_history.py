"""History store: record, read back, toolchain extraction, migrations, concurrent writers, kill mid-write."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import duckdb
import pytest

from hipgauge.errors import InputError
from hipgauge.profiles import load, parity
from hipgauge.store import HistoryStore, default_store_path, record_assessment
from hipgauge.store.record import record_from_document
from hipgauge.store.schema import LATEST, MIGRATIONS, current_version

DATA = Path(__file__).resolve().parent / "data" / "store"
REPO = Path(__file__).resolve().parents[1]


def assessment(decode_candidate_ns: float, rocm: str, *, findings: int = 2) -> dict:
    """A hand-made hipgauge.assessment/1 document (the parts the store reads)."""
    return {
        "schema": "hipgauge.assessment/1",
        "project": "detector",
        "scan": {"root": "/src/detector", "translation_share": 0.91,
                 "findings": [{"code": "HG101", "severity": "blocker"}] + [{"code": "HG201", "severity": "slow"}] * findings},
        "build_check": {"units": [{"arch": "gfx942", "vendor": "amd", "ok": True, "errors": []},
                                  {"arch": "gfx942", "vendor": "amd", "ok": False, "errors": ["e1", "e2"]},
                                  {"arch": "sm_90", "vendor": "nvidia", "ok": True, "errors": []}]},
        "comparison": {
            "schema": "hipgauge.compare/1",
            "baseline": {"vendor": "nvidia", "device": "NVIDIA H100 80GB HBM3",
                         "metadata": {"cuda_runtime_version": "12040", "cuda_runtime": "12.4", "arch": "sm_90"}},
            "candidate": {"vendor": "amd", "device": "AMD Instinct MI300X", "metadata": {"device_name": "AMD Instinct MI300X"}},
            "rows": [
                {"label": "decode_boxes_kernel", "match": "exact", "baseline_ns": 1.2e6, "candidate_ns": decode_candidate_ns,
                 "ratio": decode_candidate_ns / 1.2e6, "share": 0.63, "baseline_count": 5, "candidate_count": 5},
                {"label": "preprocess_kernel", "match": "exact", "baseline_ns": 4e5, "candidate_ns": 4.2e5,
                 "ratio": 1.05, "share": 0.21, "baseline_count": 5, "candidate_count": 5},
            ],
            "projection": {"percentile": 99.0, "baseline_ms": 1.92, "projected_ms": 2.1, "target_ms": 20.0},
        },
        "toolchain": {"rocm": rocm},
    }


def test_record_and_read_back(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "h.duckdb")
    first = store.record(assessment(1.25e6, "6.2"), {"date": "2026-01-05T10:00:00"})
    second = store.record(assessment(1.6e6, "6.3"), {"date": "2026-02-09T10:00:00", "commit": "ab" * 20})
    assert (first, second) == (1, 2)
    assert store.schema_version() == LATEST

    last = store.last()
    assert last is not None and last.id == 2 and last.commit == "ab" * 20
    assert last.toolchain["rocm"] == "6.3"
    assert last.toolchain["cuda"] == "12.4"  # the readable form, not the raw 12040
    assert last.toolchain["arch.baseline"] == "sm_90"
    assert last.toolchain["gpu.candidate"] == "AMD Instinct MI300X"
    assert last.findings == {"HG101": ("blocker", 1), "HG201": ("slow", 2)}
    assert last.translation_share == pytest.approx(0.91)
    assert last.projected_ms == pytest.approx(2.1) and last.target_ms == 20.0
    by_arch = {b.arch: b for b in last.build_checks}
    assert by_arch["gfx942"].units == 2 and by_arch["gfx942"].failed == 1 and by_arch["gfx942"].errors == 2
    assert not by_arch["gfx942"].ok and by_arch["sm_90"].ok
    decode = next(p for p in last.parity if p.label == "decode_boxes_kernel")
    assert decode.ratio == pytest.approx(1.6e6 / 1.2e6) and decode.candidate_count == 5

    (trend,) = store.trend("decode*")
    assert [round(p.ratio, 3) for p in trend.points] == [1.042, 1.333]
    assert trend.points[1].changes == ["ROCm 6.2 → 6.3"]
    assert trend.points[1].step == pytest.approx(1.6 / 1.25)
    assert store.trend("nothing-like-this") == []
    assert len(store.trend("kernel")) == 2  # substring match


def test_empty_and_missing_store(tmp_path: Path) -> None:
    store = HistoryStore(tmp_path / "none.duckdb")
    assert store.last() is None and store.trend() == [] and store.assessments() == []
    assert not (tmp_path / "none.duckdb").exists()  # reading creates nothing


def test_not_a_store_is_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.duckdb"
    bad.write_text("this is not a database\n")
    with pytest.raises(InputError) as info:
        HistoryStore(bad).last()
    assert "bad.duckdb" in str(info.value) and "\n" not in str(info.value)


def test_default_store_path_is_the_user_data_folder_never_the_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """#17 row 3: the default store is never in the scanned tree (an old ``.hipgauge/`` there is not used):
    ``$HIPGAUGE_HOME``, else ``$XDG_DATA_HOME/hipgauge``, else ``~/.local/share/hipgauge``."""
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    (tmp_path / "proj" / "sub" / ".hipgauge").mkdir(parents=True)
    (tmp_path / "proj" / "sub" / ".hipgauge" / "history.duckdb").write_bytes(b"")
    monkeypatch.setenv("HIPGAUGE_HOME", str(tmp_path / "home"))
    assert default_store_path(tmp_path / "proj" / "sub") == tmp_path / "home" / "history.duckdb"
    monkeypatch.delenv("HIPGAUGE_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_store_path() == tmp_path / "xdg" / "hipgauge" / "history.duckdb"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert default_store_path() == tmp_path / "user" / ".local" / "share" / "hipgauge" / "history.duckdb"


def test_record_assessment_reads_git_commit(tmp_path: Path) -> None:
    tree = tmp_path / "detector"
    tree.mkdir()
    (tree / "k.cu").write_text("__global__ void k() {}\n")
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@x", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@x")
    for cmd in (["git", "init", "-q"], ["git", "add", "k.cu"], ["git", "commit", "-qm", "x"]):
        subprocess.run(cmd, cwd=tree, check=True, env=env)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tree, capture_output=True, text=True).stdout.strip()
    status_before = subprocess.run(["git", "status", "--porcelain"], cwd=tree, capture_output=True, text=True).stdout
    doc = assessment(1.25e6, "6.2")
    del doc["project"]
    doc["scan"]["root"] = str(tree)
    aid = record_assessment(doc, tmp_path / "store" / "h.duckdb", probe_compilers=False)
    rec = HistoryStore(tmp_path / "store" / "h.duckdb").last()
    assert rec is not None and rec.id == aid and rec.commit == head and rec.project == "detector"
    assert subprocess.run(["git", "status", "--porcelain"], cwd=tree, capture_output=True, text=True).stdout == status_before


def test_profile_metadata_toolchain_from_real_compare() -> None:
    base = load.load_profile(DATA / "base_h100_cuda124.json")
    cand = load.load_profile(DATA / "cand_mi300x_rocm63.json")
    doc = {"schema": "hipgauge.assessment/1", "comparison": parity.compare_profiles(base, cand).to_dict()}
    rec = record_from_document(doc)
    assert rec.toolchain["cuda"] == "12.4"
    assert rec.toolchain["hip"] == "6.3.42131"
    assert rec.toolchain["gpu.candidate"] == "AMD Instinct MI300X"
    assert rec.toolchain["arch.baseline"] == "sm_90"
    labels = {p.label.split("(")[0]: p for p in rec.parity}
    assert labels["decode_boxes_kernel"].ratio == pytest.approx(1600 / 1200)


# --------------------------------------------------------------------------------------------
# migrations


def test_migrates_a_version_1_store(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    con = duckdb.connect(str(db))
    con.execute((DATA / "history_v1.sql").read_text())
    assert current_version(con) == 1
    con.close()

    store = HistoryStore(db)
    records = store.assessments()
    assert store.schema_version() == LATEST
    assert [r.toolchain["rocm"] for r in records] == ["6.2", "6.3"]
    assert records[1].parity[0].label == "decode_boxes_kernel"
    assert records[1].parity[0].candidate_count is None  # a column added by step 2: empty for old rows
    (trend,) = store.trend("decode_boxes_kernel")
    assert trend.points[-1].changes == ["ROCm 6.2 → 6.3"]
    # new rows go on after the old ones, with the columns of the new schema
    new_id = store.record(assessment(1.3e6, "6.4"), {"date": "2026-03-01"})
    assert new_id == 3
    assert store.last().parity[0].candidate_count == 5
    con = duckdb.connect(str(db), read_only=True)
    assert [r[0] for r in con.execute("SELECT version FROM schema_version ORDER BY version").fetchall()] == list(range(1, LATEST + 1))
    con.close()


def test_migration_steps_are_ordered_and_complete(tmp_path: Path) -> None:
    versions = [v for v, _, _ in MIGRATIONS]
    assert versions == list(range(1, len(versions) + 1))
    from hipgauge.store.schema import migrate

    con = duckdb.connect(str(tmp_path / "m.duckdb"))
    assert migrate(con, upto=1) == [1]
    assert migrate(con) == list(range(2, LATEST + 1))
    assert migrate(con) == []
    con.close()


# --------------------------------------------------------------------------------------------
# concurrency and crashes

WRITER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {repo!r})
    from hipgauge.store import HistoryStore
    store = HistoryStore(sys.argv[1], lock_timeout_s=120)
    n = int(sys.argv[2])
    kernels = int(sys.argv[3])
    tag = sys.argv[4]
    rows = [{{"label": f"k{{i}}", "baseline_ns": 1000.0, "candidate_ns": 1100.0, "ratio": 1.1, "share": 1 / kernels,
             "match": "exact"}} for i in range(kernels)]
    i = 0
    while n < 0 or i < n:
        store.record({{"schema": "hipgauge.assessment/1", "project": tag, "comparison": {{"rows": rows}},
                      "toolchain": {{"rocm": str(i)}}}})
        i += 1
        print(i, flush=True)
""")


def _writer(tmp_path: Path, db: Path, n: int, kernels: int, tag: str) -> subprocess.Popen:
    script = tmp_path / "writer.py"
    script.write_text(WRITER.format(repo=str(REPO)))
    return subprocess.Popen([sys.executable, str(script), str(db), str(n), str(kernels), tag],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_concurrent_writer_processes(tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    procs = [_writer(tmp_path, db, 8, 20, tag) for tag in ("a", "b")]
    for p in procs:
        _, stderr = p.communicate(timeout=240)
        assert p.returncode == 0, stderr
    records = HistoryStore(db).assessments()
    assert len(records) == 16
    assert len({r.id for r in records}) == 16
    assert sorted(r.project for r in records) == ["a"] * 8 + ["b"] * 8
    assert all(len(r.parity) == 20 for r in records)


def test_killed_writer_leaves_store_readable(tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    proc = _writer(tmp_path, db, -1, 1500, "killed")  # writes until killed, big transactions
    assert proc.stdout is not None
    deadline = time.monotonic() + 120
    done = 0
    while done < 2 and time.monotonic() < deadline:  # let two assessments land, then kill inside the next ones
        line = proc.stdout.readline()
        if not line:
            break
        done = int(line)
    time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert done >= 2, proc.stderr.read() if proc.stderr else ""

    store = HistoryStore(db, lock_timeout_s=10)
    records = store.assessments()
    assert len(records) >= 2
    assert all(len(r.parity) == 1500 for r in records)  # every stored assessment is whole
    # and the store still takes writes
    new_id = store.record(assessment(1.25e6, "6.2"))
    assert store.last().id == new_id
