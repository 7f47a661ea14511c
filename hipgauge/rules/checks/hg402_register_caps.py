"""HG402: register caps with `-maxrregcount` or `__maxnreg__`.

What it does
------------
Flags `-maxrregcount`/`--maxrregcount` (also behind `-Xptxas`) in build files and `__maxnreg__(n)`
on kernels.

Why is this bad?
----------------
amdclang++/hipcc do not accept `--maxrregcount`; HIP points to `__launch_bounds__` (and the AMD
`amdgpu_waves_per_eu` / `amdgpu_flat_work_group_size` attributes) to bound register use instead.

Example
-------
```cmake
target_compile_options(kernels PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-maxrregcount=64>)
```

Use instead
-----------
```cmake
target_compile_options(kernels PRIVATE $<$<COMPILE_LANGUAGE:HIP>:-O3>)
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._buildscan import scan
from hipgauge.rules.checks._common import usage, words
from hipgauge.rules.spec import RuleMeta

CODE = "HG402"
RULE = RuleMeta(
    title="Register caps via -maxrregcount / __maxnreg__",
    category="occupancy",
    severity="blocker",
    message="register cap flag/attribute not supported by hipcc",
    fix="Bound registers per kernel with __launch_bounds__, amdgpu_waves_per_eu or amdgpu_flat_work_group_size.",
    effort=(0.5, 2),
    sources=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html#maxregcount",
    ),
)
NODE = None
ANCHOR = words("__maxnreg__")
_FLAG = re.compile(r"-?-maxrregcount(?:[= ]\s*\d+)?")


def check(node, ctx):
    return usage(node, ctx)


def check_build(lines, ctx):
    return scan(lines, _FLAG)
