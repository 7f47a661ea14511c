"""translate's speed paths give the same answer as the slow ones: the lexical pre-check (files with no CUDA
name are copied without parsing), candidate-only tree lookups vs a full visit, process pool vs one process;
and the translation share is scan's (rules.share) with translate's own count beside it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hipgauge.source.parse import parse_bytes
from hipgauge.translate.candidates import find_candidates
from hipgauge.knowledge.mapping import load_mapping
from hipgauge.app.translate import translate_tree
from hipgauge.translate.rewrite import TranslateOptions, FileRewriter

DATA = Path(__file__).parent / "data"
EXAMPLE = Path(__file__).parent.parent / "examples" / "detector"

PLAIN = b"""// a host-only helper: no CUDA name anywhere (cudaMalloc in a comment does not count?)
#include <vector>
#include "local.h"\r
namespace util {
template <typename T> T clamp_to(T v, T lo, T hi) { return v < lo ? lo : (v > hi ? hi : v); }
}  // namespace util
const char* kName = "plain";
"""


def test_precheck_finds_nothing_in_plain_code() -> None:
    cands = find_candidates(PLAIN.replace(b"cudaMalloc", b"malloc"))
    assert not cands.needs_tree
    assert find_candidates(b"cudaStream_t s;\n").needs_tree
    assert find_candidates(b"using namespace cub;\n").needs_tree  # cub:: may follow elsewhere
    assert find_candidates(b"k<<<1, 1>>>();\n").needs_tree
    assert find_candidates(b'#include "cuda_runtime.h"\n').needs_tree
    assert not find_candidates("int caf\u00e9 = 1;\n".encode()).exact_only  # non-ASCII: full visit


def test_file_without_cuda_names_is_copied_byte_identically(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    data = PLAIN.replace(b"cudaMalloc", b"malloc")
    (src / "plain.cpp").write_bytes(data)
    (src / "plain.h").write_bytes(b"#pragma once\nint f(int);")  # no final newline
    res = translate_tree(src, tmp_path / "out", TranslateOptions(rules_share=False))
    assert (tmp_path / "out" / "plain.cpp").read_bytes() == data
    assert (tmp_path / "out" / "plain.h").read_bytes() == b"#pragma once\nint f(int);"
    rows = {f["file"]: f for f in res.files}
    assert rows["plain.cpp"]["lines"] == data.count(b"\n")
    assert rows["plain.h"]["lines"] == 2
    for row in rows.values():
        assert (row["changed"], row["cuda_lines"], row["converted"], row["unconverted"]) == (False, 0, 0, 0)


def _full_visit(pf, opts):
    rw = FileRewriter(pf, load_mapping(), opts)
    rw._run_full()
    return rw.result()


def _candidate_visit(pf, opts):
    rw = FileRewriter(pf, load_mapping(), opts)
    rw.run()
    return rw.result()


SOURCES = sorted(p for p in [*DATA.rglob("*"), *EXAMPLE.rglob("*")]
                 if p.suffix in (".cu", ".cuh", ".cpp", ".h", ".hpp") and p.is_file())


@pytest.mark.parametrize("launch", ["chevron", "hipLaunchKernelGGL"])
def test_candidate_lookups_match_a_full_visit(launch: str) -> None:
    opts = TranslateOptions(launch_style=launch)
    checked = 0
    for path in SOURCES:
        data = path.read_bytes()
        if b"\x00" in data[:8192]:
            continue
        a = _full_visit(parse_bytes(data, path.name), opts)
        b = _candidate_visit(parse_bytes(data, path.name), opts)
        assert b.text == a.text, path
        assert b.references == a.references, path
        assert b.stats == a.stats, path
        assert b.safe_rewrites == a.safe_rewrites, path
        checked += 1
    assert checked >= 10


def _tree_digest(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_pool_and_serial_give_identical_trees(tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("*.json", "*.csv", "*.nsys-rep", "*.sqlite"))
    for i, p in enumerate(sorted(DATA.joinpath("translate").iterdir())):
        shutil.copy(p, src / f"t{i}_{p.name}")
    (src / "plain.cpp").write_bytes(PLAIN)
    results = {}
    for workers in (1, 2):
        out = tmp_path / f"out{workers}"
        res = translate_tree(src, out, TranslateOptions(workers=workers))
        results[workers] = (res, _tree_digest(out))
    (r1, t1), (r2, t2) = results[1], results[2]
    assert len(r1.files) >= 8  # enough files for the pool to run
    assert t1 == t2
    d1, d2 = r1.to_dict(), r2.to_dict()
    for d in (d1, d2):
        d.pop("output")
    assert d1 == d2


def test_share_is_scans_definition_beside_translates_count(tmp_path: Path) -> None:
    from hipgauge.rules.share import overall_share
    from hipgauge.app.scan import ScanOptions, scan_tree

    res = translate_tree(EXAMPLE, tmp_path / "out")
    s = res.totals()
    scan = scan_tree([EXAMPLE], ScanOptions())
    assert s["translation_share"] == round(overall_share(scan.file_stats), 4)
    assert "rules.share" in s["translation_share_basis"]
    assert s["references_converted_share"] == round(s["converted"] / (s["converted"] + s["unconverted"]), 4)
    assert 0 <= s["rewrite_share"] <= 1
    fast = translate_tree(EXAMPLE, tmp_path / "out2", TranslateOptions(rules_share=False)).totals()
    assert fast["translation_share"] == fast["rewrite_share"] == s["rewrite_share"]
    assert "not computed" in fast["translation_share_basis"]


def test_share_matches_scan_on_kernels_declared_through_qualifier_macros(tmp_path: Path) -> None:
    """A tree whose kernels are declared through macros of another file: scan's tree-wide qualifier macros
    reach translate's share too, so the two report the same figure."""
    from hipgauge.rules.share import overall_share
    from hipgauge.app.scan import ScanOptions, scan_tree

    tree = Path(__file__).resolve().parent / "data" / "rules" / "qualmacros"
    share = translate_tree(tree, tmp_path / "out").totals()["translation_share"]
    assert share == round(overall_share(scan_tree([tree], ScanOptions()).file_stats), 4)
    assert share < 1.0  # the macro-declared kernel's 32-lane code is found by both
