"""HG803: CUDA graph conditional nodes and other unsupported graph features.

What it does
------------
Flags `cudaGraphConditionalHandleCreate`, `cudaGraphCondType*`, `cudaGraphSetConditional`,
`cudaGraphAddNode*` and `cudaGraphInstantiateFlagDeviceLaunch`.

Why is this bad?
----------------
HIPIFY maps most of the graph API but not conditional handles or device-launched graphs; HIP 7.0
also restricts some APIs during capture. Conditionals must be unrolled on the host or captured per
branch.

Example
-------
```cuda
void g(cudaGraph_t graph, cudaGraphConditionalHandle* h) {
    cudaGraphConditionalHandleCreate(h, graph, 0, 0);
}
```

Use instead
-----------
```cuda
void g(cudaGraph_t graph, cudaGraphExec_t* exec) {
    cudaGraphInstantiate(exec, graph, 0);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import named_usage, words
from hipgauge.rules.hit import HIGH
from hipgauge.rules.spec import RuleMeta

CODE = "HG803"
RULE = RuleMeta(
    title="CUDA graph conditional nodes",
    category="api",
    severity="blocker",
    message="graph conditional/device-launch feature without a HIP mapping",
    fix="Unroll conditionals on the host or capture one graph per branch.",
    effort=(2, 8),
    sources=(
        "https://github.com/ROCm/HIPIFY/blob/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables/CUDA_Runtime_API_functions_supported_by_HIP.md",
    ),
)
NODE = None
ANCHOR = words(r"cudaGraphConditional\w*", r"cudaGraphCondType\w*", "cudaGraphSetConditional", r"cudaGraphAddNode\w*", "cudaGraphInstantiateFlagDeviceLaunch")


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
