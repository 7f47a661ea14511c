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
from hipgauge.rules.spec import RuleMeta

CODE = "HG615"
RULE = RuleMeta(
    title="NVRTC runtime compilation",
    category="library",
    severity="blocker",
    message="NVRTC runtime compilation: hipRTC differs (no PTX, sources not hipified)",
    fix="Port option strings (--gpu-architecture=gfx942), run the warp/intrinsic checks on the kernel strings, "
        "link -lhiprtc.",
    effort=(2, 8),
    rubric=("exotic-library",),
    sources=(
        "https://github.com/ROCm/HIPIFY/blob/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables/CUDA_RTC_API_supported_by_HIP.md",
    ),
)
NODE = None
ANCHOR = any_of(include("nvrtc"), words(r"nvrtc\w+"))


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
