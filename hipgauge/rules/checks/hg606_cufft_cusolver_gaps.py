"""HG606: cuFFT Xt / multi-GPU and cuSOLVER generic or mixed-precision APIs.

What it does
------------
Flags `cufftXt*`, cuFFT plan-property functions, the cuSOLVER generic 64-bit `cusolverDnX*` API and
the iterative-refinement `*gesv`/`*gels` solvers.

Why is this bad?
----------------
HIPIFY leaves these unmapped: hipFFT and hipSOLVER cover the classic single-GPU APIs only, so these
calls must be redesigned around per-device plans or standard rocSOLVER routines.

Example
-------
```cuda
void fft(cufftHandle p, void* in, void* out) {
    cufftXtExec(p, in, out, CUFFT_FORWARD);
}
```

Use instead
-----------
```cuda
void fft(cufftHandle p, cufftComplex* in, cufftComplex* out) {
    cufftExecC2C(p, in, out, CUFFT_FORWARD);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import named_usage, words
from hipgauge.rules.hit import HIGH

CODE = "HG606"
NODE = None
ANCHOR = words(r"cufftXt\w+", r"cufft(?:Get|Set|Reset)PlanProperty\w*", r"cusolverDnX\w+", r"cusolverDn[SDCZ][SDCZHBX]ge(?:sv|ls)\w*")


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
