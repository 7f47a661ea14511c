"""HG609: Thrust code tied to the CUDA system.

What it does
------------
Flags `thrust::cuda::` and `thrust::system::cuda::` (execution policies and CUDA-system types).

Why is this bad?
----------------
rocThrust keeps the `thrust::` API, so most Thrust code ports by rebuilding; code that names the
CUDA system (`thrust::cuda::par`, CUB interop) has to switch to the HIP system, and rocThrust is not
graph-safe.

Example
-------
```cuda
void sort(thrust::device_vector<int>& v, cudaStream_t s) {
    thrust::sort(thrust::cuda::par.on(s), v.begin(), v.end());
}
```

Use instead
-----------
```cuda
void sort(thrust::device_vector<int>& v) {
    thrust::sort(thrust::device, v.begin(), v.end());
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import usage
from hipgauge.rules.hit import HIGH
from hipgauge.rules.spec import RuleMeta

CODE = "HG609"
RULE = RuleMeta(
    title="Thrust tied to the CUDA system",
    category="library",
    severity="info",
    message="Thrust CUDA-system policy must switch to rocThrust's HIP system",
    fix="Build against rocThrust and use thrust::hip::par / thrust::device; keep Thrust out of stream capture.",
    effort=(0.25, 1),
    rubric=("covered-library",),
    sources=(
        "https://rocm.docs.amd.com/en/latest/reference/graph-safe-support.html",
    ),
)
NODE = None
ANCHOR = rb"\bthrust\s*::\s*(?:system\s*::\s*)?cuda\b"


def check(node, ctx):
    return usage(node, ctx, HIGH, "CUDA-system Thrust")
