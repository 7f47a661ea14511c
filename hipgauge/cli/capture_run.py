"""``hipgauge capture torch`` without Typer: the run itself, shared by the Typer command (``cli/capture.py``) and
the fast path (``cli/fast.py``), which parses its options with argparse so that the harness starts on a GPU host
that has PyTorch and little of hipgauge's own dependencies (no Typer, polars, duckdb or tree-sitter needed)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

from hipgauge.cli.console import emit_json, progress


def run_torch_capture(factory: str, variant: list[str], out_dir: Path, iterations: int = 600, rounds: int = 60,
                      warmup: int = 30, settle: int = 1, profile_steps: int = 10, seed: int = 0,
                      factory_arg: Optional[list[str]] = None, device: str = "cuda", no_progress: bool = False,
                      json_out: bool = False) -> None:
    """Time the variants interleaved and trace them (``app/harness.py``); print the summary or its JSON."""
    from hipgauge.app.harness import (HarnessPlan, TorchBackend, load_factory, parse_kwargs, parse_variant,
                                      progress_units, run_harness)

    out_dir = Path(out_dir)
    common = parse_kwargs(factory_arg, "--factory-arg")
    plan = HarnessPlan(factory=factory, variants=[parse_variant(v, common) for v in variant], out_dir=out_dir,
                       iterations=iterations, rounds=rounds, warmup=warmup, settle=settle,
                       profile_steps=profile_steps, seed=seed)
    plan.check()
    backend = TorchBackend(load_factory(factory), device=device)
    with progress("capture torch", progress_units(plan), enabled=not no_progress) as advance:
        result = run_harness(plan, backend, advance)
    doc = result.to_dict()
    if json_out:
        emit_json(doc)
        return
    env = doc["environment"]
    lines = [f"capture torch: {factory} on {env.get('gpu', device)} (torch {env.get('torch')}, "
             f"{env.get('runtime', device)}); {iterations} iterations per variant in {rounds} interleaved rounds; "
             f"{result.seconds:.1f} s",
             f"{'variant':<24} {'P50 ms':>9} {'P99 ms':>9} {'host P50':>9} {'round medians ms':>22}  settings"]
    for v in doc["variants"]:
        if v.get("p50_ms") is None:
            lines.append(f"{v['name']:<24} {'—':>9} {'—':>9} {'—':>9} {'':>22}  {v['settings']}  ({v['error']})")
            continue
        meds = v["round_medians_ms"]
        host = f"{v['host_p50_ms']:.3f}" if v.get("host_p50_ms") is not None else "—"
        lines.append(f"{v['name']:<24} {v['p50_ms']:>9.3f} {v['p99_ms']:>9.3f} {host:>9} "
                     f"{f'{min(meds):.3f}–{max(meds):.3f}':>22}  {v['settings']}" + (f"  ({v['error']})" if v["error"] else ""))
    lines.append("host P50: the median host time of the forward call, unprofiled (host_ms; near P50: the host paces "
                 "the GPU)")
    widen = next((v["p99_tail_widening"] for v in doc["variants"] if v.get("p99_tail_widening")), None)
    if widen is not None and widen > 1.2:
        from hipgauge.profiles.widening import iterations_for_widening

        lines.append(f"P99: {iterations / 100:g} iteration(s) per variant lie beyond it, so "
                     f"compare and project widen its interval ×{widen:.2f} above (a P99 from so few is loose); "
                     f"{iterations_for_widening(99.0, 1.2):,} iterations bring that to ×1.2 (model: c/√m, m iterations beyond "
                     "the P99, c = [stability] tail_widening in measurement.toml; docs/measuring.md)")
    spells = [(v["name"], v["trace_host_ms"]) for v in doc["variants"]
              if isinstance(v.get("trace_host_ms"), dict) and v["trace_host_ms"].get("same_spell_ratio")]
    if spells:
        parts = [f"{name} {t['same_spell_ratio']['ratio']:.3f} [−{100 * t['same_spell_ratio']['below']:.0f}%, "
                 f"+{100 * t['same_spell_ratio']['above']:.0f}%] over {t['rounds']} rounds" for name, t in spells]
        lines.append("host time beside each trace, over the first variant's in the same spells (what compare "
                     "carries for the candidate's host): " + "; ".join(parts))
    lines.append(f"wrote {len(result.files)} files to {out_dir}: per variant <name>_latency_ms.csv and "
                 f"<name>_trace.json.gz, pairs.csv, capture.json (with the host times measured beside each trace)")
    ok = [v for v in doc["variants"] if v.get("latency_csv") and v.get("trace")]
    if len(ok) > 1:
        b, c = ok[0]["name"], ok[1]["name"]
        lines.append(f"next: hipgauge compare {out_dir}/{b}_trace.json.gz {out_dir}/{c}_trace.json.gz --latency-csv "
                     f"{out_dir}/{b}_latency_ms.csv --target-ms T")
    sys.stdout.write("\n".join(lines) + "\n")


def torch_capture_parser() -> argparse.ArgumentParser:
    """The options of ``hipgauge capture torch``, for the fast path (errors raise ValueError: Typer then reports them)."""

    class _NoExit(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # type: ignore[override]
            raise ValueError(message)

    p = _NoExit(prog="hipgauge capture torch", add_help=False, allow_abbrev=False)
    p.add_argument("factory")
    p.add_argument("--variant", action="append", required=True)
    p.add_argument("-o", "--output", dest="out_dir", type=Path, default=Path("hipgauge-capture"))
    for opt, default in (("--iterations", 600), ("--rounds", 60), ("--warmup", 30), ("--settle", 1), ("--profile-steps", 10),
                         ("--seed", 0)):
        p.add_argument(opt, type=int, default=default)
    p.add_argument("--factory-arg", action="append")
    p.add_argument("--device", default="cuda")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--json", dest="json_out", action="store_true")
    return p
