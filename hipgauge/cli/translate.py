"""``hipgauge translate PATH -o OUT`` and ``hipgauge build-check PATH``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from hipgauge.cli.app import app, emit_json, out, progress, warn
from hipgauge.cli.flags import check_archs, include_folders
from hipgauge.cli.translate_run import _load_config
from hipgauge.errors import InputError

_REWRITE_NAMES = ("warp-mask", "syncwarp")



def render_build_check(*args: Any, **kwargs: Any) -> Any:
    """``hipgauge.report.translate_terminal.render_build_check``, imported when it draws (``--help`` and ``--json`` never import rich)."""
    from hipgauge.report.translate_terminal import render_build_check as view

    return view(*args, **kwargs)


@app.command()
def translate(
    path: Path = typer.Argument(..., help="a CUDA tree (or one file)"),
    output: Path = typer.Option(..., "-o", "--output", help="a new folder for the HIP tree (must not exist or be empty)"),
    json_out: bool = typer.Option(False, "--json", help="print the hipgauge.translate/1 JSON document"),
    no_safe_rewrites: bool = typer.Option(False, "--no-safe-rewrites", help="only HIPIFY's name mapping, no safe rewrites"),
    no_rewrite: Optional[list[str]] = typer.Option(None, "--no-rewrite", help="turn one safe rewrite off: warp-mask, syncwarp, hip-symbol, runtime-include"),
    launch: str = typer.Option("chevron", "--launch", help="kernel launches: chevron (keep <<<>>>) or hipLaunchKernelGGL"),
    amd_arch: Optional[list[str]] = typer.Option(None, "--amd-arch", help="AMD targets for build files (default: config build.amd_arch)"),
    exclude: Optional[list[str]] = typer.Option(None, "--exclude", help="glob (gitignore syntax) to leave out; repeatable"),
    config: Optional[Path] = typer.Option(None, "--config", help="hipgauge.toml (default: found from PATH upwards)"),
    no_share: bool = typer.Option(False, "--no-share", help="skip scan's rules share (faster); the share printed is translate's own count"),
    no_progress: bool = typer.Option(False, "--no-progress", help="no progress bar"),
    include_dir: Optional[list[Path]] = typer.Option(None, "--include-dir", "-I",
                                                     help="folder of headers the code includes, outside the tree "
                                                          "(repeatable): macros its headers define are the "
                                                          "project's own and are not rewritten"),
    rocm_version: Optional[str] = typer.Option(None, "--rocm-version", help="ROCm release to translate for, e.g. 6.2 "
                                               "(default: the installed hipcc's, else the newest in rocm_releases.toml)"),
) -> None:
    """Translate a CUDA tree into a new HIP tree; per-file statistics, unconverted references with file:line."""
    from hipgauge.cli.translate_run import run_translate

    run_translate(path, output, json_out=json_out, no_safe_rewrites=no_safe_rewrites, no_rewrite=no_rewrite,
                  launch=launch, amd_arch=amd_arch, exclude=exclude, config=config, no_share=no_share,
                  no_progress=no_progress, rocm_version=rocm_version,
                  include_dir=include_dir)


@app.command("build-check")
def build_check_cmd(
    path: Path = typer.Argument(..., help="a CUDA tree (translated on the fly) or a HIP tree, or one file"),
    amd_arch: Optional[list[str]] = typer.Option(None, "--amd-arch", help="AMD target (repeatable; default gfx90a, gfx940)"),
    nvidia_arch: Optional[list[str]] = typer.Option(None, "--nvidia-arch", help="NVIDIA target (repeatable; default sm_90, sm_80)"),
    json_out: bool = typer.Option(False, "--json", help="print the hipgauge.build-check/1 JSON document"),
    timeout: Optional[float] = typer.Option(None, "--timeout", help="seconds per compiler call (default: config build.timeout_s)"),
    jobs: int = typer.Option(2, "--jobs", min=1, help="parallel compiler calls"),
    config: Optional[Path] = typer.Option(None, "--config", help="hipgauge.toml (default: found from PATH upwards)"),
    no_progress: bool = typer.Option(False, "--no-progress", help="no progress bar"),
    include_dir: Optional[list[Path]] = typer.Option(None, "--include-dir", "-I",
                                                     help="extra include folder for the compiles (repeatable; "
                                                          "added before build.include_dirs)"),
    rocm_version: Optional[str] = typer.Option(None, "--rocm-version", help="ROCm release the on-the-fly translation "
                                               "targets (default: the installed hipcc's)"),
) -> None:
    """Compile each translation unit with hipcc (per AMD arch) and nvcc (per NVIDIA arch); resources and occupancy."""
    from hipgauge.app.buildcheck import build_check
    from hipgauge.translate.target import resolve_target

    check_archs("--amd-arch", amd_arch, "amd")
    check_archs("--nvidia-arch", nvidia_arch, "nvidia")
    target = resolve_target(rocm_version)
    if not path.exists():
        raise InputError("not found", path)
    cfg = _load_config(config, path)
    amd = list(amd_arch or cfg.get("build.amd_arch"))
    nv = list(nvidia_arch or cfg.get("build.nvidia_arch"))
    t = float(timeout if timeout is not None else cfg.get("build.timeout_s"))
    if not (t > 0) or t == float("inf"):
        raise InputError(f"--timeout must be a finite number > 0, got {t:g}")
    with progress("compiling", total=None, enabled=not no_progress and not json_out) as advance:
        result = build_check(path, amd, nv, t, jobs=jobs, include_dirs=[*(str(d) for d in include_folders(include_dir)), *cfg.get("build.include_dirs")],
                             defines=list(cfg.get("build.defines")), exclude=list(cfg.get("exclude")),
                             on_progress=advance, rocm=target)
    doc = result.to_dict()
    if json_out:
        emit_json(doc)
    else:
        render_build_check(out, doc)
    for w in doc.get("warnings", []):
        if not json_out:
            warn(w)


