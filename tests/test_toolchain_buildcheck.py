"""build-check with the real compilers: translation compiles for gfx90a, wmma / inline PTX fail at their CUDA
lines with rule codes, resources and occupancy side by side on sm_90 and gfx90a. Few, small compiles."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import have, needs_hipcc
from hipgauge.app.buildcheck import block_size_of, build_check

DATA = Path(__file__).parent / "data"
CUBLAS_INCLUDE = [p for p in ("/tmp/nvlibs/nvidia/cu13/include",) if Path(p, "cublas_v2.h").exists()]


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory):
    if not (have("hipcc") or Path("/usr/bin/hipcc").exists()):
        pytest.skip("hipcc is not installed (apt-get install hipcc libamdhip64-dev rocm-device-libs)")
    src = tmp_path_factory.mktemp("bc") / "tree"
    src.mkdir()
    for name in ("toolchain/kernels.cu", "translate/wmma_kernel.cu", "translate/asm_kernel.cu", "realistic/realistic.cu"):
        shutil.copy(DATA / name, src / Path(name).name)
    nv = ["sm_90"] if have("nvcc") else []
    result = build_check(src, ["gfx90a"], nv, timeout_s=300, jobs=2, include_dirs=CUBLAS_INCLUDE)
    return src, result


def _compile(result, file, arch):
    return next(c for c in result.compiles if c.file == file and c.arch == arch)


@needs_hipcc
def test_clean_kernels_translate_and_compile_for_gfx90a(checked):
    _src, result = checked
    assert result.translated
    c = _compile(result, "kernels.cu", "gfx90a")
    assert c.ok and c.errors == 0 and "--offload-arch=gfx90a" in c.command
    names = {k.name.split("(")[0] for k in c.kernels}
    assert names == {"softmax_warp", "sgemm_tiled", "scale_add"}


@needs_hipcc
def test_wmma_and_inline_ptx_fail_at_their_cuda_lines_with_rule_codes(checked):
    _src, result = checked
    wmma = _compile(result, "wmma_kernel.cu", "gfx90a")
    assert not wmma.ok
    by_line = {d.line: d for d in wmma.diagnostics}
    assert 4 in by_line and "mma.h" in by_line[4].message and "HG201" in by_line[4].rule_codes
    assert any(d.line in range(9, 17) and "HG201" in d.rule_codes for d in wmma.diagnostics)
    asm = _compile(result, "asm_kernel.cu", "gfx90a")
    assert not asm.ok
    d = next(d for d in asm.diagnostics if d.line == 7)
    assert d.file == "asm_kernel.cu" and "HG301" in d.rule_codes and "asm volatile" in d.source_line
    real = _compile(result, "realistic.cu", "gfx90a")
    lines = {d.line: d.rule_codes for d in real.diagnostics}
    assert "HG201" in lines[14] and "HG201" in lines[97] and "HG301" in lines[115]  # 115 needs an isolation pass
    assert real.passes > 1 and any(b.name == "wmma_gemm_kernel" for b in real.blanked)
    rows = {k.kernel.split("(")[0]: k for k in result.kernels if k.file == "realistic.cu"}
    assert "gfx90a" in rows["tiled_sgemm_kernel"].resources  # the rest of the file still reports resources
    assert "gfx90a" in rows["wmma_gemm_kernel"].not_compiled


@needs_hipcc
def test_resources_and_occupancy_side_by_side_traceable_to_compiler_output(checked):
    _src, result = checked
    rows = {k.kernel.split("(")[0]: k for k in result.kernels if k.file == "kernels.cu"}
    sgemm = rows["sgemm_tiled"]
    assert sgemm.block_size == 256 and sgemm.block_size_source.startswith("launch site kernels.cu:")
    assert rows["softmax_warp"].block_size == 32
    amd = sgemm.resources["gfx90a"]
    assert amd.shared_bytes == 2048 and amd.vgprs > 0
    assert any(f"VGPRs: {amd.vgprs} " in line for line in amd.evidence)
    occ = sgemm.occupancy["gfx90a"]
    assert occ.provenance == "estimated" and 0 < occ.occupancy <= 1 and occ.unit == "waves/SIMD"
    if "sm_90" in result.nvidia_arch:
        nv = sgemm.resources["sm_90"]
        assert nv.shared_bytes == 2048 and any(f"Used {nv.registers} registers" in x for x in nv.evidence)
        assert sgemm.occupancy["sm_90"].unit == "warps/SM"
        # one 32-thread block per row: NVIDIA caps at 32 resident blocks = 32 of 64 warps (50%)
        soft = rows["softmax_warp"].occupancy["sm_90"]
        assert (soft.occupancy, soft.limiter) == (0.5, "warps") or soft.blocks_per_unit == 32
    doc = json.loads(json.dumps(result.to_dict(), default=str))
    assert doc["schema"] == "hipgauge.build-check/1" and doc["summary"]["kernels"] >= 9


def test_block_size_folding():
    src = "#define TILE 16\ndim3 grid(4), block(128);\nconstexpr int kThreads = 2 * 64;\n"
    assert block_size_of("256", src) == 256
    assert block_size_of("dim3(TILE, TILE)", src) == 256
    assert block_size_of("block", src) == 128
    assert block_size_of("kThreads", src) == 128
    assert block_size_of("n", src) is None


def test_missing_toolchain_is_a_clear_message_and_the_rest_still_runs(tmp_path: Path):
    src = tmp_path / "t"
    src.mkdir()
    shutil.copy(DATA / "toolchain" / "kernels.cu", src / "kernels.cu")
    env_cmd = [sys.executable, "-m", "hipgauge", "build-check", str(src), "--nvidia-arch", "sm_90", "--json"]
    env = {"HIPGAUGE_HIPCC": "/nonexistent/hipcc", "HIPGAUGE_NVCC": "/nonexistent/nvcc", "PATH": "/usr/bin:/bin"}
    res = subprocess.run(env_cmd, capture_output=True, text=True, timeout=120, env=env)
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert any("hipcc not found" in w for w in doc["warnings"]) and any("nvcc not found" in w for w in doc["warnings"])
    assert doc["translated"] and doc["translation"]["converted"] > 0 and doc["compiles"] == []
