"""Translate throughput: hipgauge translate vs PyTorch's Python hipify, same files, same run.

Input: the CCCL headers of the local CUDA install (thrust, cub, libcu++: ~1,600 files, ~17 MB); only the files
both tools read (.cu .cuh .cpp .cc .h .hpp) are copied into a scratch tree, then each tool translates that
tree into its own new folder. PyTorch's hipify (``torch.utils.hipify.hipify_python.hipify``) runs in a separate
interpreter that has torch (default ``/tmp/benchvenv/bin/python``; make it with
``python -m venv /tmp/benchvenv && /tmp/benchvenv/bin/pip install torch==2.13.0`` — the CPU wheel). Each tool
is timed by wall clock around its own call (best of ``--repeat``), CPU time is printed too (hipgauge's includes
its pool workers); the ratio is torch / hipgauge. hipgauge runs three ways: rewrite only in its process pool
(what hipify does; the headline), rewrite only in one process, and the default with scan's rules share (which
also runs the inventory and rule engine on every file). Target: >= 3x. Not part of the test suite. The last
line is a JSON object for ``benchmarks/run_all.py``.

hipify-perl, when given (``--hipify-perl PATH`` or ``$HIPIFY_PERL``: the ROCm/HIPIFY ``bin/hipify-perl`` script,
on no package registry), converts a fresh copy of the same tree in one ``perl hipify-perl -inplace`` process over
all the files, as ``hipconvertinplace-perl.sh`` runs it (the copy is not timed); best of ``--repeat``.

    python benchmarks/bench_translate.py [--cccl DIR] [--torch-python PATH] [--hipify-perl PATH] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def run_hipgauge(src: Path, work: Path, n: int, **opts: object) -> tuple[float, float]:
    """(wall s, CPU s) of one translate_tree call; CPU counts this process and the pool workers it reaped."""
    from hipgauge.app.translate import translate_tree
    from hipgauge.translate.rewrite import TranslateOptions

    out = work / f"hipgauge-{n}"
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0, c0 = time.perf_counter(), time.process_time()
    translate_tree(src, out, TranslateOptions(**opts))  # type: ignore[arg-type]
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu += (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    shutil.rmtree(out)
    return wall, cpu


def equivalence(src: Path) -> dict[str, object]:
    """Both hipgauge paths on every source file: the lexical fast path and the tree path (what it falls back to).

    Each file is one of: identical (text, references, unconverted, statistics, safe rewrites), fallback (the
    lexer was unsure; the tree path's result is used, identical by construction), or different. A difference
    is put down to the tree when every reference only one path has sits in a syntax-tree node with a parse error
    (tree-sitter's recovery around unknown macros: ERROR or MISSING nodes); anything else is unexplained."""
    from hipgauge.source.parse import parse_bytes
    from hipgauge.source.walk import walk_tree
    from hipgauge.translate.candidates import find_candidates
    from hipgauge.translate.lexical import Unsure, _Lexer
    from hipgauge.knowledge.mapping import load_mapping
    from hipgauge.translate.rewrite import TranslateOptions, translate_file
    from hipgauge.app.translate import _local_names

    entries, _ = walk_tree([src], [], 8 << 20)
    opts = TranslateOptions(rules_share=False, known_local_names=_local_names(entries))
    counts = {"identical": 0, "fallback": 0, "tree_parse_error": 0, "unexplained": 0}
    unexplained: list[str] = []
    for e in entries:
        if e.kind in ("cmake", "make", "setup.py"):
            continue
        data = Path(e.path).read_bytes()
        cands = find_candidates(data)
        if b"\x00" in data[:8192] or not cands.needs_tree or not cands.exact_only:
            continue
        lx = _Lexer(parse_bytes(data, e.display, e.kind), load_mapping(), opts, cands)
        try:
            lx.run_lexical()
        except Unsure:
            counts["fallback"] += 1
            continue
        a = lx.result()
        pf = parse_bytes(data, e.display, e.kind)
        b = translate_file(pf, load_mapping(), opts, cands)
        if (a.text, a.references, a.unconverted, a.stats, a.safe_rewrites) == \
                (b.text, b.references, b.unconverted, b.stats, b.safe_rewrites):
            counts["identical"] += 1
            continue
        ka = {repr(r): r for r in a.references}
        kb = {repr(r): r for r in b.references}
        only = [r for k, r in {**ka, **kb}.items() if (k in ka) != (k in kb)]
        root = pf.tree.root_node

        def parse_error_at(ref: object) -> bool:
            off = pf.line_starts[ref.line - 1] + ref.column  # type: ignore[attr-defined]
            node = root.descendant_for_byte_range(off, off + 1)
            for _ in range(8):
                if node is None or node.type == "translation_unit":
                    return False
                if node.has_error:
                    return True
                node = node.parent
            return False

        if a.safe_rewrites == b.safe_rewrites and all(parse_error_at(r) for r in only):
            counts["tree_parse_error"] += 1
        else:
            counts["unexplained"] += 1
            unexplained.append(e.display)
    return {**counts, "unexplained_files": unexplained[:20]}


def run_torch(python: str, src: Path, work: Path, n: int) -> tuple[float, float]:
    out = work / f"torch-{n}"
    proc = subprocess.run([python, "-c", TORCH_SNIPPET, str(src), str(out)], capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"PyTorch hipify failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr else proc.returncode}")
    doc = json.loads(proc.stdout.strip().splitlines()[-1])
    shutil.rmtree(out, ignore_errors=True)
    return doc["wall"], doc["cpu"]


def run_perl(perl: Path, src: Path, work: Path, n: int) -> tuple[float, float]:
    """(wall s, CPU s) of hipify-perl converting a copy of ``src`` in place, one perl process for every file."""
    dest = work / f"perl-{n}"
    shutil.copytree(src, dest)
    files = sorted(str(p) for p in dest.rglob("*") if p.is_file())
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(["perl", str(perl), "-inplace", "-quiet-warnings", *files], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(dest, ignore_errors=True)
    if proc.returncode != 0:
        sys.exit(f"hipify-perl failed ({proc.returncode}): {proc.stderr.strip()[-300:]}")
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cccl", type=Path, default=next((Path(c) for c in CCCL_CANDIDATES if Path(c).is_dir()), None))
    ap.add_argument("--torch-python", default="/tmp/benchvenv/bin/python")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--hipify-perl", default=os.environ.get("HIPIFY_PERL") or shutil.which("hipify-perl") or "")
    args = ap.parse_args()
    perl = Path(args.hipify_perl) if args.hipify_perl and Path(args.hipify_perl).is_file() else None
    if args.cccl is None or not args.cccl.is_dir():
        sys.exit("no CCCL headers found; pass --cccl DIR")
    if not Path(args.torch_python).exists():
        sys.exit(f"{args.torch_python} not found; make the venv with torch (see the module docstring)")
    with tempfile.TemporaryDirectory(prefix="hipgauge-bench-") as tmp:
        work = Path(tmp)
        src = work / "cccl"
        files, size = collect(args.cccl, src)
        print(f"input: {files} files, {size / 1e6:.1f} MB from {args.cccl}")
        eq = equivalence(src)
        print(f"equivalence, lexical fast path vs tree path, per source file: {eq['identical']} identical, "
              f"{eq['fallback']} fell back to the tree (identical by construction), {eq['tree_parse_error']} differ "
              f"where tree-sitter's parse has errors (lexer kept), {eq['unexplained']} unexplained"
              + (f": {', '.join(eq['unexplained_files'])}" if eq["unexplained"] else ""))
        runs = {
            "tree": [run_hipgauge(src, work, 300 + i, rules_share=False, lexical=False) for i in range(args.repeat)],
            "pool": [run_hipgauge(src, work, i, rules_share=False) for i in range(args.repeat)],
            "serial": [run_hipgauge(src, work, 100 + i, rules_share=False, workers=1) for i in range(args.repeat)],
            "share": [run_hipgauge(src, work, 200 + i) for i in range(max(1, args.repeat // 2))],
        }
        theirs = [run_torch(args.torch_python, src, work, i) for i in range(args.repeat)]
        perls = [run_perl(perl, src, work, i) for i in range(args.repeat)] if perl else []
    t_wall, t_cpu = min(w for w, _ in theirs), min(c for _, c in theirs)
    best = {k: (min(w for w, _ in v), min(c for _, c in v)) for k, v in runs.items()}
    cores = os.cpu_count() or 1
    labels = {"tree": f"hipgauge translate --no-share, tree path only (before), pool of {cores}",
              "pool": f"hipgauge translate --no-share (lexical fast path), pool of {cores}",
              "serial": "hipgauge translate --no-share (lexical fast path), 1 process",
              "share": f"hipgauge translate (default: + scan's rules share), pool of {cores}"}
    for k, (w, c) in best.items():
        print(f"{labels[k]:<66}: {w:7.2f} s wall, {c:7.2f} s CPU  ({size / 1e6 / w:.1f} MB/s)")
    print(f"{'torch hipify_python (1 process)':<66}: {t_wall:7.2f} s wall, {t_cpu:7.2f} s CPU  "
          f"({size / 1e6 / t_wall:.1f} MB/s)")
    print("CPU: hipgauge = its process + its pool workers (getrusage children); torch = the hipify call's process "
          "time (torch import not counted). The machine may be shared: compare CPU as well as wall.")
    for k, (w, c) in best.items():
        print(f"ratio (torch / hipgauge), measured, best of {len(runs[k])}, {k:<6}: wall {t_wall / w:.2f}x, "
              f"CPU {t_cpu / c:.2f}x  (target >= 3x)")
    p_wall, p_cpu = best["pool"]
    perl_figures: dict[str, object] = {}
    if perls:
        h_wall, h_cpu = min(w for w, _ in perls), min(c for _, c in perls)
        print(f"{'hipify-perl (1 perl process, -inplace on a copy)':<66}: {h_wall:7.2f} s wall, {h_cpu:7.2f} s CPU  "
              f"({size / 1e6 / h_wall:.1f} MB/s)")
        for k, (w, c) in best.items():
            print(f"ratio (hipify-perl / hipgauge), measured, best of {len(perls)}, {k:<6}: wall {h_wall / w:.2f}x, "
                  f"CPU {h_cpu / c:.2f}x")
        perl_figures = {"hipify_perl_wall_s": round(h_wall, 3), "hipify_perl_cpu_s": round(h_cpu, 3),
                        "ratio_wall_vs_hipify_perl": round(h_wall / p_wall, 2),
                        "ratio_wall_serial_vs_hipify_perl": round(h_wall / best["serial"][0], 2),
                        "ratio_cpu_serial_vs_hipify_perl": round(h_cpu / best["serial"][1], 2)}
    else:
        print("hipify-perl not given (--hipify-perl or $HIPIFY_PERL): its ratio is skipped")
    print(json.dumps({**perl_figures,
        "benchmark": "translate", "ratio_wall_vs_torch": round(t_wall / p_wall, 2),
        "ratio_cpu_vs_torch": round(t_cpu / p_cpu, 2),
        "ratio_wall_serial_vs_torch": round(t_wall / best["serial"][0], 2),
        "ratio_cpu_serial_vs_torch": round(t_cpu / best["serial"][1], 2),
        "ratio_wall_with_share_vs_torch": round(t_wall / best["share"][0], 2),
        "ratio_cpu_with_share_vs_torch": round(t_cpu / best["share"][1], 2),
        "target_ratio": 3.0, "files": files, "megabytes": round(size / 1e6, 1), "cores": cores,
        "hipgauge_wall_s": round(p_wall, 3), "hipgauge_cpu_s": round(p_cpu, 3),
        "torch_wall_s": round(t_wall, 3), "torch_cpu_s": round(t_cpu, 3), "source": "measured",
        "ratio_cpu_tree_path_vs_torch": round(t_cpu / best["tree"][1], 2),
        "equivalence_identical": eq["identical"], "equivalence_fallback": eq["fallback"],
        "equivalence_tree_parse_error": eq["tree_parse_error"], "equivalence_unexplained": eq["unexplained"],
    }))


if __name__ == "__main__":
    main()
