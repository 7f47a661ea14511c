"""HG804: extended launch attributes (programmatic dependent launch, `cudaLaunchKernelEx`).

What it does
------------
Flags `cudaLaunchKernelEx`, `cudaLaunchConfig_t`, `cudaLaunchAttribute*`,
`cudaGridDependencySynchronize`, `cudaTriggerProgrammaticLaunchCompletion` and `griddepcontrol` PTX.

Why is this bad?
----------------
HIPIFY (2024) has no mapping for `cudaLaunchKernelEx` and its attributes; programmatic dependent
launch is a Hopper feature without an AMD counterpart. Use plain launches and recover overlap with
streams or graphs.

Example
-------
```cuda
void run(cudaLaunchConfig_t* cfg, float* x) {
    cudaLaunchKernelEx(cfg, k, x);
}
```

Use instead
-----------
```cuda
void run(dim3 g, dim3 b, cudaStream_t s, float* x) {
    k<<<g, b, 0, s>>>(x);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import any_of, named_usage, words
from hipgauge.rules.hit import HIGH
import re

from hipgauge.rules.checks._common import ASM, asm_hit
from hipgauge.rules.spec import RuleMeta

CODE = "HG804"
RULE = RuleMeta(
    title="Extended launch attributes (cudaLaunchKernelEx, PDL)",
    category="api",
    severity="blocker",
    message="extended launch API/attribute without a HIP mapping",
    fix="Use plain launches; recover overlap with streams or graphs.",
    effort=(1, 4),
    sources=(
        "https://github.com/ROCm/HIPIFY/blob/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables/CUDA_Runtime_API_functions_supported_by_HIP.md",
    ),
)
NODE = None
ANCHOR = any_of(ASM, words(r"cudaLaunchKernelEx\w*", "cudaLaunchConfig_t", r"cudaLaunchAttribute\w*", "cudaGridDependencySynchronize", "cudaTriggerProgrammaticLaunchCompletion"))
_PTX = re.compile(r"\bgriddepcontrol\.[\w.]+")


def check(node, ctx):
    if node.type in ("asm", "__asm__", "__asm"):
        return asm_hit(node, _PTX)
    return named_usage(node, ctx, HIGH)
