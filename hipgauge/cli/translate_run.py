"""``hipgauge translate``'s pipeline call and its terminal rendering, without Typer: the Typer command
(``cli/translate.py``) and the fast path (``cli/fast.py``) both call ``run_translate``."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from hipgauge.cli.console import Table, emit_json, out, progress, warn
from hipgauge.errors import InputError


def _load_config(config: Optional[Path], start: Path) -> Any:
    from hipgauge import config as config_mod

    return config_mod.load(config, start=None if config else start)


def run_translate(path: Path, output: Path, json_out: bool = False, no_safe_rewrites: bool = False,
                  no_rewrite: Optional[list[str]] = None, launch: str = "chevron",
                  amd_arch: Optional[list[str]] = None, exclude: Optional[list[str]] = None,
                  config: Optional[Path] = None, no_share: bool = False, no_progress: bool = False,
                  rocm_version: Optional[str] = None) -> None:
    """Translate ``path`` into the new folder ``output``; print the JSON document or the summary."""
    from hipgauge.translate.rewrite import LAUNCH_STYLES, TranslateOptions
    from hipgauge.translate.safe_rewrites import ALL_SAFE_REWRITES
    from hipgauge.translate.target import resolve_target
    from hipgauge.translate.tree import translate_tree

    if launch not in LAUNCH_STYLES:
        raise InputError(f"--launch must be one of {', '.join(LAUNCH_STYLES)}; got {launch!r}")
    for name in no_rewrite or []:
        if name not in ALL_SAFE_REWRITES:
            raise InputError(f"--no-rewrite must be one of {', '.join(sorted(ALL_SAFE_REWRITES))}; got {name!r}")
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
    render_translate(doc)


def _p(text: str) -> None:
    out.print(text, markup=False, emoji=False, highlight=False)


def render_translate(doc: dict[str, Any], limit: int = 20) -> None:
    s = doc["summary"]
    table = Table(title=f"translate {doc['source']} → {doc['output']}", show_lines=False)
    for col in ("file", "converted", "unconverted", "safe rewrites", "lines changed", "share"):
        table.add_column(col, justify="left" if col == "file" else "right")
    for f in doc["files"]:
        if f["converted"] or f["unconverted"] or f["changed"]:
            table.add_row(f["file"], str(f["converted"]), str(f["unconverted"]), str(sum(f["safe_rewrites"].values())),
                          str(f["lines_changed"]), f"{f['translation_share']:.0%}")
    out.print(table)
    kinds = ", ".join(f"{k} {v}" for k, v in s["converted_by_kind"].items()) or "none"
    rewrites = ", ".join(f"{k} {v}" for k, v in s["safe_rewrites"].items()) or "none"
    _p(f"files: {s['files']} translated ({s['files_changed']} changed), {s['files_copied']} copied")
    _p(f"converted references: {s['converted']} ({kinds}); unconverted: {s['unconverted']}")
    _p(f"safe rewrites: {rewrites}; lines changed: {s['lines_changed']}")
    _p(f"translation share: {s['translation_share']:.1%} of {s['cuda_lines']} CUDA lines need no hand edit "
              "(measured on this tree)")
    if not doc["options"].get("rules_share", True):
        _p("(--no-share: scan's rules share not computed; this is translate's own count of lines left with no "
           "unconverted reference)")
    rocm = doc["options"].get("rocm")
    if rocm:
        _p(f"target: ROCm {rocm['version']} ({rocm['basis']}; *_sync warp builtins: {rocm['warp_sync']}, "
           f"{rocm['source']})")
    assumed = [r for r in doc["safe_rewrites"] if r.get("assumption") and r["rule"] != "runtime-include"]
    if assumed:
        _p(f"assumptions made by rewrites ({len(assumed)}):")
        for r in assumed[:limit]:
            _p(f"  {r['file']}:{r['line']}: {r['assumption']}")
        if len(assumed) > limit:
            _p(f"  … {len(assumed) - limit} more (--json lists all)")
    if doc["unconverted"]:
        _p(f"unconverted references ({len(doc['unconverted'])}):")
        for u in doc["unconverted"][:limit]:
            _p(f"  {u['file']}:{u['line']}: {u['cuda_name']} ({u['library']}, {u['status']})")
        if len(doc["unconverted"]) > limit:
            _p(f"  … {len(doc['unconverted']) - limit} more (--json lists all)")
    for w in doc["warnings"]:
        warn(w)


