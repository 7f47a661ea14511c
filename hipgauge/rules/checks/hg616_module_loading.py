"""HG616: loading PTX/cubin/fatbin modules through the driver API.

What it does
------------
Flags `cuModuleLoad*`, `cuLinkAdd*`, `cuLinkCreate*` and `CU_JIT_INPUT_PTX`.

Why is this bad?
----------------
HIP modules must be AMD code objects: PTX cannot be JIT-compiled on AMD and `hipModuleLoadDataEx`
ignores JIT options. Modules must be built per GPU architecture ahead of time (or with hipRTC).

Example
-------
```cuda
void load(CUmodule* m, const char* ptx) {
    cuModuleLoadData(m, ptx);
}
```

Use instead
-----------
```cuda
void load(hipModule_t* m, const char* path) {
    hipModuleLoad(m, path);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import named_usage, words
from hipgauge.rules.hit import HIGH
from hipgauge.rules.spec import RuleMeta

CODE = "HG616"
RULE = RuleMeta(
    title="Loading PTX/cubin modules through the driver API",
    category="library",
    severity="blocker",
    message="driver-API module loading of PTX/cubin cannot work on AMD",
    fix="Build per-arch code objects offline (or with hipRTC) and load them with hipModuleLoad*.",
    effort=(2, 8),
    rubric=("exotic-library",),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html#cumodule-and-hipmodule",
    ),
)
NODE = None
ANCHOR = words(r"cuModuleLoad\w*", r"cuLinkAdd\w+", r"cuLinkCreate\w*", "CU_JIT_INPUT_PTX")


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
