"""Fuzz ``#define`` constants with trailing comments, strings and continuation lines (issue 15).

A ``__shared__`` array sized by such a macro once made the whole file fail (a ``str`` replacement on a
bytes regex) and the file was skipped with exit 0. Invariant: the file is analysed (never skipped, no hidden
internal error), and where the body is a plain integer the array size folds to it.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from test_fuzz_support import fuzz_settings

from hipgauge.knowledge.mapping import load_mapping
from hipgauge.rules.engine import check_file
from hipgauge.source.inventory import inventory_file
from hipgauge.source.macros import file_constants, find_macros, fold_int
from hipgauge.source.parse import parse_bytes

TRAILERS = st.sampled_from([
    "", " // rows per tile", " /* rows */", " /* a\n  b */", ' // "quoted"', " // it's", " /* // */",
    " // trailing \\", "\t//", " /**/",
])
BODIES = st.sampled_from(["8", "(8)", "4 * 2", "0x8", "8u", "(2 << 2)", "\\\n  8", "8 \\\n", "16 / 2"])
EXTRA = st.sampled_from([
    "", '#define NAME "a // b"\n', "#define S 'x'\n", "#define CONT(a) \\\n  ((a) + 1) \\\n  // c\n",
    '#define MSG "line \\\n continued"\n', "#define EMPTY\n", "#define WIN \\\r\n 8\r\n",
])


@fuzz_settings(120)
@given(BODIES, TRAILERS, EXTRA, st.booleans())
def test_macro_sized_shared_array_is_analysed(body: str, trailer: str, extra: str, crlf: bool) -> None:
    spliced = "// continued comment line\n" if trailer.endswith("\\") else ""  # a // comment ending in \ goes on
    src = (f"{extra}#define ROWS {body}{trailer}\n{spliced}"
           "__global__ void k(float* out) {\n  __shared__ float tile[ROWS][ROWS + 1];\n"
           "  out[threadIdx.x] = tile[threadIdx.x % ROWS][0];\n}\n")
    if crlf:
        src = src.replace("\n", "\r\n")
    data = src.encode()
    consts = file_constants(data, find_macros(data))  # raised TypeError before the fix
    pf = parse_bytes(data, "f.cu", "cuda")
    inv = inventory_file(pf, load_mapping())
    check_file(pf, inv)
    assert [k.name for k in inv.kernels] == ["k"]
    if "ROWS" in consts:
        value = fold_int("ROWS", consts)
        if value is not None:
            assert value == 8
            assert inv.kernels[0].static_smem_bytes == 8 * 9 * 4


def test_trailing_comment_folds() -> None:
    data = b"#define ROWS 8 // rows per tile\n#define COLS (ROWS * 2) /* cols */\n"
    consts = file_constants(data, find_macros(data))
    assert consts["ROWS"] == "8"
    assert fold_int("COLS", consts) == 16


DIRECTIVES = st.sampled_from([
    "#if defined(__HIP_PLATFORM_AMD__)", "#ifdef __HIPCC__", "#ifndef BNB_HIP", "#elif __CUDA_ARCH__ >= 800", "#else",
    "#endif", "#if 0", "#if (1 << 70) / 0", "#if defined(", "#elif", "#define BNB_HIP 1", "#undef BNB_HIP",
    "#if X ? Y : Z", "#if __has_include(<hip/hip_runtime.h>)", "#if !defined(GGML_USE_HIP) || defined(A) && B", "code();",
    "#if 1 \\", "  && defined(__HIP__)", "// #if", "/* #endif */", "#   elif defined GGML_USE_HIP", "\x00", "#if ((((",
])


@fuzz_settings(150)
@given(st.lists(DIRECTIVES, max_size=30))
def test_build_visibility_of_any_directive_soup(lines: list[str]) -> None:
    """Unbalanced, malformed or odd directives: a class for every line, never an exception."""
    from hipgauge.source.conditions import (
        BOTH,
        CUDA_ONLY,
        HIP_ONLY,
        NEITHER,
        Defines,
        visibility,
    )

    data = "\n".join(lines).encode()
    vis = visibility(data, Defines.standard({"GGML_USE_HIP": "hip"}))
    assert len(vis.where) == data.count(b"\n") + 1
    assert set(vis.where) <= {BOTH, CUDA_ONLY, HIP_ONLY, NEITHER}
