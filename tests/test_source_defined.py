"""Names the tree defines itself (``CUDA_CHECK``…) are not CUDA API uses; the shared identifier index."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import REPO
from hipgauge.rules.registry import anchor_index
from hipgauge.source.defined import LIBRARY_STARTS, defined_in, tree_defined_names
from hipgauge.report.scan_json import scan_document
from hipgauge.app.scan import ScanOptions, local_map, scan_tree, serial_map
from hipgauge.source.tokens import FileTokens
from hipgauge.source.walk import walk_tree
from hipgauge.knowledge.mapping import load_mapping

DETECTOR = REPO / "examples" / "detector"
USER_MACROS = {"CUDA_CHECK", "CUDNN_CHECK", "CUBLAS_CHECK", "KERNEL_CHECK"}


def test_defined_in_finds_macros_and_function_definitions():
    src = b"""
#define CUDA_CHECK(call) do { (call); } while (0)
  #  define CUBLAS_CHECK(x) x
x = 1; #define CUDA_NOT_AT_LINE_START 1
static inline void cudaCheckLast(const char* where) {
}
cudaError_t cuHelper(int a, int (*f)(int)) const noexcept {
}
template <typename T> T* nvAlloc(size_t n) { return nullptr; }
"""
    assert defined_in(src) == {"CUDA_CHECK", "CUBLAS_CHECK", "cudaCheckLast", "cuHelper", "nvAlloc"}


def test_defined_in_ignores_calls_prototypes_and_conversions():
    src = b"""
