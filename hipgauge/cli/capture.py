"""``hipgauge capture commands -- PROGRAM …`` (the profiler command lines, both vendors) and
``hipgauge capture torch MODULE:FACTORY --variant NAME=SETTINGS …`` (time variants interleaved, then trace them).

``capture torch`` imports torch inside the harness only, and nothing of polars, duckdb or tree-sitter: it runs
where the model runs, on a CUDA or ROCm build of PyTorch.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from hipgauge.cli.app import app, emit_json

capture_app = typer.Typer(name="capture", no_args_is_help=True, rich_markup_mode=None,
                          help="How to capture profiles and latencies that hold: the profiler commands for a program, "
                               "or a PyTorch harness that times variants interleaved and traces them.")
app.add_typer(capture_app, name="capture")


@capture_app.command("commands")
def commands_command(
    program: list[str] = typer.Argument(..., help="the program and its arguments (after --)"),
    tool: Optional[list[str]] = typer.Option(None, "--tool", help="only this tool (nsys, ncu, ncu-sections, rocprofv3, rocprofv3-counters, rocprof-compute, torch); repeatable"),
    out_dir: str = typer.Option("hipgauge-capture", "--out", "-o", help="folder the commands write into"),
    name: str = typer.Option("run", "--name", help="run name used in the output file names"),
    amd_arch: str = typer.Option("gfx942", "--amd-arch", help="AMD architecture of the counter pass file (gfx90a, gfx942)"),
    json_out: bool = typer.Option(False, "--json", help="machine-readable output (hipgauge.capture/1)"),
) -> None:
    """Print the exact command lines to profile PROGRAM with each tool, NVIDIA and AMD: nsys, ncu with the
    metrics the counter figures need, rocprofv3 kernel trace and counter passes, rocprof-compute, torch.profiler;
    and which file to give hipgauge. Runs nothing."""
    from hipgauge.app.capture import commands, document

    cmds = commands(program, out=out_dir, name=name, tools=tool, arch=amd_arch)
    if json_out:
        emit_json(document(program, cmds, out_dir, amd_arch))
        return
    lines = [f"# profiling commands for: {' '.join(program)}  (nothing run; mkdir -p {out_dir} first)"]
    for c in cmds:
        lines += ["", f"# {c.tool} ({c.vendor}): {c.what}", *c.lines, f"# give hipgauge: {c.gives}"]
    sys.stdout.write("\n".join(lines) + "\n")


@capture_app.command("torch")
def torch_command(
    factory: str = typer.Argument(..., help="MODULE:FACTORY (or path/to/file.py:FACTORY): FACTORY(**kwargs) returns (model, example_inputs)"),
    variant: list[str] = typer.Option(..., "--variant", help="NAME=SETTINGS: comma-separated fp32|fp16|bf16, tf32, cl (channels_last), graph, and key=value factory arguments; repeatable"),
    out_dir: Path = typer.Option(Path("hipgauge-capture"), "--output", "-o", help="folder for the CSVs, traces and capture.json"),
    iterations: int = typer.Option(600, "--iterations", help="timed iterations per variant (P99 needs ≥100; its interval narrows as 1/√n and is widened ×2.65 above at 600, ×1.19 at 3,000: for a P99 you decide on, about 3,000)"),
    rounds: int = typer.Option(60, "--rounds", help="rounds the iterations are split into, variants shuffled per round (short blocks share the host's slow spells)"),
    settle: int = typer.Option(1, "--settle", help="untimed calls at the start of every block (the switch from another model)"),
    warmup: int = typer.Option(30, "--warmup", help="warm-up iterations per variant before timing"),
    profile_steps: int = typer.Option(10, "--profile-steps", help="profiled iterations per trace (0: no traces)"),
    seed: int = typer.Option(0, "--seed", help="seed of the round order"),
    factory_arg: Optional[list[str]] = typer.Option(None, "--factory-arg", help="KEY=VALUE passed to FACTORY for every variant; repeatable"),
    device: str = typer.Option("cuda", "--device", help="torch device (cuda is also ROCm's)"),
    no_progress: bool = typer.Option(False, "--no-progress", help="no progress bar"),
    json_out: bool = typer.Option(False, "--json", help="print the summary as JSON (hipgauge.capture-torch/1)"),
) -> None:
    """Build the model per variant, warm up, time the variants interleaved in shuffled rounds with device events,
    and write per variant `iteration,round,latency_ms` and a Kineto trace with input shapes."""
    from hipgauge.cli.capture_run import run_torch_capture

    run_torch_capture(factory=factory, variant=variant, out_dir=out_dir, iterations=iterations, rounds=rounds,
                      warmup=warmup, settle=settle, profile_steps=profile_steps, seed=seed, factory_arg=factory_arg, device=device,
                      no_progress=no_progress, json_out=json_out)
