"""Python files with inline CUDA (load_inline, CuPy RawKernel/RawModule, PyCUDA SourceModule), setup.py builds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import DATA
from hipgauge.source import pyinline
from hipgauge.app.scan import ScanOptions, scan_file, scan_tree
from hipgauge.source.walk import SourceEntry, kind_of, walk_tree

PY = DATA / "source" / "python"
PYEXT = DATA / "source" / "pyext"


def _line_of(path: Path, needle: str) -> int:
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if needle in line:
            return n
    raise AssertionError(needle)


def _entry(path: Path) -> SourceEntry:
    return SourceEntry(path.absolute(), path.name, kind_of(path.name) or "?", path.stat().st_size)


def test_py_files_walked_only_when_asked():
    assert kind_of("kernels.py") == "python" and kind_of("setup.py") == "setup.py"
    entries, _ = walk_tree([PY], [], 1 << 20)
    assert entries == []  # translate / build-check walks: no Python
    entries, _ = walk_tree([PY], [], 1 << 20, python=True)
    assert {e.kind for e in entries} == {"python"} and len(entries) == len(list(PY.glob("*.py")))


def test_inline_cuda_maps_back_to_the_py_lines():
    res = scan_tree([PY], ScanOptions(workers=1))
    assert res.files == ["cupy_raw.py", "pycuda_mod.py", "torch_inline.py"]
    kernels = {(k.file, k.name): k.line for k in res.kernels}
    assert kernels == {
        ("torch_inline.py", "fused_gelu_kernel"): _line_of(PY / "torch_inline.py", "__global__ void fused_gelu_kernel"),
        ("cupy_raw.py", "my_add"): _line_of(PY / "cupy_raw.py", 'extern "C" __global__'),
        ("cupy_raw.py", "scale"): _line_of(PY / "cupy_raw.py", "void scale("),
        ("pycuda_mod.py", "multiply_them"): _line_of(PY / "pycuda_mod.py", "__global__ void multiply_them"),
    }
    site = [s for s in res.launch_sites if s.file == "torch_inline.py"]
    assert [(s.kernel, s.line) for s in site] == [("fused_gelu_kernel", _line_of(PY / "torch_inline.py", "<<<"))]
    calls = {(a.file, a.cuda_name): (a.line, a.column) for a in res.api_calls}
    line = _line_of(PY / "torch_inline.py", "cudaDeviceSynchronize")
    assert calls[("torch_inline.py", "cudaDeviceSynchronize")] == (line, 4)  # 0-based, after 4 blanks
    assert ("pycuda_mod.py", "__syncthreads") in calls
    # rules run on the fragments: the 32-bit ballot/shuffle masks, at the real .py line and column
    by = {(f.file, f.code): f for f in res.findings}
    f = by[("torch_inline.py", "HG102")]
    assert f.line == _line_of(PY / "torch_inline.py", "__ballot_sync") and "__ballot_sync" in f.snippet
    original = (PY / "torch_inline.py").read_text().splitlines()[f.line - 1]
    assert f.snippet == original.strip() and original[f.column - 1:].startswith("mask = __ballot_sync")
    assert by[("cupy_raw.py", "HG103")].line == _line_of(PY / "cupy_raw.py", "__shfl_down_sync")
    # nvcc flags given to load_inline are build findings of the .py file
    flags = _line_of(PY / "torch_inline.py", "extra_cuda_cflags")
    assert by[("torch_inline.py", "HG701")].line == flags and by[("torch_inline.py", "HG702")].line == flags
    # lines scanned: the CUDA lines, not the Python around them
    stats = {s.file: s for s in res.file_stats}
    assert 0 < stats["torch_inline.py"].lines < len((PY / "torch_inline.py").read_text().splitlines())


def test_python_without_inline_cuda_is_passed_over_or_skipped_with_a_reason():
    res = scan_tree([PY], ScanOptions(workers=1))
    assert "plain_numba.py" not in res.files and "docstring_only.py" not in res.files
    skipped = {s.path: s.reason for s in res.skipped}
    assert "plain_numba.py" not in skipped and "docstring_only.py" not in skipped
    assert skipped["broken.py"].startswith("not analysed: Python syntax error at line 3")
    assert "not a string literal" in skipped["from_file.py"]
    assert not any(k.file == "docstring_only.py" for k in res.kernels)


def test_extraction_keeps_bytes_in_place():
    src = (b'import cupy\nk = cupy.RawKernel("__global__ void k(int* p) { p[0] = \\"x\\"[0]; }\\n", "k")\n'
           b"m = cupy.RawModule(code=f'''\n__global__ void g(float* y) {{ y[0] = {1 + 1}; }}\n''')\n"
           b"S = ('__global__ void a() {}'\n     '__device__ int b() { return 1; }')\n")
    out = pyinline.extract(src)
    assert len(out.cuda) == len(src) and out.cuda.count(b"\n") == src.count(b"\n")
    lines = out.cuda.split(b"\n")
    assert lines[0].strip() == b""  # Python code is blanked
    assert lines[1].strip() == b'__global__ void k(int* p) { p[0] =  "x "[0]; }'
    assert lines[3].strip() == b"__global__ void g(float* y) {  y[0] = " + b" " * len(b"{1 + 1}") + b"; }"
    assert b"__global__ void a() {}" in lines[5] and b"__device__ int b()" in lines[6]
    assert out.fragments == 3 and out.notes == []
    # the build view has the fragments blanked and the Python kept
    assert b"RawKernel" in out.build_text and b"__global__" not in out.build_text


def test_names_lists_concatenation_and_dedent_are_followed():
    src = b"""import textwrap
