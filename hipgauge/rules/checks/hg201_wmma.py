"""HG201: the `nvcuda::wmma` warp-matrix (tensor-core) API.

What it does
------------
Flags `#include <mma.h>`, `using namespace nvcuda` and every `wmma::`/`nvcuda::` name.

Why is this bad?
----------------
HIP has no warp-matrix types or functions and hipify does not translate them: the kernel does not
compile. AMD matrix cores (MFMA) use other fragment shapes and wave64 register layouts.

Example
-------
```cuda
#include <mma.h>
__global__ void k(const half* a) {
    nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, half, nvcuda::wmma::row_major> fa;
    nvcuda::wmma::load_matrix_sync(fa, a, 16);
}
```

Use instead
-----------
```cuda
#include <rocwmma/rocwmma.hpp>
__global__ void k(const half* a) {
    rocwmma::fragment<rocwmma::matrix_a, 16, 16, 16, half, rocwmma::row_major> fa;
    rocwmma::load_matrix_sync(fa, a, 16);
}
```
"""

from __future__ import annotations

from hipgauge.rules.syntax import parent as parent_of

from hipgauge.rules.checks._common import any_of, include, usage, words
from hipgauge.rules.spec import RuleMeta

CODE = "HG201"
RULE = RuleMeta(
    title="nvcuda::wmma warp-matrix API",
    category="tensor-core",
    severity="blocker",
    message="nvcuda::wmma is not part of HIP and hipify leaves it: port to rocWMMA (its closest counterpart) or MFMA",
    fix="Port to rocWMMA (modelled on wmma), MFMA builtins or Composable Kernel, and re-tune fragment shapes.",
    effort=(8, 24),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#warp-matrix-functions",
        "https://rocm.docs.amd.com/projects/rocWMMA/en/latest/what-is-rocwmma.html",
    ),
)
NODE = None
ANCHOR = any_of(include("mma\\.h"), words("nvcuda", "wmma"))


def check(node, ctx):
    if node.type == "identifier" and (parent_of(node) is None or parent_of(node).type not in ("using_declaration", "qualified_identifier")):
        return []
    return usage(node, ctx)
