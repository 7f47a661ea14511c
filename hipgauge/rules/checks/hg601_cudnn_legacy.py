"""HG601: cuDNN (legacy API) calls that must be ported to MIOpen by hand.

What it does
------------
Flags every cuDNN call site (`cudnn*(…)`) and the `#include <cudnn.h>`: one finding per call. Types,
enums and `CUDNN_*` constants are folded into the nearest call's finding (or the include's, in a file
with no call); the inventory still lists each reference. Names the scanned tree defines itself
(`#define CUDNN_CHECK(…)`) are not cuDNN.

Why is this bad?
----------------
MIOpen has no cuDNN-compatible layer: HIPIFY maps about a third of cuDNN's functions (85 of 280 in
the 2024 tables) and MIOpen requires a Find step before convolutions. Each call site is hand work,
and whether the operator reaches MIOpen's tuned path decides the performance.

Example
-------
```cuda
#include <cudnn.h>
void conv(cudnnHandle_t h) {
    cudnnConvolutionForward(h, 0, 0, 0, 0, 0, 0, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, 0, 0, 0, 0, 0);
}
```

Use instead
-----------
```cuda
#include <miopen/miopen.h>
void conv(miopenHandle_t h) {
    miopenConvolutionForward(h, 0, 0, 0, 0, 0, 0, miopenConvolutionFwdAlgoGEMM, 0, 0, 0, 0);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import any_of, include, library_usage, words
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import text

CODE = "HG601"
RULE = RuleMeta(
    title="cuDNN legacy API -> MIOpen",
    category="library",
    severity="blocker",
    message="cuDNN call must be ported to MIOpen by hand",
    fix="Port to MIOpen (Find -> GetWorkSpace -> Convolution), or move the operator to a framework op / MIGraphX.",
    effort=(1, 6),
    rubric=("covered-library",),
    sources=(
        "https://github.com/ROCm/HIPIFY/blob/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables/CUDNN_API_supported_by_HIP_and_MIOPEN.md",
        "https://rocm.docs.amd.com/projects/MIOpen/en/latest/MIOpen_Porting_Guide.html",
    ),
)
NODE = None
FOLD = "cuDNN"  # one finding per call site; types/enums/constants folded in
ANCHOR = any_of(include(r"cudnn(?!_frontend)"), words(r"cudnn(?!Backend|FusedOps|MultiHeadAttn|_frontend)\w+", r"CUDNN_\w+"))


def check(node, ctx):
    name = text(node).strip()
    status = ctx.api_status(name, node.start_point[0] + 1)
    detail = f"`{name}`" + ("; no MIOpen mapping in the HIPIFY tables" if status == "unsupported" else "")
    return library_usage(node, ctx, detail)
