#!/usr/bin/env python3
"""Scan benchmark: the whole ``hipgauge scan`` pipeline (walk, parse, inventory, rules, statistics) over the
CUDA toolkit's CCCL headers (CUB, Thrust, libcudacxx) under the nvcc install, in the local process pool.

Prints lines/s and files/s (measured, wall clock of ``scan_tree``), the peer ratio against tree-sitter's
bare parse of the same files in one process (the floor any tree-sitter scanner pays), and the target
(≥ 100k lines/s on 2 cores). Usage: ``python benchmarks/bench_scan.py [TREE] [--workers N] [--no-rules]
[--repeat K] [--profile]``.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import sys
import time
from pathlib import Path

TARGET_LINES_PER_S = 100_000


def find_cccl() -> Path | None:
    """The CCCL headers of the installed CUDA toolkit (e.g. /usr/local/cuda-13.0/targets/x86_64-linux/include/cccl)."""
    roots: list[str] = []
    nvcc = shutil.which("nvcc")
    if nvcc:
        real = Path(os.path.realpath(nvcc)).parent.parent
        roots.append(str(real))
    roots += sorted(glob.glob("/usr/local/cuda*"), reverse=True) + ["/usr/lib/cuda", "/opt/cuda"]
    for root in roots:
        for pattern in ("targets/*/include/cccl", "include/cccl", "targets/*/include", "include"):
            for cand in sorted(glob.glob(os.path.join(root, pattern))):
                p = Path(cand)
                if (p / "cub").is_dir() or (p / "thrust").is_dir():
                    return p.resolve()
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree", nargs="?", type=Path)
    ap.add_argument("--workers", type=int, default=None, help="pool size (default: all cores)")
    ap.add_argument("--no-rules", action="store_true", help="parse + inventory only")
    ap.add_argument("--repeat", type=int, default=2, help="runs; the best is reported")
    ap.add_argument("--profile", action="store_true", help="profile a serial run and print the top functions")
    args = ap.parse_args(argv)

    from hipgauge.source.parse import parse_source
    from hipgauge.source.scanner import ScanOptions, scan_tree, serial_map
    from hipgauge.source.walk import walk_tree

    tree = args.tree or find_cccl()
    if tree is None or not tree.exists():
        print("no CCCL headers found (is nvcc installed?); pass a tree to scan", file=sys.stderr)
        return 2
    workers = args.workers or os.cpu_count() or 1
    options = ScanOptions(rules=not args.no_rules, workers=workers)

    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        scan_tree([tree], options, map_files=serial_map)
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
        pstats.Stats(prof).sort_stats("tottime").print_stats(20)
        return 0

    entries, _ = walk_tree([tree], [], options.max_file_bytes)
    datas = [e.path.read_bytes() for e in entries]
    t0 = time.perf_counter()
    for d in datas:
        parse_source(d)
    parse_s = time.perf_counter() - t0

    best = None
    result = None
    for _ in range(max(args.repeat, 1)):
        t0 = time.perf_counter()
        result = scan_tree([tree], options)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    assert result is not None and best is not None
    lines, files = result.lines_scanned, len(result.files)
    lps = lines / best
    print(f"corpus: {tree} ({files} files, {lines} lines; {len(result.skipped)} skipped)")
    print(f"pipeline: walk + parse + inventory{' + rules + statistics' if options.rules else ''}; "
          f"{workers} worker processes; best of {max(args.repeat, 1)} runs (measured, wall clock)")
    print(f"found: {len(result.kernels)} kernels, {len(result.launch_sites)} launch sites, "
          f"{len(result.api_calls)} API references, {len(result.findings)} findings")
    print(f"scan:  {best:.2f} s  {lps:,.0f} lines/s  {files / best:,.0f} files/s")
    print(f"peer:  tree-sitter parse alone, 1 process: {parse_s:.2f} s = {lines / parse_s:,.0f} lines/s; "
          f"full scan on {workers} cores / bare parse on 1 = {lps / (lines / parse_s):.2f}x")
    verdict = "meets" if lps >= TARGET_LINES_PER_S else "MISSES"
    print(f"target: >= {TARGET_LINES_PER_S:,} lines/s on 2 cores -> {verdict} ({lps / TARGET_LINES_PER_S:.2f}x of target, "
          f"on {os.cpu_count()} cores here)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
