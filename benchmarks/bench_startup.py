"""Start-up and per-process translate: hipgauge as a user runs it, one process per command, against a hipify
started the same way.

Four measures, each a fresh process per run (median of ``--repeat``):

1. Start-up, interleaved (one run of each command per round, ``--rounds`` rounds, wall and CPU time = user +
   system of the process): a bare ``python -c pass``, ``hipgauge --version``, ``hipgauge scan A.cu B.cu
   --fail-on blocker`` (what a pre-commit hook runs on the files a commit touches), ``hipgauge translate`` of
   the folder of the same two files (the issue #16 test programs ``warp_reduce_masks.cu`` and
   ``symbol_copies.cu``), with and without ``--no-share``, and hipify-perl over the same two files. Goals
   (issue #23): the scan and the translate at least as fast as hipify-perl; ``--version`` at most 2x
   ``python -c pass``.
2. ``hipgauge --help`` cold start;
3. ``hipgauge translate`` of the 2-file folder against the torch peer on the same two files;
4. ``hipgauge translate`` of ``--folders`` small project folders (default 100; 2-3 files each, made from the
   issue #16 programs), one process per folder, as lines/s, against the peers one process per folder.

``--check`` runs measure 1 alone (hipify-perl left out) and exits 1 when, in CPU time (median over the
rounds, which waiting for a busy CPU does not inflate as it does wall time), ``--version`` takes more than
``VERSION_LIMIT`` times ``python -c pass`` or the 2-file ``scan --fail-on`` more than ``SCAN_LIMIT`` times:
the start-up regression check of ``.ci/run``. Measure 1 runs with a cache folder of its own
(``$HIPGAUGE_CACHE_DIR`` in the temporary folder, so other hipgauge runs on the machine neither fill nor evict
it); each command runs once, untimed, before the rounds, and writes its caches then (compiled patterns, dataclass
code, the parsed data files and the rule table: ``hipgauge/regex_cache.py``, ``hipgauge/datafiles.py``), as a
user's first run writes them.

The hipgauge measured is the ``hipgauge`` console script beside the interpreter that runs this script (else
``python -m hipgauge``): run it with another virtual environment's ``python`` to measure that environment's
install, e.g. a plain ``pip install .`` as CI makes (``/tmp/civenv/bin/python benchmarks/bench_startup.py``).

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

    python benchmarks/bench_startup.py [--hipify-perl PATH] [--torch-python PATH] [--repeat 5] [--rounds 11]
                                       [--folders 100] [--check]
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
from typing import Any

import hipgauge

REPO = Path(__file__).resolve().parent.parent
PROGRAMS = REPO / "tests" / "data" / "issue16"
TWO = ("warp_reduce_masks.cu", "symbol_copies.cu")

#: the start-up regression limits of ``--check``: CPU time, median over the rounds, as a multiple of a bare
#: ``python -c pass`` in the same run. Measured when they were set (2026-12-04, 2 cores shared with other work):
#: in a venv like CI's (``pip install .``: the console script, no editable-install finder) ``python -c pass``
#: took 16-20 ms, ``--version`` 1.8x that (pip's console script itself imports ``re``) and the 2-file scan 11x;
#: in a venv with an editable install (whose finder imports pathlib and re into every start, ``python -c pass``
#: too) 1.0-1.2x and 4.4x. Before issue #23 the scan was ~15x there and ~25x in CI's kind of venv. --version's
#: goal is 2x; its limit leaves room for a noisy machine and still fails when --version loads typing and pathlib
#: again (+1x) or rich (+2.5x). The scan's fails when Typer, pydantic, rich, polars or the pattern compiles come
#: back to a pre-commit scan (each +3x to +15x).
#: Re-measured after the start-up work of issue #23 (2026-12-04, same machine, busy): the 2-file scan took 5.2-6.7x
#: in a CI-like venv and 2.8-3.2x in the editable one; the scan limit was tightened from 16x to 10x then, which
#: still fails when the rule modules (+~1.5x), the interpreter's teardown (+1.5x) or any of the libraries above
#: come back to a pre-commit scan.
VERSION_LIMIT = 2.5
SCAN_LIMIT = 10.0

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


def timed(cmd: list[str], cwd: Path | None = None, label: str = "", ok: tuple[int, ...] = (0,)) -> float:
    """Wall seconds of one run; its CPU seconds (user + system, from the children's rusage) go to CPU[label]."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=cwd)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in ok:
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


def interleaved(commands: dict[str, tuple[Any, tuple[int, ...]]], rounds: int) -> dict[str, dict[str, float]]:
    """Each command once untimed, then ``rounds`` rounds of one run of each, in turn: the median wall and CPU
    seconds of each. A command is ``make(i) -> argv`` (``i``: the round; -1 for the untimed run), and the exit
    statuses it may end with."""
    walls: dict[str, list[float]] = {k: [] for k in commands}
    cpus: dict[str, list[float]] = {k: [] for k in commands}
    for i in range(-1, rounds):
        for label, (make, ok) in commands.items():
            before = CPU.get(label, 0.0)
            wall = timed(make(i), label=label, ok=ok)
            if i >= 0:
                walls[label].append(wall)
                cpus[label].append(CPU[label] - before)
    return {k: {"wall_s": statistics.median(walls[k]), "cpu_s": statistics.median(cpus[k])} for k in commands}


def startup(hg: list[str], perl: Path | None, rounds: int, work: Path) -> dict[str, Any]:
    """Measure 1 of the module docstring: the medians per command, the ratios, and the check against the limits."""
    os.environ["HIPGAUGE_CACHE_DIR"] = str(work / "cache")  # its own, written by the untimed first run
    two = work / "startup-two"
    two.mkdir()
    for name in TWO:
        shutil.copy(PROGRAMS / name, two / name)
    files = [str(two / name) for name in TWO]

    def fresh(dest: Path) -> Path:
        shutil.rmtree(dest, ignore_errors=True)
        return dest

    def perl_run(i: int) -> list[str]:
        dest = fresh(work / "startup-perl")
        shutil.copytree(two, dest)
        return ["perl", str(perl), "-inplace", "-quiet-warnings", *(str(dest / name) for name in TWO)]

    commands: dict[str, tuple[Any, tuple[int, ...]]] = {
        "python": (lambda i: [sys.executable, "-c", "pass"], (0,)),
        "version": (lambda i: [*hg, "--version"], (0,)),
        "scan": (lambda i: [*hg, "scan", *files, "--fail-on", "blocker"], (0, 1)),
        "translate": (lambda i: [*hg, "translate", str(two), "-o", str(fresh(work / "startup-t"))], (0,)),
        "translate_no_share": (lambda i: [*hg, "translate", str(two), "-o", str(fresh(work / "startup-n")),
                                          "--no-share"], (0,)),
    }
    if perl is not None:
        commands["hipify_perl"] = (perl_run, (0,))
    m = interleaved(commands, rounds)
    bare = m["python"]
    out: dict[str, Any] = {"rounds": rounds, "two_files_lines": sum((two / n).read_text().count("\n") for n in TWO)}
    for label, fig in m.items():
        out[f"{label}_wall_s"] = round(fig["wall_s"], 4)
        out[f"{label}_cpu_s"] = round(fig["cpu_s"], 4)
    out["version_cpu_x_python"] = round(m["version"]["cpu_s"] / bare["cpu_s"], 2)
    out["version_wall_x_python"] = round(m["version"]["wall_s"] / bare["wall_s"], 2)
    out["scan_cpu_x_python"] = round(m["scan"]["cpu_s"] / bare["cpu_s"], 2)
    out["scan_wall_x_python"] = round(m["scan"]["wall_s"] / bare["wall_s"], 2)
    if perl is not None:
        p = m["hipify_perl"]
        for label in ("scan", "translate", "translate_no_share"):  # > 1: hipgauge is faster
            out[f"{label}_speed_vs_hipify_perl_wall"] = round(p["wall_s"] / m[label]["wall_s"], 2)
            out[f"{label}_speed_vs_hipify_perl_cpu"] = round(p["cpu_s"] / m[label]["cpu_s"], 2)
    out["limits"] = {"version_cpu_x_python": VERSION_LIMIT, "scan_cpu_x_python": SCAN_LIMIT}
    out["check"] = ("pass" if out["version_cpu_x_python"] <= VERSION_LIMIT and out["scan_cpu_x_python"] <= SCAN_LIMIT
                    else "fail")
    return out


def print_startup(s: dict[str, Any]) -> None:
    print(f"start-up, {s['rounds']} interleaved rounds (median; wall and CPU = user + system; measured):")
    for label in ("python", "version", "scan", "translate", "translate_no_share", "hipify_perl"):
        if f"{label}_wall_s" in s:
            print(f"  {label:20s} wall {s[f'{label}_wall_s'] * 1000:7.1f} ms   CPU {s[f'{label}_cpu_s'] * 1000:7.1f} ms")
    print(f"  --version: {s['version_cpu_x_python']:.2f}x python -c pass in CPU ({s['version_wall_x_python']:.2f}x wall); "
          f"goal 2x, check limit {VERSION_LIMIT}x")
    print(f"  2-file scan --fail-on: {s['scan_cpu_x_python']:.2f}x python -c pass in CPU ({s['scan_wall_x_python']:.2f}x "
          f"wall); limit {SCAN_LIMIT}x")
    if "scan_speed_vs_hipify_perl_wall" in s:
        for label in ("scan", "translate", "translate_no_share"):
            print(f"  hipify-perl time / hipgauge {label} time: wall {s[f'{label}_speed_vs_hipify_perl_wall']:.2f}x, "
                  f"CPU {s[f'{label}_speed_vs_hipify_perl_cpu']:.2f}x (goal >= 1)")
    print(f"  check: {s['check']}")


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
    ap.add_argument("--rounds", type=int, default=11, help="interleaved rounds of the start-up measure (default 11)")
    ap.add_argument("--check", action="store_true",
                    help="the start-up measure alone; exit 1 when --version or the 2-file scan passes its limit")
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
    if args.check:
        with tempfile.TemporaryDirectory(prefix="hipgauge-bench-startup-") as tmp:
            s = startup(hg, None, args.rounds, Path(tmp))
        print_startup(s)
        print(json.dumps({"benchmark": "startup-check", "source": "measured", **s}))
        sys.exit(0 if s["check"] == "pass" else 1)
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
        s = startup(hg, perl, args.rounds, work)
        print_startup(s)
        results["startup"] = s
        results["headline"] = [k for k in ("startup.scan_speed_vs_hipify_perl_wall",
                                           "startup.translate_speed_vs_hipify_perl_wall",
                                           "startup.version_cpu_x_python", "startup.scan_cpu_x_python",
                                           "startup.check") if k.split(".")[1] in s]
        if args.folders <= 0:
            print(json.dumps(results))
            return
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
