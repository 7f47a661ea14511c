"""HG603: cuDNN N-d descriptors, layouts and math types.

What it does
------------
Flags `cudnnSetTensorNdDescriptor*`, `cudnnSetFilterNdDescriptor`,
`cudnnSetConvolutionNdDescriptor`, `cudnnSetConvolutionMathType`, `CUDNN_TENSOR_OP_MATH*` and
`CUDNN_TENSOR_NHWC`.

Why is this bad?
----------------
MIOpen's porting guide lists 4-D NCHW/NHWC storage only, no N-d equivalents and no math-type
preferences; its speed depends on Find-Db/Perf-Db tuning for the production shapes. A layout chosen
for cuDNN may miss MIOpen's fast path (the 1.4x conv case of the design).

Example
-------
```cuda
void setup(cudnnConvolutionDescriptor_t c) {
    cudnnSetConvolutionMathType(c, CUDNN_TENSOR_OP_MATH);
}
```

Use instead
-----------
```cuda
void setup(cudnnConvolutionDescriptor_t c) {
    cudnnSetConvolution2dDescriptor(c, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import named_usage, words
from hipgauge.rules.hit import HIGH
from hipgauge.rules.spec import RuleMeta

CODE = "HG603"
RULE = RuleMeta(
    title="cuDNN N-d descriptors, layouts and math types",
    category="library",
    severity="slow",
    message="cuDNN layout/math setting may miss MIOpen's tuned path",
    fix="Restrict to supported layouts; tune Find-Db/Perf-Db for production shapes (MIOPEN_FIND_ENFORCE).",
    effort=(2, 8),
    rubric=("covered-library",),
    sources=(
        "https://rocm.docs.amd.com/projects/MIOpen/en/latest/MIOpen_Porting_Guide.html",
        "https://rocm.docs.amd.com/projects/MIOpen/en/latest/perfdatabase.html",
    ),
)
NODE = None
ANCHOR = words(r"cudnnSetTensorNdDescriptor\w*", "cudnnSetFilterNdDescriptor", "cudnnSetConvolutionNdDescriptor", "cudnnSetConvolutionMathType", r"CUDNN_TENSOR_OP_MATH\w*", "CUDNN_TENSOR_NHWC")
SUPERSEDES = ('HG601',)


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
