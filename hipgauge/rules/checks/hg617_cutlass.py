"""HG617: CUTLASS / CuTe based kernels.

What it does
------------
Flags CUTLASS/CuTe includes and the `cutlass::` / `cute::` namespaces.

Why is this bad?
----------------
CUTLASS and CuTe are NVIDIA-architecture template libraries (SM80/SM90 atoms, TMA, wgmma) with no
HIPIFY support; FlashAttention's ROCm backend was rewritten on Composable Kernel rather than ported.
Budget a rewrite on CK/ck_tile, hipBLASLt or Triton.

Example
-------
```cuda
#include <cutlass/gemm/device/gemm.h>
using Gemm = cutlass::gemm::device::Gemm<float, cutlass::layout::RowMajor, float, cutlass::layout::RowMajor, float, cutlass::layout::RowMajor>;
```

Use instead
-----------
```cuda
#include <hipblaslt/hipblaslt.h>
using Handle = hipblasLtHandle_t;
```
"""

from __future__ import annotations

from hipgauge.rules.syntax import parent as parent_of

from hipgauge.rules.checks._common import any_of, include, named_usage, words
from hipgauge.rules.hit import HIGH
from hipgauge.rules.spec import RuleMeta

CODE = "HG617"
RULE = RuleMeta(
    title="CUTLASS / CuTe kernels",
    category="library",
    severity="blocker",
    message="CUTLASS/CuTe kernel: rewrite on Composable Kernel, hipBLASLt or Triton",
    fix="Use Composable Kernel (ck/ck_tile), hipBLASLt or Triton; budget a rewrite.",
    effort=(16, 80),
    rubric=("exotic-library",),
    sources=(
        "https://github.com/Dao-AILab/flash-attention/pull/1010",
    ),
)
NODE = None
ANCHOR = any_of(include("cutlass/", "cute/"), words("cutlass", "cute"))


def check(node, ctx):
    if node.type == "identifier" and (parent_of(node) is None or parent_of(node).type not in ("using_declaration", "qualified_identifier")):
        return []
    return named_usage(node, ctx, HIGH)
