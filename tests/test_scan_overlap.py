"""The scan's tree pass overlapped with reading and parsing ahead (``hipgauge.app.overlap``): the same document as
a serial scan, and the tree pass's failures raised as they would have been."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import DATA
from hipgauge.app import overlap
from hipgauge.app import scan as scan_mod
from hipgauge.app.scan import ScanOptions, scan_tree, serial_map
from hipgauge.report.scan_json import scan_document

needs_fork = pytest.mark.skipif(not overlap.fork_available(), reason="processes do not fork here")


def _tree(tmp_path: Path) -> Path:
    """A dual-target tree (vendor switches, a shim, cross-file macros) and enough bytes for several pool chunks."""
    root = tmp_path / "t"
    shutil.copytree(DATA / "dualtarget" / "ggml_like", root)
    kernel = (DATA / "source" / "tree" / "src" / "kernels.cu").read_bytes()
    for i in range(12):
        (root / f"k{i}.cu").write_bytes(kernel + b"// padding\n" * 3000)
    return root


@needs_fork
def test_the_overlapped_scan_gives_the_serial_document(tmp_path: Path, monkeypatch):
    root = _tree(tmp_path)
    preloaded: list[int] = []
    real = scan_mod.preload

    def spy(*args, **kwargs):
        preloaded.append(real(*args, **kwargs))
        return preloaded[-1]

    monkeypatch.setattr(scan_mod, "preload", spy)
    serial = scan_document(scan_tree([root], ScanOptions(), map_files=serial_map))
    pooled = scan_document(scan_tree([root], ScanOptions(workers=2)))
    assert preloaded  # the overlapped path ran
    assert pooled == serial
    assert not overlap._PRELOADED  # nothing kept once the scan is done


@needs_fork
def test_a_failing_tree_pass_raises_here(tmp_path: Path):
    root = _tree(tmp_path)
    with pytest.raises(ValueError):
        scan_tree([root], ScanOptions(workers=2, defines=("1BAD",)))
    assert not overlap._PRELOADED


@needs_fork
def test_background_gives_the_answer_or_makes_the_call_here():
    bg = overlap.Background(lambda: {"a": [1, 2]})
    try:
        assert bg.result() == {"a": [1, 2]}
    finally:
        bg.close()
    calls: list[int] = []

    def failing() -> None:
        calls.append(1)
        raise KeyError("here")

    bg = overlap.Background(failing)
    try:
        with pytest.raises(KeyError):
            bg.result()
    finally:
        bg.close()
    assert calls == [1]  # this process's own call (the child's was in the child)
