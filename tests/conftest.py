"""Shared test fixtures: where the real profiler files and toolchains are, and skips when they are not."""

from __future__ import annotations

import shutil
from pathlib import Path

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


def have(tool: str) -> bool:
    return shutil.which(tool) is not None


needs_hipcc = pytest.mark.skipif(not (have("hipcc") or Path("/usr/bin/hipcc").exists()), reason="hipcc is not installed (apt-get install hipcc libamdhip64-dev rocm-device-libs)")
needs_nvcc = pytest.mark.skipif(not have("nvcc"), reason="nvcc is not installed")
needs_chromium = pytest.mark.skipif(not (have("chromium") or have("chromium-browser")), reason="chromium is not installed")
