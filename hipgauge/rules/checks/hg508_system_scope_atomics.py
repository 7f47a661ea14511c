"""HG508: system-scope atomics and fences on host or peer memory.

What it does
------------
Flags `atomic*_system` calls and `__threadfence_system`.

Why is this bad?
----------------
Coherence with the host or a peer GPU on AMD requires fine-grained allocations; FP hardware atomics
on fine-grained memory can be wrong, and older HIP needed `HIP_COHERENT_HOST_ALLOC` for system
fences.

Example
-------
```cuda
__global__ void k(int* host_flag) {
    atomicExch_system(host_flag, 1);
}
```

Use instead
-----------
```cuda
__global__ void k(int* flag) {
    atomicExch(flag, 1);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import named_usage, words
from hipgauge.rules.hit import MEDIUM
from hipgauge.rules.spec import RuleMeta

CODE = "HG508"
RULE = RuleMeta(
    title="System-scope atomics and fences",
    category="memory",
    severity="wrong-results",
    message="system-scope atomic/fence needs fine-grained memory on AMD",
    fix="Allocate shared flags with coherent hipHostMalloc / hipExtMallocWithFlags(hipDeviceMallocFinegrained); "
        "use integer atomics for flags.",
    effort=(1, 4),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#atomic-functions",
    ),
)
NODE = None
ANCHOR = words(r"atomic\w+_system", "__threadfence_system")


def check(node, ctx):
    return named_usage(node, ctx, MEDIUM)
