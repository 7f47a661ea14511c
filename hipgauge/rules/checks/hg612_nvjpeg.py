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

CODE = "HG612"
NODE = None
ANCHOR = any_of(include("nvjpeg"), words(r"nvjpeg\w+"))


def check(node, ctx):
    return named_usage(node, ctx, HIGH)
