"""``hipgauge history`` (per-kernel ratio trend across stored assessments) and ``hipgauge gate`` (the CI gate)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from hipgauge.cli.app import app, emit_json, err, out, warn
from hipgauge.cli.flags import check_percentile_target
from hipgauge.errors import InputError



def render_gate(*args: Any, **kwargs: Any) -> Any:
    """``hipgauge.report.history_terminal.render_gate``, imported when it draws (``--help`` and ``--json`` never import rich)."""
    from hipgauge.report.history_terminal import render_gate as view

    return view(*args, **kwargs)


def render_history(*args: Any, **kwargs: Any) -> Any:
    """``hipgauge.report.history_terminal.render_history``, imported when it draws (``--help`` and ``--json`` never import rich)."""
    from hipgauge.report.history_terminal import render_history as view

    return view(*args, **kwargs)


def _store(db: Optional[Path]):
    from hipgauge.store.history import HistoryStore, default_store_path

    if db is not None and not db.exists():
        raise InputError("no history store here (record one with: hipgauge assess PATH --store DB)", db)
    if db is not None and db.is_dir():
        raise InputError("is a folder, not a history store file", db)
    return HistoryStore(db if db is not None else default_store_path())


@app.command()
def history(
    db: Optional[Path] = typer.Option(None, "--db", help="history store (default: history.duckdb in $HIPGAUGE_HOME, else the user data folder)"),
    kernel: Optional[str] = typer.Option(None, "--kernel", "-k", help="kernel label: glob (conv*) or substring, case-insensitive"),
    project: Optional[str] = typer.Option(None, "--project", help="only this project"),
    json_out: bool = typer.Option(False, "--json", help="machine-readable output (hipgauge.history/1)"),
) -> None:
    """Per-kernel ratio (candidate ÷ baseline) across stored assessments, with the toolchain change of each step."""
    store = _store(db)
    trends = store.trend(kernel, project=project)
    count = len(store.assessments(project=project, with_details=False))
    if json_out:
        emit_json({"schema": "hipgauge.history/1", "store": str(store.path), "assessments": count,
                   "kernel_pattern": kernel, "project": project,
                   "source": "measured: ratios as stored from each assessment's profiles",
                   "kernels": [t.to_dict() for t in trends]})
        return
    if count == 0:
        out.print(f"no assessments stored in {store.path} (record one with: hipgauge assess PATH --store)")
        return
    if not trends:
        what = f"matching {kernel!r}" if kernel else "with per-kernel parity rows"
        out.print(f"{count} assessment(s) in {store.path}; no kernel {what}")
        return
    render_history(out, str(store.path), count, trends)

@app.command()
def gate(
    profiles: list[Path] = typer.Argument(..., help="BASE CAND profiles, or CAND alone with --against-last"),
    max_regression: str = typer.Option("5%", "--max-regression", help="largest allowed slow-down of a hot kernel: 5% or 0.05"),
    hot_share: str = typer.Option("1%", "--hot-share", help="a kernel is hot from this share of baseline time: 1% or 0.01"),
    target_ms: Optional[float] = typer.Option(None, "--target-ms", help="fail when the projected latency at --percentile exceeds this"),
    percentile: float = typer.Option(99.0, "--percentile", help="latency percentile for --target-ms"),
    against_last: bool = typer.Option(False, "--against-last", help="compare CAND with the last stored assessment's kernels"),
    db: Optional[Path] = typer.Option(None, "--db", help="history store for --against-last"),
    project: Optional[str] = typer.Option(None, "--project", help="with --against-last: the last assessment of this project"),
    map_file: Optional[Path] = typer.Option(None, "--map", help="kernel mapping file (glob -> glob) for BASE CAND"),
    json_out: bool = typer.Option(False, "--json", help="machine-readable output (hipgauge.gate/1)"),
) -> None:
    """Exit 1 when a hot kernel regressed past --max-regression or the projected latency crosses --target-ms."""
    from hipgauge.store.gate import (
        evaluate,
        parse_fraction,
        rows_against_last,
        rows_from_comparison,
    )

    max_reg = parse_fraction(max_regression, "--max-regression")
    hot = parse_fraction(hot_share, "--hot-share")
    if hot > 1.0:
        raise InputError(f"--hot-share: must be at most 100%, got {hot_share!r}")
    check_percentile_target(percentile, target_ms)
    if target_ms is not None and target_ms <= 0:
        raise InputError(f"--target-ms: must be > 0, got {target_ms:g}")
    if not 0 < percentile <= 100:
        raise InputError(f"--percentile: must be in (0, 100], got {percentile:g}")
    for path in profiles:
        if not path.exists():
            raise InputError("profile not found", path)
    from hipgauge.profiles.load import load_profile

    if against_last:
        if len(profiles) != 1:
            raise InputError(f"--against-last takes one profile (CAND), got {len(profiles)}")
        store = _store(db)
        last = store.last(project=project)
        if last is None or not last.parity:
            raise InputError("no stored assessment with per-kernel parity to gate against", store.path)
        cand = load_profile(profiles[0])
        rows, basis, notes = rows_against_last(last, cand)
        against = (f"the candidate side of assessment #{last.id} ({last.project}, recorded {last.recorded_at:%Y-%m-%d %H:%M}"
                   + (f", commit {last.commit[:10]}" if last.commit else "") + f") in {store.path}")
        projected, source = None, None
        if target_ms is not None:
            from hipgauge.profiles.percentiles import iteration_latency

            est = iteration_latency(cand, percentile)
            projected = est.value_ms
            source = f"{est.source.value}: {est.method} of {profiles[0].name}, {est.statistic}" + (f" ({est.note})" if est.note else "")
        result = evaluate(rows, max_reg, hot, mode="against-last", projected_ms=projected, target_ms=target_ms,
                          percentile=percentile, latency_source=source, basis=basis, against=against, notes=notes)
    else:
        if len(profiles) != 2:
            raise InputError(f"gate takes BASE and CAND profiles (or CAND with --against-last), got {len(profiles)}")
        from hipgauge.profiles.match import load_user_map
        from hipgauge.profiles.parity import compare_profiles

        user_map = None
        if map_file is not None:
            if not map_file.is_file():
                raise InputError("mapping file not found", map_file)
            user_map = load_user_map(map_file)
        base = load_profile(profiles[0])
        cand = load_profile(profiles[1])
        comparison = compare_profiles(base, cand, user_map=user_map, percentile=percentile, target_ms=target_ms)
        doc = comparison.to_dict()
        projection = doc.get("projection") or {}
        rows = rows_from_comparison(doc)
        per_iter = any(r.per_iteration for r in rows)
        source = None
        if projection.get("projected_ms") is not None:
            source = f"{projection.get('source', 'estimated')}" + (f" ({projection['note']})" if projection.get("note") else "")
        unmatched = [len(doc.get(k) or []) for k in ("unmatched_baseline", "unmatched_candidate")]
        notes = [f"unmatched kernels: {unmatched[0]} baseline, {unmatched[1]} candidate (not gated)"] if any(unmatched) else []
        result = evaluate(rows, max_reg, hot, mode="profiles", projected_ms=projection.get("projected_ms"),
                          target_ms=target_ms, percentile=percentile, latency_source=source,
                          basis="per iteration, measured" if per_iter else "total over each profile, measured",
                          against=f"{profiles[0]} (baseline) vs {profiles[1]} (candidate)", notes=notes)

    if json_out:
        emit_json(result.to_dict())
    else:
        render_gate(out, result, warn)
    if not result.passed:
        if not json_out:
            err.print(f"gate failed: {'; '.join(result.failures)}", markup=False, highlight=False)
        raise typer.Exit(1)
