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

CODE = "HG610"
NODE = None
ANCHOR = any_of(include("nccl"), words(r"nccl[A-Z]\w*"))


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
