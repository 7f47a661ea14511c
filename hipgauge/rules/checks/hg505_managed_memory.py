"""HG505: managed / unified memory that relies on on-demand page migration.

What it does
------------
Flags `cudaMallocManaged`, `__managed__` variables, `cudaMemPrefetchAsync` and `cudaMemAdvise`.

Why is this bad?
----------------
On-demand migration on AMD needs `HSA_XNACK=1` and an HMM-capable driver; without them managed
memory behaves like pinned host memory and every GPU access crosses the bus.

Example
-------
```cuda
void alloc(float** p, size_t n) {
    cudaMallocManaged(p, n * sizeof(float));
}
```

Use instead
-----------
```cuda
void alloc(float** p, size_t n) {
    cudaMalloc(p, n * sizeof(float));
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import named_usage, words
from hipgauge.rules.hit import MEDIUM
from hipgauge.rules.spec import RuleMeta

CODE = "HG505"
RULE = RuleMeta(
    title="Managed memory relying on page migration",
    category="memory",
    severity="slow",
    message="managed memory migrates on demand only with XNACK enabled",
    fix="Use explicit hipMalloc + copies for hot data, or document and enable XNACK; use "
        "hipMemPrefetchAsync/hipMemAdvise.",
    effort=(1, 4),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_runtime_api/memory_management/unified_memory.html",
    ),
)
NODE = None
ANCHOR = words("cudaMallocManaged", "__managed__", "cudaMemPrefetchAsync", "cudaMemAdvise")


def check(node, ctx):
    return named_usage(node, ctx, MEDIUM)
