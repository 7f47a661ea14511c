#!/usr/bin/env python3
"""Long fuzz runs, for occasional use (the CI suite runs the same properties, bounded, in tests/test_fuzz_*.py).

    python scripts/fuzz.py --minutes 30            # hypothesis: 20x the examples, fresh random seeds, rounds until time is up
    python scripts/fuzz.py --minutes 10 --scale 50 --only profiles
    python scripts/fuzz.py --minutes 10 --atheris  # plus coverage-guided atheris on load_profile, if installed

Invariant checked everywhere: a result (maybe with warnings) or hipgauge.errors.InputError, never another
exception. A failure prints hypothesis' minimal example; add it to tests/test_fuzz_regressions.py once fixed.
atheris is optional: install it into a separate venv (`python -m venv /tmp/fz && /tmp/fz/bin/pip install atheris -e .`)
and run this script with that interpreter. Exit status: 0 when every round passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUITES = {"profiles": "tests/test_fuzz_profiles.py", "config": "tests/test_fuzz_config.py",
          "source": "tests/test_fuzz_source.py"}


def hypothesis_rounds(deadline: float, scale: int, only: list[str], workers: int) -> int:
    files = [SUITES[name] for name in only]
    env = {**os.environ, "HIPGAUGE_FUZZ_SCALE": str(scale), "HIPGAUGE_FUZZ_RANDOM": "1"}
    failures = rounds = 0
    while time.monotonic() < deadline:
        rounds += 1
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--hypothesis-show-statistics", *files]
        if workers > 1:
            cmd += ["-n", str(workers)]
        left = max(30, int(deadline - time.monotonic()) + 120)
        print(f"[fuzz] round {rounds}: {' '.join(cmd[3:])} (scale {scale})", flush=True)
        try:
            rc = subprocess.run(cmd, cwd=REPO, env=env, timeout=left).returncode
        except subprocess.TimeoutExpired:
            print("[fuzz] round timed out (a hang is a finding too: rerun that test alone)", flush=True)
            rc = 1
        failures += rc != 0
        if rc != 0:
            print(f"[fuzz] round {rounds} FAILED (exit {rc})", flush=True)
    print(f"[fuzz] hypothesis: {rounds} round(s), {failures} failed", flush=True)
    return failures


def atheris_run(seconds: int) -> int:
    """Coverage-guided fuzzing of load_profile with atheris (libFuzzer), in a child process."""
    code = f"""
import sys, tempfile, os
sys.path.insert(0, {str(REPO / 'tests')!r})
import atheris
with atheris.instrument_imports():
    from hipgauge.errors import InputError
    from hipgauge.profiles.load import load_profile, FORMATS
from test_fuzz_support import profile_seeds, seed_bytes
tmp = tempfile.mkdtemp(prefix="hipgauge-atheris-")
corpus = os.path.join(tmp, "corpus"); os.mkdir(corpus)
for i, (p, fmt) in enumerate(profile_seeds()):
    open(os.path.join(corpus, str(i)), "wb").write(seed_bytes(str(p)))
path = os.path.join(tmp, "input")
def one(data):
    fdp = atheris.FuzzedDataProvider(data)
    fmt = ([None] + list(FORMATS))[fdp.ConsumeIntInRange(0, len(FORMATS))]
    open(path, "wb").write(fdp.ConsumeBytes(fdp.remaining_bytes()))
    try:
        load_profile(path, fmt=fmt)
    except InputError:
        pass
atheris.Setup([sys.argv[0], corpus, "-max_total_time={seconds}", "-rss_limit_mb=4096", "-timeout=60"], one)
atheris.Fuzz()
"""
    return subprocess.run([sys.executable, "-c", code], cwd=REPO).returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=10.0, help="wall time for the whole run")
    ap.add_argument("--scale", type=int, default=20, help="examples per property, times the CI suite's")
    ap.add_argument("--only", action="append", choices=sorted(SUITES), help="suites to run (default: all)")
    ap.add_argument("--workers", type=int, default=min(4, os.cpu_count() or 1), help="pytest-xdist workers")
    ap.add_argument("--atheris", action="store_true", help="also run atheris on load_profile (a third of the time)")
    args = ap.parse_args()
    start = time.monotonic()
    total = args.minutes * 60
    failures = 0
    if args.atheris:
        try:
            import atheris  # noqa: F401
        except ImportError:
            print("[fuzz] atheris is not installed in this interpreter: skipped (see this script's docstring)")
        else:
            failures += atheris_run(int(total / 3)) != 0
    failures += hypothesis_rounds(start + total, args.scale, args.only or sorted(SUITES), args.workers)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
