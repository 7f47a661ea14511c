"""The fast path: ``hipgauge translate`` and ``hipgauge scan`` parsed without Typer.

Typer builds a pydantic adapter per parameter when a command runs (hundreds of milliseconds of imports), which
is most of a small translate's or a pre-commit scan's time. ``translate`` and ``scan`` with the options below are
parsed here with ``getopt`` (argparse, its 29 classes, gettext and locale are ~4 ms of a two-file scan) and run
the same ``run_translate`` / ``run_scan`` the Typer commands run; anything else (``--help``, an unknown or
abbreviated option, a missing or bad value, a value that starts with ``-``, ``--executor dask``) returns None and
goes to Typer, which prints its usual usage errors.
"""

from __future__ import annotations

import getopt
from pathlib import Path
from typing import Any, Callable

#: each option of the fast path: its spellings → (the keyword of ``run_translate`` / ``run_scan``, how its value is
#: kept: ``flag`` True when given; ``str`` / ``path`` / ``int`` the last one given; ``strs`` / ``paths`` every one,
#: in order); every keyword's default is the Typer command's
_TRANSLATE: dict[str, tuple[str, str]] = {
    "-o": ("output", "path"), "--output": ("output", "path"), "--json": ("json_out", "flag"),
    "--no-safe-rewrites": ("no_safe_rewrites", "flag"), "--no-rewrite": ("no_rewrite", "strs"),
    "--launch": ("launch", "str"), "--amd-arch": ("amd_arch", "strs"), "--exclude": ("exclude", "strs"),
    "--config": ("config", "path"), "--no-share": ("no_share", "flag"), "--no-progress": ("no_progress", "flag"),
    "--rocm-version": ("rocm_version", "str"), "-I": ("include_dir", "paths"), "--include-dir": ("include_dir", "paths"),
}
_TRANSLATE_DEFAULTS: dict[str, Any] = {
    "output": None, "json_out": False, "no_safe_rewrites": False, "no_rewrite": None, "launch": "chevron",
    "amd_arch": None, "exclude": None, "config": None, "no_share": False, "no_progress": False, "rocm_version": None,
    "include_dir": None,
}
_SCAN: dict[str, tuple[str, str]] = {
    "--json": ("json_out", "flag"), "--exclude": ("exclude", "strs"), "--config": ("config", "path"),
    "--sarif": ("sarif", "path"), "--executor": ("executor", "str"), "--workers": ("workers", "int"),
    "--no-progress": ("no_progress", "flag"), "--max-findings": ("max_findings", "int"), "--fail-on": ("fail_on", "str"),
    "-I": ("include_dir", "paths"), "--include-dir": ("include_dir", "paths"), "--strict": ("strict", "flag"),
    "-D": ("define", "strs"), "--define": ("define", "strs"),
}
_SCAN_DEFAULTS: dict[str, Any] = {
    "json_out": False, "exclude": None, "config": None, "sarif": None, "executor": "local", "workers": None,
    "no_progress": False, "max_findings": 25, "fail_on": None, "include_dir": None, "strict": False, "define": None,
}


def parse_options(args: list[str], spec: dict[str, tuple[str, str]], defaults: dict[str, Any]
                  ) -> tuple[dict[str, Any], list[str]] | None:
    """The keyword values and the positional arguments of ``args`` by ``spec``, or None when Typer should see them:
    an option ``spec`` lacks or an abbreviated one (Typer takes only whole names), a flag given a value, an option
    without its value or with one that starts with ``-`` (Typer would take it as the next option), a bad number."""
    shorts = "".join(o[1] + ("" if how == "flag" else ":") for o, (_d, how) in spec.items() if len(o) == 2)
    longs = [o[2:] + ("" if how == "flag" else "=") for o, (_d, how) in spec.items() if o.startswith("--")]
    for a in args:
        if a == "--":
            break
        if a.startswith("--") and a.split("=", 1)[0] not in spec:
            return None
    try:
        found, rest = getopt.gnu_getopt(args, shorts, longs)
    except getopt.GetoptError:
        return None
    values = dict(defaults)
    for opt, value in found:
        dest, how = spec[opt]
        if how != "flag" and value.startswith("-"):
            return None
        if how == "flag":
            values[dest] = True
        elif how in ("strs", "paths"):
            values[dest] = [*(values[dest] or []), Path(value) if how == "paths" else value]
        elif how == "int":
            try:
                values[dest] = int(value)
            except ValueError:
                return None
        else:
            values[dest] = Path(value) if how == "path" else value
    return values, rest


def _scan_values_ok(values: dict[str, Any]) -> bool:
    """The checks Typer makes (``--workers`` ≥ 1, ``--max-findings`` ≥ 0, ``--executor`` local here); a bad value
    goes to Typer for its usual usage error (and ``--executor dask`` to its command)."""
    return ((values["workers"] is None or values["workers"] >= 1) and values["max_findings"] >= 0
            and values["executor"] == "local")


def fast_command(args: list[str]) -> Callable[[], None] | None:
    """A callable that runs ``args`` without Typer, or None when Typer should handle them."""
    if args[:2] == ["capture", "torch"] and not any(a in ("--help", "-h") for a in args[2:]):
        return _capture_torch(args[2:])
    if not args or args[0] not in ("translate", "scan") or any(a in ("--help", "-h") for a in args[1:]):
        return None
    if args[0] == "scan":
        parsed = parse_options(args[1:], _SCAN, _SCAN_DEFAULTS)
        if parsed is None or not parsed[1] or not _scan_values_ok(parsed[0]):
            return None
        values = {"paths": [Path(p) for p in parsed[1]], **parsed[0]}

        def run_scan() -> None:
            from hipgauge.cli.scan_run import run_scan

            run_scan(**values)

        return run_scan
    parsed = parse_options(args[1:], _TRANSLATE, _TRANSLATE_DEFAULTS)
    if parsed is None or len(parsed[1]) != 1 or parsed[0]["output"] is None:
        return None
    kwargs = {"path": Path(parsed[1][0]), **parsed[0]}

    def run() -> None:
        from hipgauge.cli.translate_run import run_translate

        run_translate(**kwargs)

    return run


def _capture_torch(args: list[str]) -> Callable[[], None] | None:
    """``hipgauge capture torch …`` without Typer (a GPU host may have PyTorch and little else: cli/capture_run.py)."""
    from hipgauge.cli.capture_run import run_torch_capture, torch_capture_parser

    try:
        ns = torch_capture_parser().parse_args(args)
    except ValueError:
        return None
    return lambda: run_torch_capture(**vars(ns))
