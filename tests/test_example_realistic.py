"""tests/data/realistic/realistic.cu agrees with its EXPECTED.md, and compiles with the real nvcc."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import DATA, needs_nvcc
from test_example_build import library_include_dirs

REALISTIC = DATA / "realistic"
LINES = (REALISTIC / "realistic.cu").read_text().splitlines()
EXPECTED = (REALISTIC / "EXPECTED.md").read_text()


def table(title: str) -> list[list[str]]:
    """Rows of the markdown table under the heading that starts with ``title``."""
    section = EXPECTED.split(f"## {title}", 1)[1].split("\n## ", 1)[0]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in section.splitlines()
            if line.startswith("|")]
    return [r for r in rows[2:]]  # drop header and separator


def line(n: int) -> str:
    return LINES[n - 1]


def test_kernel_table_matches_the_source() -> None:
    kernels = table("Kernels")
    assert len(kernels) == 6
    for name, global_line, name_line, end_line, _ in kernels:
        name = name.strip("`")
        assert "__global__" in line(int(global_line)), (name, global_line)
        assert re.search(rf"\b{name}\(", line(int(name_line))), (name, name_line)
        assert line(int(end_line)) == "}", (name, end_line)
    src = "\n".join(LINES)
    assert src.count("__global__") == 6


def test_launch_table_matches_the_source() -> None:
    launches = table("Launch sites")
    assert len(launches) == 6
    arg_counts = set()
    for ln, kernel, nargs, config in launches:
        text = line(int(ln))
        assert f"{kernel.strip('`')}<<<{config.strip('`')}>>>" in text, (ln, text)
        arg_counts.add(int(nargs))
    assert arg_counts == {2, 3, 4}
    assert sum("<<<" in x for x in LINES) == 6


@pytest.mark.parametrize("ln,needle", [
    (34, "threadIdx.x & 31"), (35, "threadIdx.x >> 5"), (33, "__shared__ float red[32]"),
    (42, "__shfl_xor_sync(0xffffffff"), (79, "unsigned int m = __ballot_sync(0xffffffff, pred)"),
    (83, "__popc(m & ((1u << lane) - 1))"), (14, "#include <mma.h>"), (97, "nvcuda::wmma::fragment"),
    (104, "mma_sync"), (115, 'asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));'),
    (129, "__launch_bounds__(256, 2)"), (133, "__shared__ float As[16][16], Bs[16][16]"),
    (15, "#include <cublas_v2.h>"), (170, "cublasSgemm(handle"), (157, "y[i] = a * x[i] + y[i]"),
    (181, "cudaStreamCreate"), (188, "cudaMalloc"), (200, "cudaMemcpy"), (219, "cudaFree"),
])
def test_risk_lines_are_where_expected_says(ln: int, needle: str) -> None:
    assert needle in line(ln)
    assert str(ln) in EXPECTED


@needs_nvcc
def test_realistic_compiles_for_sm90(tmp_path: Path) -> None:
    includes = library_include_dirs()
    if includes is None:
        pytest.skip("cublas_v2.h not found (install the nvidia-cublas wheel or set NVLIBS)")
    proc = subprocess.run(["nvcc", "-std=c++17", "-arch=sm_90", *[f"-I{d}" for d in includes], "-c",
                           str(REALISTIC / "realistic.cu"), "-o", str(tmp_path / "realistic.o")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
