#!/usr/bin/env python3
"""Run every benchmark in benchmarks/ (bench_*.py), each in its own process, and write benchmarks/RESULTS.md.

For each script: its exit status, wall time, peak resident memory (``ru_maxrss`` of the benchmark
process as ``wait4`` reports it: the largest of that process and the children it waited for; a
process pool's workers are not summed), and the figures it printed. A benchmark reports by printing
one JSON object on a line of its stdout (the last such line wins); without one, its last output lines
are kept as they are. Headline figures are picked from that JSON by name: lines/s for the scan,
ratios against the peer tool (PyTorch hipify, HolisticTraceAnalysis) for translate and ingest.

The results are also written as ``RESULTS.json`` beside the table. With ``--only``, the benchmarks not re-run
keep their last results in both files, each row marked with the time and commit it was measured at.

Usage: python benchmarks/run_all.py [--only scan,translate] [--timeout 900] [--out benchmarks/RESULTS.md] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

#: which figures lead each row: key patterns (regex on the flattened key), best first
HEADLINE = [r"lines_per_s", r"lines/s", r"ratio", r"speedup", r"vs_", r"per_s", r"throughput"]


def discover(only: list[str] | None) -> list[Path]:
    scripts = sorted(HERE.glob("bench_*.py"))
    if only:
        scripts = [s for s in scripts if any(s.stem == f"bench_{o}" or s.stem == o or s.name == o for o in only)]
    return scripts


def run_one(script: Path, timeout_s: float, extra: list[str]) -> dict[str, Any]:
    """Run one benchmark; return its status, wall time, peak RSS and output."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(script), *extra], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    chunks: dict[str, list[str]] = {"out": [], "err": []}

    def pump(stream: Any, key: str) -> None:
        for line in stream:
            chunks[key].append(line)

    readers = [threading.Thread(target=pump, args=(proc.stdout, "out"), daemon=True),
               threading.Thread(target=pump, args=(proc.stderr, "err"), daemon=True)]
    for t in readers:
        t.start()
    timed_out = threading.Event()

    def kill() -> None:
        timed_out.set()
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the benchmark's own process group only
        except ProcessLookupError:
            pass

    timer = threading.Timer(timeout_s, kill)
    timer.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    for t in readers:
        t.join(timeout=10)
    wall = time.perf_counter() - start
    stdout, stderr = "".join(chunks["out"]), "".join(chunks["err"])
    report = last_json(stdout)
    return {
        "name": script.stem.removeprefix("bench_"),
        "script": str(script.relative_to(REPO)),
        "exit": proc.returncode,
        "timed_out": timed_out.is_set(),
        "wall_s": round(wall, 2),
        "peak_rss_mib": round(usage.ru_maxrss / 1024.0, 1),  # Linux: kilobytes
        "report": report,
        "tail": [line for line in stdout.splitlines() if line.strip()][-8:],
        "stderr_tail": [line for line in stderr.splitlines() if line.strip()][-4:],
    }


def last_json(stdout: str) -> dict[str, Any] | None:
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
    # a pretty-printed object at the end of the output
    start = stdout.rfind("\n{")
    if start >= 0:
        try:
            value = json.loads(stdout[start:])
            return value if isinstance(value, dict) else None
        except ValueError:
            return None
    return None


def flatten(doc: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in doc.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(value, name + "."))
        elif isinstance(value, (int, float, str, bool)) or value is None:
            flat[name] = value
    return flat


def headline(report: dict[str, Any] | None) -> list[tuple[str, Any]]:
    if not report:
        return []
    if isinstance(report.get("headline"), list):  # the benchmark names its own headline figures
        flat = flatten(report)
        return [(k, flat[k]) for k in report["headline"] if k in flat][:6]
    numbers = {k: v for k, v in flatten(report).items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    picked: list[tuple[str, Any]] = []
    for pattern in HEADLINE:
        for key, value in numbers.items():
            if re.search(pattern, key, re.IGNORECASE) and key not in dict(picked):
                picked.append((key, value))
    return picked[:4]


_TEXT_HEADLINE = re.compile(r"lines/s|ratio|speed-?up|\d(?:\.\d+)?\s*[x×]\b", re.IGNORECASE)


def text_headline(tail: list[str]) -> str:
    """Without a JSON report: the output lines that carry rates or ratios (at most two), else the last line."""
    picked = [" ".join(line.split()) for line in tail if _TEXT_HEADLINE.search(line)][:2]
    return "; ".join(picked) if picked else (tail[-1] if tail else "—")


def fmt(value: Any) -> str:
    if isinstance(value, float):
        if abs(value) >= 1000:
            return f"{value:,.0f}"
        return f"{value:.3g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def status_of(result: dict[str, Any]) -> str:
    report = result["report"] or {}
    if result["timed_out"]:
        return "timed out"
    if report.get("skipped") or str(report.get("status", "")).lower() == "skipped":
        return "skipped: " + str(report.get("reason", report.get("skipped")))[:80]
    if result["exit"] == 0:
        return "ok"
    if result["report"] is not None:
        return f"exit {result['exit']} (reported)"
    return f"failed (exit {result['exit']})"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} CPU(s), {cpu}; Python {platform.python_version()}; {platform.system()} {platform.release()}"


