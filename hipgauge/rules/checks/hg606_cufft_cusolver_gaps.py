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
from hipgauge.rules.spec import RuleMeta

CODE = "HG606"
RULE = RuleMeta(
    title="cuFFT Xt / multi-GPU and cuSOLVER generic APIs",
    category="library",
    severity="blocker",
    message="cuFFT Xt / cuSOLVER generic API without a HIP mapping",
    fix="Use per-device hipFFT plans; replace mixed-precision solvers with standard rocSOLVER/hipSOLVER routines.",
    effort=(4, 16),
    rubric=("exotic-library",),
    sources=(
        "https://github.com/ROCm/HIPIFY/blob/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables/CUFFT_API_supported_by_HIP.md",
        "https://github.com/ROCm/HIPIFY/blob/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables/CUSOLVER_API_supported_by_HIP.md",
    ),
)
NODE = None
ANCHOR = words(r"cufftXt\w+", r"cufft(?:Get|Set|Reset)PlanProperty\w*", r"cusolverDnX\w+", r"cusolverDn[SDCZ][SDCZHBX]ge(?:sv|ls)\w*")


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
