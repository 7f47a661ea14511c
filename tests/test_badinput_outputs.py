"""Output folders and files: containment, read-only targets, disk full, an untouched input tree.

Rows of docs/bad-input.md for ``translate -o``, ``assess -o`` and ``scan --sarif``. Tests run as root in
CI, where ``chmod`` does not stop writes: read-only folders and a full disk are simulated by making the
write calls fail with EACCES / ENOSPC (monkeypatch), and the input tree is hashed before and after.
"""

from __future__ import annotations

import errno
import json
import os
import pathlib
import stat
from pathlib import Path

import pytest

from test_badinput_support import assert_input_error, assert_ok, run_cli, tree_hashes

KERNEL = "#include <cuda_runtime.h>\n__global__ void k(float* p) { p[threadIdx.x] = __shfl_down_sync(0xffffffff, p[0], 1); }\n" \
         "void run(float* p) { cudaMalloc(&p, 4); k<<<1, 32>>>(p); }\n"


@pytest.fixture
def src(tmp_path) -> Path:
    root = tmp_path / "src"
    (root / "sub").mkdir(parents=True)
    (root / "a.cu").write_text(KERNEL)
    (root / "sub" / "b.cuh").write_text("__device__ int lane() { return threadIdx.x % warpSize; }\n")
    (root / "CMakeLists.txt").write_text("project(x LANGUAGES CXX CUDA)\nadd_executable(x a.cu)\n")
    (root / "notes.txt").write_text("not source\n")
    return root


def _translate(src: Path, out: Path, capsys):
    return run_cli(["translate", src, "-o", out, "--no-progress"], capsys)


def _assess(src: Path, out: Path, capsys):
    return run_cli(["assess", src, "-o", out, "--no-build-check"], capsys)


def _temp_leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob("*") if ".tmp" in p.name or p.name.startswith(".hipgauge-")]


# ------------------------------------------------------------------ output equal to / inside the input
@pytest.mark.parametrize("verb", ["translate", "assess"])
def test_output_equal_to_input(src, capsys, verb):
    before = tree_hashes(src)
    run = _translate if verb == "translate" else _assess
    assert_input_error(run(src, src, capsys), "src")
    assert tree_hashes(src) == before


@pytest.mark.parametrize("verb", ["translate", "assess"])
def test_output_inside_input(src, capsys, verb):
    before = tree_hashes(src)
    run = _translate if verb == "translate" else _assess
    assert_input_error(run(src, src / "sub" / "out", capsys), "out", "inside")
    assert tree_hashes(src) == before


def test_output_containing_input(src, tmp_path, capsys):
    assert_input_error(_translate(src, tmp_path, capsys), str(tmp_path))


def test_sarif_over_a_scanned_source(src, capsys):
    before = tree_hashes(src)
    assert_input_error(run_cli(["scan", src, "--sarif", src / "a.cu"], capsys), "a.cu", "refusing")
    assert tree_hashes(src) == before


# ------------------------------------------------------------------ read-only output folder
def _deny(monkeypatch, folder: Path, err: int = errno.EACCES):
    """Creating anything inside ``folder`` fails with ``err``, as a read-only folder does for a non-root user:
    ``os.open`` with O_CREAT (so ``tempfile.mkstemp``), ``os.mkdir`` (so ``mkdtemp``/``Path.mkdir``), and
    ``open``/``io.open`` in a writing mode."""
    import builtins
    import io

    root = os.path.realpath(folder)
    real_open, real_mkdir, real_bopen = os.open, os.mkdir, builtins.open

    def inside(path) -> bool:
        try:
            p = os.path.realpath(os.fspath(path))
        except TypeError:
            return False
        return p == root or p.startswith(root + os.sep)

    def deny(path):
        raise OSError(err, os.strerror(err), os.fspath(path))

    def fake_open(path, flags, *a, **k):
        if flags & os.O_CREAT and inside(path):
            deny(path)
        return real_open(path, flags, *a, **k)

    def fake_mkdir(path, *a, **k):
        if inside(path):
            deny(path)
        return real_mkdir(path, *a, **k)

    def fake_bopen(file, mode="r", *a, **k):
        if isinstance(file, (str, bytes, os.PathLike)) and any(c in mode for c in "wax+") and inside(file):
            deny(file)
        return real_bopen(file, mode, *a, **k)

    monkeypatch.setattr(os, "open", fake_open)
    monkeypatch.setattr(os, "mkdir", fake_mkdir)
    monkeypatch.setattr(builtins, "open", fake_bopen)
    monkeypatch.setattr(io, "open", fake_bopen)


def _readonly(folder: Path, monkeypatch) -> None:
    folder.mkdir(exist_ok=True)
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    if os.geteuid() == 0:  # root ignores the mode: make the writes fail as they would
        _deny(monkeypatch, folder)


