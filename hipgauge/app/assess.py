"""The assessment pipeline: scan → translate statistics → build-check → compare or project → cost → decide.

Each stage is run through ``_stage`` which records its status (ok / skipped / not run / failed), its
reason and its time. Bad user input (a profile that does not parse, a missing file) is an InputError and
stops the run (exit 2); a stage that is absent, lacks its toolchain or fails internally is recorded and
the assessment goes on without it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from hipgauge.app.scan import ScanOptions, scan_tree
from hipgauge.app.translate import TranslateResult, translate_tree
from hipgauge.config import Config
from hipgauge.decide.build_errors import classify_build_check
from hipgauge.decide.cost import CostEstimate, estimate_cost
from hipgauge.decide.rubric import Decision, decide
from hipgauge.errors import InputError
from hipgauge.profiles.counters import add_theoretical
from hipgauge.profiles.load import load_profile
from hipgauge.profiles.match import load_user_map
from hipgauge.profiles.parity import ComparisonResult, compare_profiles
from hipgauge.profiles.projection import ProjectionResult, parse_assume, project_baseline
from hipgauge.profiles.timeline_load import load_timeline
from hipgauge.source.walk import walk_tree
from hipgauge.translate.rewrite import TranslateOptions

if TYPE_CHECKING:
    from hipgauge.model import Profile, ScanResult


@dataclass
class AssessOptions:
    paths: list[Path]
    baseline: Path | None = None
    candidate: Path | None = None
    latency_csv: Path | None = None
    candidate_latency_csv: Path | None = None
    target_ms: float | None = None
    percentile: float | None = None
    assume: list[str] = field(default_factory=list)
    map_file: Path | None = None
    build_check: bool = True
    build_budget_s: float = 120.0
    amd_arch: list[str] | None = None  # None: [build] amd_arch from config
    nvidia_arch: list[str] | None = None
    translate: bool = True
    workers: int | None = None
    cache_from: Path | None = None  # a previous report folder whose build-check result may be reused
    workloads: list["Workload"] = field(default_factory=list)  # further profiles projected on their own


@dataclass
class Workload:
    """A separate workload shown beside the main one (e.g. a framework model's trace): projected only."""

    name: str
    profile: Path
    latency_csv: Path | None = None
    target_ms: float | None = None
    percentile: float = 99.0
    target_from: str = ""
    notes: list[str] = field(default_factory=list)


@dataclass
class AssessmentRun:
    """Each stage's typed result (None: not run or failed, see ``stages``). ``build_check`` is the
    ``hipgauge.build-check/1`` document the child process wrote, with the pipeline's ``classification``."""

    scan: ScanResult | None = None
    translate: TranslateResult | None = None
    build_check: dict[str, Any] | None = None
    baseline: Profile | None = None
    candidate: Profile | None = None
    comparison: ComparisonResult | None = None
    projection: ProjectionResult | None = None
    decision: Decision | None = None
    cost: CostEstimate | None = None
    workloads: list[dict[str, Any]] = field(default_factory=list)  # {workload, projection, profile}
    stages: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    inputs: dict[str, Any] = field(default_factory=dict)


def _stage(run: AssessmentRun, name: str, fn: Callable[[], Any], on_stage: Callable[[str], None] | None = None) -> Any:
    if on_stage:
        on_stage(name)
    t0 = time.perf_counter()
    try:
        result = fn()
    except InputError:
        raise
    except _NotRun as exc:
        run.stages.append({"name": name, "status": "not run", "reason": str(exc), "seconds": time.perf_counter() - t0})
        return None
    except Exception as exc:  # noqa: BLE001 - a failing stage is reported, the rest of the assessment goes on
        run.stages.append({"name": name, "status": "failed", "reason": f"{type(exc).__name__}: {exc}",
                           "seconds": time.perf_counter() - t0})
        run.warnings.append(f"{name} failed: {type(exc).__name__}: {exc}")
        return None
    run.stages.append({"name": name, "status": "ok", "reason": "", "seconds": time.perf_counter() - t0})
    return result


class _NotRun(Exception):
    """A stage that did not run for a stated reason (no toolchain, no input)."""


def _scan(opts: AssessOptions, config: Config) -> Any:
    options = ScanOptions(exclude=tuple(config.get("exclude")), ignore=tuple(config.get("ignore")),
                          max_file_bytes=int(config.get("max_file_bytes")), workers=opts.workers,
                          defines=tuple(config.get("defines")))
    return scan_tree(list(opts.paths), options)


def _translate(opts: AssessOptions, config: Config) -> Any:
    if not opts.translate:
        raise _NotRun("disabled")

    if len(opts.paths) != 1 or not opts.paths[0].is_dir():
        raise _NotRun("translate statistics need one source folder; share taken from the scan")
    with tempfile.TemporaryDirectory(prefix="hipgauge-translate-") as tmp:
        # statistics only: nothing is written (the report needs the numbers, not the tree)
        return translate_tree(opts.paths[0], Path(tmp) / "hip", TranslateOptions(exclude=tuple(config.get("exclude"))),
                              write=False)


#: seconds the build-check child needs to start (imports) and to write its result, kept out of its budget
_JOB_START_S = 2.0
#: how long past the budget the parent waits for the child's partial result before killing it
_JOB_GRACE_S = 10.0


class _BuildJob:
    """build-check running in a child process group, started early and collected at the end."""

    def __init__(self, opts: AssessOptions, config: Config) -> None:
        self.t0 = time.perf_counter()
        self.proc = None
        self.reason = ""
        self.cached: dict[str, Any] | None = None
        if not opts.build_check:
            self.reason = "disabled (--no-build-check)"
            return
        hipcc = shutil.which("hipcc") or ("/usr/bin/hipcc" if Path("/usr/bin/hipcc").exists() else None)
        nvcc = shutil.which("nvcc")
        if hipcc is None and nvcc is None:
            self.reason = "hipcc not found (and nvcc not found)"
            return
        amd = list(opts.amd_arch if opts.amd_arch is not None else config.get("build.amd_arch"))
        nv = list(opts.nvidia_arch if opts.nvidia_arch is not None else config.get("build.nvidia_arch"))
        base = Path(config.path).parent if config.path else Path.cwd()
        includes = [str((base / d).resolve()) for d in config.get("build.include_dirs")]
        args = {"path": str(Path(opts.paths[0]).resolve()), "amd_arch": amd if hipcc else [],
                "nvidia_arch": nv if nvcc else [], "timeout_s": min(float(config.get("build.timeout_s")), opts.build_budget_s),
                "include_dirs": includes, "defines": list(config.get("build.defines")),
                "exclude": list(config.get("exclude"))}
        self.note = "" if hipcc else "hipcc not found: NVIDIA targets only"
        self.key = _cache_key(opts.paths[0], args, hipcc, nvcc)
        if opts.cache_from is not None:
            self.cached = _cached(opts.cache_from, self.key)
            if self.cached is not None:
                return
        self.tmp = tempfile.mkdtemp(prefix="hipgauge-build-job-")
        self.out = Path(self.tmp) / "result.json"
        self.budget = opts.build_budget_s
        # The child stops starting compiles at the budget and returns what it has ("k of n units checked");
        # the parent kills it only if it overruns that by GRACE. Its temporary files (the translated tree,
        # objects, the compilers' own) all go below self.tmp, which the parent removes whatever happens.
        job_args = {**args, "budget_s": max(0.5, self.budget - _JOB_START_S)}
        env = {**os.environ, "TMPDIR": self.tmp}
        self.proc = subprocess.Popen([sys.executable, "-m", "hipgauge.app.buildcheck_job", json.dumps(job_args),
                                      str(self.out)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, env=env)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait()
        if self.proc is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def collect(self) -> Any:
        if self.cached is not None:
            return {**self.cached, "cache": "reused from the previous report (same sources, arches and toolchains)"}
        if self.proc is None:
            raise _NotRun(self.reason)
        try:
            self.proc.wait(max(0.0, self.budget + _JOB_GRACE_S - (time.perf_counter() - self.t0)))
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait()
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise _NotRun(f"not finished within the {self.budget:g} s budget (--build-budget-s)") from None
        try:
            doc = json.loads(self.out.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise RuntimeError(f"build-check exited with status {self.proc.returncode} and no result") from None
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)
        if doc.get("status") == "failed":
            raise RuntimeError(doc.get("reason", "failed"))
        summary = doc.get("summary") or {}
        if summary.get("units_checked", 0) >= summary.get("units_total", 0):
            doc["cache_key"] = self.key  # a partial result (budget ran out) is never reused as the whole
        if self.note:
            doc["note"] = self.note
        return doc


def _cache_key(path: Path, args: dict[str, Any], hipcc: str | None, nvcc: str | None) -> str:
    h = hashlib.sha256(json.dumps({k: v for k, v in args.items() if k != "timeout_s"}, sort_keys=True).encode())
    h.update(f"{hipcc}|{nvcc}".encode())
    root = Path(path)
    files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
    for f in files:
        try:
            st = f.stat()
        except OSError:
            continue
        h.update(f"{f.relative_to(root) if root.is_dir() else f.name}|{st.st_size}|{st.st_mtime_ns}".encode())
    return h.hexdigest()


def _cached(folder: Path, key: str) -> dict[str, Any] | None:
    try:
        doc = json.loads((Path(folder) / "assessment.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    bc = doc.get("build_check") if isinstance(doc, dict) else None
    if isinstance(bc, dict) and bc.get("cache_key") == key:
        return bc
    return None


def _require_sources(paths: list[Path], config: Config) -> None:
    """InputError naming the path when no source file hipgauge reads is found under ``paths`` (an empty
    folder, a tree of only build files or documents): nothing to assess, and no triage to print."""
    entries, _skipped = walk_tree(list(paths), list(config.get("exclude")), int(config.get("max_file_bytes")),
                                  python=True)
    if not any(e.kind in ("cuda", "cpp", "header", "python") for e in entries):
        shown = ", ".join(str(p) for p in paths)
        raise InputError("no CUDA sources found (no .cu/.cuh, C/C++ or Python file hipgauge reads)", shown)


def run_assessment(opts: AssessOptions, config: Config, on_stage: Callable[[str], None] | None = None,
                   stages: set[str] | None = None) -> AssessmentRun:
    """Run the stages (``stages`` limits which: scan, translate, build-check, profiles, cost, decide)."""
    want = stages or {"scan", "translate", "build-check", "profiles", "cost", "decide"}
    run = AssessmentRun()
    target = opts.target_ms if opts.target_ms is not None else config.get("objectives.latency_target_ms")
    percentile = opts.percentile if opts.percentile is not None else float(config.get("objectives.percentile"))
    run.inputs = {
        "source": ", ".join(str(p) for p in opts.paths),
        "baseline": str(opts.baseline) if opts.baseline else None,
        "candidate": str(opts.candidate) if opts.candidate else None,
        "latency_csv": str(opts.latency_csv) if opts.latency_csv else None,
        "candidate_latency_csv": str(opts.candidate_latency_csv) if opts.candidate_latency_csv else None,
        "config": config.path, "target_ms": target, "percentile": percentile,
        "target_source": "assumed" if target is not None else "unknown",
        "target_from": "--target-ms" if opts.target_ms is not None else
        (f"{config.path}: objectives.latency_target_ms" if target is not None else ""),
        "assume": list(opts.assume),
    }
    for p in [*opts.paths, opts.baseline, opts.candidate, opts.latency_csv, opts.candidate_latency_csv, opts.map_file]:
        if p is not None and not Path(p).exists():
            raise InputError("not found", p)
    if "scan" in want:
        _require_sources(opts.paths, config)
    job = _BuildJob(opts, config) if "build-check" in want else None  # compiles while the rest runs
    try:
        _run_stages(run, opts, config, want, job, target, percentile, on_stage)
    except BaseException:
        if job is not None:
            job.kill()
        raise
    return run


def _run_stages(run: AssessmentRun, opts: AssessOptions, config: Config, want: set[str], job: Any,
                target: float | None, percentile: float, on_stage: Callable[[str], None] | None) -> None:
    if "scan" in want:
        run.scan = _stage(run, "scan", lambda: _scan(opts, config), on_stage)
    if "translate" in want:
        run.translate = _stage(run, "translate", lambda: _translate(opts, config), on_stage)
    if "profiles" in want:
        _profiles(run, opts, config, target, percentile, on_stage)
    for w in opts.workloads:
        _workload(run, w, on_stage)
    if "build-check" in want:  # collected before cost and decide: both tell port errors from environment gaps
        run.build_check = _stage(run, "build-check", job.collect, on_stage)
        if run.build_check is None:
            last = run.stages[-1]
            run.build_check = {"status": last["status"], "reason": last["reason"]}
        elif isinstance(run.build_check, dict):
            run.build_check["classification"] = classify_build_check(run.build_check)
            summary = run.build_check.get("summary") or {}
            if summary.get("units_checked", 0) < summary.get("units_total", 0):
                run.warnings.append(f"build-check: {summary.get('coverage')}; the results shown are partial")
        if run.comparison is not None and isinstance(run.build_check, dict) and run.build_check.get("kernels"):
            # build-check's theoretical occupancy beside the achieved figures of the compare rows
            add_theoretical(run.comparison, run.build_check)
    bc = run.build_check if isinstance(run.build_check, dict) and run.build_check.get("compiles") else None
    if "cost" in want:
        run.cost = _stage(run, "cost", lambda: estimate_cost(run.scan, run.comparison, config, build_check=bc), on_stage)
    if "decide" in want:
        run.decision = _stage(run, "decide", lambda: decide(run.scan, run.comparison, run.projection, config,
                                                           baseline=run.baseline, cost=run.cost, build_check=bc),
                              on_stage)


def _workload(run: AssessmentRun, w: Workload, on_stage: Callable[[str], None] | None) -> None:
    def project() -> Any:
        if not Path(w.profile).exists():
            raise _NotRun(f"{w.profile} not found")
        profile = load_profile(Path(w.profile), latency_csv=w.latency_csv)
        return profile, project_baseline(profile, w.target_ms, percentile=w.percentile,
                                         timeline=load_timeline(profile)[0])

    result = _stage(run, f"workload: {w.name}", project, on_stage)
    if result is not None:
        profile, projection = result
        run.workloads.append({"workload": w, "projection": projection,
                              "warnings": list(profile.warnings)})


def _profiles(run: AssessmentRun, opts: AssessOptions, config: Config, target: float | None, percentile: float,
              on_stage: Callable[[str], None] | None) -> None:
    if opts.baseline is None:
        if opts.candidate is not None:
            raise InputError("--candidate needs --baseline (the CUDA profile to compare against)", opts.candidate)
        run.stages.append({"name": "profiles", "status": "not run", "reason": "no --baseline profile given", "seconds": 0.0})
        return

    def load(path: Path, csv: Path | None) -> Profile:
        return load_profile(path, latency_csv=csv)

    baseline_path, candidate_path = opts.baseline, opts.candidate
    run.baseline = _stage(run, "load baseline", lambda: load(baseline_path, opts.latency_csv), on_stage)
    if candidate_path is not None:
        run.candidate = _stage(run, "load candidate", lambda: load(candidate_path, opts.candidate_latency_csv), on_stage)
    base, cand = run.baseline, run.candidate
    if base is None:
        return
    for w in base.warnings:
        run.warnings.append(f"baseline: {w}")
    timelines: dict[str, Any] = {}

    def timeline(side: str, profile: Profile) -> Any:
        """The profile's host/device timeline for the replay projection (read once; None without one)."""
        if side not in timelines:
            timelines[side] = load_timeline(profile)[0]
        return timelines[side]

    if cand is not None:
        def compare() -> ComparisonResult:
            user_map = None
            map_file = opts.map_file
            if map_file is None and config.get("compare.map"):
                base_dir = Path(config.path).parent if config.path else Path.cwd()
                map_file = base_dir / config.get("compare.map")
            if map_file is not None:
                user_map = load_user_map(map_file)
            btl = timeline("baseline", base) if base.latency_ms else None
            ctl = timeline("candidate", cand) if btl is not None else None
            return compare_profiles(base, cand, user_map=user_map, percentile=percentile,
                                    target_ms=target, base_timeline=btl, cand_timeline=ctl)

        run.comparison = _stage(run, "compare", compare, on_stage)

    def project() -> ProjectionResult:
        assume = parse_assume(opts.assume) if opts.assume else None
        return project_baseline(base, target, percentile=percentile, assume=assume,
                                timeline=timeline("baseline", base))

    run.projection = _stage(run, "project", project, on_stage)
