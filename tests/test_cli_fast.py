"""Issue #16: `hipgauge --version`, and `translate` parsed without Typer (same result as the Typer command)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hipgauge.cli import main

F16 = Path(__file__).parent / "data" / "issue16"

PROBE = """
import sys
from hipgauge.cli import main
try:
    main(sys.argv[1:])
except SystemExit as e:
    code = e.code
heavy = sorted(m for m in ("typer", "rich", "pydantic", "polars", "duckdb", "jinja2") if m in sys.modules)
print("LOADED", ",".join(heavy), code, file=sys.stderr)
"""


def _probe(args: list[str]) -> tuple[str, str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=300)
    line = [ln for ln in proc.stderr.splitlines() if ln.startswith("LOADED")][-1]
    return proc.stdout, line


def test_version_flag_loads_no_cli_framework():
    out, loaded = _probe(["--version"])
    assert out.startswith("hipgauge ") and loaded.split()[1:] == ["0"]  # nothing heavy loaded, exit 0


def test_translate_json_runs_without_typer_rich_or_the_data_libraries(tmp_path):
    out, loaded = _probe(["translate", str(F16), "-o", str(tmp_path / "o"), "--json", "--no-share",
                          "--rocm-version", "5.2"])
    assert json.loads(out)["schema"] == "hipgauge.translate/1"
    assert loaded.split()[1:] == ["0"], loaded


def test_help_lists_version_and_leaves_the_data_libraries_unloaded():
    out, loaded = _probe(["--help"])
    assert "--version" in out
    assert not set(loaded.split()[1].split(",")) & {"polars", "duckdb", "jinja2", "rich", "pydantic"}


def test_fast_translate_gives_the_typer_commands_document(tmp_path, capsys):
    from hipgauge.cli import app

    args = ["translate", str(F16), "--json", "--no-share", "--rocm-version", "6.2", "--no-rewrite", "hip-symbol"]
    with pytest.raises(SystemExit) as exc:
        main([*args, "-o", str(tmp_path / "fast")])
    assert exc.value.code == 0
    fast = json.loads(capsys.readouterr().out)
    with pytest.raises(SystemExit) as exc:
        app(args=[*args, "-o", str(tmp_path / "typer")], prog_name="hipgauge")
    assert exc.value.code in (0, None)
    slow = json.loads(capsys.readouterr().out)
    for d in (fast, slow):
        d.pop("output")
    assert fast == slow
    assert "hip-symbol" not in fast["options"]["safe_rewrites"]


def test_unknown_option_and_help_go_to_typer(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["translate", str(F16), "-o", str(tmp_path / "o"), "--bogus"])
    assert exc.value.code == 2 and "No such option" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["translate", "--help"])
    assert exc.value.code == 0 and "--rocm-version" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["translate", str(tmp_path / "missing"), "-o", str(tmp_path / "o2")])
    assert exc.value.code == 2


def test_the_console_process_ends_with_the_commands_output_files_and_status(tmp_path, capsys):
    """``python -m hipgauge`` (``main()`` without argv) ends a fast-path command with ``os._exit`` after flushing:
    the same output, files and exit status as ``main([...])`` in this process, and the caches still saved."""
    files = [str(F16 / n) for n in ("warp_reduce_masks.cu", "symbol_copies.cu")]
    env = {**__import__("os").environ, "HIPGAUGE_CACHE_DIR": str(tmp_path / "cache")}
    runs = {}
    # --json: the same bytes either way (the plain-text tables wrap at the width of the terminal each one sees)
    for args in (["scan", *files, "--json", "--fail-on", "blocker"], ["scan", *files, "--json"],
                 ["translate", str(F16), "-o", str(tmp_path / "proc"), "--json"]):
        proc = subprocess.run([sys.executable, "-m", "hipgauge", *args], capture_output=True, text=True, env=env,
                              timeout=300)
        with pytest.raises(SystemExit) as exc:
            main([*args[:-3], "-o", str(tmp_path / "here"), "--json"] if args[0] == "translate" else args)
        here = capsys.readouterr()
        assert proc.returncode == exc.value.code, proc.stderr
        runs[args[0] + args[-1]] = proc
        if args[0] == "scan":
            assert proc.stdout == here.out and proc.stderr == here.err
    assert runs["scanblocker"].returncode == 1 and "at or above blocker" in runs["scanblocker"].stderr
    assert json.loads(runs["scanblocker"].stdout)["findings"]
    written = sorted(p.relative_to(tmp_path / "proc") for p in (tmp_path / "proc").rglob("*") if p.is_file())
    assert written and written == sorted(p.relative_to(tmp_path / "here") for p in (tmp_path / "here").rglob("*")
                                         if p.is_file())
    for rel in written:
        if rel.suffix != ".json":
            assert (tmp_path / "proc" / rel).read_bytes() == (tmp_path / "here" / rel).read_bytes(), rel
    assert list((tmp_path / "cache").glob("regex-*.marshal")) and list((tmp_path / "cache").glob("code-*.marshal"))


def test_a_scan_leaves_the_callers_collector_thresholds_as_they_were(capsys):
    import gc

    before = gc.get_threshold()
    with pytest.raises(SystemExit):
        main(["scan", str(F16 / "symbol_copies.cu"), "--json"])
    capsys.readouterr()
    assert gc.get_threshold() == before


def _argparse_reference(verb: str):
    """The fast path's parsers as they were written with argparse (the definition ``parse_options`` must match)."""
    import argparse

    class NoExit(argparse.ArgumentParser):
        def error(self, message):
            raise ValueError(message)

    p = NoExit(prog=f"hipgauge {verb}", add_help=False, allow_abbrev=False)
    if verb == "translate":
        p.add_argument("path", type=Path)
        p.add_argument("-o", "--output", type=Path, required=True)
        for flag in ("--no-safe-rewrites", "--no-share", "--no-progress"):
            p.add_argument(flag, action="store_true")
        for many in ("--no-rewrite", "--amd-arch", "--exclude"):
            p.add_argument(many, action="append")
        p.add_argument("--launch", default="chevron")
        p.add_argument("--rocm-version")
    else:
        p.add_argument("paths", type=Path, nargs="+")
        p.add_argument("--exclude", action="append")
        p.add_argument("--sarif", type=Path)
        p.add_argument("--executor", choices=("local",), default="local")
        p.add_argument("--workers", type=int)
        p.add_argument("--no-progress", action="store_true")
        p.add_argument("--max-findings", type=int, default=25)
        p.add_argument("--fail-on")
        p.add_argument("--strict", action="store_true")
        p.add_argument("-D", "--define", dest="define", action="append")
    p.add_argument("--json", dest="json_out", action="store_true")
    p.add_argument("--config", type=Path)
    p.add_argument("-I", "--include-dir", dest="include_dir", action="append", type=Path)
    return p


