"""Kernels and device functions declared through qualifier macros defined in another file of the tree."""

from __future__ import annotations

from pathlib import Path

from hipgauge.source.defined import macro_bodies, qualifier_macros
from hipgauge.source.inventory import inventory_file
from hipgauge.source.parse import parse_bytes
from hipgauge.app.scan import ScanOptions, local_map, scan_tree, serial_map, tree_qualifier_macros
from hipgauge.source.tokens import IDENT_RE, identifiers
from hipgauge.source.walk import walk_tree

DATA = Path(__file__).parent / "data" / "source" / "qualmacros"


def test_qualifier_macros_follow_indirection_and_function_like_forms():
    table = qualifier_macros(macro_bodies((DATA / "include" / "attrs.h").read_bytes()))
    assert table["LIB_KERNEL_ATTRIBUTES"].qualifiers == ("__global__",)  # two levels deep
    assert table["MY_HOST_DEVICE"].qualifiers == ("__device__", "__host__")  # the #else branch adds nothing
    assert table["MY_INLINE_DEVICE"].qualifiers == ("__device__", "__forceinline__")
    assert table["MY_BOUNDS"].params == ("n",) and table["MY_BOUNDS"].launch_bounds == ("n",)
    assert "NOT_A_QUALIFIER" not in table


def test_kernels_declared_with_macros_from_a_header_are_found():
    res = scan_tree([DATA], ScanOptions())
    kernels = {k.name: k for k in res.kernels}
    assert set(kernels) == {"scale_kernel", "bounded_kernel"}  # not the one in a comment
    assert kernels["scale_kernel"].launch_bounds == ["BlockThreads"]
    assert kernels["scale_kernel"].template_params == ["int BlockThreads"]
    assert kernels["bounded_kernel"].launch_bounds == ["256", "2"]
    devs = {d.name: d.qualifiers for d in res.device_functions}
    assert devs == {"square": ["__device__", "__forceinline__"], "clamp_index": ["__device__", "__host__"]}
    assert {(s.kernel, s.line) for s in res.launch_sites} == {("scale_kernel", 24), ("bounded_kernel", 25)}


def test_without_the_tree_macros_a_lone_file_finds_no_macro_kernels():
    pf = parse_bytes((DATA / "kernels.cu").read_bytes(), "kernels.cu", "cuda")
    assert inventory_file(pf).kernels == []
    entries, _ = walk_tree([DATA], [], 1 << 20)
    pf = parse_bytes((DATA / "kernels.cu").read_bytes(), "kernels.cu", "cuda")
    names = [k.name for k in inventory_file(pf, None, frozenset(), tree_qualifier_macros(entries)).kernels]
    assert names == ["scale_kernel", "bounded_kernel"]


def test_every_executor_gives_the_same_kernels(tmp_path):
    for i in range(10):  # enough files for a pool
        (tmp_path / f"k{i}.cu").write_text(f'#include "attrs.h"\nLIB_KERNEL_ATTRIBUTES void k{i}(int* p) {{ *p = {i}; }}\n')
    (tmp_path / "attrs.h").write_bytes((DATA / "include" / "attrs.h").read_bytes())
    serial = scan_tree([tmp_path], ScanOptions(workers=2), map_files=serial_map)
    pooled = scan_tree([tmp_path], ScanOptions(workers=2), map_files=local_map(2))
    assert [k.name for k in serial.kernels] == [f"k{i}" for i in range(10)]
    assert serial.kernels == pooled.kernels and serial.device_functions == pooled.device_functions


def test_identifiers_match_the_regex():
    data = b"int x1 = 1ull + 0x1F; foo_bar(_baz, 9lives) // caf\xc3\xa9 __global__\n"
    assert identifiers(data) == frozenset(IDENT_RE.findall(data))
