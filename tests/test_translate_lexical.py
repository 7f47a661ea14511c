"""The lexical fast path (translate/lexical.py) gives what the tree path gives: same output bytes, references,
statistics and safe rewrites on every file it decides; files it cannot decide go to the tree path."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipgauge.source.parse import parse_bytes
from hipgauge.translate.candidates import find_candidates
from hipgauge.translate.lexical import lexical_translate
from hipgauge.knowledge.mapping import load_mapping
from hipgauge.app.translate import translate_tree
from hipgauge.translate.rewrite import TranslateOptions, translate_file

DATA = Path(__file__).parent / "data"
EXAMPLE = Path(__file__).parent.parent / "examples" / "detector"
SOURCES = sorted(p for p in [*DATA.rglob("*"), *EXAMPLE.rglob("*")]
                 if p.suffix in (".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp") and p.is_file())


def _both(data: bytes, name: str, opts: TranslateOptions):
    cands = find_candidates(data)
    lex = lexical_translate(parse_bytes(data, name), load_mapping(), opts, cands)
    tree = translate_file(parse_bytes(data, name), load_mapping(), opts, cands)
    return lex, tree


def _same(a, b) -> None:
    assert a.text == b.text
    assert a.references == b.references
    assert a.unconverted == b.unconverted
    assert a.stats == b.stats
    assert a.safe_rewrites == b.safe_rewrites


@pytest.mark.parametrize("safe", [True, False])
def test_lexical_matches_tree_on_fixtures_and_examples(safe: bool) -> None:
    opts = TranslateOptions(rules_share=False, safe_rewrites=TranslateOptions().safe_rewrites if safe else frozenset())
    decided = 0
    for path in SOURCES:
        data = path.read_bytes()
        if b"\x00" in data[:8192] or not find_candidates(data).needs_tree:
            continue
        lex, tree = _both(data, path.name, opts)
        if lex is None:
            continue
        _same(lex, tree)
        decided += 1
    assert decided >= 4


CASES = {
    "members": b"void f(S* p, S s) { p->cudaMalloc(1); s.cudaFree(0); cudaFree(0); }\n",
    "comments and strings": b'// cudaMalloc\n/* cudaFree */ const char* s = "cudaMalloc"; auto r = R"x(cudaFree)x";\n'
                            b"void g() { cudaDeviceSynchronize(); }\n",
    "qualified": b"void f() { cub::DeviceReduce::Sum(); ::cudaFree(0); mylib::cudaMalloc(0); "
                 b"thrust::device_vector<int> v; cub::BlockReduce<float, 128>::TempStorage t; }\n",
    "directives": b'#include <cuda_runtime.h>\n#include "cublas_v2.h"\n#define CHECK(x) cudaGetLastError()\n'
                  b"#undef cudaFoo\n#if CUDART_VERSION >= 11000\nint v;\n#endif\n",
    "warp": b"#define FULL 0xffffffff\n__global__ void k(int* a) { int v = __shfl_sync(FULL, a[0], 1);\n"
            b"  unsigned b = __ballot_sync(0xffffffffu, v > 0); __syncwarp(); int w = __shfl_down_sync(0x0000ffff, v, 2);"
            b"\n  a[1] = __any_sync(__activemask(), v); }\n",
    "launch and asm": b"__global__ void k() { asm volatile(\"bar.sync 0;\"); }\nvoid h() { k<<<1, 32>>>(); }\n",
    "continuation": b"#define LONG(x) \\\n  cudaMemcpy(x, x, 4, \\\n    cudaMemcpyDeviceToHost)\nint z;\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_lexical_matches_tree_on_cases(name: str) -> None:
    lex, tree = _both(CASES[name], f"{name}.cu", TranslateOptions(rules_share=False))
    assert lex is not None, name
    _same(lex, tree)


def test_unsure_goes_to_the_tree(tmp_path: Path) -> None:
    data = b"struct S { int cudaMalloc; };\nint x = 1'000;\n"  # a member declarator; a digit separator
    assert lexical_translate(parse_bytes(data, "a.cu"), load_mapping(), TranslateOptions(), find_candidates(data)) is None
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_bytes(data + b"void f() { cudaFree(0); }\n")
    (src / "b.cu").write_bytes(CASES["warp"])
    fast = translate_tree(src, tmp_path / "fast", TranslateOptions(rules_share=False))
    slow = translate_tree(src, tmp_path / "slow", TranslateOptions(rules_share=False, lexical=False))
    for rel in ("a.cu", "b.cu"):
        assert (tmp_path / "fast" / rel).read_bytes() == (tmp_path / "slow" / rel).read_bytes()
    a, b = fast.to_dict(), slow.to_dict()
    for d in (a, b):
        d.pop("output"), d.pop("options")
    assert a == b


DECLARED = b"""#include <cuda_runtime.h>
namespace mylib {
float acos(float x) { return x; }
template <class T> T cos(const T& x);
__device__ int clamp_it(int v) {
  unsigned j1 = v;
  cudaStream_t stream = 0;
  return j1 + ::cuda::std::numeric_limits<int>::max();
}
}  // namespace mylib
"""

MEMBER = b"""struct S {
  float acos(float x) const;
};
"""


def test_names_declared_at_namespace_level_and_in_bodies_are_decided_lexically() -> None:
    opts = TranslateOptions(rules_share=False)
    lex, tree = _both(DECLARED, "declared.cu", opts)
    assert lex is not None  # decided without the tree …
    _same(lex, tree)  # … exactly as the tree decides
    assert "hipStream_t stream" in lex.text


def test_a_class_member_declarator_still_goes_to_the_tree() -> None:
    lex, _ = _both(MEMBER, "member.cu", TranslateOptions(rules_share=False))
    assert lex is None
