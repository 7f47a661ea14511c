"""HG305: device intrinsics HIP does not provide (SIMD video ops, cache hints, trap).

What it does
------------
Flags SIMD-in-word intrinsics (`__vadd2`, `__vsub4`, `__vcmpeq4`, `__vabsdiffu4`, ...), cache-hint
loads/stores (`__ldcv`, `__ldlu`, `__stcs`, `__stwt`) and `__trap`/`__brkpt`/`__prof_trigger`.

Why is this bad?
----------------
HIPIFY lists these device functions as unsupported, so the port does not compile. `__trap` has no
exact equivalent either: HIP's `abort()` ends the whole process where CUDA aborts one dispatch.

Example
-------
```cuda
__global__ void k(unsigned* x) {
    x[threadIdx.x] = __vadd4(x[threadIdx.x], 0x01010101u);
}
```

Use instead
-----------
```cuda
// per-byte add with no carry between bytes, as __vadd4 does (a plain + would carry)
__device__ unsigned vadd4(unsigned a, unsigned b) {
    unsigned s = (a & 0x7f7f7f7fu) + (b & 0x7f7f7f7fu);
    return s ^ ((a ^ b) & 0x80808080u);
}
__global__ void k(unsigned* x) {
    x[threadIdx.x] = vadd4(x[threadIdx.x], 0x01010101u);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import named_usage, words
from hipgauge.rules.hit import HIGH
from hipgauge.rules.spec import RuleMeta

CODE = "HG305"
RULE = RuleMeta(
    title="Unsupported device intrinsics (SIMD video ops, cache hints, trap)",
    category="asm",
    severity="blocker",
    message="device intrinsic not provided by HIP",
    fix="Re-implement SIMD ops with per-byte/half-word bit manipulation that keeps carries inside each lane (a plain "
        "+ is not __vadd4), or use a project polyfill; drop cache hints or use __builtin_nontemporal_load/store; "
        "replace trap knowing its process-level effect.",
    effort=(0.5, 2),
    sources=(
        "https://github.com/ROCm/HIPIFY/blob/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables/CUDA_Device_API_supported_by_HIP.md",
    ),
)
NODE = None
ANCHOR = words(r"__v(?:add|sub|abs|absdiff|avg|cmp\w*|max|min|neg|sad|set\w*|hadd)(?:s|u|ss|us)?[24]", "__ldcv", "__ldlu", "__stcs", "__stwt", "__trap", "__brkpt", "__prof_trigger")


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