from torch.utils.cpp_extension import load_inline
HEAD = "#include <cuda_fp16.h>\\n"
BODY = textwrap.dedent('''
    __global__ void k(half* x) { x[threadIdx.x] = __float2half(1.f); }
''')
CPP = "void k_launch();"
mod = load_inline("m", [CPP], cuda_sources=[HEAD + BODY], functions=None)
other = load_inline("n", cpp_sources=None, cuda_sources=read_it())
"""
    out = pyinline.extract(src)
    text = out.cuda.decode()
    assert "#include <cuda_fp16.h>" in text and "void k_launch();" in text and "__float2half" in text
    assert len(out.notes) == 1 and out.notes[0].startswith("line 9:")


def test_bad_python_never_raises(tmp_path: Path):
    for i, data in enumerate([b"RawKernel(\n", b"\x00\x01RawKernel", b"# -*- coding: nope -*-\nRawKernel('x')\n",
                              b"x = RawKernel('''" + b"(" * 300 + b"''')\n" + b"[" * 2000 + b"\n",
                              "s = '__global__ void k() {}'  # é\n".encode("latin-1")]):
        p = tmp_path / f"bad{i}.py"
        p.write_bytes(data)
        r = scan_file(_entry(p), ScanOptions())
        assert r.skipped is not None or r.passed_over or r.file == p.name, data


def test_realistic_setup_py_build_findings():
    res = scan_tree([PYEXT], ScanOptions(workers=1))
    assert res.files == ["csrc/fused_kernel.cu", "jit_build.py", "setup.py"]
    found = {(f.file, f.code, f.line) for f in res.findings}
    setup = PYEXT / "setup.py"
    assert ("setup.py", "HG701", _line_of(setup, '"-gencode"')) in found
    assert ("setup.py", "HG701", _line_of(setup, "--use_fast_math")) in found
    assert ("setup.py", "HG702", _line_of(setup, "TORCH_CUDA_ARCH_LIST")) in found
    assert ("setup.py", "HG402", _line_of(setup, "-maxrregcount")) in found
    jit = PYEXT / "jit_build.py"
    assert ("jit_build.py", "HG701", _line_of(jit, "-gencode=")) in found
    assert not any(k.file.endswith(".py") for k in res.kernels)  # the .cu file holds the kernel
    assert [k.file for k in res.kernels] == ["csrc/fused_kernel.cu"]


def test_cli_scans_python_with_inline_cuda():
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("HIPGAUGE_DEBUG", None)
    p = subprocess.run([sys.executable, "-m", "hipgauge", "scan", str(PY / "cupy_raw.py"), "--json"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["files"] == ["cupy_raw.py"] and {k["name"] for k in doc["kernels"]} == {"my_add", "scale"}
    p = subprocess.run([sys.executable, "-m", "hipgauge", "scan", str(PY / "broken.py"), "--json"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0 and "Traceback" not in p.stderr
    assert json.loads(p.stdout)["skipped"][0]["reason"].startswith("not analysed: Python syntax error")


# --- fuzz: any bytes in, a same-length buffer or PythonSyntaxError out --------------------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402 - the fuzz section keeps its imports

_PIECES = ["RawKernel(", "load_inline(", "cuda_sources=", "code=", "r'''", "'''", '"""', "f'", "'", '"', "\\", "\\n",
           "{", "}", "{{", "}}", "__global__ void k() {}", "\n", " ", "x = ", "+", ",", ")", "(", "[", "]", "#", "é",
           ".format(a=1)", "% 3", "b'", "SourceModule(", "src", "\r\n", "\t", "\r", "\x0c", "\x00"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_fuzz_extract(parts: list[str]):
    data = "".join(parts).encode("utf-8")
    try:
        out = pyinline.extract(data)
    except pyinline.PythonSyntaxError:
        return
    src = data.decode("utf-8").encode("utf-8")
    assert len(out.cuda) == len(src) and out.cuda.count(b"\n") == src.count(b"\n")
    assert len(out.build_text) == len(src)


