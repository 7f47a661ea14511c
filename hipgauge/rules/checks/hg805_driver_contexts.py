"""HG805: driver-API context management and newer driver APIs.

What it does
------------
Flags `cuCtxCreate/Destroy/PushCurrent/PopCurrent/SetCurrent/GetCurrent*`, `cuLibrary*`,
`cuGreenCtx*`, `cuDevResource*` and `cuMulticast*`.

Why is this bad?
----------------
HIP's context API is deprecated (most `cuCtx*` map only to deprecated `hipCtx*`), and HIPIFY maps
none of the library-management, green-context or multicast APIs.

Example
-------
```cuda
void init(CUcontext* c, CUdevice d) {
    cuCtxCreate(c, 0, d);
}
```

Use instead
-----------
```cuda
void init(int device) {
    cudaSetDevice(device);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import named_usage, words
from hipgauge.rules.hit import HIGH
from hipgauge.rules.spec import RuleMeta

CODE = "HG805"
RULE = RuleMeta(
    title="Driver-API contexts and newer driver APIs",
    category="api",
    severity="slow",
    message="driver context/library/green-context API is deprecated or unmapped in HIP",
    fix="Use hipSetDevice plus streams on the primary context; drop green contexts and multicast.",
    effort=(1, 4),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html#cuctx-and-hipctx",
    ),
)
NODE = None
ANCHOR = words(r"cuCtx(?:Create|Destroy|PushCurrent|PopCurrent|SetCurrent|GetCurrent)\w*", r"cuLibrary\w+", r"cuGreenCtx\w*", r"cuDevResource\w*", r"cuMulticast\w+")


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
