"""HG801: dynamic parallelism (kernels launched from device code).

What it does
------------
Flags `<<<...>>>` launches inside `__global__`/`__device__` functions, `cudaLaunchDevice`,
`cudaGetParameterBuffer` and `cudaLimitDevRuntime*` limits in source, and `-lcudadevrt` /
`cudadevrt` in build files.

Why is this bad?
----------------
HIP does not support dynamic parallelism: a kernel cannot launch another kernel from the device.
The work has to be flattened into host-side launches, a persistent kernel or a graph.

Example
-------
```cuda
__global__ void child(float* x) { x[threadIdx.x] = 0.f; }
__global__ void parent(float* x) {
    if (threadIdx.x == 0) child<<<1, 64>>>(x);
}
```

Use instead
-----------
```cuda
__global__ void child(float* x) { x[threadIdx.x] = 0.f; }
void parent(float* x) {
    child<<<1, 64>>>(x);
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._buildscan import scan
from hipgauge.rules.checks._common import any_of, named_usage, words
from hipgauge.rules.hit import HIGH, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import ancestor, call_name, text

CODE = "HG801"
RULE = RuleMeta(
    title="Dynamic parallelism (device-side launches)",
    category="api",
    severity="blocker",
    message="kernel launched from device code: HIP has no dynamic parallelism",
    fix="Flatten into host-side launches, a persistent kernel or a graph.",
    effort=(4, 16),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#global",
    ),
)
NODE = None
ANCHOR = any_of(rb"<<<", words("cudaLaunchDevice", "cudaGetParameterBuffer", r"cudaLimitDevRuntime\w+"))
_LIB = re.compile(r"-lcudadevrt\b|\bcudadevrt\b")


def check(node, ctx):
    if text(node) == "<<<" or node.type == "kernel_call_syntax":
        call = ancestor(node, "call_expression", limit=3)
        if call is not None and ctx.in_device_code(call):
            return [Hit(call, HIGH, f"device-side launch of `{call_name(call)}`")]
        return []
    return named_usage(node, ctx, HIGH)


def check_build(lines, ctx):
    return scan(lines, _LIB)