def test_translate_read_only_output(src, tmp_path, capsys, monkeypatch):
    out = tmp_path / "hip"
    _readonly(out, monkeypatch)
    try:
        assert_input_error(_translate(src, out, capsys), "hip", "permission denied")
    finally:
        out.chmod(0o755)


def test_assess_read_only_output(src, tmp_path, capsys, monkeypatch):
    parent = tmp_path / "reports"
    _readonly(parent, monkeypatch)
    try:
        assert_input_error(_assess(src, parent / "r1", capsys), "r1", "permission denied")
    finally:
        parent.chmod(0o755)


def test_sarif_read_only_folder(src, tmp_path, capsys, monkeypatch):
    folder = tmp_path / "ro"
    _readonly(folder, monkeypatch)
    try:
        assert_input_error(run_cli(["scan", src, "--sarif", folder / "f.sarif"], capsys), "f.sarif", "permission denied")
    finally:
        folder.chmod(0o755)


# ------------------------------------------------------------------ disk full while writing
def _disk_full_on_write(monkeypatch, after: int = 0):
    """File writes succeed ``after`` times, then fail with ENOSPC (text writes and binary handles alike)."""
    count = {"n": 0}
    real_write_text, real_fdopen = pathlib.Path.write_text, os.fdopen

    def tick():
        count["n"] += 1
        if count["n"] > after:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def write_text(self, *a, **k):
        tick()
        return real_write_text(self, *a, **k)

    class Full:
        def __init__(self, fh):
            self.fh = fh

        def write(self, data):
            tick()
            return self.fh.write(data)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()
            return False

        def __getattr__(self, name):
            return getattr(self.fh, name)

    monkeypatch.setattr(pathlib.Path, "write_text", write_text)
    monkeypatch.setattr(os, "fdopen", lambda *a, **k: Full(real_fdopen(*a, **k)))


def test_translate_disk_full(src, tmp_path, capsys, monkeypatch):
    out = tmp_path / "hip"
    _disk_full_on_write(monkeypatch, after=1)
    assert_input_error(_translate(src, out, capsys), "hip", "no space left")
    assert not _temp_leftovers(out)


def test_assess_disk_full_keeps_previous_report(src, tmp_path, capsys, monkeypatch):
    out = tmp_path / "report"
    assert_ok(_assess(src, out, capsys))
    before = tree_hashes(out)
    _disk_full_on_write(monkeypatch, after=1)
    assert_input_error(_assess(src, out, capsys), "report", "no space left")
    assert tree_hashes(out) == before  # the old report is intact, no half report
    assert not _temp_leftovers(tmp_path)


def test_sarif_disk_full(src, tmp_path, capsys, monkeypatch):
    target = tmp_path / "findings.sarif"
    target.write_text("previous")
    _disk_full_on_write(monkeypatch)
    assert_input_error(run_cli(["scan", src, "--sarif", target, "--no-progress"], capsys), "findings.sarif", "no space left")
    assert target.read_text() == "previous"
    assert not _temp_leftovers(tmp_path)


# ------------------------------------------------------------------ the input tree is never modified
def test_read_only_input_tree_untouched(src, tmp_path, capsys):
    """translate, assess and scan --sarif on a read-only tree: same bytes after; writes only in their outputs."""
    (src / "loop").symlink_to(src)
    before = tree_hashes(src)
    outside_before = sorted(p.name for p in tmp_path.iterdir())
    for p in [src, *src.rglob("*")]:
        if not p.is_symlink():
            p.chmod(p.stat().st_mode & ~0o222)
    try:
        assert_ok(_translate(src, tmp_path / "hip", capsys))
        assert_ok(_assess(src, tmp_path / "report", capsys))
        assert_ok(run_cli(["scan", src, "--sarif", tmp_path / "f.sarif", "--no-progress"], capsys))
    finally:
        for p in [src, *src.rglob("*")]:
            if not p.is_symlink():
                p.chmod(p.stat().st_mode | 0o200)
    assert tree_hashes(src) == before
    added = sorted(set(p.name for p in tmp_path.iterdir()) - set(outside_before))
    assert added == ["f.sarif", "hip", "report"]
    assert (tmp_path / "hip" / "a.cu").read_text() != KERNEL  # translated (hip names)
    assert json.loads((tmp_path / "report" / "assessment.json").read_text())["schema"].startswith("hipgauge.assessment/")


def test_translate_symlink_out_of_tree_not_followed(src, tmp_path, capsys):
    secret = tmp_path / "secret.cu"
    secret.write_text(KERNEL)
    (src / "escape.cu").symlink_to(secret)
    res = _translate(src, tmp_path / "hip", capsys)
    assert_ok(res, "outside the input tree")
    assert not (tmp_path / "hip" / "escape.cu").exists()
