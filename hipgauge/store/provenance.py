"""Where an assessment came from: the scanned tree's git commit and the installed compilers' versions.

Both are read only: ``git rev-parse HEAD`` (with optional locks off, so git writes nothing) and
``nvcc --version`` / ``hipcc --version``. A missing tool or a tree outside git gives ``None``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path


def git_commit(root: str | Path | None) -> str | None:
    """``git rev-parse HEAD`` of the tree holding ``root``, or None when it is not in a git work tree."""
    if root is None or shutil.which("git") is None:
        return None
    folder = Path(root)
    folder = folder if folder.is_dir() else folder.parent
    if not folder.is_dir():
        return None
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")
    try:
        done = subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10, env=env, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    sha = done.stdout.strip()
    return sha if done.returncode == 0 and re.fullmatch(r"[0-9a-f]{40,64}", sha) else None


_NVCC = re.compile(r"release\s+([0-9.]+)(?:,\s*V([0-9.]+))?")
_HIP = re.compile(r"HIP version:\s*([0-9][0-9A-Za-z.\-]*)")


def compiler_versions(timeout_s: float = 20.0) -> dict[str, str]:
    """Versions of the nvcc and hipcc on PATH (``nvcc``: "13.0.88", ``hipcc``: "5.2.21153-0"), as found."""
    found: dict[str, str] = {}
    for tool, pattern in (("nvcc", _NVCC), ("hipcc", _HIP)):
        exe = shutil.which(tool)
        if exe is None:
            continue
        try:
            done = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=timeout_s, check=False)
        except (OSError, subprocess.SubprocessError):
            continue
        match = pattern.search(done.stdout + done.stderr)
        if match:
            found[tool] = match.group(2) or match.group(1) if tool == "nvcc" else match.group(1)
    return found
