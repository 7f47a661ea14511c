"""HG610: NCCL collectives moving to RCCL.

What it does
------------
Flags `#include <nccl.h>` and `nccl*` calls.

Why is this bad?
----------------
RCCL implements the NCCL API, so calls port by renaming and relinking; AMD's MI300X guidance prefers
1- or 8-GPU collectives over 2/4-GPU ones, so topology choices need re-measuring.

Example
-------
```cuda
void allreduce(float* x, size_t n, ncclComm_t c, cudaStream_t s) {
    ncclAllReduce(x, x, n, ncclFloat, ncclSum, c, s);
}
```

Use instead
-----------
```cuda
void allreduce(float* x, size_t n, rcclComm_t c) {
    local_reduce(x, n);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import any_of, include, named_usage, words
from hipgauge.rules.hit import HIGH
from hipgauge.rules.spec import RuleMeta

CODE = "HG610"
RULE = RuleMeta(
    title="NCCL -> RCCL",
    category="library",
    severity="info",
    message="NCCL call: RCCL is a drop-in, topology choices need re-measuring",
    fix="Link RCCL; re-benchmark collective sizes and topology.",
    effort=(0.1, 0.5),
    rubric=("covered-library",),
    sources=(
        "https://rocm.docs.amd.com/en/latest/how-to/rocm-for-ai/inference-optimization/workload.html",
    ),
)
NODE = None
ANCHOR = any_of(include("nccl"), words(r"nccl[A-Z]\w*"))


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
