"""Start-up and per-process translate: hipgauge as a user runs it, one process per command, against a hipify
started the same way.

Three measures, each a fresh process per run (median of ``--repeat``):

1. ``hipgauge --help`` and ``hipgauge --version`` cold start (beside a bare ``python -c pass``);
2. ``hipgauge translate`` of a 2-file folder (the issue #16 test programs ``warp_reduce_masks.cu`` and
   ``symbol_copies.cu``) against the peer on the same two files;
3. ``hipgauge translate`` of ``--folders`` small project folders (default 100; 2-3 files each, made from the
   issue #16 programs), one process per folder, as lines/s, against the peer one process per folder.

The peers. hipify-perl (ROCm/HIPIFY ``bin/hipify-perl``, one Perl script; it is on no package registry: give its
path with ``--hipify-perl`` or ``$HIPIFY_PERL``, e.g. a copy of the file from the HIPIFY repository) runs as
``hipconvertinplace-perl.sh`` runs it: one ``perl hipify-perl -inplace -quiet-warnings FILES…`` per folder, on a
fresh copy of the folder (the copy is not timed). A second peer, PyTorch's ``hipify_python`` (as
``bench_translate.py``), runs from the interpreter given by ``--torch-python`` (default ``/tmp/benchvenv/bin/python``; make it with
``python -m venv /tmp/benchvenv && /tmp/benchvenv/bin/pip install torch==2.13.0`` — the CPU wheel). Its module and
mapping table are loaded without ``torch/__init__`` (stub parent packages), so a run costs what a standalone
hipify script costs: the interpreter, the mapping table, the translation, like hipify-perl's perl + hash tables
(stated in the output). hipgauge is byte-compiled
first, as ``pip install`` leaves it. hipgauge runs with
``--no-progress`` and its default output (the summary table), and with ``--no-share`` (the rewrite only, what a
hipify does) as the headline; the default (with scan's rules share) is printed too.

    python benchmarks/bench_startup.py [--hipify-perl PATH] [--torch-python PATH] [--repeat 5] [--folders 100]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import hipgauge

REPO = Path(__file__).resolve().parent.parent
PROGRAMS = REPO / "tests" / "data" / "issue16"
TWO = ("warp_reduce_masks.cu", "symbol_copies.cu")

PEER = r"""
import importlib.util, os, sys, types
site = sys.argv[1]
for name, sub in (("torch", ""), ("torch.utils", "utils")):
    mod = types.ModuleType(name)
    mod.__path__ = [os.path.join(site, "torch", sub)] if sub else [os.path.join(site, "torch")]
    sys.modules[name] = mod
from torch.utils.hipify import hipify_python
for src, out in zip(sys.argv[2::2], sys.argv[3::2]):
    hipify_python.hipify(project_directory=src, output_directory=out, includes=["*"], show_progress=False,
                         extensions=(".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp"),
                         header_extensions=(".cuh", ".h", ".hpp"), is_pytorch_extension=True)
