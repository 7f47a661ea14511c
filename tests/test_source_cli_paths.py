"""``hipgauge scan`` PATH arguments: a list of trees (.txt) versus a .txt file that is itself scanned."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hipgauge.cli.scan import expand_paths
from hipgauge.errors import InputError
from test_source_scan import TREE, run_cli


def test_cmakelists_txt_is_scanned_as_the_file_it_is(tmp_path: Path):
    cm = tmp_path / "CMakeLists.txt"
    cm.write_text("cmake_minimum_required(VERSION 3.18)\nproject(x LANGUAGES CXX CUDA)\n"
                  "set(CMAKE_CUDA_ARCHITECTURES 80 90)\n")
    assert expand_paths([cm]) == [cm]
    p = run_cli("scan", str(cm), "--json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["files"] == ["CMakeLists.txt"]
    assert {(f["code"], f["line"]) for f in doc["findings"]} >= {("HG701", 3), ("HG702", 3)}
    # a CMakeLists.txt whose lines happen to name an existing folder is still a CMake file
    (tmp_path / "src").mkdir()
    cm.write_text("src\n")
    assert expand_paths([cm]) == [cm]


def test_txt_that_lists_nothing_existing_is_a_file(tmp_path: Path):
    notes = tmp_path / "notes.txt"
    notes.write_text("hello world\nnot a path either\n")
    assert expand_paths([notes]) == [notes]
    p = run_cli("scan", str(notes), "--json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["files"] == [] and doc["skipped"][0]["reason"] == "not a source or build file hipgauge reads"
    odd = tmp_path / "odd.txt"
    odd.write_bytes(b"\xff\xfe latin-1 \xe9\n" + b"x" * 5000 + b"\n")
    assert expand_paths([odd]) == [odd]


def test_list_of_trees_still_works_and_reports_missing_lines(tmp_path: Path):
    listing = tmp_path / "repos.txt"
    listing.write_text(f"# trees\n{TREE / 'src'}\n\n{TREE / 'third_party'}  # vendored\n")
    assert expand_paths([listing]) == [TREE / "src", TREE / "third_party"]
    listing.write_text(f"{TREE / 'src'}\nmissing_tree\n")
    with pytest.raises(InputError) as exc:
        expand_paths([listing])
    assert str(exc.value) == f"{listing}:2: missing_tree: not found"
    p = run_cli("scan", str(listing))
    assert p.returncode == 2 and "missing_tree: not found" in p.stderr and "Traceback" not in p.stderr
    listing.write_text("# only comments\n")
    with pytest.raises(InputError, match="the list is empty"):
        expand_paths([listing])
