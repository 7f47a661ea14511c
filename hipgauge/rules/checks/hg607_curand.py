"""HG607: cuRAND sequences and device generators.

What it does
------------
Flags `curand*` host and device API names and `#include <curand*.h>`.

Why is this bad?
----------------
hipRAND/rocRAND implement the cuRAND API, but a few generators are unmapped (`curand_Philox4x32_10`,
`curand_mtgp32_*`) and streams are not bit-identical: tests comparing against CUDA-generated golden
random data fail.

Example
-------
```cuda
__global__ void k(curandState* s, float* out) {
    out[threadIdx.x] = curand_uniform(&s[threadIdx.x]);
}
```

Use instead
-----------
```cuda
__global__ void k(const float* noise, float* out) {
    out[threadIdx.x] = noise[threadIdx.x];
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import any_of, include, named_usage, words
from hipgauge.rules.hit import MEDIUM
from hipgauge.rules.spec import RuleMeta

CODE = "HG607"
RULE = RuleMeta(
    title="cuRAND sequences and device generators",
    category="library",
    severity="info",
    message="cuRAND maps to hipRAND/rocRAND but streams are not bit-identical",
    fix="Validate statistically, regenerate golden data on AMD.",
    effort=(0.25, 1),
    rubric=("covered-library",),
    sources=(
        "https://github.com/ROCm/HIPIFY/blob/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables/CURAND_API_supported_by_HIP.md",
    ),
)
NODE = None
ANCHOR = any_of(include("curand"), words(r"curand\w*"))


def check(node, ctx):
    return named_usage(node, ctx, MEDIUM)
