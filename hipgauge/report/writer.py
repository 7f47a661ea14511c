"""Write a report folder atomically.

Everything is rendered into a temporary folder next to the target; only when every file is written is
the old folder moved aside and the new one renamed into place (and the old one removed). A failure
while rendering leaves the previous report as it was and no half report. The writer refuses an output
folder that is, or is inside, a scanned source tree (or that contains one), and refuses to replace an
existing folder that is not a hipgauge report (non-empty without an ``assessment.json``), so a typo in
``-o`` can never delete someone's files. Nothing is written outside the folder and its temporary twin.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Iterable

from hipgauge.errors import InputError

MARKER = "assessment.json"

#: file name → function writing that file at the given path
Renderers = dict[str, Callable[[Path], None]]


def _inside(child: Path, parent: Path) -> bool:
    try:
        child.relative_to(parent)
        return True
    except ValueError:
        return False


def check_output_dir(out: Path, sources: Iterable[Path]) -> Path:
    """The resolved output folder, or InputError when it overlaps a source tree or is not a report folder."""
    target = Path(out).expanduser().resolve()
    for src in sources:
        root = Path(src).expanduser().resolve()
        if root.is_file():
            root = root.parent
        if _inside(target, root):
            raise InputError(f"output folder is inside the scanned source tree {root}; choose a folder outside it", out)
        if _inside(root, target):
            raise InputError(f"output folder contains the scanned source tree {root}; choose another folder", out)
    if target.exists():
        if not target.is_dir():
            raise InputError("output path exists and is not a folder", out)
        entries = list(target.iterdir())
        if entries and not _is_report(target):
            raise InputError("output folder exists, is not empty and is not a hipgauge report; refusing to replace it", out)
    if target.parent == target:
        raise InputError("output folder cannot be the file-system root", out)
    return target


def _is_report(folder: Path) -> bool:
    marker = folder / MARKER
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and str(data.get("schema", "")).startswith("hipgauge.assessment/")


def write_report(out: Path, renderers: Renderers, sources: Iterable[Path] = ()) -> Path:
    """Render every file into a temporary folder beside ``out``, then swap it into place."""
    try:
        return _write_report(out, renderers, sources)
    except OSError as exc:  # read-only folder, disk full…: one line naming the folder (the old report is kept)
        raise InputError(f"cannot write the report: {exc.strerror or exc}", out) from None


def _write_report(out: Path, renderers: Renderers, sources: Iterable[Path] = ()) -> Path:
    target = check_output_dir(out, sources)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    try:
        for name, render in renderers.items():
            path = (tmp / name).resolve()
            if not _inside(path, tmp.resolve()):
                raise InputError(f"report file name escapes the folder: {name!r}")
            path.parent.mkdir(parents=True, exist_ok=True)
            render(path)
        os.chmod(tmp, 0o755)
        old = None
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
            old.rmdir()
            os.replace(target, old)
        try:
            os.replace(tmp, target)
        except OSError:
            if old is not None:
                os.replace(old, target)
            raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def text_writer(render: Callable[[], str]) -> Callable[[Path], None]:
    """A renderer that writes ``render()`` as UTF-8 text (called inside the temporary folder)."""

    def write(path: Path) -> None:
        path.write_text(render(), encoding="utf-8")

    return write
