"""The CLI's cache of the dataclasses' compiled methods (``hipgauge/code_cache.py``): a run writes it, the next
run loads it and gives the same output as a run without it; a damaged cache changes nothing but the time; a
dataclass made through the stand-in ``exec`` behaves as one made through the real one."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hipgauge import code_cache

PROGRAM = Path(__file__).resolve().parent / "data" / "issue16" / "warp_reduce_masks.cu"


def _scan(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **env}
    full.pop("HIPGAUGE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "hipgauge", "scan", str(PROGRAM), "--json"], capture_output=True,
                          text=True, env=full, timeout=120)


def test_a_run_writes_the_cache_and_the_next_gives_the_same_output(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _scan({"HIPGAUGE_CACHE_DIR": str(cache)})
    assert first.returncode == 0, first.stderr
    (path,) = cache.glob("code-*.marshal")
    assert path.stat().st_size > 10_000
    second = _scan({"HIPGAUGE_CACHE_DIR": str(cache)})
    off = _scan({"HIPGAUGE_NO_CACHE": "1", "HIPGAUGE_CACHE_DIR": str(tmp_path / "unused")})
    path.write_bytes(b"\x00garbage" * 100)
    damaged = _scan({"HIPGAUGE_CACHE_DIR": str(cache)})
    assert second.stdout == first.stdout == off.stdout == damaged.stdout
    assert damaged.returncode == 0 and damaged.stderr == ""
    assert not (tmp_path / "unused").exists()


def test_a_dataclass_made_through_the_stand_in_is_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPGAUGE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(code_cache, "_codes", {})
    monkeypatch.setattr(code_cache, "_new", set())
    if not hasattr(dataclasses, "_create_fn"):
        pytest.skip("this Python's dataclasses has no _create_fn: the cache is not installed")
    monkeypatch.delattr(dataclasses, "exec", raising=False)
    monkeypatch.setattr(dataclasses, "exec", code_cache._exec, raising=False)

    def make() -> type:
        @dataclasses.dataclass(frozen=True, order=True)
        class Point:
            x: int
            y: int = 2
            tags: tuple[str, ...] = dataclasses.field(default_factory=tuple)

        return Point

    first, second = make(), make()  # the second from the codes the first compiled
    assert code_cache._codes and code_cache.save() > 0 and list(tmp_path.glob("code-*.marshal"))
    for cls in (first, second):
        p = cls(1)
        assert repr(p) == "test_a_dataclass_made_through_the_stand_in_is_the_same.<locals>.make.<locals>.Point(x=1, y=2, tags=())"
        assert p == cls(1, 2, ()) and p < cls(2) and hash(p) == hash(cls(1))
        with pytest.raises(dataclasses.FrozenInstanceError):
            p.x = 3  # type: ignore[misc]
