"""scan_tree / scan_file / the scan JSON document and the ``hipgauge scan`` command, bad input included."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DATA, REPO
from hipgauge.model import SkippedFile
from hipgauge.source import parse as parse_mod
from hipgauge.report.scan_json import SCHEMA, scan_document
from hipgauge.app.scan import ScanOptions, local_map, scan_file, scan_tree, serial_map
from hipgauge.source.walk import SourceEntry

TREE = DATA / "source" / "tree"
REALISTIC_DIR = DATA / "realistic"


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("HIPGAUGE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "hipgauge", *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=120)


def test_scan_document_shape():
    doc = scan_document(scan_tree([TREE], ScanOptions()))
    assert doc["schema"] == SCHEMA == "hipgauge.scan/1"
    s = doc["summary"]
    assert (s["files"], s["kernels"], s["launch_sites"]) == (3, 3, 6)
    assert doc["files"] == ["CMakeLists.txt", "src/kernels.cu", "src/libs.cpp"]
    assert {"name", "file", "line"} <= set(doc["kernels"][0])
    assert {"library", "cuda_name", "hip_name", "status", "file", "line"} <= set(doc["api_calls"][0])
    assert s["library_mix"]["runtime"]["mapped"] > 0 and s["library_mix"]["cutlass"]["unmapped"] == 2
    assert set(s["findings_by_severity"]) == {"blocker", "wrong-results", "slow", "info"}
    for key in ("findings_by_category", "translation_share", "hottest_files", "lines"):
        assert key in s
    json.dumps(doc)


def test_every_executor_gives_identical_output(tmp_path: Path):
    # enough files to use chunks and a real process pool
    for i in range(10):
        (tmp_path / f"k{i}.cu").write_bytes((TREE / "src" / "kernels.cu").read_bytes())
    serial = scan_document(scan_tree([tmp_path], ScanOptions(), map_files=serial_map))
    pooled = scan_document(scan_tree([tmp_path], ScanOptions(workers=2), map_files=local_map(2)))
    default = scan_document(scan_tree([tmp_path], ScanOptions(workers=2)))
    assert serial == pooled == default
    assert serial["summary"]["kernels"] == 30


def test_scan_file_never_raises(monkeypatch, tmp_path: Path):
    f = tmp_path / "a.cu"
    f.write_text("__global__ void k() {}\n")
    entry = SourceEntry(f, "a.cu", "cuda", f.stat().st_size)

    def denied(*a, **k):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(parse_mod, "open", denied, raising=False)
    r = scan_file(entry, ScanOptions())
    assert r.skipped == SkippedFile("a.cu", "unreadable: Permission denied")
    monkeypatch.undo()

    import hipgauge.app.analyze as analyze_mod  # the one per-file analysis scan runs
    monkeypatch.setattr(analyze_mod, "inventory_file", lambda *a, **k: 1 / 0)
    r = scan_file(entry, ScanOptions())
    assert r.skipped is not None and r.skipped.reason.startswith("internal error while analysing: ZeroDivisionError")
    monkeypatch.undo()

    monkeypatch.setattr(analyze_mod, "check_file", lambda *a, **k: [][1])
    r = scan_file(entry, ScanOptions())
    assert r.skipped is None and [k.name for k in r.kernels] == ["k"]
    assert any("rules not applied" in w for w in r.warnings)


@pytest.fixture
def bad_tree(tmp_path: Path) -> Path:
    t = tmp_path / "bad"
    t.mkdir()
    (t / "good.cu").write_text("__global__ void ok(float* p) { p[0] = 1; }\nvoid h() { ok<<<1, 1>>>(0); }\n")
    (t / "binary.cu").write_bytes(bytes(range(256)) * 16)
    (t / "latin1.cu").write_bytes("// caf\xe9\n__global__ void k() {}\n".encode("latin-1"))
    (t / "empty.cu").write_bytes(b"")
    (t / "locked.cu").write_text("__global__ void locked() {}\n")
    os.chmod(t / "locked.cu", 0)
    os.symlink(t / "self.cu", t / "self.cu")
    os.symlink(t, t / "loop")
    os.symlink(t / "gone.cu", t / "dangling.cu")
    yield t
    os.chmod(t / "locked.cu", 0o644)


def test_bad_input_never_tracebacks(bad_tree: Path):
    p = run_cli("scan", str(bad_tree), "--json")
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr and "internal error" not in p.stderr
    doc = json.loads(p.stdout)
    skipped = {s["path"]: s["reason"] for s in doc["skipped"]}
    assert skipped["binary.cu"] == "binary"
    assert "symlink" in skipped["self.cu"] and "symlink" in skipped["dangling.cu"]
    if os.geteuid() != 0:  # root reads a chmod 000 file anyway
        assert skipped["locked.cu"].startswith("unreadable")
    assert "ok" in [k["name"] for k in doc["kernels"]] and "k" in [k["name"] for k in doc["kernels"]]
    assert "empty.cu" in doc["files"] and "latin1.cu" in doc["files"]
    assert any("latin1.cu" in w and "latin-1" in w for w in doc["warnings"])
    # the human summary lists skipped files and why
    p = run_cli("scan", str(bad_tree), "--no-progress")
    assert p.returncode == 0 and "Traceback" not in p.stderr
    assert "Skipped files" in p.stdout and "binary" in p.stdout


def test_cli_errors_are_one_line(tmp_path: Path):
    p = run_cli("scan", str(tmp_path / "nope"))
    assert p.returncode == 2 and "nope" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    p = run_cli("scan", str(TREE), "--executor", "cloud")
    assert p.returncode == 2 and "Traceback" not in p.stderr


def test_cli_human_summary_exclude_list_and_sarif(tmp_path: Path):
    p = run_cli("scan", str(REALISTIC_DIR if (REALISTIC_DIR / "realistic.cu").exists() else TREE), "--no-progress")
    assert p.returncode == 0, p.stderr
    for words in ("Kernels", "Launch sites", "Library mix", "Translation share"):
        assert words in p.stdout
    listing = tmp_path / "repos.txt"
    listing.write_text(f"# trees\n{TREE / 'src'}\n{TREE / 'third_party'}\n")
    p = run_cli("scan", str(listing), "--json", "--exclude", "*.cpp", "--exclude", "scratch_*")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["files"] == ["src/kernels.cu", "third_party/vendored.cu"]
    sarif = tmp_path / "out.sarif"
    p = run_cli("scan", str(TREE), "--json", "--sarif", str(sarif))
    assert p.returncode == 0 and sarif.exists() and json.loads(sarif.read_text())["version"] == "2.1.0"
    target = TREE / "src" / "kernels.cu"
    before = target.read_bytes()
    p = run_cli("scan", str(TREE), "--sarif", str(target))
    assert p.returncode == 2 and "refusing" in p.stderr and target.read_bytes() == before


def test_config_exclude(tmp_path: Path):
    t = tmp_path / "proj"
    (t / "gen").mkdir(parents=True)
    (t / "a.cu").write_text("__global__ void a() {}\n")
    (t / "gen" / "b.cu").write_text("__global__ void b() {}\n")
    (t / "hipgauge.toml").write_text('exclude = ["gen/"]\n')
    p = run_cli("scan", str(t), "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["files"] == ["a.cu"]


@pytest.mark.slow
def test_pip_install_then_scan(tmp_path: Path):
    """``pip install .`` (no deps: they are in this venv) then the installed ``hipgauge scan --json`` works."""
    target = tmp_path / "site"
    p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--quiet",
                        "--target", str(target), str(REPO)], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        pytest.skip(f"pip install failed here: {p.stderr.strip().splitlines()[-1:]}")
    assert (target / "hipgauge" / "data" / "hipify_mapping.tsv").exists()
    env = {**os.environ, "PYTHONPATH": str(target)}
    p = subprocess.run([sys.executable, "-c", "import hipgauge, sys; from hipgauge.cli import main; "
                        "assert hipgauge.__file__.startswith(sys.argv[1]); main(['scan', sys.argv[2], '--json'])",
                        str(target), str(TREE)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["summary"]["kernels"] == 3
