"""HG612: nvJPEG decoding.

What it does
------------
Flags `#include <nvjpeg.h>` and `nvjpeg*` calls and types.

Why is this bad?
----------------
HIPIFY has no nvJPEG mapping; AMD's rocJPEG decodes on the VCN engine through a different API.

Example
-------
```cuda
void decode(nvjpegHandle_t h) {
    nvjpegCreateSimple(&h);
}
```

Use instead
-----------
```cuda
void decode(RocJpegHandle h) {
    rocJpegCreate(ROCJPEG_BACKEND_HARDWARE, 0, &h);
}
```
"""

from __future__ import annotations

from hipgauge.rules.checks._common import any_of, include, named_usage, words
from hipgauge.rules.hit import HIGH
from hipgauge.rules.spec import RuleMeta

CODE = "HG612"
RULE = RuleMeta(
    title="nvJPEG",
    category="library",
    severity="blocker",
    message="nvJPEG has no HIP mapping (rocJPEG has a different API)",
    fix="Port to rocJPEG or a CPU decoder.",
    effort=(4, 16),
    rubric=("exotic-library",),
    sources=(
        "https://rocm.docs.amd.com/projects/rocJPEG/en/latest/what-is-rocJPEG.html",
    ),
)
NODE = None
ANCHOR = any_of(include("nvjpeg"), words(r"nvjpeg\w+"))


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
