"""Bad source trees through the real CLI (``hipgauge scan`` / ``translate``): docs/bad-input.md, source rows."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from test_badinput_support import assert_input_error, assert_ok, run_cli

KERNEL = "__global__ void k(float* p) { p[threadIdx.x] = __shfl_down_sync(0xffffffff, p[0], 1); }\n"


def _tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "good.cu").write_text(KERNEL)
    return src


def _scan(paths, capsys, *extra):
    code, out, err = run_cli(["scan", *paths, "--json", "--no-progress", *extra], capsys)
    doc = json.loads(out) if code == 0 else None
    return (code, out, err), doc


def _skipped(doc) -> dict[str, str]:
    return {s["path"]: s["reason"] for s in doc["skipped"]}


def test_non_utf8_source(tmp_path, capsys):
    src = _tree(tmp_path)
    (src / "latin.cu").write_bytes("// Übersetzung für café\n".encode("latin-1") + KERNEL.encode())
    res, doc = _scan([src], capsys)
    assert_ok(res)
    assert "latin.cu" in doc["files"]
    assert any("latin-1" in w for w in doc.get("warnings", [])) or "latin.cu" in json.dumps(doc)


def test_binary_source(tmp_path, capsys):
    src = _tree(tmp_path)
    (src / "blob.cu").write_bytes(bytes(range(256)) * 8)
    res, doc = _scan([src], capsys)
    assert_ok(res)
    assert _skipped(doc)["blob.cu"] == "binary"
    assert "good.cu" in doc["files"]


def test_file_over_size_limit(tmp_path, capsys):
    src = _tree(tmp_path)
    (src / "huge.cu").write_text(KERNEL * 200)
    (src / "hipgauge.toml").write_text("max_file_bytes = 4096\n")
    res, doc = _scan([src], capsys)
    assert_ok(res)
    assert "too large" in _skipped(doc)["huge.cu"]
    assert "good.cu" in doc["files"]


def test_size_limit_misconfigured(tmp_path, capsys):
    src = _tree(tmp_path)
    (src / "hipgauge.toml").write_text("max_file_bytes = -1\n")
    assert_input_error(_scan([src], capsys)[0], "hipgauge.toml", "max_file_bytes")


def test_symlink_loops(tmp_path, capsys):
    src = _tree(tmp_path)
    (src / "loop").symlink_to(src)  # folder loop
    (src / "self.cu").symlink_to(src / "self.cu")  # file loop
    (src / "dangling.cuh").symlink_to(tmp_path / "missing.cuh")
    res, doc = _scan([src], capsys)
    assert_ok(res)
    skipped = _skipped(doc)
    assert "symlink" in skipped["self.cu"] and "symlink" in skipped["dangling.cuh"]
    assert doc["files"] == ["good.cu"]


def test_paths_with_dotdot(tmp_path, capsys):
    src = _tree(tmp_path)
    (src / "sub").mkdir()
    res, doc = _scan([src / "sub" / ".." / "sub" / ".."], capsys)
    assert_ok(res)
    assert doc["files"] == ["good.cu"]
    # an output folder spelled with '..' that resolves inside the input is refused
    assert_input_error(run_cli(["translate", src, "-o", src / "sub" / ".." / "hip"], capsys), "hip", "inside")


def test_deeply_nested_source(tmp_path, capsys):
    src = _tree(tmp_path)
    (src / "generated.cu").write_text("__global__ void k(int* p) { int x = " + "x+" * 70000 + "1; }\n")
    res, doc = _scan([src], capsys)
    assert_ok(res)
    assert "too deeply nested" in _skipped(doc)["generated.cu"]
    assert "good.cu" in doc["files"]


def test_huge_single_line(tmp_path, capsys):
    src = _tree(tmp_path)
    (src / "oneline.cu").write_text(KERNEL.strip() * 5000 + "\n")  # ~500 KB on one line
    res, doc = _scan([src], capsys)
    assert_ok(res)
    assert "oneline.cu" in doc["files"]


def test_missing_scan_path(tmp_path, capsys):
    assert_input_error(run_cli(["scan", tmp_path / "absent"], capsys), "absent", "not found")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_source(tmp_path, capsys):
    src = _tree(tmp_path)
    (src / "secret.cu").write_text(KERNEL)
    (src / "secret.cu").chmod(0)
    res, doc = _scan([src], capsys)
    assert_ok(res)
    assert "unreadable" in _skipped(doc)["secret.cu"]
