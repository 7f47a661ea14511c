"""Fuzz the source scanner (``scan_file`` / ``scan_tree``) and the translator (``translate_file`` / ``translate_tree``).

Invariant: a result, never an exception; and no internal error hidden in the result either (``scan_file``
turns an unexpected exception into a skipped file "internal error while analysing", and a failing rule
into a warning "rules not applied": both count as fuzz failures here). Deep nesting may be skipped as
"too deeply nested to analyse" — that is the documented outcome.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hipgauge.model import SkippedFile
from hipgauge.source.parse import load_file
from hipgauge.app.scan import ScanOptions, scan_file, scan_tree
from hipgauge.source.walk import SourceEntry
from hipgauge.knowledge.mapping import load_mapping
from hipgauge.translate.rewrite import TranslateOptions, translate_file
from test_fuzz_support import fuzz_settings, Scratch, cuda_seeds, mutate_bytes, mutate_lines

FAST = fuzz_settings(80)
SEEDS = cuda_seeds()
OPTIONS = ScanOptions(workers=1)
_SCRATCH = Scratch()
_HIDDEN = ("internal error", "rules not applied", "statistics not computed")

#: CUDA fragments that random programs are assembled from (so the fuzz reaches the grammar's corners)
FRAGMENTS = [
    "__global__ void k(float* a) {", "}", "{", "(", ")", "<<<", ">>>", "k<<<1, 32>>>(p);", "template <typename T, int N>",
    "__shfl_down_sync(0xffffffff, v, 1)", "__ballot_sync(FULL_MASK, x)", "__syncwarp();", "__activemask()",
    "#define M(x) __shfl_sync(0xffffffff, x, 0)", "#if 0", "#endif", "#include <cuda_runtime.h>", "cudaMalloc(&p, n);",
    "cublasSgemm(h, a, b);", "asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(l));", "__shared__ float s[32];",
    "wmma::fragment<wmma::matrix_a, 16, 16, 16, half> f;", "namespace x {", "struct S {", "};", "/*", "*/", "//", "\"",
    "'", "\\\n", "#pragma unroll", "[[", "]]", "auto f = [=] __device__ (int i) { return i; };", "__launch_bounds__(",
    "cudaLaunchKernel((void*)k, g, b, args, 0, s);", "warpSize", "32", "0xffffffffffffffffffff", "\x00", "\xff",
    "cg::tiled_partition<32>(cg::this_thread_block())", "texture<float, 1> t;", "cudaGraphLaunch(g, s);",
]


def _entry(path: Path, display: str = "f.cu") -> SourceEntry:
    kind = {".cu": "cuda", ".cuh": "cuda", ".h": "header", ".cpp": "cpp", ".txt": "cmake"}.get(path.suffix, "cuda")
    return SourceEntry(path, display, kind, path.stat().st_size)


def check_scan(path: Path, display: str = "f.cu") -> None:
    r = scan_file(_entry(path, display), OPTIONS)
    if r.skipped is not None:
        assert not r.skipped.reason.startswith("internal error"), r.skipped.reason
    for w in r.warnings:
        assert not any(h in w for h in _HIDDEN), w


def check_translate(data: bytes, kind: str = "cuda") -> None:
    """Translate as ``translate_tree`` does: ``load_file`` (which may skip the file), then ``translate_file``."""
    path = _SCRATCH.write(data, "t.cpp" if kind == "cpp" else "t.cu")
    pf = load_file(_entry(path, path.name))
    if isinstance(pf, SkippedFile):
        assert not pf.reason.startswith("internal error"), pf.reason
        return
    try:
        tf = translate_file(pf, load_mapping(), TranslateOptions())
    except RecursionError as exc:  # the documented depth limit (translate_tree copies such a file as is)
        assert "HIPGAUGE_MAX_TREE_DEPTH" in str(exc), exc
        return
    assert isinstance(tf.text, str)
    tf.text.encode(pf.encoding, errors="replace")  # what translate_tree writes


@FAST
@given(st.binary(max_size=4096))
def test_scan_random_bytes(data):
    check_scan(_SCRATCH.write(data, "random.cu"))


@FAST
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=60), st.sampled_from([" ", "\n", ""]))
def test_scan_and_translate_random_programs(parts, sep):
    data = sep.join(parts).encode("utf-8", "surrogateescape")
    check_scan(_SCRATCH.write(data, "prog.cu"))
    check_translate(data)


@pytest.mark.parametrize("seed", SEEDS, ids=[p.name for p in SEEDS])
def test_scan_and_translate_mutated_cuda(seed):
    """Real CUDA (the bundled example, our seed) with byte and line damage."""
    data = seed.read_bytes()

    @fuzz_settings(25)
    @given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.booleans())
    def run(rnd_seed, n_ops, lines):
        rnd = random.Random(rnd_seed)
        damaged = mutate_lines(data, rnd, n_ops) if lines else mutate_bytes(data, rnd, n_ops)
        check_scan(_SCRATCH.write(damaged, seed.name), seed.name)
        check_translate(damaged, "cpp" if seed.suffix == ".cpp" else "cuda")

    run()


@fuzz_settings(15)
@given(st.sampled_from(["{", "(", "[", "{ if (x) ", "f(", "a[", "<", "template <class T> struct S { ", "#if X\n", "/*",
                        "x+", "-", "*p"]),
       st.one_of(st.integers(1, 2000), st.integers(60000, 120000)))
def test_scan_deep_nesting_and_long_lines(opener, depth):
    """Deeply nested source (recursion limits) and a huge single line: a result or 'too deeply nested'."""
    data = ("__global__ void k(int* p) {\n" + opener * depth + "\n}\n").encode()
    check_scan(_SCRATCH.write(data, "deep.cu"))
    check_translate(data)


@FAST
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "sub", "..", "x.cu", "k.cuh", "CMakeLists.txt", "n.cpp"]),
                          st.sampled_from(["file", "binary", "latin1", "link", "dirlink", "empty"])),
                min_size=1, max_size=8))
def test_scan_tree_random_layouts(layout):
    """Trees with symlinks (loops, dangling), binary and non-UTF-8 files, empty files: scan_tree never raises."""
    root = _SCRATCH.write(b"", "root")
    root.unlink()
    root.mkdir()
    cur = root
    for i, (name, kind) in enumerate(layout):
        target = cur / f"{i}_{name}"
        try:
            if kind == "file":
                target.with_suffix(".cu").write_text("__global__ void k() { __syncwarp(); }\n")
            elif kind == "binary":
                target.with_suffix(".cu").write_bytes(bytes(range(256)))
            elif kind == "latin1":
                target.with_suffix(".cuh").write_bytes("// caf\xe9\n__device__ int f();\n".encode("latin-1"))
            elif kind == "empty":
                target.with_suffix(".cu").write_bytes(b"")
            elif kind == "link":
                target.with_suffix(".cu").symlink_to(target.with_suffix(".cu"))  # self loop
            else:
                target.symlink_to(root if i % 2 else "../../nowhere")
                cur = root / "sub"
                cur.mkdir(exist_ok=True)
        except OSError:
            continue
    res = scan_tree([root], OPTIONS)
    for s in res.skipped:
        assert not s.reason.startswith("internal error"), s.reason
    for w in res.warnings:
        assert not any(h in w for h in _HIDDEN), w
