"""HG614: library calls captured in CUDA graphs.

What it does
------------
Flags cuDNN, Thrust, cuBLASLt, cuSOLVER and CUTLASS calls between `cudaStreamBeginCapture` and
`cudaStreamEndCapture` in the same function.

Why is this bad?
----------------
ROCm's graph-safety table lists MIOpen, rocThrust, Composable Kernel and rocWMMA as not graph-safe
and hipBLASLt as partial: captured graphs can replay stale or wrong work.

Example
-------
```cuda
void capture(cudaStream_t s, cudnnHandle_t h, cudaGraph_t* g) {
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    cudnnActivationForward(h, 0, 0, 0, 0, 0, 0, 0);
    cudaStreamEndCapture(s, g);
}
```

Use instead
-----------
```cuda
void capture(cudaStream_t s, cudnnHandle_t h, cudaGraph_t* g) {
    cudnnActivationForward(h, 0, 0, 0, 0, 0, 0, 0);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    cudaStreamEndCapture(s, g);
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import words
from hipgauge.rules.hit import MEDIUM, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import call_name, descendants

CODE = "HG614"
RULE = RuleMeta(
    title="Library calls captured in CUDA graphs",
    category="library",
    severity="wrong-results",
    message="library call inside stream capture; the ROCm library may not be graph-safe",
    fix="Move the call out of capture or verify the library's graph safety.",
    effort=(1, 4),
    rubric=("exotic-library",),
    sources=(
        "https://rocm.docs.amd.com/en/latest/reference/graph-safe-support.html",
    ),
)
NODE = "function_definition"
ANCHOR = words(r"cudaStreamBeginCapture\w*")
_UNSAFE = re.compile(r"cudnn|thrust::|cublasLt|cusolver|cutlass::")


def check(node, ctx):
    begin = end = None
    calls = list(descendants(node, "call_expression"))
    for c in calls:
        name = call_name(c)
        if begin is None and name.startswith("cudaStreamBeginCapture"):
            begin = c.end_byte
        elif begin is not None and name.startswith("cudaStreamEndCapture"):
            end = c.start_byte
            break
    if begin is None:
        return []
    end = end if end is not None else node.end_byte
    hits = []
    for c in calls:
        if begin <= c.start_byte < end and _UNSAFE.match(call_name(c)):
            hits.append(Hit(c, MEDIUM, f"`{call_name(c)}` inside stream capture"))
    return hits
