"""Shared helpers of the bad-input tests (no tests here): run the real CLI in-process and check its exit."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from hipgauge.cli import main

SEEDS = Path(__file__).resolve().parent / "data" / "badinput" / "seeds"


def run_cli(args: list[str], capsys) -> tuple[int, str, str]:
    """``hipgauge ARGS`` in this process: (exit code, stdout, stderr)."""
    capsys.readouterr()
    code = 0
    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_input_error(result: tuple[int, str, str], names: str | list[str], *words: str) -> str:
    """Exit 2, one stderr line starting 'error:' that names the file and holds ``words``; no traceback."""
    code, out, err = result
    text = out + err
    assert "Traceback" not in text, text
    assert "internal error" not in text, text
    assert code == 2, (code, text)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, lines
    line = lines[0]
    assert line.startswith("error: "), line
    for name in [names] if isinstance(names, str) else names:
        assert name in line, (name, line)
    for w in words:
        assert w.lower() in line.lower(), (w, line)
    return line


def assert_ok(result: tuple[int, str, str], *warning_words: str) -> str:
    """Exit 0, no traceback; each of ``warning_words`` appears on stderr (a warning) or in the output."""
    code, out, err = result
    text = out + err
    assert "Traceback" not in text, text
    assert "internal error" not in text, text
    assert code == 0, (code, text)
    for w in warning_words:
        assert w.lower() in " ".join(text.split()).lower(), (w, text)
    return text


def tree_hashes(root: Path) -> dict[str, str]:
    """sha256 of every file (and the target of every link) under ``root``, to prove nothing changed."""
    found: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in sorted(filenames + dirnames):
            p = Path(dirpath) / name
            rel = p.relative_to(root).as_posix()
            if p.is_symlink():
                found[rel] = "link:" + os.readlink(p)
            elif p.is_file():
                found[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
            else:
                found[rel] = "dir"
    return found
