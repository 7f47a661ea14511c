"""HG203: Hopper warpgroup MMA (`wgmma`).

What it does
------------
Flags `wgmma.*` in inline PTX and CUTLASS/CuTe warpgroup names (`warpgroup_arrive`, `SM90_*GMMA*`,
`GMMA::`).

Why is this bad?
----------------
wgmma is a Hopper-only instruction issued by a four-warp warpgroup; AMD has neither the instruction
nor the execution model, so the kernel must be re-implemented around MFMA.

Example
-------
```cuda
__device__ void fence() {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
```

Use instead
-----------
```cuda
__device__ void fence() {
    __syncthreads();
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import ASM, any_of, asm_hit, usage, words
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import ancestor

CODE = "HG203"
RULE = RuleMeta(
    title="Hopper warpgroup MMA (wgmma)",
    category="tensor-core",
    severity="blocker",
    message="Hopper wgmma has no AMD equivalent",
    fix="Re-implement around MFMA (Composable Kernel / ck_tile, hipBLASLt, Triton).",
    effort=(24, 80),
    rubric=("vendor-precision",),
    sources=(
        "https://github.com/ROCm/HIPIFY/issues/731",
        "https://rocm.docs.amd.com/projects/composable_kernel/en/docs-5.7.1/",
    ),
)
NODE = None
ANCHOR = any_of(ASM, words("warpgroup_arrive", "warpgroup_wait", "warpgroup_commit_batch", r"SM90_\w*GMMA\w*", "GMMA"))
SUPERSEDES = ("HG301",)
_PTX = re.compile(r"\bwgmma\.[\w.]+")


def check(node, ctx):
    if node.type in ("asm", "__asm__", "__asm") or ancestor(node, "gnu_asm_expression", limit=2) is not None:
        return asm_hit(node, _PTX)
    return usage(node, ctx)
