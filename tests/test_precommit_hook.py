"""The pre-commit hook of ``.pre-commit-hooks.yaml``: valid under pre-commit's own manifest schema, and its
``entry`` run as pre-commit runs it on the staged files of a git repository.

pre-commit installs a ``language: python`` hook by pip-installing this repository into a virtualenv of its
own, which needs the package index; so the run here is a real ``pre-commit run`` of a ``repo: local`` hook
made from the manifest's own ``entry``, ``files``, ``pass_filenames`` and ``require_serial`` with
``language: system`` (the ``hipgauge`` beside this interpreter), on files staged in a throwaway repository:
pre-commit picks the staged files by the hook's ``files`` pattern and passes them to the entry, as it does for
the installed hook. Without pre-commit (the test extra brings it), a second test runs the entry itself on the
staged names the ``files`` pattern selects.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MANIFEST = REPO / ".pre-commit-hooks.yaml"
PROGRAMS = REPO / "tests" / "data" / "issue16"
CLEAN = """#include <cuda_runtime.h>
__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
"""


def _hook() -> dict:
    yaml = pytest.importorskip("yaml")
    hooks = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    assert isinstance(hooks, list) and [h["id"] for h in hooks] == ["hipgauge-scan"]
    return hooks[0]


def _bin_dir() -> str:
    return str(Path(sys.executable).parent)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=repo, check=True,
                   capture_output=True)


@pytest.fixture()
def staged(tmp_path: Path) -> Path:
    """A git repository with a CUDA file holding blockers, a clean one, and files the hook must not get."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    shutil.copy(PROGRAMS / "warp_reduce_masks.cu", repo / "src" / "warp_reduce_masks.cu")
    (repo / "src" / "scale.cu").write_text(CLEAN)
    (repo / "CMakeLists.txt").write_text("project(x LANGUAGES CXX CUDA)\n")
    (repo / "notes.md").write_text("# notes\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    return repo


def test_manifest_is_valid_for_pre_commit() -> None:
    clientlib = pytest.importorskip("pre_commit.clientlib")
    (hook,) = clientlib.load_manifest(str(MANIFEST))  # pre-commit's own schema: raises on a bad manifest
    assert hook["id"] == "hipgauge-scan" and hook["language"] == "python"
    assert shlex.split(hook["entry"])[:2] == ["hipgauge", "scan"]
    assert hook["pass_filenames"] and hook["require_serial"]
    files = re.compile(hook["files"])
    assert files.search("src/k.cu") and files.search("include/k.cuh") and files.search("cmake/hip.cmake")
    assert not files.search("CMakeLists.txt")  # scan reads a .txt argument as a list of trees
    assert not files.search("notes.md")


def _pre_commit_config(repo: Path, hook: dict, args: list[str]) -> None:
    import yaml

    local = {"id": hook["id"], "name": hook["name"], "entry": hook["entry"], "language": "system",
             "files": hook["files"], "pass_filenames": hook["pass_filenames"],
             "require_serial": hook["require_serial"], "verbose": hook.get("verbose", False), "args": args}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]}))
    _git(repo, "add", ".pre-commit-config.yaml")


def _pre_commit(repo: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("pre-commit", path=_bin_dir()) or shutil.which("pre-commit")
    if exe is None:
        pytest.skip("pre-commit is not installed (pip install '.[test]')")
    env = {**os.environ, "PATH": _bin_dir() + os.pathsep + os.environ.get("PATH", ""),
           "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "PRE_COMMIT_COLOR": "never"}
    env.pop("HIPGAUGE_DEBUG", None)
    return subprocess.run([exe, "run"], cwd=repo, env=env, capture_output=True, text=True, timeout=300)


def test_pre_commit_runs_the_hook_on_staged_files_and_fails_on_a_blocker(staged: Path, tmp_path: Path) -> None:
    hook = _hook()
    _pre_commit_config(staged, hook, ["--fail-on", "blocker"])
    done = _pre_commit(staged, tmp_path)
    text = done.stdout + done.stderr
    assert done.returncode == 1, text
    assert "Failed" in text and "hook id: hipgauge-scan" in text
    assert "exit code: 1" in text
    assert "finding(s) at or above blocker (--fail-on blocker)" in text
    assert "warp_reduce_masks.cu:" in text and "HG103" in text  # the findings, file:line, rule code
    assert "2 files" in text  # the two .cu files; CMakeLists.txt, notes.md and the config are not passed
    assert "Traceback" not in text


def test_pre_commit_passes_when_the_staged_files_have_no_blocker(staged: Path, tmp_path: Path) -> None:
    hook = _hook()
    _git(staged, "rm", "-q", "--cached", "src/warp_reduce_masks.cu")
    _pre_commit_config(staged, hook, ["--fail-on", "blocker"])
    done = _pre_commit(staged, tmp_path)
    text = done.stdout + done.stderr
    assert done.returncode == 0, text
    assert "Passed" in text and "1 files" in text  # verbose: the scan's summary shows though the hook passed


def test_the_entry_on_the_staged_names_as_pre_commit_passes_them(staged: Path) -> None:
    """Without pre-commit: the staged names the ``files`` pattern selects, appended to entry + args."""
    hook = _hook()
    names = subprocess.run(["git", "diff", "--cached", "--name-only", "-z"], cwd=staged, check=True,
                           capture_output=True, text=True).stdout.split("\0")
    files = re.compile(hook["files"])
    chosen = sorted(n for n in names if n and files.search(n))
    assert chosen == ["src/scale.cu", "src/warp_reduce_masks.cu"]
    entry = shlex.split(hook["entry"])
    exe = shutil.which(entry[0], path=_bin_dir())
    cmd = [exe, *entry[1:]] if exe else [sys.executable, "-m", "hipgauge", *entry[1:]]
    env = {k: v for k, v in os.environ.items() if k != "HIPGAUGE_DEBUG"}
    done = subprocess.run([*cmd, "--fail-on", "blocker", *chosen], cwd=staged, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.strip().splitlines()[-1] == "error: 4 finding(s) at or above blocker (--fail-on blocker)"
    assert "HG103" in done.stdout and "\x1b[" not in done.stdout  # plain text: stdout is not a terminal
    done = subprocess.run([*cmd, "--fail-on", "blocker", "src/scale.cu"], cwd=staged, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
