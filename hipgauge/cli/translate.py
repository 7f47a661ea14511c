"""``hipgauge translate PATH -o OUT`` and ``hipgauge build-check PATH``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from hipgauge.cli.app import Table, app, emit_json, out, progress, warn
from hipgauge.cli.translate_run import _load_config, _p, render_translate  # noqa: F401 - render_translate re-exported
from hipgauge.errors import InputError

_REWRITE_NAMES = ("warp-mask", "syncwarp")


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
    rocm_version: Optional[str] = typer.Option(None, "--rocm-version", help="ROCm release to translate for, e.g. 6.2 "
                                               "(default: the installed hipcc's, else the newest in rocm_releases.toml)"),
) -> None:
    """Translate a CUDA tree into a new HIP tree; per-file statistics, unconverted references with file:line."""
    from hipgauge.cli.translate_run import run_translate

    run_translate(path, output, json_out=json_out, no_safe_rewrites=no_safe_rewrites, no_rewrite=no_rewrite,
                  launch=launch, amd_arch=amd_arch, exclude=exclude, config=config, no_share=no_share,
                  no_progress=no_progress, rocm_version=rocm_version)


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
    rocm_version: Optional[str] = typer.Option(None, "--rocm-version", help="ROCm release the on-the-fly translation "
                                               "targets (default: the installed hipcc's)"),
) -> None:
    """Compile each translation unit with hipcc (per AMD arch) and nvcc (per NVIDIA arch); resources and occupancy."""
    from hipgauge.toolchain.buildcheck import build_check
    from hipgauge.translate.target import resolve_target

    target = resolve_target(rocm_version)
    if not path.exists():
        raise InputError("not found", path)
    cfg = _load_config(config, path)
    amd = list(amd_arch or cfg.get("build.amd_arch"))
    nv = list(nvidia_arch or cfg.get("build.nvidia_arch"))
    t = float(timeout if timeout is not None else cfg.get("build.timeout_s"))
    if t <= 0:
        raise InputError(f"--timeout must be > 0, got {t:g}")
    with progress("compiling", total=None, enabled=not no_progress and not json_out) as advance:
        result = build_check(path, amd, nv, t, jobs=jobs, include_dirs=list(cfg.get("build.include_dirs")),
                             defines=list(cfg.get("build.defines")), exclude=list(cfg.get("exclude")),
                             on_progress=advance, rocm=target)
    doc = result.to_dict()
    if json_out:
        emit_json(doc)
    else:
        render_build_check(doc)
    for w in doc.get("warnings", []):
        if not json_out:
            warn(w)


def _res_cell(k: dict[str, Any] | None, occ: dict[str, Any] | None) -> str:
    if k is None:
        return "—"
    if k["vendor"] == "nvidia":
        text = f"{k['registers']} regs, smem {k['shared_bytes']} B"
        if k.get("spill_stores_bytes") or k.get("spill_loads_bytes"):
            text += f", spill {k['spill_stores_bytes']}/{k['spill_loads_bytes']} B"
    else:
        text = f"{k['vgprs']} V/{k['sgprs']} S/{k['agprs']} A, LDS {k['shared_bytes']} B"
        if k.get("stack_frame_bytes"):
            text += f", scratch {k['stack_frame_bytes']} B"
        if k.get("vgpr_spills") or k.get("sgpr_spills"):
            text += f", spill {k['vgpr_spills']}V/{k['sgpr_spills']}S"
    if occ is not None:
        text += f"; occ {occ['occupancy']:.0%} ({occ['limiter']})"
    return text


def render_build_check(doc: dict[str, Any], limit: int = 30) -> None:
    tc = doc["toolchains"]
    for name in ("hipcc", "nvcc"):
        t = tc.get(name)
        _p(f"{name}: {t['path']} ({t['version'] or 'version unknown'})" if t else f"{name}: not found")
    if doc.get("translation"):
        tr = doc["translation"]
        _p(f"translated on the fly: {tr['converted']} references converted, {tr['unconverted']} unconverted, "
           f"translation share {tr['translation_share']:.1%}")
    table = Table(title="compile")
    for col in ("file", "arch", "compiler", "result", "seconds"):
        table.add_column(col)
    for c in doc["compiles"]:
        res = "ok" if c["ok"] else (c["error"] or f"FAILED: {c['errors']} error(s)")
        table.add_row(c["file"], c["arch"], c["compiler"], res, f"{c['seconds']:.1f}")
    out.print(table)
    errors = [(c["arch"], d) for c in doc["compiles"] for d in c["diagnostics"]]
    if errors:
        _p(f"errors ({len(errors)}), at the CUDA source line:")
        for arch, d in errors[:limit]:
            where = f"{d['file']}:{d['line']}" if d["file"] else "(compiler)"
            codes = f" [{', '.join(d['rule_codes'])}]" if d["rule_codes"] else ""
            _p(f"  {where}: [{arch}] {d['message']}{codes}")
        if len(errors) > limit:
            _p(f"  … {len(errors) - limit} more (--json lists all)")
    archs = list(doc["nvidia_arch"]) + list(doc["amd_arch"])
    kt = Table(title="kernels (resources: measured by the compilers; occupancy: estimated, arch_limits.toml)")
    kt.add_column("kernel")
    kt.add_column("block")
    for a in archs:
        kt.add_column(a)
    kt.add_column("flags")
    for k in doc["kernels"]:
        name = k["kernel"].split("(")[0]
        block = f"{k['block_size']}" + ("" if k["block_size_source"].startswith("launch") else " (assumed)")
        cells = [_res_cell(k["resources"].get(a), k["occupancy"].get(a)) for a in archs]
        kt.add_row(f"{name}\n{k['file']}:{k['line']}", block, *cells, "\n".join(k["flags"]))
    out.print(kt)
