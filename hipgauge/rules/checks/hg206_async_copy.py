"""HG206: asynchronous global-to-shared copies and pipelines.

What it does
------------
Flags `__pipeline_memcpy_async`/`__pipeline_commit`/`__pipeline_wait_prior`, `cuda::memcpy_async`,
`cuda::pipeline`, `cuda::barrier`, `cooperative_groups::memcpy_async`/`wait`, their headers, and
`cp.async`/`mbarrier` in inline PTX.

Why is this bad?
----------------
HIP has no cp.async or mbarrier equivalent and lists `memcpy_async`/`wait` as unsupported
cooperative-groups features: the copy pipeline has to become synchronous loads with explicit double
buffering, and its tuning changes.

Example
-------
```cuda
__global__ void k(const float* g) {
    __shared__ float s[256];
    __pipeline_memcpy_async(&s[threadIdx.x], &g[threadIdx.x], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
}
```

Use instead
-----------
```cuda
__global__ void k(const float* g) {
    __shared__ float s[256];
    s[threadIdx.x] = g[threadIdx.x];
    __syncthreads();
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import ASM, any_of, asm_or_usage, include, words
from hipgauge.rules.spec import RuleMeta

CODE = "HG206"
RULE = RuleMeta(
    title="Asynchronous copies and pipelines (cp.async, cuda::pipeline, cuda::barrier)",
    category="tensor-core",
    severity="blocker",
    message="asynchronous global-to-shared copy/pipeline is unsupported in HIP",
    fix="Use synchronous loads with __syncthreads() double buffering; re-tune the pipeline depth.",
    effort=(4, 16),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_runtime_api/cooperative_groups.html#unsupported-nvidia-cuda-features",
        "https://oneapi-src.github.io/SYCLomatic/dev_guide/reference/diagnostics-reference.html (DPCT1137)",
    ),
)
NODE = None
ANCHOR = any_of(ASM, words(r"__pipeline_\w+"), rb"\b(?:cuda|cooperative_groups|cg)\s*::\s*(?:memcpy_async|pipeline\w*|barrier|wait_prior|wait)\b", include("cuda/barrier", "cuda/pipeline", "cooperative_groups/memcpy_async"))
SUPERSEDES = ("HG301",)
_PTX = re.compile(r"\bcp\.async\.(?!bulk)[\w.]+|\bmbarrier\.[\w.]+")


def check(node, ctx):
    return asm_or_usage(node, ctx, _PTX)
