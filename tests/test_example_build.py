"""The bundled example's sources compile with the real nvcc (sm_90, -c).

Files that use only the CUDA toolkit always compile when nvcc is here; those that include
cublas_v2.h / cudnn.h compile when those headers are found (CUDA toolkit, /usr/include, the
nvidia-cublas / nvidia-cudnn Python wheels, or $NVLIBS/nvidia/*/include, as examples/detector/build.sh
looks), and skip with the reason otherwise.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import EXAMPLE, needs_nvcc

SRC = EXAMPLE / "src"
INCLUDE = EXAMPLE / "include"
TOOLKIT_ONLY = ["preprocess.cu", "postprocess.cu"]
NEEDS_LIBS = ["heads.cu", "pipeline.cu", "main.cu"]
KERNELS = {
    "preprocess.cu": ["normalize_image_kernel", "bias_relu_kernel", "transpose_tiled_kernel"],
    "postprocess.cu": ["softmax_scores_kernel", "decode_boxes_kernel", "compact_scores_kernel",
                       "gather_candidates_kernel", "nms_mask_kernel", "nms_reduce_kernel", "roi_align_kernel"],
}


def library_include_dirs() -> list[str] | None:
    """Folders that hold cublas_v2.h and cudnn.h, or None when either is missing."""
    roots: list[Path] = []
    nvcc = shutil.which("nvcc")
    if nvcc:
        roots.append(Path(nvcc).resolve().parents[1] / "include")
    roots += [Path("/usr/local/cuda/include"), Path("/usr/include")]
    wheel_roots: list[str] = []
    if os.environ.get("NVLIBS"):
        wheel_roots.append(os.path.join(os.environ["NVLIBS"], "nvidia"))
    spec = importlib.util.find_spec("nvidia")
    if spec is not None and spec.submodule_search_locations:
        wheel_roots += list(spec.submodule_search_locations)
    for root in wheel_roots:
        roots += [Path(p) for p in sorted(glob.glob(os.path.join(root, "*", "include")))]
    found = {}
    for header in ("cublas_v2.h", "cudnn.h"):
        hit = next((r for r in roots if (r / header).is_file()), None)
        if hit is None:
            return None
        found[header] = str(hit)
    return sorted(set(found.values()))


def nvcc_compile(src: Path, out: Path, includes: list[str]) -> subprocess.CompletedProcess:
    cmd = ["nvcc", "-std=c++17", "-O1", "-arch=sm_90", "-Xptxas", "-v", f"-I{INCLUDE}",
           *[f"-I{d}" for d in includes], "-c", str(src), "-o", str(out)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


@needs_nvcc
@pytest.mark.parametrize("name", TOOLKIT_ONLY)
def test_kernel_files_compile_with_the_toolkit_alone(name: str, tmp_path: Path) -> None:
    proc = nvcc_compile(SRC / name, tmp_path / (name + ".o"), [])
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert (tmp_path / (name + ".o")).stat().st_size > 0
    # every kernel of the file reaches ptxas (its resource line names the mangled kernel)
    entries = re.findall(r"Compiling entry function '([^']+)'", proc.stderr)
    for kernel in KERNELS[name]:
        assert any(kernel in e for e in entries), f"{kernel} not compiled; entries: {entries}"


@needs_nvcc
@pytest.mark.parametrize("name", NEEDS_LIBS)
def test_library_files_compile_when_headers_exist(name: str, tmp_path: Path) -> None:
    includes = library_include_dirs()
    if includes is None:
        pytest.skip("cublas_v2.h / cudnn.h not found (install the nvidia-cublas and nvidia-cudnn-cu13 wheels, "
                    "or set NVLIBS to a folder holding nvidia/*/include)")
    proc = nvcc_compile(SRC / name, tmp_path / (name + ".o"), includes)
    assert proc.returncode == 0, proc.stderr[-4000:]


@needs_nvcc
def test_cpu_reference_compiles(tmp_path: Path) -> None:
    proc = subprocess.run(["nvcc", "-std=c++17", f"-I{INCLUDE}", "-c", str(SRC / "reference.cpp"),
                           "-o", str(tmp_path / "reference.o")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_every_source_file_is_in_the_cmake_target() -> None:
    cmake = (EXAMPLE / "CMakeLists.txt").read_text()
    assert "project(detector LANGUAGES CXX CUDA)" in cmake
    assert "find_package(CUDAToolkit" in cmake and "CUDA::cublas" in cmake and "cudnn" in cmake.lower()
    assert "80 90" in cmake
    for src in SRC.iterdir():
        assert f"src/{src.name}" in cmake, f"{src.name} missing from CMakeLists.txt"


def test_kernel_names_are_stable() -> None:
    """Kernel names are what the captured profile and hipgauge's reports key on."""
    text = "\n".join(p.read_text() for p in SRC.glob("*.cu"))
    defined = set(re.findall(r"__global__\s+(?:void\s+)?(?:__launch_bounds__\([^)]*\)\s*)?(?:void\s+)?(\w+)\s*\(", text))
    expected = {k for names in KERNELS.values() for k in names}
    assert defined == expected, defined ^ expected


def test_example_folder_is_small() -> None:
    size = sum(p.stat().st_size for p in EXAMPLE.rglob("*") if p.is_file() and "build" not in p.parts)
    assert size < 10 * 1024 * 1024, size
