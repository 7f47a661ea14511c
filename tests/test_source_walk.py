"""Walking a tree: kinds, .gitignore, --exclude, symlink loops, bad files."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import DATA
from hipgauge.source.walk import kind_of, walk_tree

TREE = DATA / "source" / "tree"


def test_kinds():
    assert [kind_of(n) for n in ("a.cu", "a.cuh", "a.cpp", "a.cc", "a.cxx", "a.h", "a.hpp", "CMakeLists.txt",
                                 "x.cmake", "Makefile", "setup.py", "a.py", "a.txt")] == [
        "cuda", "cuda", "cpp", "cpp", "cpp", "header", "header", "cmake", "cmake", "make", "setup.py", None, None]


def test_gitignore_and_exclude():
    entries, skipped = walk_tree([TREE], [], 1 << 20)
    names = [e.display for e in entries]
    assert names == ["CMakeLists.txt", "src/kernels.cu", "src/libs.cpp"]  # third_party/ and *.tmp are ignored
    assert all(e.path.is_absolute() for e in entries) and not skipped
    entries, _ = walk_tree([TREE], ["*.cpp"], 1 << 20)
    assert [e.display for e in entries] == ["CMakeLists.txt", "src/kernels.cu"]
    entries, _ = walk_tree([TREE], ["src/"], 1 << 20)
    assert [e.display for e in entries] == ["CMakeLists.txt"]


def test_single_file_and_several_roots():
    entries, _ = walk_tree([TREE / "src" / "kernels.cu"], [], 1 << 20)
    assert [(e.display, e.kind) for e in entries] == [("kernels.cu", "cuda")]
    entries, _ = walk_tree([TREE / "third_party", TREE / "src" / "libs.cpp"], [], 1 << 20)
    assert [e.display for e in entries] == ["libs.cpp", "third_party/vendored.cu"]


def test_symlink_loops_large_and_missing(tmp_path: Path):
    (tmp_path / "a.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "big.cu").write_bytes(b"x" * 5000)
    os.symlink(tmp_path, tmp_path / "loop")  # folder loop
    os.symlink(tmp_path / "self.cu", tmp_path / "self.cu")  # file loop
    os.symlink(tmp_path / "nowhere.cu", tmp_path / "dangling.cu")
    entries, skipped = walk_tree([tmp_path, tmp_path / "missing"], [], 4096)
    assert [e.display for e in entries] == [f"{tmp_path.name}/a.cu"]
    reasons = {Path(s.path).name: s.reason for s in skipped}
    assert reasons["big.cu"].startswith("too large")
    assert "symlink" in reasons["self.cu"] and "symlink" in reasons["dangling.cu"]
    assert reasons["missing"] == "not found"
