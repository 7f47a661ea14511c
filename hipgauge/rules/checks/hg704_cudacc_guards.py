"""HG704: `__CUDACC__` / `__NVCC__` preprocessor guards.

What it does
------------
Flags `#if`/`#ifdef`/`#ifndef`/`#elif` on `__CUDACC__`, `__NVCC__`, `__CUDACC_VER_MAJOR__` or
`CUDART_VERSION`.

Why is this bad?
----------------
HIP-Clang defines `__HIPCC__`, not `__CUDACC__`/`__NVCC__`: qualifiers, fast paths and intrinsics
behind these guards disappear from the AMD build without an error.

Example
-------
```cuda
#ifdef __CUDACC__
#define HD __host__ __device__
#else
#define HD
#endif
```

Use instead
-----------
```cuda
#if defined(__CUDACC__) || defined(__HIPCC__)
#define HD __host__ __device__
#else
#define HD
#endif
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import words
from hipgauge.rules.hit import MEDIUM, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import text
from hipgauge.rules.syntax import ancestor

CODE = "HG704"
RULE = RuleMeta(
    title="__CUDACC__ / __NVCC__ guards",
    category="build",
    severity="wrong-results",
    message="__CUDACC__/__NVCC__ guard is false under hipcc",
    fix="Add || defined(__HIPCC__) (or __HIP_PLATFORM_AMD__) branches deliberately.",
    effort=(0.25, 1),
    sources=(
        "https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/how-to/hip_porting_guide.md#compiler-defines-summary",
    ),
)
NODE = None
ANCHOR = words("__CUDACC__", "__NVCC__", "__CUDACC_VER_MAJOR__", "CUDART_VERSION")


def check(node, ctx):
    guard = ancestor(node, ("preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef"), limit=6)
    if guard is None:
        return []
    cond = guard.child_by_field_name("condition") or guard.child_by_field_name("name")
    if cond is None or not (cond.start_byte <= node.start_byte < cond.end_byte):
        return []
    if "__HIPCC__" in text(cond) or "__HIP_PLATFORM" in text(cond) or "__HIP__" in text(cond):
        return []
    return [Hit(node, MEDIUM, f"`{text(node)}` is undefined under hipcc")]