def test_build_of_both_vendors_and_test_modules(tmp_path: Path):
    """DeepSpeed's op_builder: a builder that sets PYTORCH_ROCM_ARCH beside TORCH_CUDA_ARCH_LIST builds for both
    vendors, so its CUDA arch list is reviewed, not costed, while an nvcc-only flag of the same file is still a
    finding; its pytest module, which asserts on -gencode strings, is not a build at all."""
    builder = tmp_path / "op_builder" / "builder.py"
    builder.parent.mkdir()
    builder.write_text("import os\nfrom torch.utils.cpp_extension import load\n"
                       "def jit_load(self):\n"
                       "    saved = os.environ.get('TORCH_CUDA_ARCH_LIST')\n"
                       "    os.environ['PYTORCH_ROCM_ARCH'] = self.get_rocm_gpu_arch()\n"
                       "    return load(name='op', sources=['k.cu'], extra_cuda_cflags=['-Xptxas=-v'])\n")
    test = tmp_path / "tests" / "test_op_builder.py"
    test.parent.mkdir()
    test.write_text("def test_arch(builder):\n"
                    "    assert builder.nvcc_args() == ['-gencode=arch=compute_80,code=sm_80']\n"
                    "    assert 'TORCH_CUDA_ARCH_LIST' in builder.env\n")
    res = scan_tree([tmp_path], ScanOptions(workers=1))
    got = {(f.file, f.code, f.line): f.confidence.value for f in res.findings if f.code == "HG701"}
    assert got == {("op_builder/builder.py", "HG701", 4): "low", ("op_builder/builder.py", "HG701", 6): "high"}
    # without the AMD half the same arch list is a finding
    builder.write_text(builder.read_text().replace("PYTORCH_ROCM_ARCH", "MY_ARCH"))
    res = scan_tree([tmp_path], ScanOptions(workers=1))
    assert {(f.line, f.confidence.value) for f in res.findings if f.code == "HG701"} == {(4, "high"), (6, "high")}