void f() {
    if (cudaMalloc(&p, n)) { }
    return cudaFree(p);
    x = cudaMemcpy(a, b, n, k);
}
void cudaHelper(int);
struct S { operator cudaStream_t() const { return s; } };
void execute(int x) { }
int mycudaThing(int) { return 0; }
"""
    assert defined_in(src) == set()


def test_library_starts_cover_every_prefix_rule_and_library_rule():
    mapping = load_mapping()
    for rule in mapping.prefixes:
        if not rule.prefix.endswith("::"):
            assert rule.prefix[:2] in LIBRARY_STARTS, rule.prefix
    # every identifier a library rule's anchor matches in its own Example starts like that too
    index = anchor_index()
    for r in index.rules:
        if r.category != "library":
            continue
        for _lang, code in r.doc.code_blocks(r.doc.example):
            for ident in set(re.findall(r"[A-Za-z_]\w*", code)):
                if r in index.word_rules(ident.encode()):
                    assert ident[:2] in LIBRARY_STARTS, (r.code, ident)


def test_tree_defined_names_on_the_detector_example():
    entries, _ = walk_tree([DETECTOR], [], 8 << 20)
    mapping = load_mapping()
    names = tree_defined_names(entries, lambda n: n not in mapping.entries)
    assert {"CUDA_CHECK", "CUDNN_CHECK", "CUBLAS_CHECK"} <= names


@pytest.fixture(scope="module")
def detector_doc() -> dict:
    if not DETECTOR.exists():
        pytest.skip("examples/detector is not here")
    return scan_document(scan_tree([DETECTOR], ScanOptions()))


def test_user_macros_are_not_api_references(detector_doc):
    names = {a["cuda_name"] for a in detector_doc["api_calls"]}
    assert not names & USER_MACROS
    for f in detector_doc["findings"]:
        assert not any(f"`{m}`" in f["message"] for m in USER_MACROS), f
    # the cuDNN calls inside CUDNN_CHECK(...) are what count now
    lines = {(a["file"], a["line"]) for a in detector_doc["api_calls"] if a["cuda_name"] == "cudnnConvolutionForward"}
    assert ("src/heads.cu", 48) in lines
    assert detector_doc["summary"]["library_mix"]["runtime"]["unmapped"] == 0


def test_exact_names_still_count_when_the_tree_defines_them(tmp_path: Path):
    (tmp_path / "shim.h").write_text("#define cudaMalloc myMalloc\n#define CUDA_WRAP(x) x\n")
    (tmp_path / "a.cu").write_text('#include "shim.h"\nvoid f(void** p) { CUDA_WRAP(cudaMalloc(p, 4)); }\n')
    doc = scan_document(scan_tree([tmp_path], ScanOptions()))
    names = [a["cuda_name"] for a in doc["api_calls"] if a["file"] == "a.cu"]
    assert "cudaMalloc" in names and "CUDA_WRAP" not in names


def test_every_executor_sees_the_tree_defined_names(tmp_path: Path):
    (tmp_path / "check.h").write_text("#define CUDNN_CHECK(x) (x)\n#define CUDA_CHECK(x) (x)\n")
    for i in range(10):  # enough files for chunks and a real pool
        (tmp_path / f"k{i}.cu").write_text(
            '#include "check.h"\n#include <cudnn.h>\n'
            "void f(cudnnHandle_t* h, float** p) {\n"
            "    CUDNN_CHECK(cudnnCreate(h));\n    CUDA_CHECK(cudaMalloc((void**)p, 16));\n}\n")
    serial = scan_document(scan_tree([tmp_path], ScanOptions(), map_files=serial_map))
    pooled = scan_document(scan_tree([tmp_path], ScanOptions(workers=2), map_files=local_map(2)))
    assert serial == pooled
    names = {a["cuda_name"] for a in serial["api_calls"]}
    assert {"cudnnCreate", "cudaMalloc"} <= names and not names & USER_MACROS
    hg601 = [f for f in serial["findings"] if f["code"] == "HG601" and f["file"] == "k0.cu"]
    assert [(f["line"], "cudnnCreate" in f["message"]) for f in hg601] == [(2, False), (4, True)]
    pytest.importorskip("distributed")
    from hipgauge.source.dask_executor import make_map

    assert scan_document(scan_tree([tmp_path], ScanOptions(), map_files=make_map(None, 2, processes=False))) == serial


def test_file_tokens_whole_words_in_order():
    data = b"cudaMalloc(x); mycudaMalloc(); cudaMalloc_v2; a.cudaMalloc /* cudaMalloc */ 9cudaMalloc"
    ft = FileTokens(data)
    assert b"cudaMalloc" in ft.idents and b"mycudaMalloc" in ft.idents
    assert ft.positions(b"cudaMalloc") == [m.start() for m in re.finditer(rb"\bcudaMalloc\b", data)]
    assert ft.positions(b"absent") == []
    occ = ft.occurrences([b"mycudaMalloc", b"cudaMalloc"])
    assert [p for p, _ in occ] == sorted(p for p, _ in occ)


def test_a_file_without_cuda_content_is_never_parsed(tmp_path: Path):
    """Nothing in it for the inventory or a rule (a while loop and a shift are device-only anchors): no parse."""
    from hipgauge.rules.engine import check_file
    from hipgauge.rules.share import file_stats
    from hipgauge.source.inventory import inventory_file
    from hipgauge.source.parse import load_file
    from hipgauge.source.walk import SourceEntry

    f = tmp_path / "plain.cpp"
    f.write_text("#include <vector>\nint f(int n) { int s = 0; while (n--) s += 1 << n; return s; }\n")
    pf = load_file(SourceEntry(f, "plain.cpp", "cpp", f.stat().st_size))
    inv = inventory_file(pf)
    findings = check_file(pf, inv)
    stats = file_stats(pf, inv.api_calls, findings)
    assert not pf.parsed and findings == [] and stats.lines == 2 and stats.cuda_lines == 0
    g = tmp_path / "dev.cu"
    g.write_text("__global__ void k(int* p) { p[0] = 1; }\n")
    pf = load_file(SourceEntry(g, "dev.cu", "cuda", g.stat().st_size))
    assert len(inventory_file(pf).kernels) == 1 and pf.parsed
