"""The public Python API (hipgauge.scan / hipgauge.compare, hipgauge/api.py): typed results, lazy import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"


def test_import_hipgauge_stays_light() -> None:
    code = ("import sys, hipgauge; heavy = [m for m in sys.modules if m.split('.')[0] in "
            "('polars', 'duckdb', 'tree_sitter', 'jinja2', 'typer') or m.startswith('hipgauge.')]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_scan_returns_the_typed_result(tmp_path: Path) -> None:
    import hipgauge
    from hipgauge.model import ScanResult

    (tmp_path / "k.cu").write_text("__global__ void k(float* x) { x[0] = __shfl_sync(0xffffffff, x[1], 1); }\n"
                                   "void run(float* x) { k<<<1, 32>>>(x); }\n")
    result = hipgauge.scan(tmp_path)
    assert isinstance(result, ScanResult)
    assert [k.name for k in result.kernels] == ["k"] and result.launch_sites
    assert any(f.code for f in result.findings)
    assert hipgauge.scan([tmp_path / "k.cu"]).kernels  # a file, or a list of paths


def test_scan_bad_input_raises_input_error(tmp_path: Path) -> None:
    import hipgauge
    from hipgauge.errors import InputError

    with pytest.raises(InputError, match="not found"):
        hipgauge.scan(tmp_path / "missing")


def test_compare_returns_the_typed_result() -> None:
    import hipgauge
    from hipgauge.errors import InputError
    from hipgauge.profiles.parity import ComparisonResult

    base, cand = DATA / "compare" / "det_base.json", DATA / "compare" / "det_cand.json"
    result = hipgauge.compare(base, cand, target_ms=20.0)
    assert isinstance(result, ComparisonResult)
    assert result.to_dict()["schema"].startswith("hipgauge.compare/")
    with pytest.raises(InputError, match="finite"):
        hipgauge.compare(base, cand, target_ms=float("inf"))


def test_unknown_attribute_is_an_attribute_error() -> None:
    import hipgauge

    with pytest.raises(AttributeError):
        hipgauge.no_such_thing  # noqa: B018
