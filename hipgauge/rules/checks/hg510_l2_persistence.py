"""HG510: L2 persistence and access-policy windows.

What it does
------------
Flags `cudaAccessPolicyWindow`, `cudaStreamSetAttribute`/`cudaStreamGetAttribute`,
`cudaLimitPersistingL2CacheSize` and `cudaCtxResetPersistingL2Cache`.

Why is this bad?
----------------
HIPIFY marks these unsupported and AMD has no persisting-L2 control: the calls do not compile and
have to be removed or fenced off for the NVIDIA build.

Example
-------
```cuda
void pin(cudaStream_t s, void* p, size_t n) {
    cudaStreamAttrValue v = {};
    v.accessPolicyWindow.base_ptr = p;
    cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v);
}
```

Use instead
-----------
```cuda
void pin(cudaStream_t s, void* p, size_t n) {
    cudaMemPrefetchAsync(p, n, 0, s);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import named_usage, words
from hipgauge.rules.hit import HIGH
from hipgauge.rules.spec import RuleMeta

CODE = "HG510"
RULE = RuleMeta(
    title="L2 persistence / access-policy windows",
    category="memory",
    severity="blocker",
    message="L2 persistence control has no HIP mapping",
    fix="Remove, or fence off for the NVIDIA build with #ifdef __HIP_PLATFORM_NVIDIA__.",
    effort=(0.5, 1),
    sources=(
        "https://github.com/ROCm/HIPIFY/blob/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables/CUDA_Runtime_API_functions_supported_by_HIP.md",
    ),
)
NODE = None
ANCHOR = words("cudaAccessPolicyWindow", "cudaStreamSetAttribute", "cudaStreamGetAttribute", "cudaLimitPersistingL2CacheSize", "cudaCtxResetPersistingL2Cache", "cuCtxResetPersistingL2Cache", "cudaStreamAttributeAccessPolicyWindow")


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
