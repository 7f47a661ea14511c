"""HG615: NVRTC runtime compilation.

What it does
------------
Flags `#include <nvrtc.h>` and `nvrtc*` calls; PTX/CUBIN/LTO-IR outputs are called out.

Why is this bad?
----------------
hipRTC maps the core API but produces AMD code objects, has no PTX/LTO-IR/NVVM or supported-arch
queries, must be linked explicitly since HIP 7.0, and the kernel source strings and option strings
it compiles are not hipified.

Example
-------
```cuda
void build(nvrtcProgram p, char* ptx) {
    nvrtcGetPTX(p, ptx);
}
```

Use instead
-----------
```cuda
void build(hiprtcProgram p, char* code) {
    hiprtcGetCode(p, code);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import any_of, include, named_usage, words
from hipgauge.rules.hit import HIGH

CODE = "HG615"
NODE = None
ANCHOR = any_of(include("nvrtc"), words(r"nvrtc\w+"))


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
