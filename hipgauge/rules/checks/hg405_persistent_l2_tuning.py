"""HG405: work scheduling and tile sizes tuned for one GPU-wide L2 (persistent grids, global tile counters).

What it does
------------
Flags three patterns of grid-level tuning:

* a kernel grid sized from the SM count (`cudaDevAttrMultiProcessorCount`, `prop.multiProcessorCount`,
  directly or through one variable, launched in the function that read it) — a persistent kernel; low
  confidence when the kernel is a grid-stride loop (`i += blockDim.x * gridDim.x`), whose blocks share no data;
* a grid-wide work counter in device code: `atomicAdd(&counter, 1)` (or `atomicInc`) on a global,
  non-`__shared__` counter, in a loop, whose result picks the next tile;
* host code that reads the L2 size (`l2CacheSize`, `cudaDevAttrL2CacheSize`,
  `persistingL2CacheMaxSize`, `accessPolicyMaxWindowSize`) to size a working set (low confidence).
The persistence API itself (`cudaAccessPolicyWindow`, `cudaLimitPersistingL2CacheSize`) is HG510.

Why is this bad?
----------------
An MI300X is eight dies (XCDs) of 38 CUs, each with its own 4 MiB L2, and the hardware deals
consecutive blocks round-robin over the XCDs. A persistent grid of one block per CU, a single tile
counter that every block hammers across dies, and tiles sized to one 50 MiB L2 all lose the
locality they were tuned for: the code runs, slower than the NVIDIA tuning promised.

Example
-------
```cuda
__device__ unsigned int next_tile;

__global__ void gemm_persistent(float* c, unsigned int tiles) {
    __shared__ unsigned int tile;
    while (true) {
        if (threadIdx.x == 0) tile = atomicAdd(&next_tile, 1);
        __syncthreads();
        if (tile >= tiles) break;
        c[tile * blockDim.x + threadIdx.x] = 0.f;
        __syncthreads();
    }
}

void launch(float* c, unsigned int tiles) {
    int num_sms = 0;
    cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, 0);
    gemm_persistent<<<num_sms, 256>>>(c, tiles);
}
```

Use instead
-----------
```cuda
__global__ void gemm_tiles(float* c, unsigned int tiles) {
    unsigned int tile = blockIdx.x;
    if (tile < tiles) c[tile * blockDim.x + threadIdx.x] = 0.f;
}

void launch(float* c, unsigned int tiles) {
    gemm_tiles<<<tiles, 256>>>(c, tiles);
}
```
"""

from __future__ import annotations

import re

from hipgauge.rules.checks._common import words
from hipgauge.rules.checks._launches import launches
from hipgauge.rules.hit import LOW, MEDIUM, Hit
from hipgauge.rules.spec import RuleMeta
from hipgauge.rules.syntax import FUNCTION, ancestor, call_args, call_name, descendants, parent, text
from hipgauge.source.parse import function_name

CODE = "HG405"
RULE = RuleMeta(
    title="Grid-persistent / L2-locality tuning",
    category="occupancy",
    severity="slow",
    message="persistent or L2-locality tuning assumes one shared L2",
    fix="Make the tile-to-block mapping XCD-aware, replace the global work counter by per-XCD counters or static "
        "scheduling, and re-tune sizes against the per-XCD L2.",
    effort=(2, 8),
    sources=(
        "https://rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html",
        "https://rocm.docs.amd.com/en/latest/how-to/rocm-for-ai/inference-optimization/workload.html",
    ),
)
NODE = None
_SM = ("multiProcessorCount", "cudaDevAttrMultiProcessorCount", "cuDeviceGetAttribute_MULTIPROCESSOR_COUNT",
       "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT")
_L2 = ("l2CacheSize", "cudaDevAttrL2CacheSize", "persistingL2CacheMaxSize", "cudaDevAttrMaxPersistingL2CacheSize",
       "accessPolicyMaxWindowSize", "CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE")
_ATOMICS = ("atomicAdd", "atomicInc")
ANCHOR = words(*_SM, *_L2, *_ATOMICS)

_LOOPS = ("while_statement", "for_statement", "do_statement")
_PRINTS = frozenset({"printf", "fprintf", "snprintf", "sprintf", "puts"})


def check(node, ctx):
    name = text(node)
    if name in _ATOMICS:
        return _work_counter(node, ctx)
    if ctx.in_device_code(node):
        return []
    if name in _L2:
        call = ancestor(node, "call_expression", limit=6)
        if call is not None and call_name(call) in _PRINTS:
            return []
        return [Hit(node, LOW, f"`{name}` read on the host: working sets sized to one L2 (MI300X: 4 MiB per XCD)")]
    return _sm_sized_grid(node, ctx, name)


