"""Translate throughput: hipgauge translate vs PyTorch's Python hipify, same files, same run.

Input: the CCCL headers of the local CUDA install (thrust, cub, libcu++: ~1,600 files, ~17 MB); only the files
both tools read (.cu .cuh .cpp .cc .h .hpp) are copied into a scratch tree, then each tool translates that
tree into its own new folder. PyTorch's hipify (``torch.utils.hipify.hipify_python.hipify``) runs in a separate
interpreter that has torch (default ``/tmp/benchvenv/bin/python``; make it with
``python -m venv /tmp/benchvenv && /tmp/benchvenv/bin/pip install torch==2.13.0`` — the CPU wheel). Each tool
is timed by wall clock around its own call (best of ``--repeat``), CPU time is printed too; the ratio is
torch / hipgauge. Target: >= 3x. Not part of the test suite.

    python benchmarks/bench_translate.py [--cccl DIR] [--torch-python PATH] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SUFFIXES = {".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp"}
CCCL_CANDIDATES = ("/usr/local/cuda/include/cccl", "/usr/local/cuda-13.0/include/cccl")

TORCH_SNIPPET = r"""
import json, os, shutil, sys, time
from torch.utils.hipify import hipify_python
src, out = sys.argv[1], sys.argv[2]
t0 = time.perf_counter(); c0 = time.process_time()
hipify_python.hipify(project_directory=src, output_directory=out, includes=["*"], show_progress=False,
                     extensions=(".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp"),
                     header_extensions=(".cuh", ".h", ".hpp"), is_pytorch_extension=True)
print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}))
"""


def collect(cccl: Path, dest: Path) -> tuple[int, int]:
    files = total = 0
    for p in sorted(cccl.rglob("*")):
        if p.is_file() and not p.is_symlink() and p.suffix in SUFFIXES:
            target = dest / p.relative_to(cccl)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, target)
            files += 1
            total += p.stat().st_size
    return files, total


def run_hipgauge(src: Path, work: Path, n: int) -> tuple[float, float]:
    from hipgauge.translate.rewrite import translate_tree

    out = work / f"hipgauge-{n}"
    t0, c0 = time.perf_counter(), time.process_time()
    translate_tree(src, out)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    shutil.rmtree(out)
    return wall, cpu


def run_torch(python: str, src: Path, work: Path, n: int) -> tuple[float, float]:
    out = work / f"torch-{n}"
    proc = subprocess.run([python, "-c", TORCH_SNIPPET, str(src), str(out)], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"PyTorch hipify failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr else proc.returncode}")
    doc = json.loads(proc.stdout.strip().splitlines()[-1])
    shutil.rmtree(out, ignore_errors=True)
    return doc["wall"], doc["cpu"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cccl", type=Path, default=next((Path(c) for c in CCCL_CANDIDATES if Path(c).is_dir()), None))
    ap.add_argument("--torch-python", default="/tmp/benchvenv/bin/python")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if args.cccl is None or not args.cccl.is_dir():
        sys.exit("no CCCL headers found; pass --cccl DIR")
    if not Path(args.torch_python).exists():
        sys.exit(f"{args.torch_python} not found; make the venv with torch (see the module docstring)")
    with tempfile.TemporaryDirectory(prefix="hipgauge-bench-") as tmp:
        work = Path(tmp)
        src = work / "cccl"
        files, size = collect(args.cccl, src)
        print(f"input: {files} files, {size / 1e6:.1f} MB from {args.cccl}")
        ours = [run_hipgauge(src, work, i) for i in range(args.repeat)]
        theirs = [run_torch(args.torch_python, src, work, i) for i in range(args.repeat)]
    o_wall, o_cpu = min(w for w, _ in ours), min(c for _, c in ours)
    t_wall, t_cpu = min(w for w, _ in theirs), min(c for _, c in theirs)
    print(f"hipgauge translate : {o_wall:7.2f} s wall, {o_cpu:7.2f} s CPU  ({size / 1e6 / o_wall:.1f} MB/s)")
    print(f"torch hipify_python: {t_wall:7.2f} s wall, {t_cpu:7.2f} s CPU  ({size / 1e6 / t_wall:.1f} MB/s)")
    print(f"ratio (torch / hipgauge), measured, best of {args.repeat}: wall {t_wall / o_wall:.2f}x, "
          f"CPU {t_cpu / o_cpu:.2f}x  (target >= 3x)")


if __name__ == "__main__":
    main()