def commit() -> str:
    try:
        done = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              timeout=10, env=dict(os.environ, GIT_OPTIONAL_LOCKS="0"))
        return done.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def markdown(results: list[dict[str, Any]]) -> str:
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Benchmark results",
        "",
        f"Written by `python benchmarks/run_all.py` on {now}, commit {commit()}; {machine()}.",
        "All figures are measured on this machine in this run (wall clock; peak RSS from `wait4`), "
        "except where a benchmark's own output says otherwise. Other work on the machine during the run "
        "makes them noisy; compare ratios, not absolute times, across machines.",
        "",
        "| benchmark | status | headline | wall s | peak RSS MiB |",
        "|---|---|---|---:|---:|",
    ]
    for r in results:
        head = "; ".join(f"{k} = {fmt(v)}" for k, v in headline(r["report"])) or text_headline(r["tail"])
        when = f" (run {r.get('run_at', '?')}, commit {r.get('commit', '?')})" if r.get("carried") else ""
        lines.append(f"| {r['name']}{when} | {status_of(r)} | {head.replace('|', '/')} | {r['wall_s']:.1f} | {r['peak_rss_mib']:.0f} |")
    lines += ["", "Peak RSS is the largest single process of the benchmark (the script, or the largest child it "
              "waited for); the workers of a process pool are not added together.", ""]
    for r in results:
        lines += [f"## {r['name']}", "", f"`python {r['script']}` — {status_of(r)}, {r['wall_s']:.1f} s, "
                  f"peak RSS {r['peak_rss_mib']:.0f} MiB", ""]
        if r["report"]:
            lines += ["| figure | value |", "|---|---|"]
            lines += [f"| {k} | {fmt(v).replace('|', '/')} |" for k, v in flatten(r["report"]).items()]
            lines.append("")
        if r["tail"]:
            lines += ["Last output lines:", "", "```", *r["tail"], "```", ""]
        if r["exit"] != 0 and r["stderr_tail"]:
            lines += ["stderr:", "", "```", *r["stderr_tail"], "```", ""]
    return "\n".join(lines)


def _previous(path: Path, rerun: set[str]) -> list[dict[str, Any]]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [dict(r, carried=True) for r in doc.get("results", []) if isinstance(r, dict) and r.get("name") not in rerun]


def _write(out: Path, results: list[dict[str, Any]], carried: list[dict[str, Any]]) -> None:
    order = {p.stem.removeprefix("bench_"): i for i, p in enumerate(sorted(HERE.glob("bench_*.py")))}
    everything = sorted([*results, *carried], key=lambda r: order.get(r["name"], 99))
    out.write_text(markdown(everything) + "\n", encoding="utf-8")
    clean = [{k: v for k, v in r.items() if k != "carried"} for r in everything]
    out.with_suffix(".json").write_text(json.dumps({"schema": "hipgauge.benchmarks/1", "results": clean}, indent=1) + "\n",
                                        encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated benchmark names (scan, translate, ingest, replay, startup)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per benchmark (default 900)")
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS.md", help="where to write the table")
    parser.add_argument("--json", action="store_true", help="also print the results as JSON (hipgauge.benchmarks/1)")
    parser.add_argument("--ingest-kernels", type=int, default=None,
                        help="kernel events in the generated ingest trace (bench_ingest's default: 1,000,000; the "
                             "HolisticTraceAnalysis peer needs ~23 MB of memory per 1,000 kernels)")
    args = parser.parse_args(argv)
    scripts = discover(args.only.split(",") if args.only else None)
    if not scripts:
        print(f"no benchmarks found in {HERE} (bench_*.py)", file=sys.stderr)
        return 2
    results: list[dict[str, Any]] = []
    # with --only, the other benchmarks' last results (RESULTS.json beside the table) stay in the table, marked
    carried = _previous(args.out.with_suffix(".json"), {s.stem.removeprefix("bench_") for s in scripts}) if args.only else []
    for script in scripts:
        print(f"running {script.name} …", file=sys.stderr, flush=True)
        extra = ["--kernels", str(args.ingest_kernels)] if script.stem == "bench_ingest" and args.ingest_kernels else []
        result = run_one(script, args.timeout, extra)
        result.update(run_at=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), commit=commit())
        print(f"  {status_of(result)}, {result['wall_s']:.1f} s, peak RSS {result['peak_rss_mib']:.0f} MiB", file=sys.stderr)
        results.append(result)
        _write(args.out, results, carried)  # after each one: a later kill keeps these
    print(f"wrote {args.out}", file=sys.stderr)
    if args.json:
        print(json.dumps({"schema": "hipgauge.benchmarks/1", "results": results}, indent=2))
    return 0 if all(r["exit"] == 0 and not r["timed_out"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