def _sm_sized_grid(node, ctx, name):
    names = {name}
    call = ancestor(node, "call_expression", limit=4)
    if call is not None and call_name(call) in ("cudaDeviceGetAttribute", "cuDeviceGetAttribute"):
        args = call_args(call)
        if args:
            names.add(text(args[0]).lstrip("&").strip())
    else:
        decl = ancestor(node, ("init_declarator", "assignment_expression"), limit=8)
        if decl is not None:
            left = decl.child_by_field_name("declarator") or decl.child_by_field_name("left")
            if left is not None:
                names.add(text(left))
    fn = ctx.function_of(node)
    scope = fn.text if fn is not None else b""
    for n in list(names):  # one level of derivation: int grid = num_sms * 2; dim3 grid(num_sms);
        if not re.fullmatch(r"[A-Za-z_]\w*", n):
            continue
        rx = re.compile(rb"\b([A-Za-z_]\w*)\s*(?:=(?!=)|\(|\{)[^;]*\b" + re.escape(n.encode()) + rb"\b")
        names.update(m.group(1).decode() for m in rx.finditer(scope))
    names = {n for n in names if re.fullmatch(r"[A-Za-z_]\w*", n)}
    if not names:
        return []
    word = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b")
    first, last = (fn.start_point[0] + 1, fn.end_point[0] + 1) if fn is not None else (0, 1 << 62)
    for launch in launches(ctx):  # in the function that read the SM count: a local of the same name elsewhere is not it
        if first <= launch.line <= last and launch.grid and word.search(launch.grid):
            grid = f"grid `{launch.grid.strip()}` of `{launch.kernel or '?'}` (line {launch.line}) follows the SM count"
            if _grid_stride(ctx, launch.kernel):
                return [Hit(node, LOW, f"{grid}, and the kernel is a grid-stride loop: each block streams its own "
                                       "elements, no L2 locality between blocks to lose (check the grid still fills "
                                       "an MI300X's 304 CUs)")]
            return [Hit(node, MEDIUM, f"{grid}: a persistent kernel")]
    return []


#: ``i += blockDim.x * gridDim.x`` / ``i += gridDim.x * blockDim.x`` / ``i += stride`` with the stride so defined
_STRIDE = re.compile(r"\+=\s*(?:\w+\s*\*\s*)?\(?\s*(?:blockDim\.x\s*\*\s*gridDim\.x|gridDim\.x\s*\*\s*blockDim\.x)")
_STRIDE_NAME = re.compile(r"\b(\w+)\s*=\s*(?:\w+\s*\*\s*)?\(?\s*(?:blockDim\.x\s*\*\s*gridDim\.x|"
                          r"gridDim\.x\s*\*\s*blockDim\.x)")


def _grid_stride(ctx, kernel):
    """The kernel ``kernel`` of this file loops over its elements with the grid's stride (a grid-stride loop): a
    grid of any size covers the data and no block reuses what another loaded. (A global work counter in it is
    flagged on its own.)"""
    if not kernel or ctx.tree is None:
        return False
    for fn in descendants(ctx.tree.root_node, FUNCTION):
        if function_name(fn) != kernel:
            continue
        body = re.sub(r"//[^\n]*|/\*.*?\*/", " ", text(fn), flags=re.S)
        if _STRIDE.search(body):
            return True
        names = {m.group(1) for m in _STRIDE_NAME.finditer(body)}
        if any(re.search(r"\+=\s*" + re.escape(n) + r"\b", body) for n in names):
            return True
    return False


def _work_counter(node, ctx):
    call = parent(node)
    if call is None or call.type != "call_expression" or not ctx.in_device_code(call):
        return []
    args = call_args(call)
    if len(args) != 2 or (ctx.fold(args[1]) or 0) < 1:
        return []
    target = text(args[0]).strip()
    base = re.match(r"&?\s*\(?\s*([A-Za-z_]\w*)", target)
    if base is None:
        return []
    counter = base.group(1)
    fn = ctx.function_of(call)
    if fn is None or re.search(rb"__shared__[^;]*\b" + re.escape(counter.encode()) + rb"\b", fn.text):
        return []
    loop = ancestor(call, (*_LOOPS, "function_definition"))
    if loop is None or loop.type == "function_definition":
        return []
    up = parent(call)
    if up is None or up.type == "expression_statement":
        return []  # the old value is not used: an accumulation, not a work counter
    holder = None
    if up.type == "assignment_expression":
        holder = text(up.child_by_field_name("left"))
    elif up.type == "init_declarator":
        holder = text(up.child_by_field_name("declarator"))
    cond = loop.child_by_field_name("condition")
    in_cond = cond is not None and cond.start_byte <= call.start_byte < cond.end_byte
    compared = holder and re.search(rb"\b" + re.escape(holder.encode()) + rb"\s*(?:<|>|<=|>=)[^<>]", loop.text)
    if not (in_cond or compared):
        return []
    return [Hit(call, MEDIUM, f"`{text(call)}` hands out work from one global counter")]
