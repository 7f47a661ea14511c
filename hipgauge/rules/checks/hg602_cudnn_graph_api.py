"""HG602: cuDNN graph/backend API, cudnn-frontend, fused ops, multi-head attention, RNN v8.

What it does
------------
Flags `cudnnBackend*`, `cudnn_frontend::`, `cudnnFusedOps*`, `cudnnMultiHeadAttn*`,
`cudnnRNNForward` and `cudnnSetRNNDescriptor_v8`.

Why is this bad?
----------------
HIPIFY has no mapping for multi-head attention, fused ops, the v8 RNN API or cudnn-frontend; MIOpen
exposes attention only through its Find 2.0 problem API. These operators need re-implementation.

Example
-------
```cuda
void mha(cudnnHandle_t h, cudnnAttnDescriptor_t d) {
    cudnnMultiHeadAttnForward(h, d, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}
```

Use instead
-----------
```cuda
void mha(cudnnHandle_t h, cudnnTensorDescriptor_t x) {
    cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, 0, x, 0, 0, x, 0);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import any_of, include, named_usage, words
from hipgauge.rules.hit import HIGH
from hipgauge.rules.spec import RuleMeta

CODE = "HG602"
RULE = RuleMeta(
    title="cuDNN graph/backend API, frontend, fused ops, MHA, RNN v8",
    category="library",
    severity="blocker",
    message="cuDNN graph/fused/attention API without a MIOpen equivalent",
    fix="Re-implement with the MIOpen Find 2.0 / backend API, Composable Kernel attention or framework SDPA.",
    effort=(8, 40),
    rubric=("exotic-library",),
    sources=(
        "https://github.com/ROCm/HIPIFY/blob/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables/CUDNN_API_supported_by_HIP_and_MIOPEN.md",
        "https://rocm.docs.amd.com/projects/MIOpen/en/docs-6.2.0/doxygen/html/group__find2.html",
    ),
)
NODE = None
ANCHOR = any_of(include("cudnn_frontend"), words(r"cudnnBackend\w+", "cudnn_frontend", r"cudnnFusedOps\w*", r"cudnnMultiHeadAttn\w*", "cudnnRNNForward", "cudnnSetRNNDescriptor_v8"))
SUPERSEDES = ('HG601',)


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