@pytest.mark.parametrize("verb, args", [
    ("scan", ["a.cu"]),
    ("scan", ["a.cu", "b.cu", "--fail-on", "blocker", "--json"]),
    ("scan", ["--exclude", "x/*", "a.cu", "--exclude=y", "-I", "inc", "-Iinc2", "-D", "A=1", "--define=B"]),
    ("scan", ["a.cu", "--workers", "2", "--max-findings=0", "--sarif", "o.sarif", "--strict", "--config", "c.toml"]),
    ("scan", ["--", "a.cu", "-b.cu"]),
    ("scan", ["a.cu", "--no-progress", "--no-progress", "--fail-on", "slow", "--fail-on", "info"]),
    ("translate", ["src", "-o", "out"]),
    ("translate", ["-oout", "src", "--json", "--no-share", "--rocm-version", "6.2", "--no-rewrite", "hip-symbol",
                   "--no-rewrite", "x", "--launch=hipLaunchKernelGGL", "--amd-arch", "gfx942", "-I", "i"]),
    ("translate", ["src", "--output=out", "--no-safe-rewrites", "--exclude", "*.py", "--config", "h.toml"]),
])
def test_the_fast_parser_reads_what_argparse_read(verb, args):
    from hipgauge.cli import fast

    spec, defaults = (fast._SCAN, fast._SCAN_DEFAULTS) if verb == "scan" else (fast._TRANSLATE, fast._TRANSLATE_DEFAULTS)
    parsed = fast.parse_options(args, spec, defaults)
    assert parsed is not None
    values, rest = parsed
    got = {("paths" if verb == "scan" else "path"): [Path(p) for p in rest] if verb == "scan" else Path(rest[0]),
           **values}
    assert got == vars(_argparse_reference(verb).parse_args(args))


@pytest.mark.parametrize("verb, args", [
    ("scan", []), ("scan", ["a.cu", "--jso"]), ("scan", ["a.cu", "--bogus"]), ("scan", ["a.cu", "--json=1"]),
    ("scan", ["a.cu", "--workers", "two"]), ("scan", ["a.cu", "--workers", "0"]), ("scan", ["a.cu", "--workers"]),
    ("scan", ["a.cu", "--max-findings", "-1"]), ("scan", ["a.cu", "--executor", "dask"]), ("scan", ["a.cu", "-x"]),
    ("scan", ["a.cu", "--exclude", "--json"]), ("translate", ["src"]), ("translate", ["src", "other", "-o", "o"]),
    ("translate", ["src", "-o"]), ("translate", ["src", "--out", "o"]), ("translate", ["src", "-o", "-o2"]),
])
def test_what_the_fast_parser_cannot_read_goes_to_typer(verb, args):
    from hipgauge.cli.fast import fast_command

    assert fast_command([verb, *args]) is None


def test_a_reader_that_goes_away_ends_the_scan_quietly():
    """``hipgauge scan … | head -1``: the pipe closes while the report is still being written; no "internal error",
    no traceback, the status a tool killed by SIGPIPE has (141).

    The report of this tree (7 kB) fits a pipe's buffer, so with ``head -1`` the write may finish before head
    leaves (status 0); the second run closes the reader before the tool has started, so the write must fail."""
    tree = Path(__file__).parent / "data" / "realistic"
    tool = f"{sys.executable} -c 'from hipgauge.cli import main; main()' scan {tree} --no-progress"
    done = subprocess.run(["bash", "-c", f"{tool} | head -1; exit ${{PIPESTATUS[0]}}"],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.startswith("hipgauge scan")
    assert "error" not in done.stderr and "Traceback" not in done.stderr
    assert done.returncode in (0, 141)
    gone = subprocess.run(["bash", "-c", f"{tool} | true; exit ${{PIPESTATUS[0]}}"],
                          capture_output=True, text=True, timeout=120)
    assert "error" not in gone.stderr and "Traceback" not in gone.stderr
    assert gone.returncode == 141
