"""Find nvcc and hipcc, build their command lines, and run them under a wall-time guard.

Objects always go to a temporary directory given by the caller, never next to the sources. A run past its
time limit is killed with its whole process group (hipcc is a Perl script that starts clang) and reported
in one line that shows the command line.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from hipgauge.model import Record

HIPCC_CANDIDATES = ("/usr/bin/hipcc", "/opt/rocm/bin/hipcc", "/opt/rocm/hip/bin/hipcc")
NVCC_CANDIDATES = ("/usr/local/cuda/bin/nvcc", "/usr/local/bin/nvcc", "/usr/bin/nvcc")


@dataclass
class Compiler(Record):
    name: str  # "hipcc" | "nvcc"
    path: str
    version: str = ""


@dataclass
class CompileRun(Record):
    command: list[str]
    returncode: int | None
    output: str  # stderr then stdout, as the compiler printed them
    seconds: float
    timed_out: bool = False
    error: str | None = None  # one line when the compiler could not run or timed out
    artifacts: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and self.error is None

    @property
    def command_line(self) -> str:
        return shlex.join(self.command)


def _find(env_var: str, tool: str, candidates: tuple[str, ...]) -> str | None:
    forced = os.environ.get(env_var)
    if forced:
        return forced if Path(forced).is_file() and os.access(forced, os.X_OK) else None
    found = shutil.which(tool)
    if found:
        return found
    for cand in candidates:
        if Path(cand).is_file() and os.access(cand, os.X_OK):
            return cand
    return None


@lru_cache(maxsize=8)
def _version(path: str, pattern: str) -> str:
    try:
        proc = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60,
                              env=_hip_env() if path.endswith("hipcc") else None)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    m = re.search(pattern, proc.stdout + proc.stderr)
    return m.group(1) if m else ""


def find_hipcc() -> Compiler | None:
    """hipcc from ``HIPGAUGE_HIPCC``, PATH, or the usual ROCm/Debian places."""
    path = _find("HIPGAUGE_HIPCC", "hipcc", HIPCC_CANDIDATES)
    if path is None:
        return None
    return Compiler("hipcc", path, _version(path, r"HIP version:\s*(\S+)"))


def find_nvcc() -> Compiler | None:
    """nvcc from ``HIPGAUGE_NVCC``, PATH, or the usual CUDA places."""
    path = _find("HIPGAUGE_NVCC", "nvcc", NVCC_CANDIDATES)
    if path is None:
        return None
    return Compiler("nvcc", path, _version(path, r"release\s+([\d.]+)"))


def _hip_env() -> dict[str, str]:
    env = dict(os.environ)
    env["HIP_PLATFORM"] = "amd"
    return env


def hipcc_command(compiler: Compiler, source: Path, arch: str, obj: Path, include_dirs: Sequence[str] = (),
                  defines: Sequence[str] = ()) -> list[str]:
    """``hipcc -std=c++17 -x hip -c -O3 --offload-arch=ARCH -Rpass-analysis=kernel-resource-usage SRC -o OBJ``."""
    cmd = [compiler.path, "-std=c++17", "-x", "hip", "-c", "-O3", f"--offload-arch={arch}",
           "-Rpass-analysis=kernel-resource-usage", "-fno-color-diagnostics", "-ferror-limit=0"]
    cmd += [f"-I{d}" for d in include_dirs] + [f"-D{d}" for d in defines]
    return cmd + [str(source), "-o", str(obj)]


def nvcc_command(compiler: Compiler, source: Path, arch: str, obj: Path, include_dirs: Sequence[str] = (),
                 defines: Sequence[str] = ()) -> list[str]:
    """``nvcc -std=c++17 -x cu -c -O3 -Xptxas -v -arch=sm_XX SRC -o OBJ``."""
    cmd = [compiler.path, "-std=c++17", "-x", "cu", "-c", "-O3", "-Xptxas", "-v", f"-arch={arch}"]
    cmd += [f"-I{d}" for d in include_dirs] + [f"-D{d}" for d in defines]
    return cmd + [str(source), "-o", str(obj)]


def run_command(cmd: list[str], timeout_s: float, cwd: Path | None = None, hip: bool = False) -> CompileRun:
    """Run a compiler; never raises. A timeout kills the process group and says so in one line."""
    start = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                                cwd=str(cwd) if cwd else None, env=_hip_env() if hip else None,
                                start_new_session=True)
    except OSError as exc:
        return CompileRun(cmd, None, "", 0.0, error=f"cannot run {cmd[0]}: {exc.strerror or exc}")
    try:
        stdout, stderr = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        stdout, stderr = proc.communicate()
        secs = time.monotonic() - start
        return CompileRun(cmd, None, (stderr or "") + (stdout or ""), secs, timed_out=True,
                          error=f"timed out after {timeout_s:g} s: {shlex.join(cmd)}")
    return CompileRun(cmd, proc.returncode, (stderr or "") + (stdout or ""), time.monotonic() - start)
