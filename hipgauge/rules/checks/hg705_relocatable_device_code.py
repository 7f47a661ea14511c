"""HG705: relocatable device code / separate compilation.

What it does
------------
Flags `-rdc=true`, `--relocatable-device-code`, `-dc` and `CUDA_SEPARABLE_COMPILATION` in build
files, and `extern __device__` declarations in source.

Why is this bad?
----------------
Calling device code across translation units needs `-fgpu-rdc` on every compile and link step with
hipcc; without it the AMD build fails to link (or the build must make device code header-only).

Example
-------
```cmake
set_target_properties(kernels PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
```

Use instead
-----------
```cmake
target_compile_options(kernels PRIVATE -fgpu-rdc)
target_link_options(kernels PRIVATE -fgpu-rdc)
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._buildscan import scan
from hipgauge.rules.checks._common import words
from hipgauge.rules.hit import MEDIUM, Hit

CODE = "HG705"
REQUIRES = (b"__device__",)  # an extern __device__ symbol
NODE = "declaration"
ANCHOR = words("extern")
_FLAG = re.compile(r"-rdc[= ]\s*true\b|--relocatable-device-code\b|(?<![\w-])-dc\b|\bCUDA_SEPARABLE_COMPILATION\b")


def check(node, ctx):
    kinds = {c.type for c in node.children}
    storage = {c.text for c in node.children if c.type == "storage_class_specifier"}
    if b"extern" in storage and "__device__" in kinds:
        return [Hit(node, MEDIUM, "device symbol defined in another translation unit")]
    return []


def check_build(lines, ctx):
    return scan(lines, _FLAG)
