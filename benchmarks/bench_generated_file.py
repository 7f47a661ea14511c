"""One generated .cu with many tiny kernels and their launches (issue #17 row 6): scan time must grow
linearly with the file size. Prints the time per size and the ratio of the largest to the smallest,
per MB; a ratio near 1 is linear (a quadratic step shows as a ratio near the size ratio).

    python benchmarks/bench_generated_file.py [--kernels 9000 18000 36000] [--keep]

The files are written in a temporary folder removed at the end (``--keep`` keeps it). Measured on this
machine, wall clock, serial scan (one process), so the figures compare across sizes, not machines.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path


def generate(n: int, path: Path) -> int:
    with open(path, "w") as f:
        f.write("#include <cuda_runtime.h>\n")
        for i in range(n):
            f.write(f"__global__ void k{i}(float* x) {{ x[threadIdx.x] = __shfl_sync(0xffffffff, x[0], {i % 32}); }}\n")
        f.write("void run_all(float* x) {\n")
        for i in range(n):
            f.write(f"  k{i}<<<1, 32>>>(x);\n")
        f.write("  cudaDeviceSynchronize();\n}\n")
    return path.stat().st_size


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernels", type=int, nargs="+", default=[9000, 18000, 36000])
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    from hipgauge.app.scan import ScanOptions, scan_entries
    from hipgauge.source.walk import walk_tree

    tmp = Path(tempfile.mkdtemp(prefix="hipgauge-bench-generated-"))
    per_mb: list[float] = []
    try:
        for n in args.kernels:
            folder = tmp / str(n)
            folder.mkdir()
            size = generate(n, folder / "gen.cu")
            entries, skipped = walk_tree([folder], [], 64 << 20)
            t0 = time.perf_counter()
            result = scan_entries(entries, skipped, ScanOptions(workers=1), str(folder))
            wall = time.perf_counter() - t0
            per_mb.append(wall / (size / 1e6))
            print(f"{n:>7} kernels  {size / 1e6:6.2f} MB  {wall:7.2f} s  {per_mb[-1]:6.2f} s/MB  "
                  f"{len(result.findings)} findings (measured, this machine)")
        print(f"s/MB largest / smallest: {per_mb[-1] / per_mb[0]:.2f} (1.0 = linear; sizes ×{args.kernels[-1] / args.kernels[0]:g})")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
