"""``hipgauge translate PATH -o OUT`` and ``hipgauge build-check PATH``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from hipgauge.cli.app import app, emit_json, out, progress, warn
from hipgauge.cli.flags import check_archs
from hipgauge.cli.scan import include_folders
from hipgauge.errors import InputError
from hipgauge.report.translate_terminal import render_build_check, render_translate

_REWRITE_NAMES = ("warp-mask", "syncwarp")


def _load_config(config: Optional[Path], start: Path) -> Any:
    from hipgauge import config as config_mod

    return config_mod.load(config, start=None if config else start)


@app.command()
def translate(
    path: Path = typer.Argument(..., help="a CUDA tree (or one file)"),
    output: Path = typer.Option(..., "-o", "--output", help="a new folder for the HIP tree (must not exist or be empty)"),
    json_out: bool = typer.Option(False, "--json", help="print the hipgauge.translate/1 JSON document"),
    no_safe_rewrites: bool = typer.Option(False, "--no-safe-rewrites", help="only HIPIFY's name mapping, no safe rewrites"),
    no_rewrite: Optional[list[str]] = typer.Option(None, "--no-rewrite", help="turn one safe rewrite off: warp-mask, syncwarp"),
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
) -> None:
    """Translate a CUDA tree into a new HIP tree; per-file statistics, unconverted references with file:line."""
    from hipgauge.app.translate import translate_tree
    from hipgauge.translate.rewrite import LAUNCH_STYLES, TranslateOptions
    from hipgauge.translate.safe_rewrites import ALL_SAFE_REWRITES

    if launch not in LAUNCH_STYLES:
        raise InputError(f"--launch must be one of {', '.join(LAUNCH_STYLES)}; got {launch!r}")
    for name in no_rewrite or []:
        if name not in ALL_SAFE_REWRITES:
            raise InputError(f"--no-rewrite must be one of {', '.join(sorted(ALL_SAFE_REWRITES))}; got {name!r}")
    check_archs("--amd-arch", amd_arch, "amd")
    if not path.exists():
        raise InputError("not found", path)
    cfg = _load_config(config, path)
    safe = frozenset() if no_safe_rewrites else ALL_SAFE_REWRITES - set(no_rewrite or [])
    options = TranslateOptions(
        safe_rewrites=frozenset(safe), launch_style=launch,
        amd_arch=tuple(amd_arch or cfg.get("build.amd_arch")),
        exclude=tuple([*cfg.get("exclude"), *(exclude or [])]),
        max_file_bytes=int(cfg.get("max_file_bytes")),
        rules_share=not no_share,
        include_dirs=tuple(str(d) for d in include_folders(include_dir)),
    )
    with progress("translating", total=None, enabled=not no_progress and not json_out) as advance:
        try:
            result = translate_tree(path, output, options, on_progress=advance)
        except OSError as exc:  # read-only OUT, disk full…: one line naming what could not be written
            raise InputError(f"cannot write the HIP tree: {exc.strerror or exc}", exc.filename or output) from None
    doc = result.to_dict()
    if json_out:
        emit_json(doc)
        return
    render_translate(out, doc)
    for w in doc["warnings"]:
        warn(w)


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
) -> None:
    """Compile each translation unit with hipcc (per AMD arch) and nvcc (per NVIDIA arch); resources and occupancy."""
    from hipgauge.app.buildcheck import build_check

    check_archs("--amd-arch", amd_arch, "amd")
    check_archs("--nvidia-arch", nvidia_arch, "nvidia")
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
                             on_progress=advance)
    doc = result.to_dict()
    if json_out:
        emit_json(doc)
    else:
        render_build_check(out, doc)
    for w in doc.get("warnings", []):
        if not json_out:
            warn(w)


