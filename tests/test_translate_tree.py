"""translate_tree / `hipgauge translate`: the input is only read, nothing is written outside OUT."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from hipgauge.errors import InputError
from hipgauge.app.translate import translate_tree

DATA = Path(__file__).parent / "data"


def _digest(root: Path) -> dict[str, str]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink():
            out[p.relative_to(root).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest() + oct(p.stat().st_mode)
    return out


@pytest.fixture
def cuda_tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "kernels").mkdir(parents=True)
    shutil.copy(DATA / "toolchain" / "kernels.cu", src / "kernels" / "kernels.cu")
    shutil.copy(DATA / "realistic" / "realistic.cu", src / "realistic.cu")
    shutil.copy(DATA / "translate" / "CMakeLists.txt", src / "CMakeLists.txt")
    (src / "notes.txt").write_text("cudaMalloc stays in a text file\n")
    return src


def _make_read_only(root: Path) -> None:
    for p in sorted(root.rglob("*"), reverse=True):
        p.chmod(stat.S_IRUSR | (stat.S_IXUSR if p.is_dir() else 0))
    root.chmod(stat.S_IRUSR | stat.S_IXUSR)


def _restore(root: Path) -> None:
    root.chmod(0o755)
    for p in root.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)


def test_read_only_tree_is_translated_and_left_unchanged(cuda_tree: Path, tmp_path: Path):
    _make_read_only(cuda_tree)
    before = _digest(cuda_tree)
    around = set(os.listdir(tmp_path))
    try:
        result = translate_tree(cuda_tree, tmp_path / "out")
    finally:
        after = _digest(cuda_tree)
        _restore(cuda_tree)
    assert before == after
    assert set(os.listdir(tmp_path)) == around | {"out"}  # nothing written beside OUT
    out = tmp_path / "out"
    assert (out / "kernels" / "kernels.cu").read_text().startswith("//")
    assert "#include <hip/hip_runtime.h>" in (out / "kernels" / "kernels.cu").read_text()
    assert (out / "notes.txt").read_text() == "cudaMalloc stays in a text file\n"
    assert not list(out.rglob(".hipgauge-*"))  # no temporary file left behind
    doc = result.to_dict()
    assert doc["schema"] == "hipgauge.translate/1"
    assert 0 < doc["summary"]["translation_share"] < 1
    assert doc["summary"]["safe_rewrites"]["warp-mask"] >= 8
    assert any(u["file"] == "realistic.cu" and u["line"] == 115 for u in doc["unconverted"])
    for name in ("realistic.cu", "kernels/kernels.cu"):  # every output line maps to its source line
        assert (out / name).read_text().count("\n") == (cuda_tree / name).read_text().count("\n")


def test_output_inside_or_equal_to_input_is_refused(cuda_tree: Path):
    with pytest.raises(InputError, match="inside"):
        translate_tree(cuda_tree, cuda_tree / "hip")
    with pytest.raises(InputError):
        translate_tree(cuda_tree, cuda_tree)
    assert not (cuda_tree / "hip").exists()


def test_non_empty_output_is_refused(cuda_tree: Path, tmp_path: Path):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("keep")
    with pytest.raises(InputError, match="not empty"):
        translate_tree(cuda_tree, tmp_path / "busy")
    assert (tmp_path / "busy" / "x").read_text() == "keep"


def test_symlink_pointing_outside_is_not_followed(cuda_tree: Path, tmp_path: Path):
    secret = tmp_path / "elsewhere"
    secret.mkdir()
    (secret / "secret.cu").write_text("#include <cuda_runtime.h>\n")
    (cuda_tree / "link").symlink_to(secret, target_is_directory=True)
    (cuda_tree / "file_link.cu").symlink_to(secret / "secret.cu")
    result = translate_tree(cuda_tree, tmp_path / "out")
    out = tmp_path / "out"
    assert not (out / "link" / "secret.cu").exists() and not (out / "file_link.cu").exists()
    assert any("outside the input tree" in w for w in result.warnings)
    assert all(p.resolve().is_relative_to(out.resolve()) for p in out.rglob("*"))


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hipgauge", *args], capture_output=True, text=True, timeout=120)


def test_cli_json_and_exit_codes(cuda_tree: Path, tmp_path: Path):
    res = _cli("translate", str(cuda_tree), "-o", str(tmp_path / "o1"), "--json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["schema"] == "hipgauge.translate/1" and doc["files"]
    res = _cli("translate", str(cuda_tree), "-o", str(tmp_path / "o2"), "--json", "--no-safe-rewrites")
    assert json.loads(res.stdout)["summary"]["safe_rewrites"] == {}
    res = _cli("translate", str(cuda_tree), "-o", str(cuda_tree / "inside"))
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) <= 2 and "Traceback" not in res.stderr
    res = _cli("translate", str(tmp_path / "missing"), "-o", str(tmp_path / "o3"))
    assert res.returncode == 2 and "not found" in res.stderr
