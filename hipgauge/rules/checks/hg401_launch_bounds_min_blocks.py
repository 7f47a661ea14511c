"""HG401: `__launch_bounds__(maxThreads, minBlocksPerSM)` second argument.

What it does
------------
Flags `__launch_bounds__` with a second argument other than a literal 1 (one block per SM, or one wave per EU:
no constraint either way). A second argument computed from names this file does not define (a call
`get_occupancy(type, J)`, a macro from another header `MAX_THREADS_PER_SM / 1024`) is reported with low
confidence: such values are often per vendor (ggml reads its AMD tables under `GGML_USE_HIP`, bitsandbytes defines
its threads-per-CU under `BNB_HIP`), which the rule cannot see; it is listed for review, not costed.

Why is this bad?
----------------
HIP reads the second argument as a minimum number of waves per execution unit (lowered to
`amdgpu_waves_per_eu`), not CUDA's minimum blocks per SM. The value tuned for an NVIDIA SM passes
through unchanged and over- or under-constrains registers: spills or no effect.

Example
-------
```cuda
__global__ void __launch_bounds__(256, 2) k(float* x) {
    x[threadIdx.x] = 0.f;
}
```

Use instead
-----------
```cuda
__global__ void __launch_bounds__(256) k(float* x) {
    x[threadIdx.x] = 0.f;
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import words
from hipgauge.rules.hit import HIGH, LOW, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import text

CODE = "HG401"
RULE = RuleMeta(
    title="__launch_bounds__ second argument",
    category="occupancy",
    severity="slow",
    message="__launch_bounds__ minBlocksPerSM means waves per EU on HIP",
    fix="Recompute per target (waves/SIMD = ceil(minBlocks*ceil(maxThreads/64)/4) on CDNA) or drop it and set "
        "amdgpu_waves_per_eu.",
    effort=(0.5, 2),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#launch-bounds",
        "https://github.com/ROCm/hip/issues/2521",
    ),
)
NODE = "launch_bounds"
ANCHOR = words("__launch_bounds__")


def check(node, ctx):
    args = [c for c in node.named_children if c.type != "comment"]
    if len(args) < 2 or text(args[1]).strip().rstrip("uU") == "1":
        return []  # at least one block per SM / one wave per EU: no constraint on either vendor
    if ctx.fold(args[1]) is None and re.search(r"[A-Za-z_]", text(args[1])):
        return [Hit(node, LOW, f"minBlocksPerSM = `{text(args[1])}` is computed: check the value the HIP build gets "
                               "(waves per EU there)")]
    return [Hit(node, HIGH, f"minBlocksPerSM = `{text(args[1])}`")]
