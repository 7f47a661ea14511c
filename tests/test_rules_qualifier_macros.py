"""Device-only rules and the enclosing kernel follow the inventory: code declared through qualifier macros
(``#define KERN __global__`` in a header of the tree) is device code (issue 3)."""

from __future__ import annotations

from pathlib import Path

from hipgauge.rules.engine import check_file
from hipgauge.source.inventory import inventory_file
from hipgauge.source.parse import parse_bytes
from hipgauge.app.scan import ScanOptions, scan_tree

DATA = Path(__file__).parent / "data"
TREE = DATA / "rules" / "qualmacros"
REALISTIC = DATA / "realistic" / "realistic.cu"


def found(findings):
    return {(f.code, f.line, f.kernel) for f in findings if f.code in ("HG101", "HG103")}


def test_a_tree_with_the_macro_header_gets_device_only_rules_and_kernel_names():
    res = scan_tree([TREE], ScanOptions(workers=1))
    assert [k.name for k in res.kernels] == ["reduce_rows"]
    assert found(res.findings) == {
        ("HG103", 6, "warp_sum"),  # the DEV function
        ("HG101", 11, "reduce_rows"),  # `threadIdx.x & 31` in the KERN function: device code only through the macro
        ("HG103", 13, "reduce_rows"),
    }
    # the host function's `i & 31` is not device code
    assert not [f for f in res.findings if f.line == 19]


def test_the_file_alone_behaves_as_without_the_header():
    pf = parse_bytes((TREE / "warp.cu").read_bytes(), "warp.cu", "cuda")
    alone = check_file(pf, inventory_file(pf))
    assert not inventory_file(pf).kernels
    assert found(alone) == {("HG103", 6, "warp_sum"), ("HG103", 13, "reduce_rows")}  # no HG101: no device code seen
    pf = parse_bytes((TREE / "warp.cu").read_bytes(), "warp.cu", "cuda")
    assert check_file(pf, None) == alone


def test_the_inventory_leaves_literal_qualifier_files_as_they_were():
    data = REALISTIC.read_bytes()
    plain = check_file(parse_bytes(data, "realistic.cu", "cuda"), None)
    pf = parse_bytes(data, "realistic.cu", "cuda")
    assert check_file(pf, inventory_file(pf)) == plain
