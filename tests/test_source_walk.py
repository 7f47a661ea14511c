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
        "cuda", "cuda", "cpp", "cpp", "cpp", "header", "header", "cmake", "cmake", "make", "setup.py", "python", None]


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


BARE = DATA / "source" / "bare"


def test_extensionless_headers_below_include_folders():
    entries, skipped = walk_tree([BARE], [], 1 << 20)
    assert [(e.display, e.kind) for e in entries] == [
        ("include/Makefile", "make"), ("include/mylib/atomic", "header"), ("include/mylib/version", "header")]
    assert not skipped  # LICENSE, the #! script, the '# comment' script and tools/notes are not sources: not listed
    # the root's own path counts: scanning from inside an include folder
    entries, _ = walk_tree([BARE / "include" / "mylib"], [], 1 << 20)
    assert [e.display for e in entries] == ["atomic", "version"]


def test_extensionless_file_named_on_its_own(tmp_path: Path):
    entries, skipped = walk_tree([BARE / "tools" / "notes", BARE / "include" / "mylib" / "regen",
                                  BARE / "include" / "LICENSE"], [], 1 << 20)
    assert [(e.display, e.kind) for e in entries] == [("notes", "header")]
    reasons = {Path(s.path).name: s.reason for s in skipped}
    assert set(reasons) == {"regen", "LICENSE"} and all("does not start like C/C++" in r for r in reasons.values())


def test_extensionless_header_sniff(tmp_path: Path):
    from hipgauge.source.walk import looks_like_header

    cases = {b"\xef\xbb\xbf// bom\n": True, b"\n\n  /* c */": True, b"#pragma once\n": True, b"# include <x>\n": True,
             b"#!/usr/bin/env python\n": False, b"# just a comment\n": False, b"": False, b"//\x00\x01": False,
             b"MIT License\n": False, b"#ifdef X\n": True}
    for i, (data, want) in enumerate(cases.items()):
        p = tmp_path / f"f{i}"
        p.write_bytes(data)
        assert looks_like_header(p) is want, data
    assert looks_like_header(tmp_path / "missing") is False


def test_scan_reads_extensionless_headers():
    from hipgauge.app.scan import ScanOptions, scan_tree

    res = scan_tree([BARE], ScanOptions(workers=1))
    assert [(k.file, k.name, k.line) for k in res.kernels] == [("include/mylib/atomic", "count_kernel", 8)]
    assert any(a.file == "include/mylib/atomic" and a.cuda_name == "atomicAdd" for a in res.api_calls)
