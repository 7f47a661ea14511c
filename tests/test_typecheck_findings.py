"""Behaviour that mypy's first run found broken: each test fails on the code before the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from hipgauge.cli import main
from hipgauge.source import macros as mac

STORE = Path(__file__).resolve().parent / "data" / "store"


def test_file_constants_read_a_define_with_a_comment_in_its_body() -> None:
    # the comment blanking used a str replacement on a bytes pattern: TypeError as soon as a body held a comment
    data = b"#define WARPS 4 /* per block */\n#define N 32 // lanes\n#define F(x) x\n"
    assert mac.file_constants(data, mac.find_macros(data)) == {"WARPS": "4", "N": "32"}


def test_gate_with_a_map_file_uses_the_mapping(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # gate passed the --map path itself where a parsed mapping was expected
    m = tmp_path / "map.toml"
    m.write_text('[[map]]\nbaseline = "sm90_xmma_gemm*"\ncandidate = "Cijk_*"\n', encoding="utf-8")
    argv = ["gate", str(STORE / "base_h100_cuda124.json"), str(STORE / "cand_mi300x_rocm62.json"),
            "--map", str(m), "--max-regression", "1000%"]
    with pytest.raises(SystemExit) as info:
        main(argv)
    captured = capsys.readouterr()
    assert info.value.code in (0, None), captured.err
    assert "Traceback" not in captured.err and "error" not in captured.err.lower()
