"""HG403 and HG705 follow the inventory's kernels and device-code spans: kernels, launch bounds and device symbols
declared through qualifier macros of a header (``#define KERN __global__``) count when the tree is scanned."""

from __future__ import annotations

from pathlib import Path

from hipgauge.rules.engine import check_file
from hipgauge.source.inventory import inventory_file
from hipgauge.source.parse import parse_bytes
from hipgauge.app.scan import ScanOptions, scan_tree

DATA = Path(__file__).parent / "data"
TREE = DATA / "rules" / "qualbounds"
REALISTIC = DATA / "realistic" / "realistic.cu"


def codes(findings, *wanted):
    return {(f.code, Path(f.file).name, f.line, f.kernel) for f in findings if f.code in wanted}


def test_a_macro_declared_heavy_kernel_without_bounds_fires_hg403_in_a_tree_scan():
    res = scan_tree([TREE], ScanOptions(workers=1))
    assert sorted(k.name for k in res.kernels) == ["scale", "stage", "tile_bounded", "tile_kernel"]
    assert codes(res.findings, "HG403") == {("HG403", "heavy.cu", 4, "tile_kernel")}


def test_bounds_brought_by_a_macro_silence_hg403():
    res = scan_tree([TREE], ScanOptions(workers=1))
    assert [k.launch_bounds for k in res.kernels if k.name == "tile_bounded"] == [["128"]]
    assert not [f for f in res.findings if f.code == "HG403" and Path(f.file).name == "bounded.cu"]


def test_an_extern_device_symbol_declared_through_a_macro_fires_hg705():
    res = scan_tree([TREE], ScanOptions(workers=1))
    assert codes(res.findings, "HG705") == {("HG705", "extern_dev.cu", 4, None)}  # not the host-only extern (line 5) nor `extern __shared__` (line 17)


def test_files_alone_behave_as_without_an_inventory():
    for name in ("heavy.cu", "bounded.cu", "extern_dev.cu"):
        data = (TREE / name).read_bytes()
        pf = parse_bytes(data, name, "cuda")
        alone = check_file(pf, inventory_file(pf))
        assert not codes(alone, "HG403", "HG705")  # no header: no kernel, no device symbol seen
        assert alone == check_file(parse_bytes(data, name, "cuda"), None)


def test_literal_kernels_keep_their_hg403_and_hg705_results_with_an_inventory():
    src = (b'#define DEV __device__\nextern __device__ int counter;\n'
           b'__global__ void k(float* c) { float acc[64];\n#pragma unroll\n'
           b'  for (int i = 0; i < 64; ++i) acc[i] = c[i];\n  c[threadIdx.x] = acc[threadIdx.x % 64] + counter; }\n'
           b'void run(float* c) { k<<<1, 256>>>(c); }\n')
    plain = check_file(parse_bytes(src, "k.cu", "cuda"), None)
    assert {f.code for f in plain} >= {"HG403", "HG705"}
    pf = parse_bytes(src, "k.cu", "cuda")
    assert check_file(pf, inventory_file(pf)) == plain


def test_realistic_results_do_not_change_with_the_inventory():
    data = REALISTIC.read_bytes()
    plain = check_file(parse_bytes(data, "realistic.cu", "cuda"), None)
    pf = parse_bytes(data, "realistic.cu", "cuda")
    assert check_file(pf, inventory_file(pf)) == plain
