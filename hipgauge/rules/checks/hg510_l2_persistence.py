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

CODE = "HG510"
NODE = None
ANCHOR = words("cudaAccessPolicyWindow", "cudaStreamSetAttribute", "cudaStreamGetAttribute", "cudaLimitPersistingL2CacheSize", "cudaCtxResetPersistingL2Cache", "cuCtxResetPersistingL2Cache", "cudaStreamAttributeAccessPolicyWindow")


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
