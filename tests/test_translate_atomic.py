"""translate writes the whole tree or nothing: a failure mid-run leaves no OUT and no staging folder."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from hipgauge.errors import InputError
from hipgauge.app import translate as tree_mod
from hipgauge.app.translate import translate_tree

KERNEL = "#include <cuda_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] = 0.f; }\n"


def _src(tmp_path: Path, n: int = 3) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(n):
        (src / f"k{i}.cu").write_text(KERNEL)
    return src


def test_success_renames_into_place(tmp_path: Path) -> None:
    result = translate_tree(_src(tmp_path), tmp_path / "hip")
    assert sorted(p.name for p in (tmp_path / "hip").iterdir()) == ["k0.cu", "k1.cu", "k2.cu"]
    assert "hip/hip_runtime.h" in (tmp_path / "hip" / "k0.cu").read_text()
    assert result.output.endswith("hip")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]


def test_failure_mid_run_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _src(tmp_path)
    real = tree_mod._translate_into

    def boom(*args, **kwargs):
        real(*args, **kwargs)  # the staging folder is full of files by now
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tree_mod, "_translate_into", boom)
    with pytest.raises(InputError, match="No space left"):
        translate_tree(src, tmp_path / "hip")
    assert not (tmp_path / "hip").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


def test_statistics_only_writes_nothing(tmp_path: Path) -> None:
    result = translate_tree(_src(tmp_path), tmp_path / "hip", write=False)
    assert result.files and not (tmp_path / "hip").exists()
