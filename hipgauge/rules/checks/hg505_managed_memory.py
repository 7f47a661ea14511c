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

CODE = "HG505"
NODE = None
ANCHOR = words("cudaMallocManaged", "__managed__", "cudaMemPrefetchAsync", "cudaMemAdvise")


def check(node, ctx):
    return named_usage(node, ctx, MEDIUM)
