"""HG202: inline-PTX tensor-core instructions (`mma.sync`, `ldmatrix`, `stmatrix`, `movmatrix`).

What it does
------------
Flags `asm` statements whose PTX text uses warp-level matrix instructions.

Why is this bad?
----------------
There is no PTX on AMD, and MFMA matrix instructions have other shapes and per-lane fragment layouts
on a 64-lane wave: the fragment index math around these instructions has to be rewritten, not
translated.

Example
-------
```cuda
__device__ void mma(unsigned* d, const unsigned* a, const unsigned* b) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1}, {%2}, {%3}, {%0,%1};"
                 : "+r"(d[0]), "+r"(d[1]) : "r"(a[0]), "r"(b[0]));
}
```

Use instead
-----------
```cuda
__device__ void add(unsigned* d, unsigned a) {
    *d += a;
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import ASM, asm_hit
from hipgauge.rules.spec import RuleMeta

CODE = "HG202"
RULE = RuleMeta(
    title="Inline-PTX tensor-core instructions",
    category="tensor-core",
    severity="blocker",
    message="inline PTX tensor-core instruction (mma.sync/ldmatrix) needs a rewrite",
    fix="Rewrite with __builtin_amdgcn_mfma_*, rocWMMA, Composable Kernel or a library GEMM (hipBLASLt).",
    effort=(16, 40),
    rubric=("vendor-precision",),
    sources=(
        "https://github.com/ROCm/HIPIFY/issues/731",
        "https://rocm.docs.amd.com/projects/rocWMMA/en/latest/what-is-rocwmma.html",
    ),
)
NODE = "gnu_asm_expression"
ANCHOR = ASM
SUPERSEDES = ("HG301",)
_PTX = re.compile(r"\b(?:mma\.sync|ldmatrix|stmatrix|movmatrix|wmma\.)[\w.]*")


def check(node, ctx):
    return asm_hit(node, _PTX)
