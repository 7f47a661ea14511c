"""Library rules report call sites, not every type and enum (HG601, HG604, HG613); the anchor index and the
share's token path give the same answers as the plain-regex definitions they replace."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hipgauge.rules.engine import check_file
from hipgauge.rules.examples import snippet_file
from hipgauge.rules.registry import anchor_index
from hipgauge.rules.share import _construct_lines, _construct_lines_unicode

REPO = Path(__file__).resolve().parent.parent
DETECTOR = REPO / "examples" / "detector"

CUDNN = """#include <cudnn.h>
void conv(cudnnHandle_t h, cudnnTensorDescriptor_t x) {
    cudnnFilterDescriptor_t w;
    cudnnCreateFilterDescriptor(&w);
    cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 8, 3, 3, 3);
    cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    cudnnDestroyFilterDescriptor(w);
}
"""


def codes(code: str, kind: str = "cuda", defined=frozenset()) -> list[tuple[str, int, str]]:
    return [(f.code, f.line, f.message) for f in check_file(snippet_file(code, kind), None, set(), frozenset(defined))]


def test_cudnn_one_finding_per_call_and_the_include():
    found = [(c, line) for c, line, _m in codes(CUDNN) if c == "HG601"]
    assert found == [("HG601", 1), ("HG601", 4), ("HG601", 5), ("HG601", 7)]
    messages = {line: m for c, line, m in codes(CUDNN) if c == "HG601"}
    assert "cudnnCreateFilterDescriptor" in messages[4]
    assert "type/enum/constant" in messages[4]  # line 3's descriptor type folded into the nearest call
    assert "with 2 cuDNN" in messages[5]  # its own two enums
    assert "with 2 cuDNN" in messages[7] and "lines 6-7" not in messages[7]


def test_cudnn_header_without_calls_is_one_finding_at_the_include():
    header = "#include <cudnn.h>\nstruct L { cudnnTensorDescriptor_t x; cudnnFilterDescriptor_t w; };\n" \
             "void init(cudnnHandle_t h, L& l);\n"
    found = [(c, line, m) for c, line, m in codes(header, "header") if c == "HG601"]
    assert len(found) == 1 and found[0][1] == 1 and "with 3 cuDNN" in found[0][2]


def test_cudnn_references_without_include_or_call_are_one_finding_per_file():
    found = [(c, line, m) for c, line, m in codes("void f(cudnnHandle_t h);\nvoid g(cudnnHandle_t h);\n") if c == "HG601"]
    assert len(found) == 1 and found[0][1] == 1 and "1 more cuDNN" in found[0][2]


def test_cublas_and_nvtx_one_finding_per_call():
    src = """#include <cublas_v2.h>
