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

CODE = "HG805"
NODE = None
ANCHOR = words(r"cuCtx(?:Create|Destroy|PushCurrent|PopCurrent|SetCurrent|GetCurrent)\w*", r"cuLibrary\w+", r"cuGreenCtx\w*", r"cuDevResource\w*", r"cuMulticast\w+")


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
