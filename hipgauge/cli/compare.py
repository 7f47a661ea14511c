"""``hipgauge compare BASE CAND`` (per-kernel and per-operator parity, projection) and
``hipgauge project BASE --target-ms T`` (slack per kernel group, what-if projections).

Both report; neither gates: exit 0 whatever the verdict (``hipgauge gate`` is the CI gate).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Optional

import typer

from hipgauge.cli.app import app, emit_json, out, warn
from hipgauge.cli.flags import check_percentile_target
from hipgauge.errors import InputError



def render_compare(*args: Any, **kwargs: Any) -> Any:
    """``hipgauge.report.compare_terminal.render_compare``, imported when it draws (``--help`` and ``--json`` never import rich)."""
    from hipgauge.report.compare_terminal import render_compare as view

    return view(*args, **kwargs)


def render_project(*args: Any, **kwargs: Any) -> Any:
    """``hipgauge.report.compare_terminal.render_project``, imported when it draws (``--help`` and ``--json`` never import rich)."""
    from hipgauge.report.compare_terminal import render_project as view

    return view(*args, **kwargs)


def _show(doc: dict[str, Any], json_out: bool, render: Callable[[], None]) -> None:
    """The document as JSON, or its warnings then ``render()``."""
    if json_out:
        emit_json(doc)
        return
    for w in doc["warnings"]:
        warn(w)
    render()


def _load(path: Path, fmt: Optional[str], latency_csv: Optional[Path]):
    from hipgauge.profiles.load import load_profile

    if latency_csv is not None and not latency_csv.exists():
        raise InputError("latency CSV not found", latency_csv)
    return load_profile(path, fmt=fmt, latency_csv=latency_csv)


# --------------------------------------------------------------------------------------------
# compare
# --------------------------------------------------------------------------------------------


@app.command()
def compare(
    baseline: Path = typer.Argument(..., help="baseline profile (the CUDA side): any supported format"),
    candidate: Path = typer.Argument(..., help="candidate profile (the port): any supported format"),
    target_ms: Optional[float] = typer.Option(None, "--target-ms", help="end-to-end latency target in ms"),
    percentile: float = typer.Option(99.0, "--percentile", help="latency percentile to project (P99 needs ≥100 iterations)"),
    map_file: Optional[Path] = typer.Option(None, "--map", help="TOML file of [[map]] baseline = \"glob\" candidate = \"glob\" rules"),
    fmt: Optional[str] = typer.Option(None, "--format", help="baseline format (default: detected from content)"),
    cand_fmt: Optional[str] = typer.Option(None, "--candidate-format", help="candidate format (default: detected)"),
    latency_csv: Optional[Path] = typer.Option(None, "--latency-csv", help="baseline per-iteration latencies (iteration,latency_ms)"),
    cand_latency_csv: Optional[Path] = typer.Option(None, "--candidate-latency-csv", help="candidate per-iteration latencies"),
    top: int = typer.Option(15, "--top", help="rows shown per table (the rest are counted)"),
    launch_overhead_us: float = typer.Option(0.0, "--launch-overhead-us", help="assumed extra host cost per launch on the candidate's runtime, µs (timeline replay; may be negative)"),
    build_check_json: Optional[Path] = typer.Option(None, "--build-check", help="a 'hipgauge build-check --json' document: its theoretical occupancy goes beside the achieved one"),
    json_out: bool = typer.Option(False, "--json", help="machine-readable output (hipgauge.compare/1)"),
) -> None:
    """Per-kernel and per-operator parity of CAND against BASE, unmatched work on both sides, and the
    end-to-end projection at a percentile against the latency target; with hardware counters in the
    profiles, achieved occupancy and DRAM throughput beside each kernel's ratio. Reports only: exit 0."""
    from hipgauge.profiles.match import load_user_map
    from hipgauge.profiles.parity import compare_profiles

    check_percentile_target(percentile, target_ms)
    if top < 1:
        raise InputError(f"--top {top}: must be at least 1")
    user_map = load_user_map(map_file) if map_file is not None else None
    base = _load(baseline, fmt, latency_csv)
    cand = _load(candidate, cand_fmt, cand_latency_csv)
    base_tl = cand_tl = None
    tl_notes: list[str] = []
    if base.latency_ms:  # a projection is made from the baseline's latencies: replay its timeline
        base_tl, why = _timeline(base)
        if why:
            tl_notes.append(why)
        if base_tl is not None:
            cand_tl, why = _timeline(cand)
            if why:
                tl_notes.append(why)
    result = compare_profiles(base, cand, user_map=user_map, percentile=percentile, target_ms=target_ms,
                              base_timeline=base_tl, cand_timeline=cand_tl, launch_overhead_us=launch_overhead_us,
                              timeline_notes=tl_notes)
    if build_check_json is not None:
        from hipgauge.profiles.counters import add_theoretical, read_build_check

        add_theoretical(result, read_build_check(build_check_json))
    doc = result.to_dict()
    _show(doc, json_out, lambda: render_compare(out, doc, top))


def _timeline(profile: Any) -> tuple[Any, str | None]:
    from hipgauge.profiles.timeline_load import load_timeline

    return load_timeline(profile)


# --------------------------------------------------------------------------------------------
# project
# --------------------------------------------------------------------------------------------


@app.command()
def project(
    baseline: Path = typer.Argument(..., help="baseline profile: any supported format"),
    target_ms: float = typer.Option(..., "--target-ms", help="end-to-end latency target in ms"),
    percentile: float = typer.Option(99.0, "--percentile", help="latency percentile (P99 needs ≥100 iterations)"),
    fmt: Optional[str] = typer.Option(None, "--format", help="profile format (default: detected from content)"),
    latency_csv: Optional[Path] = typer.Option(None, "--latency-csv", help="per-iteration latencies (iteration,latency_ms)"),
    assume: Optional[list[str]] = typer.Option(None, "--assume", help="what-if ratio: 'PATTERN=RATIO' over group names or kernel names (fnmatch), repeatable"),
    launch_overhead_us: float = typer.Option(0.0, "--launch-overhead-us", help="assumed extra host cost per launch on the target runtime, µs (timeline replay; may be negative)"),
    json_out: bool = typer.Option(False, "--json", help="machine-readable output (hipgauge.project/1)"),
) -> None:
    """Slack per kernel group: how much slower each may get, all else equal, before the projected
    latency at the percentile crosses the target; --assume applies what-if ratios. Reports only: exit 0."""
    from hipgauge.profiles.projection import parse_assume, project_baseline

    check_percentile_target(percentile, target_ms)
    ratios = parse_assume(assume)
    base = _load(baseline, fmt, latency_csv)
    timeline, why = _timeline(base)
    result = project_baseline(base, target_ms, percentile=percentile, assume=ratios, timeline=timeline,
                              launch_overhead_us=launch_overhead_us, timeline_notes=[why] if why else None)
    doc = result.to_dict()
    _show(doc, json_out, lambda: render_project(out, doc))


