"""``hipgauge translate``'s pipeline call, without Typer: the Typer command
(``cli/translate.py``) and the fast path (``cli/fast.py``) both call ``run_translate``; the view is
``report/translate_terminal.py``'s."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from hipgauge.cli.console import draw, emit_json, progress, warn
from hipgauge.cli.flags import check_archs, include_folders
from hipgauge.errors import InputError


def _load_config(config: Optional[Path], start: Path) -> Any:
    from hipgauge import config as config_mod

    return config_mod.load(config, start=None if config else start)


def run_translate(path: Path, output: Path, json_out: bool = False, no_safe_rewrites: bool = False,
                  no_rewrite: Optional[list[str]] = None, launch: str = "chevron",
                  amd_arch: Optional[list[str]] = None, exclude: Optional[list[str]] = None,
                  config: Optional[Path] = None, no_share: bool = False, no_progress: bool = False,
                  rocm_version: Optional[str] = None, include_dir: Optional[list[Path]] = None) -> None:
    """Translate ``path`` into the new folder ``output``; print the JSON document or the summary."""
    from hipgauge.translate.rewrite import LAUNCH_STYLES, TranslateOptions
    from hipgauge.translate.safe_rewrites import ALL_SAFE_REWRITES
    from hipgauge.translate.target import resolve_target
    from hipgauge.app.translate import translate_tree

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
        rules_share=not no_share, rocm=resolve_target(rocm_version),
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
    from hipgauge.report.translate_terminal import render_translate

    draw(render_translate, doc)
    for w in doc["warnings"]:
        warn(w)
