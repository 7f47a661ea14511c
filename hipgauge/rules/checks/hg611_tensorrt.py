"""HG611: TensorRT inference engines.

What it does
------------
Flags `NvInfer*.h` includes and the `nvinfer1::` / `nvonnxparser::` namespaces.

Why is this bad?
----------------
TensorRT has no HIP equivalent and nothing translates it; AMD's graph compiler is MIGraphX (ONNX in,
different API), so the engine-building code is a rewrite.

Example
-------
```cuda
#include <NvInfer.h>
nvinfer1::IBuilder* make(nvinfer1::ILogger& log) {
    return nvinfer1::createInferBuilder(log);
}
```

Use instead
-----------
```cuda
#include <migraphx/migraphx.hpp>
migraphx::program make() {
    return migraphx::parse_onnx("model.onnx");
}
```
"""

from __future__ import annotations

from hipgauge.rules.syntax import parent as parent_of

from hipgauge.rules.checks._common import any_of, include, named_usage, words
from hipgauge.rules.hit import HIGH
from hipgauge.rules.spec import RuleMeta

CODE = "HG611"
RULE = RuleMeta(
    title="TensorRT",
    category="library",
    severity="blocker",
    message="TensorRT has no HIP equivalent (MIGraphX is a different API)",
    fix="Re-target inference to MIGraphX via ONNX, or to framework backends.",
    effort=(8, 40),
    rubric=("exotic-library",),
    sources=(
        "https://rocm.docs.amd.com/projects/AMDMIGraphX",
    ),
)
NODE = None
ANCHOR = any_of(include("NvInfer", "NvOnnxParser"), words("nvinfer1", "nvonnxparser"))


def check(node, ctx):
    if node.type == "identifier" and (parent_of(node) is None or parent_of(node).type not in ("using_declaration", "qualified_identifier")):
        return []
    return named_usage(node, ctx, HIGH)