#include <nvtx3/nvToolsExt.h>
void gemm(cublasHandle_t h, const float* a, float* c, int n) {
    const float one = 1.f;
    nvtxRangePushA("gemm");
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &one, a, n, a, n, &one, c, n);
    nvtxRangePop();
}
"""
    found = codes(src)
    assert [line for c, line, _m in found if c == "HG604"] == [1, 6]
    assert [line for c, line, _m in found if c == "HG613"] == [2, 5, 7]


def test_tree_defined_wrappers_are_not_library_calls():
    src = "#include <cudnn.h>\nvoid f(cudnnHandle_t* h) {\n    CUDNN_CHECK(cudnnCreate(h));\n}\n"
    plain = [m for c, line, m in codes(src) if c == "HG601" and line == 3]
    assert plain and "CUDNN_CHECK" in plain[0]  # unknown to this file alone: the first name on the line wins
    told = [m for c, line, m in codes(src, defined={"CUDNN_CHECK"}) if c == "HG601" and line == 3]
    assert told and "cudnnCreate" in told[0]
    # a macro the file itself defines is known without being told
    own = "#define CUDNN_CHECK(x) (x)\n" + src
    from hipgauge.source.inventory import inventory_file
    from hipgauge.source.parse import parse_bytes

    pf = parse_bytes(own.encode(), "own.cu")
    messages = [f.message for f in check_file(pf, inventory_file(pf)) if f.code == "HG601" and f.line == 4]
    assert messages and "cudnnCreate" in messages[0]


def test_non_library_rules_still_see_user_names():
    src = "#define WARP_SIZE 32\n__global__ void k(int* o) { o[threadIdx.x] = threadIdx.x % WARP_SIZE; }\n"
    assert "HG101" in {c for c, _l, _m in codes(src, defined={"WARP_SIZE"})}


def test_detector_hg601_counts_call_sites():
    if not DETECTOR.exists():
        pytest.skip("examples/detector is not here")
    from hipgauge.report.scan_json import scan_document
    from hipgauge.app.scan import ScanOptions, scan_tree

    doc = scan_document(scan_tree([DETECTOR], ScanOptions()))
    heads = (DETECTOR / "src" / "heads.cu").read_text().splitlines()
    call_lines = {i for i, line in enumerate(heads, 1) if re.search(r"\bcudnn\w+\s*\(", line)}
    got = {f["line"] for f in doc["findings"] if f["code"] == "HG601" and f["file"] == "src/heads.cu"}
    assert got == call_lines
    total = sum(1 for f in doc["findings"] if f["code"] == "HG601")
    assert total <= len(call_lines) + 6  # + pipeline.cu's 3 calls and 2 header-level findings, not ~35
    # every reference is still in the inventory
    assert sum(1 for a in doc["api_calls"] if a["library"] == "cudnn") >= 40


# -- the fast paths give what the plain definitions give -------------------------------------------

def _old_find(index, data: bytes):
    """The anchor search as one combined regex per kind (the definition ``AnchorIndex.find`` must match)."""
    out = []
    relevant = {i: rs for i in set(re.findall(rb"[A-Za-z_]\w*", data)) if (rs := index.word_rules(i))}
    if relevant:
        rx = re.compile(rb"\b(?:" + b"|".join(re.escape(i) for i in sorted(relevant, key=len, reverse=True)) + rb")\b")
        out += [(m.start(), m.end(), relevant[m.group()]) for m in rx.finditer(data)]
    texts = {bytes(p.pattern) for _r, p in index._text_rules}
    inc = rb"#[ \t]*include"
    texts = {t for t in texts if not t.startswith(inc)} | {rb'#[ \t]*include[ \t]*[<"][\w./+-]*'}
    combined = re.compile(b"|".join(b"(?:" + t + b")" for t in sorted(texts, key=len, reverse=True)))
    for m in combined.finditer(data):
        rs = index.text_rules(m.group())
        if rs:
            out.append((m.start(), m.end(), rs))
    out.sort(key=lambda t: t[0])
    unmet = {r for r in index.rules if getattr(r.module, "REQUIRES", None) and not any(n in data for n in r.module.REQUIRES)}
    return [(s, e, tuple(r for r in rs if r not in unmet)) for s, e, rs in out if set(rs) - unmet]


def test_anchor_index_matches_the_combined_regex_definition():
    index = anchor_index()
    files = [REPO / "tests" / "data" / "realistic" / "realistic.cu", *sorted(DETECTOR.rglob("*.cu*"))]
    extra = b"thrust::cuda::memcpy_async(x); cub :: WarpReduce<int> r; int l = t & 31; y = 1u << l; x.major;"
    for data in [p.read_bytes() for p in files if p.exists()] + [extra, extra + b" __device__ while"]:
        assert index.find(data) == _old_find(index, data)


_FRAGMENTS = st.sampled_from([
    "__global__ ", "__device__", "threadIdx.x", " blockIdx", "warpSize", "asm", "cudaMalloc(", "cuLaunch",
    "CU_EVENT", "CUB", "<<<", ">>>", "// c ", "/* ", " */", '"', "'", "\n", " ", "x", "_", "9", "é", "a__shfl_x",
    "__syncthreads()", "cudaX", "cu", "Mx", ";", "\\", "ab",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=40))
def test_share_token_path_equals_the_blanked_text_regex(parts):
    text = "".join(parts)
    expected = _construct_lines_unicode(text)
    assert _construct_lines(text) == expected
    if text.isascii():
        from hipgauge.source.tokens import FileTokens

        data = text.encode()
        assert _construct_lines(text, data, FileTokens(data)) == expected
