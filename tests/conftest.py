"""Shared test fixtures: where the real profiler files and toolchains are, and skips when they are not."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
REAL = SHARED / "fixtures" / "real"
H200 = SHARED / "fixtures" / "h200"
KNOWLEDGE = SHARED / "knowledge"
DATA = Path(__file__).resolve().parent / "data"
EXAMPLE = REPO / "examples" / "detector"


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is not here (the shared fixtures only exist in the development checkout)")
    return path


@pytest.fixture
def real_dir() -> Path:
    return _need(REAL)


@pytest.fixture
def h200_dir() -> Path:
    return _need(H200)


@pytest.fixture
def knowledge_dir() -> Path:
    return _need(KNOWLEDGE)


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` as a module (registered in ``sys.modules`` under ``name`` unless one is there)."""
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


def have(tool: str) -> bool:
    return shutil.which(tool) is not None


needs_hipcc = pytest.mark.skipif(not (have("hipcc") or Path("/usr/bin/hipcc").exists()), reason="hipcc is not installed (apt-get install hipcc libamdhip64-dev rocm-device-libs)")
needs_nvcc = pytest.mark.skipif(not have("nvcc"), reason="nvcc is not installed")
needs_chromium = pytest.mark.skipif(not (have("chromium") or have("chromium-browser")), reason="chromium is not installed")


@pytest.fixture(autouse=True)
def _hipgauge_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own ``HIPGAUGE_HOME`` (the default history store lives there), under pytest's
    temporary folder: no test writes to the user's data folder or into a scanned tree."""
    home = tmp_path_factory.mktemp("hipgauge-home")
    monkeypatch.setenv("HIPGAUGE_HOME", str(home))
    return home


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """Temporary files of the code under test (``tempfile.mkdtemp``: build-check's work folder, the fuzz
    scratch folders, a compiler's TMPDIR in a child process) go below pytest's own temporary folder, which
    pytest cleans (it keeps the last three runs), so a test run leaves nothing of its own in /tmp."""
    import os
    import tempfile

    factory = getattr(config, "_tmp_path_factory", None)
    if factory is None:
        return
    scratch = factory.getbasetemp() / "tmp"
    scratch.mkdir(exist_ok=True)
    os.environ["TMPDIR"] = str(scratch)
    tempfile.tempdir = str(scratch)
    # the CLI's compiled-pattern cache (hipgauge/regex_cache.py) too, shared by the whole run
    os.environ["HIPGAUGE_CACHE_DIR"] = str(scratch / "hipgauge-cache")
