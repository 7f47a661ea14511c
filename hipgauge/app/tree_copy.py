"""What translate does to the files it does not rewrite, and to the modes of everything it writes.

* ``copy_unchanged``: a file copied byte for byte, streamed (a file over ``max_file_bytes`` is never read
  into memory), created exclusively and never through a link.
* ``keep_modes``: after the HIP tree is written, each file and folder gets the permission bits of its
  source counterpart (``build.sh`` stays executable; folders stay readable by the group as in the
  source); anything without a counterpart gets the default the user's umask gives (0644/0755 under 022).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_BLOCK = 1 << 20


def copy_unchanged(source: Path, target: Path) -> None:
    """Copy ``source`` to the new file ``target`` (its folder is made; an existing name is an error)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(target, _NEW_FILE, 0o600)
    import shutil  # noqa: PLC0415 - here, not at the top: a translate that copies nothing never loads it (~3 ms)

    with open(source, "rb") as src, os.fdopen(fd, "wb") as dst:
        shutil.copyfileobj(src, dst, _BLOCK)


def _umask() -> int:
    old = os.umask(0o022)
    os.umask(old)
    return old


def keep_modes(src_root: Path, out_root: Path, single: bool = False) -> None:
    """Give every file and folder under ``out_root`` (links skipped) the permission bits of its counterpart
    under ``src_root`` (for ``single``: ``src_root`` is the one source file, ``out_root`` its folder)."""
    mask = _umask()
    default_dir, default_file = 0o777 & ~mask, 0o666 & ~mask
    src_dir = src_root.parent if single else src_root
    for dirpath, _dirnames, filenames in os.walk(out_root, topdown=False, followlinks=False):
        rel = os.path.relpath(dirpath, out_root)
        for name in filenames:
            _chmod_like(os.path.join(dirpath, name), os.path.join(src_dir, rel, name), default_file)
        _chmod_like(dirpath, None if single else os.path.join(src_dir, rel), default_dir)


def _chmod_like(path: str, source: str | None, default: int) -> None:
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            return
        mode = default
        if source is not None:
            try:
                src_st = os.stat(source)
                if stat.S_IFMT(src_st.st_mode) == stat.S_IFMT(st.st_mode):
                    mode = stat.S_IMODE(src_st.st_mode) & 0o777  # no setuid/setgid/sticky copied
            except OSError:
                pass
        if stat.S_ISDIR(st.st_mode):
            mode |= stat.S_IRWXU  # the owner can always list and clean up the folder written
        else:
            mode |= stat.S_IRUSR | stat.S_IWUSR
        os.chmod(path, mode)
    except OSError:
        pass  # a mode we cannot set never fails the translation
