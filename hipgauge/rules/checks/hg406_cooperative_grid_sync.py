"""HG406: cooperative (grid-wide sync) launches sized for NVIDIA occupancy.

What it does
------------
Flags `cudaLaunchCooperativeKernel*`, `this_grid()` and `grid_group`.

Why is this bad?
----------------
A grid sync needs every block resident at once. CU count, wave64 and the 64 KiB LDS change how many
blocks fit, so a grid sized for an NVIDIA GPU fails with `hipErrorCooperativeLaunchTooLarge`; multi-
grid groups are deprecated since ROCm 5.0.

Example
-------
```cuda
namespace cg = cooperative_groups;
__global__ void k(float* x) {
    cg::this_grid().sync();
}
```

Use instead
-----------
```cuda
__global__ void k(float* x) {
    __syncthreads();
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import usage, words
from hipgauge.rules.hit import MEDIUM
from hipgauge.rules.spec import RuleMeta

CODE = "HG406"
RULE = RuleMeta(
    title="Cooperative grid-sync launches",
    category="occupancy",
    severity="blocker",
    message="grid-wide sync needs a grid that fits the AMD GPU at once",
    fix="Size the grid with hipOccupancyMaxActiveBlocksPerMultiprocessor x CU count; avoid multi-grid sync.",
    effort=(1, 4),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_runtime_api/cooperative_groups.html#synchronization",
    ),
)
NODE = None
ANCHOR = words(r"cudaLaunchCooperativeKernel\w*", "this_grid", "grid_group")


def check(node, ctx):
    return usage(node, ctx, MEDIUM, "size the grid with hipOccupancyMaxActiveBlocksPerMultiprocessor")