"""


def _hipgauge() -> list[str]:
    exe = Path(sys.executable).with_name("hipgauge")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "hipgauge"]


#: CPU seconds (user + system) of every child process this benchmark has waited for, per label
CPU: dict[str, float] = {}


def timed(cmd: list[str], cwd: Path | None = None, label: str = "") -> float:
    """Wall seconds of one run; its CPU seconds (user + system, from the children's rusage) go to CPU[label]."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=cwd)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}: {proc.stderr.strip()[-400:]}")
    if label:
        CPU[label] = CPU.get(label, 0.0) + (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return wall


def median_of(n: int, make_cmd, cleanup=None, label: str = "") -> float:  # type: ignore[no-untyped-def]
    walls = []
    for i in range(n):
        walls.append(timed(make_cmd(i), label=label))
        if cleanup:
            cleanup(i)
    return statistics.median(walls)


def make_folders(root: Path, count: int) -> int:
    """``count`` small project folders (2-3 files each, varied names); returns their total line count."""
    files = sorted(p for p in PROGRAMS.iterdir() if p.suffix in (".cu", ".hpp"))
    lines = 0
    for i in range(count):
        folder = root / f"proj{i:03d}"
        folder.mkdir(parents=True)
        picks = [files[(i + k) % len(files)] for k in range(2 + i % 2)]
        if any(p.name == "saxpy_noinclude.cu" for p in picks):
            picks.append(PROGRAMS / "device_math.hpp")
        for p in dict.fromkeys(picks):
            text = p.read_text().replace("printf(\"", f"printf(\"[{i}] ")
            (folder / p.name).write_text(text)
            lines += text.count("\n")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--torch-python", default="/tmp/benchvenv/bin/python")
    ap.add_argument("--hipify-perl", default=os.environ.get("HIPIFY_PERL") or shutil.which("hipify-perl") or "",
                    help="path of the hipify-perl script (default: $HIPIFY_PERL, else hipify-perl on PATH)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--folders", type=int, default=100)
    args = ap.parse_args()
    peer_python = Path(args.torch_python)
    peer_site = None
    if peer_python.exists():
        out = subprocess.run([str(peer_python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True)
        site = out.stdout.strip()
        if site and Path(site, "torch", "utils", "hipify", "hipify_python.py").exists():
            peer_site = site
    hg = _hipgauge()
    # byte-compile hipgauge as ``pip install`` does: a checkout run with PYTHONDONTWRITEBYTECODE=1 would compile
    # every module on every start (the peer's site-packages were compiled when torch was installed)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(hipgauge.__file__).parent)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    perl = Path(args.hipify_perl) if args.hipify_perl and Path(args.hipify_perl).is_file() else None
    results: dict[str, object] = {"benchmark": "startup", "source": "measured", "repeat": args.repeat,
                                  "peer": ("hipify-perl (" + str(perl) + ")" if perl else "hipify-perl not given")
                                  + "; torch.utils.hipify.hipify_python (standalone: no torch package init)"
                                  + ("" if peer_site else " not found"),
                                  "cores": os.cpu_count()}

    def perl_cmd(src: Path, dest: Path) -> list[str]:
        """A fresh copy of ``src`` (untimed) and the hipify-perl command that converts it in place."""
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(src, dest)
        files = sorted(str(f) for f in dest.iterdir() if f.suffix in (".cu", ".cuh", ".hpp", ".h", ".cpp"))
        return ["perl", str(perl), "-inplace", "-quiet-warnings", *files]
    with tempfile.TemporaryDirectory(prefix="hipgauge-bench-startup-") as tmp:
        work = Path(tmp)
        bare = median_of(args.repeat, lambda i: [sys.executable, "-c", "pass"])
        help_s = median_of(args.repeat, lambda i: [*hg, "--help"])
        version_s = median_of(args.repeat, lambda i: [*hg, "--version"])
        print(f"python -c pass            : {bare:6.3f} s (median of {args.repeat}, measured)")
        print(f"hipgauge --help cold start: {help_s:6.3f} s")
        print(f"hipgauge --version        : {version_s:6.3f} s")
        results.update(python_bare_s=round(bare, 3), help_s=round(help_s, 3), version_s=round(version_s, 3))

        two = work / "two"
        two.mkdir()
        for name in TWO:
            shutil.copy(PROGRAMS / name, two / name)
        two_lines = sum((two / n).read_text().count("\n") for n in TWO)

        def rm(path: Path) -> None:
            shutil.rmtree(path, ignore_errors=True)

        t_two = median_of(args.repeat, lambda i: [*hg, "translate", str(two), "-o", str(work / f"t{i}"),
                                                  "--no-share", "--no-progress"], lambda i: rm(work / f"t{i}"), "two")
        t_two_share = median_of(args.repeat, lambda i: [*hg, "translate", str(two), "-o", str(work / f"s{i}"),
                                                        "--no-progress"], lambda i: rm(work / f"s{i}"))
        print(f"translate 2 files ({two_lines} lines), --no-share : {t_two:6.3f} s per process")
        print(f"translate 2 files, default (+ rules share)     : {t_two_share:6.3f} s per process")
        results.update(two_files_lines=two_lines, two_files_hipgauge_s=round(t_two, 3),
                       two_files_hipgauge_with_share_s=round(t_two_share, 3))
        if peer_site:
            p_two = median_of(args.repeat, lambda i: [str(peer_python), "-c", PEER, peer_site, str(two),
                                                      str(work / f"p{i}")], lambda i: rm(work / f"p{i}"), "two_peer")
            cpu_ratio = CPU["two_peer"] / CPU["two"]
            print(f"peer hipify_python, 2 files                    : {p_two:6.3f} s per process")
            print(f"ratio peer / hipgauge, 2 files (--no-share): wall {p_two / t_two:.2f}x, CPU {cpu_ratio:.2f}x "
                  f"(CPU per run {CPU['two'] / args.repeat:.3f} s vs {CPU['two_peer'] / args.repeat:.3f} s; "
                  "target: >= 1, not slower)")
            results.update(two_files_peer_s=round(p_two, 3), two_files_ratio_vs_peer=round(p_two / t_two, 2),
                           two_files_cpu_ratio_vs_peer=round(cpu_ratio, 2))

        if perl:
            h_two = median_of(args.repeat, lambda i: perl_cmd(two, work / f"h{i}"), lambda i: rm(work / f"h{i}"),
                              "two_perl")
            print(f"hipify-perl, 2 files (one perl process)        : {h_two:6.3f} s per process")
            print(f"ratio hipify-perl / hipgauge, 2 files: wall {h_two / t_two:.2f}x, CPU "
                  f"{CPU['two_perl'] / CPU['two']:.2f}x (target: >= 1, not slower)")

            def per_file(i: int) -> float:
                """hipify-perl as its usage line documents it: ``hipify-perl [OPTIONS] INPUT_FILE``, one process a file."""
                dest = work / f"f{i}"
                dest.mkdir()
                return sum(timed(["perl", str(perl), "-quiet-warnings", f"-o={dest / name}", str(two / name)],
                                 label="two_perl_per_file") for name in TWO)

            walls = []
            for i in range(args.repeat):
                walls.append(per_file(i))
                rm(work / f"f{i}")
            f_two = statistics.median(walls)
            print(f"hipify-perl, 2 files, one process per file     : {f_two:6.3f} s for both")
            print(f"ratio hipify-perl (per file) / hipgauge, 2 files: wall {f_two / t_two:.2f}x")
            results.update(two_files_hipify_perl_s=round(h_two, 3), two_files_ratio_vs_hipify_perl=round(h_two / t_two, 2),
                           two_files_hipify_perl_per_file_s=round(f_two, 3),
                           two_files_ratio_vs_hipify_perl_per_file=round(f_two / t_two, 2))

        folders = work / "folders"
        lines = make_folders(folders, args.folders)
        names = sorted(p.name for p in folders.iterdir())
        t0 = time.perf_counter()
        for n in names:
            timed([*hg, "translate", str(folders / n), "-o", str(work / "hg" / n), "--no-share", "--no-progress"],
                  label="folders")
        t_hg = time.perf_counter() - t0
        lps = lines / t_hg
        print(f"{len(names)} folders ({lines} lines), one hipgauge process each, --no-share: {t_hg:6.2f} s, "
              f"{lps:,.0f} lines/s")
        results.update(folders=len(names), folders_lines=lines, folders_hipgauge_s=round(t_hg, 2),
                       folders_hipgauge_lines_per_s=round(lps))
        if peer_site:
            t0 = time.perf_counter()
            for n in names:
                timed([str(peer_python), "-c", PEER, peer_site, str(folders / n), str(work / "peer" / n)],
                      label="folders_peer")
            t_peer = time.perf_counter() - t0
            plps = lines / t_peer
            print(f"{len(names)} folders, one peer process each: {t_peer:6.2f} s, {plps:,.0f} lines/s")
            cpu_ratio = CPU["folders_peer"] / CPU["folders"]
            print(f"ratio hipgauge / peer lines/s, one process per folder: wall {lps / plps:.2f}x, CPU {cpu_ratio:.2f}x "
                  f"({lines / CPU['folders']:,.0f} vs {lines / CPU['folders_peer']:,.0f} lines per CPU second; "
                  "target >= 3x)")
            results.update(folders_peer_s=round(t_peer, 2), folders_peer_lines_per_s=round(plps),
                           folders_ratio_lines_per_s_vs_peer=round(lps / plps, 2),
                           folders_cpu_ratio_vs_peer=round(cpu_ratio, 2), target_ratio=3.0)
        else:
            print(f"peer not found ({args.torch_python} with torch); ratios skipped")
        if perl:
            t_perl = 0.0
            for n in names:
                cmd = perl_cmd(folders / n, work / "perl" / n)
                t_perl += timed(cmd, label="folders_perl")
            hlps = lines / t_perl
            print(f"{len(names)} folders, one hipify-perl process each: {t_perl:6.2f} s, {hlps:,.0f} lines/s")
            print(f"ratio hipgauge / hipify-perl lines/s, one process per folder: wall {lps / hlps:.2f}x, CPU "
                  f"{CPU['folders_perl'] / CPU['folders']:.2f}x (target >= 3x)")
            results.update(folders_hipify_perl_s=round(t_perl, 2), folders_hipify_perl_lines_per_s=round(hlps),
                           folders_ratio_lines_per_s_vs_hipify_perl=round(lps / hlps, 2), target_ratio=3.0)
        else:
            print("hipify-perl not given (--hipify-perl or $HIPIFY_PERL): its ratios are skipped")
    print("The machine may be shared: figures are wall clock on this machine in this run; compare the ratios.")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
