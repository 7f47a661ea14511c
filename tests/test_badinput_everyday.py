"""Issue #17: the everyday inputs that gave a traceback, a wrong answer or a stray file (one test per row
of the issue's table; docs/bad-input.md lists the rows). Each runs the real CLI in-process."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from test_badinput_support import assert_input_error, assert_ok, run_cli, tree_hashes

KERNEL = "__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }\n" \
         "void run(float* x) { scale<<<1, 64>>>(x, 2.0f); cudaDeviceSynchronize(); }\n"


def _tree(root: Path, files: dict[str, str] | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in (files or {"k.cu": KERNEL}).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


# -- row 1: assess --store with a history location it cannot write ----------------------------------------
@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_row01_unwritable_store_keeps_the_report_and_warns(tmp_path: Path, capsys) -> None:
    src = _tree(tmp_path / "src")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        result = run_cli(["assess", src, "-o", tmp_path / "rep", "--no-build-check", "--store",
                          "--db", locked / "sub" / "h.duckdb"], capsys)
    finally:
        locked.chmod(0o700)
    text = assert_ok(result, "not stored in the history", str(locked))
    assert (tmp_path / "rep" / "assessment.json").is_file(), text


def test_row01_store_error_is_one_line_naming_the_path(tmp_path: Path, capsys, monkeypatch) -> None:
    """Root or not: a store whose folder is a file cannot be created; the report is still written."""
    src = _tree(tmp_path / "src")
    (tmp_path / "afile").write_text("x")
    result = run_cli(["assess", src, "-o", tmp_path / "rep", "--no-build-check", "--store",
                      "--db", tmp_path / "afile" / "h.duckdb"], capsys)
    assert_ok(result, "not stored in the history", "afile")
    assert (tmp_path / "rep" / "assessment.json").is_file()
    code, _out, err = run_cli(["history", "--db", tmp_path / "afile" / "h.duckdb"], capsys)
    assert code in (0, 2) and "Traceback" not in err and "internal error" not in err


# -- row 3: never write the store into the input tree -------------------------------------------------------
def test_row03_store_goes_to_hipgauge_home_not_the_tree(tmp_path: Path, capsys, monkeypatch) -> None:
    src = _tree(tmp_path / "src")
    (src / ".git").mkdir()
    home = tmp_path / "home"
    monkeypatch.setenv("HIPGAUGE_HOME", str(home))
    monkeypatch.chdir(src)
    before = tree_hashes(src)
    assert_ok(run_cli(["assess", ".", "-o", tmp_path / "rep", "--no-build-check", "--store"], capsys))
    assert tree_hashes(src) == before
    assert not (src / ".hipgauge").exists()
    assert (home / "history.duckdb").is_file()


# -- row 8: decide/assess on an empty folder ----------------------------------------------------------------
@pytest.mark.parametrize("verb", ["decide", "cost", "assess"])
def test_row08_empty_folder_is_no_cuda_sources(tmp_path: Path, capsys, verb: str) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "README.md").write_text("nothing here\n")
    extra = ["-o", tmp_path / "rep", "--no-build-check"] if verb == "assess" else []
    assert_input_error(run_cli([verb, empty, *extra], capsys), str(empty), "no CUDA sources found")
    assert not (tmp_path / "rep").exists()


# -- row 9: non-finite numbers ------------------------------------------------------------------------------
@pytest.mark.parametrize("args,option", [
    (["decide", "{src}", "--target-ms", "inf"], "--target-ms"),
    (["assess", "{src}", "-o", "{rep}", "--no-build-check", "--target-ms", "inf"], "--target-ms"),
    (["decide", "{src}", "--percentile", "nan"], "--percentile"),
    (["cost", "{src}", "--set", "economics.hourly_rate=inf"], "economics.hourly_rate"),
    (["cost", "{src}", "--set", "economics.fleet_spend_per_year=-inf"], "economics.fleet_spend_per_year"),
    (["assess", "{src}", "-o", "{rep}", "--no-build-check", "--build-budget-s", "inf"], "--build-budget-s"),
])
def test_row09_non_finite_flags_are_refused(tmp_path: Path, capsys, args: list[str], option: str) -> None:
    src = _tree(tmp_path / "src")
    argv = [a.format(src=src, rep=tmp_path / "rep") for a in args]
    line = assert_input_error(run_cli(argv, capsys), option, "finite")
    assert "Infinity" not in line


def test_row09_non_finite_config_value_is_refused(tmp_path: Path, capsys) -> None:
    src = _tree(tmp_path / "src", {"k.cu": KERNEL, "hipgauge.toml": "[economics]\nhourly_rate = inf\n"})
    assert_input_error(run_cli(["cost", src], capsys), ["hipgauge.toml", "economics.hourly_rate"], "finite")


def test_row09_json_never_holds_infinity() -> None:
    from hipgauge.report.jsontext import dumps

    text = dumps({"a": float("inf"), "b": [1.0, float("nan")], "c": {"d": -float("inf")}})
    assert "Infinity" not in text and "NaN" not in text
    assert json.loads(text) == {"a": None, "b": [1.0, None], "c": {"d": None}}


# -- row 10: an arch of the wrong vendor or an empty one ----------------------------------------------------
@pytest.mark.parametrize("verb,option,value", [
    ("build-check", "--amd-arch", "sm_80"), ("build-check", "--amd-arch", ""),
    ("build-check", "--nvidia-arch", "gfx90a"), ("build-check", "--amd-arch", "gfx1234"),
    ("translate", "--amd-arch", "sm_90"),
])
def test_row10_bad_arch_names_the_option(tmp_path: Path, capsys, verb: str, option: str, value: str) -> None:
    src = _tree(tmp_path / "src")
    extra = ["-o", tmp_path / "out"] if verb == "translate" else []
    line = assert_input_error(run_cli([verb, src, option, value, *extra], capsys), option)
    assert "gfx90a" in line or "sm_80" in line  # the valid targets, from hipgauge/data/arch_limits.toml
    assert not (tmp_path / "out").exists()


# -- row 12: a config file with a UTF-8 BOM ------------------------------------------------------------------
def test_row12_config_with_bom_is_read(tmp_path: Path, capsys) -> None:
    src = _tree(tmp_path / "src")
    (src / "hipgauge.toml").write_bytes(b"\xef\xbb\xbf[economics]\nhourly_rate = 99\n")
    from hipgauge import config as config_mod

    assert config_mod.load(start=src).get("economics.hourly_rate") == 99
    assert_ok(run_cli(["scan", src], capsys))


# -- row 13: a Kineto event whose "dur" is not a number -----------------------------------------------------
def _kineto(path: Path, events: list[dict]) -> Path:
    path.write_text(json.dumps({"deviceProperties": [{"id": 0, "name": "NVIDIA H200"}], "traceEvents": events}))
    return path


def _kernel_event(name: str, ts: float, dur: object) -> dict:
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"correlation": 1, "device": 0, "stream": 7}}


def test_row13_kineto_dur_true_names_the_field_and_the_event(tmp_path: Path, capsys) -> None:
    only = _kineto(tmp_path / "only.json", [_kernel_event("bad_kernel", 10, True)])
    line = assert_input_error(run_cli(["compare", only, only], capsys), "only.json", '"dur"', "bad_kernel")
    assert "polars" not in line and "dtype" not in line
    mixed = _kineto(tmp_path / "mixed.json", [_kernel_event("bad_kernel", 10, True), _kernel_event("good_kernel", 30, 5)])
    text = assert_ok(run_cli(["compare", mixed, mixed], capsys), "bad_kernel", '"dur"')
    assert "good_kernel" in text


# -- row 4: translate keeps the source modes ----------------------------------------------------------------
def test_row04_translate_keeps_source_modes_under_umask_022(tmp_path: Path, capsys) -> None:
    src = _tree(tmp_path / "src", {"k.cu": KERNEL, "sub/h.cuh": "#pragma once\n", "build.sh": "#!/bin/sh\nmake\n",
                                  "notes.txt": "hello\n"})
    (src / "build.sh").chmod(0o755)
    (src / "k.cu").chmod(0o644)
    (src / "sub").chmod(0o755)
    old = os.umask(0o022)
    try:
        assert_ok(run_cli(["translate", src, "-o", tmp_path / "out", "--no-share"], capsys))
    finally:
        os.umask(old)
    out = tmp_path / "out"
    mode = lambda p: stat.S_IMODE(p.stat().st_mode)  # noqa: E731
    assert mode(out / "build.sh") == 0o755
    assert mode(out / "k.cu") == 0o644
    assert mode(out / "notes.txt") == mode(src / "notes.txt")
    assert mode(out / "sub") == 0o755 and mode(out / "sub" / "h.cuh") == mode(src / "sub" / "h.cuh")
    assert mode(out) == 0o755


# -- row 5: a file over max_file_bytes ----------------------------------------------------------------------
def test_row05_file_over_max_file_bytes_is_copied_unchanged_and_not_analysed(tmp_path: Path, capsys) -> None:
    big = KERNEL + "// " + "x" * 400 + "\n"
    src = _tree(tmp_path / "src", {"small.cu": KERNEL.replace("scale", "small"), "big.cu": big,
                                  "hipgauge.toml": "max_file_bytes = 300\n"})
    code, out, err = run_cli(["translate", src, "-o", tmp_path / "out", "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert (tmp_path / "out" / "big.cu").read_text() == big
    assert doc["not_analysed"] == ["big.cu"] and doc["summary"]["files_not_analysed"] == 1
    assert any("big.cu" in w and "max_file_bytes" in w for w in doc["warnings"])
    text = assert_ok(run_cli(["translate", src, "-o", tmp_path / "out2"], capsys), "big.cu", "copied unchanged")
    assert "not analysed: 1 file" in " ".join(text.split())


# -- row 11: links out of the tree; a file and its folder both given ----------------------------------------
def test_row11_symlinked_cu_outside_the_tree_is_never_read(tmp_path: Path, capsys) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.cu").write_text("__global__ void secret_kernel() {}\n")
    src = _tree(tmp_path / "src")
    (src / "passwd.cu").symlink_to(outside / "secret.cu")
    (src / "linked_dir").symlink_to(outside, target_is_directory=True)
    code, out, err = run_cli(["scan", src, "--json"], capsys)
    assert code == 0, err
    assert "secret_kernel" not in out
    doc = json.loads(out)
    skipped = {s["path"]: s["reason"] for s in doc.get("skipped", [])}
    assert "outside the tree" in skipped["passwd.cu"] and "outside the tree" in skipped["linked_dir"]


def test_row11_file_and_its_folder_on_the_command_line_are_counted_once(tmp_path: Path, capsys) -> None:
    src = _tree(tmp_path / "src")
    code, out, err = run_cli(["scan", src, src / "k.cu", "--json"], capsys)
    assert code == 0, err
    one_code, one_out, _ = run_cli(["scan", src, "--json"], capsys)
    both, one = json.loads(out), json.loads(one_out)
    assert len(both["files"]) == len(one["files"]) == 1
    assert len(both["kernels"]) == len(one["kernels"]) == 1
    assert len(both["launch_sites"]) == len(one["launch_sites"])
    assert len(both["findings"]) == len(one["findings"])


# -- row 14: the suite leaves nothing of its own in /tmp -----------------------------------------------------
def test_row14_fuzz_scratch_and_tempfiles_live_under_pytest_tmp(tmp_path_factory: pytest.TempPathFactory) -> None:
    import tempfile

    from test_fuzz_support import Scratch

    base = tmp_path_factory.getbasetemp().resolve()
    scratch = Scratch()
    assert base in scratch.dir.resolve().parents
    assert base in Path(tempfile.mkdtemp(prefix="hipgauge-build-check-")).resolve().parents
    assert Path(os.environ["TMPDIR"]).resolve() != Path("/tmp")


# -- row 2: the build-check budget runs out -----------------------------------------------------------------
def test_row02_budget_keeps_partial_results_and_cleans_up(tmp_path: Path, capsys, monkeypatch) -> None:
    """A slow (fake) hipcc and a 4 s budget over 8 units: the compiles that ran are kept and counted
    ("k of 8 units checked"), and no temporary folder of the job or of build-check is left behind."""
    import tempfile

    files = {f"u{i}.cu": KERNEL.replace("scale", f"scale{i}").replace("void run", f"void run{i}") for i in range(8)}
    files["hipgauge.toml"] = '[build]\namd_arch = ["gfx90a"]\nnvidia_arch = []\n'
    src = _tree(tmp_path / "src", files)
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "hipcc").write_text("#!/bin/sh\ncase \"$*\" in *--version*) echo 'HIP version: 6.0.0'; exit 0;; esac\n"
                                "sleep 1\nexit 0\n")
    (fake / "hipcc").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:/usr/bin:/bin")
    monkeypatch.setenv("HIPGAUGE_HIPCC", str(fake / "hipcc"))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setenv("TMPDIR", str(scratch))
    code, out, err = run_cli(["assess", src, "-o", tmp_path / "rep", "--build-budget-s", "4", "--json"], capsys)
    assert code == 0, err
    bc = json.loads(out)["build_check"]
    assert bc.get("status") not in ("not run", "failed"), bc
    summary = bc["summary"]
    assert summary["units_total"] == 8 and summary["units_checked"] < 8
    assert f"{summary['units_checked']} of 8 units checked" in summary["coverage"]
    assert len(bc["compiles"]) >= summary["units_checked"]
    assert not [p.name for p in scratch.iterdir() if p.name.startswith("hipgauge-")], list(scratch.iterdir())


# -- row 7: SARIF with more results than code scanning takes ------------------------------------------------
def test_row07_sarif_is_capped_per_rule_and_file_with_a_stated_summary(tmp_path: Path, capsys) -> None:
    import jsonschema

    body = "\n".join(f"  x[{i}] = __shfl_sync(0xffffffff, x[{i}], 1);" for i in range(700))
    src = _tree(tmp_path / "src", {"many.cu": "__global__ void k(float* x) {\n" + body + "\n}\n"})
    sarif = tmp_path / "out.sarif"
    code, out, err = run_cli(["scan", src, "--sarif", sarif], capsys)
    assert code == 0, err
    assert "SARIF capped" in " ".join(err.split()) and "500 of 700" in " ".join(err.split())
    doc = json.loads(sarif.read_text())
    run = doc["runs"][0]
    assert len(run["results"]) == 500
    assert run["properties"]["truncated"]["total"] == 700
    assert run["properties"]["truncated"]["left_out_by_rule"] == {run["results"][0]["ruleId"]: 200}
    assert "SARIF capped" in run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
    schema = json.loads((Path(__file__).parent / "data" / "rules" / "sarif-2.1.0-required.schema.json").read_text())
    jsonschema.validate(doc, schema)


def test_row07_cap_keeps_the_most_severe_first() -> None:
    from hipgauge.model import Confidence, Finding, Severity
    from hipgauge.report.sarif import cap_findings

    def finding(code: str, severity: str, line: int) -> Finding:
        return Finding(code=code, severity=Severity(severity), category="warp", confidence=Confidence.HIGH,
                       file="a.cu", line=line, message="m")

    many = [finding("HG900", "info", n) for n in range(30)] + [finding("HG100", "blocker", n) for n in range(5)]
    kept, summary = cap_findings(many, max_results=10, per_rule=8, per_rule_file=8)
    assert sum(1 for f in kept if f.code == "HG100") == 5 and len(kept) == 10
    assert summary is not None and summary["left_out_by_rule"] == {"HG900": 25}
    assert cap_findings(many[:3])[1] is None


# -- row 15: report.md keeps the caveats, escapes only what Markdown needs, fences CMake as cmake -----------
def test_row15_report_md_caveat_escaping_and_cmake_fence(tmp_path: Path, capsys) -> None:
    src = _tree(tmp_path / "src", {
        "CMakeLists.txt": "cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX CUDA)\n"
                          "find_package(CUDA REQUIRED)\nset(CMAKE_CUDA_ARCHITECTURES 80)\nadd_executable(my_app k.cu)\n",
        "k.cu": "__global__ void my_kernel(float* x) { x[threadIdx.x] = __shfl_sync(0xffffffff, x[0], 1); }\n"})
    terminal = assert_ok(run_cli(["assess", src, "-o", tmp_path / "rep", "--no-build-check"], capsys))
    assert "kernel tuning not included" in " ".join(terminal.split())  # the terminal view too
    text = (tmp_path / "rep" / "report.md").read_text()
    hours = next(ln for ln in text.splitlines() if "hours to close the gap" in ln)
    assert "kernel tuning not included" in hours
    html = (tmp_path / "rep" / "index.html").read_text()
    assert "kernel tuning not included" in html  # the same caveat in both renderers
    assert "```cmake" in text
    assert "my_kernel" in text and r"my\_kernel" not in text  # an underscore inside a word is plain text
    assert r"\(" not in text and r"\+" not in text


def test_row15_md_escapes_what_would_become_markup() -> None:
    from hipgauge.report.markdown import md

    assert md("__global__ a|b *x* [l](u) `c` <b>") == r"\_\_global\_\_ a\|b \*x\* \[l\](u) \`c\` &lt;b&gt;"
    assert md("# not a heading") == r"\# not a heading" and md("1. not a list") == r"1\. not a list"
    assert md("f(a + b_c)") == "f(a + b_c)"


# -- row 6: a generated file with many tiny kernels: linear, not quadratic ----------------------------------
class _CountingList(list):
    """A list that counts how often it is walked (each walk of a per-file list per kernel is the quadratic step)."""

    def __init__(self, items: list) -> None:
        super().__init__(items)
        self.walks = 0

    def __iter__(self):
        self.walks += 1
        return super().__iter__()


def test_row06_rules_do_not_walk_every_kernel_or_launch_per_kernel(tmp_path: Path) -> None:
    """No timing: the rules look a kernel and its launches up by index. Before the fix, ``kernel_record`` walked
    the file's kernel list and HG403 the launch list once per kernel (n² on a 70k-kernel file: 1 MB 20 s,
    2 MB 91 s); benchmarks/generated_file.py measures the time."""
    from hipgauge.knowledge.mapping import load_mapping
    from hipgauge.rules.engine import check_file
    from hipgauge.source.inventory import inventory_file
    from hipgauge.source.parse import parse_bytes

    n = 300
    body = "".join(f"__global__ void k{i}(float* x) {{ x[threadIdx.x] = __shfl_sync(0xffffffff, x[0], 1); }}\n"
                   for i in range(n))
    body += "void run(float* x) {\n" + "".join(f"  k{i}<<<1, 32>>>(x);\n" for i in range(n)) + "}\n"
    pf = parse_bytes(body.encode(), "gen.cu", "cuda")
    inv = inventory_file(pf, load_mapping())
    inv.kernels = _CountingList(inv.kernels)
    inv.launch_sites = _CountingList(inv.launch_sites)
    findings = check_file(pf, inv)
    assert len(findings) >= n
    assert inv.kernels.walks < 10, inv.kernels.walks
    assert inv.launch_sites.walks < 10, inv.launch_sites.walks


def test_row06_progress_moves_inside_one_large_file(tmp_path: Path) -> None:
    from hipgauge.app.scan import ScanOptions, scan_entries
    from hipgauge.source.walk import walk_tree

    n = 3000
    src = _tree(tmp_path / "src", {"gen.cu": "".join(
        f"__global__ void k{i}(float* x) {{ x[threadIdx.x] = __shfl_sync(0xffffffff, x[0], 1); }}\n" for i in range(n))})
    entries, skipped = walk_tree([src], [], 8 << 20)
    steps: list[float] = []
    scan_entries(entries, skipped, ScanOptions(workers=1), str(src), on_progress=steps.append)
    assert len(steps) > 2 and all(0 < s <= 1 for s in steps)  # several steps inside the one file
    assert abs(sum(steps) - 1.0) < 1e-9


# -- conventions people expect --------------------------------------------------------------------------------
def test_version_flag_and_completion_and_metavars(capsys) -> None:
    from hipgauge import __version__

    code, out, _err = run_cli(["--version"], capsys)
    assert code == 0 and out.strip() == f"hipgauge {__version__}"
    code, out, _err = run_cli(["--help"], capsys)
    assert "--install-completion" in out and "--show-completion" in out
    code, out, _err = run_cli(["scan", "--help"], capsys)
    assert "PATH..." in out and "list[" not in out and "<path>" not in out
    assert "--fail-on SEVERITY" in out and "-I, --include-dir PATH" in " ".join(out.split())


def test_scan_fail_on_severity(tmp_path: Path, capsys) -> None:
    """Exit 1 when a finding at or above the threshold exists (the shuffle finding is a blocker), 0 otherwise."""
    risky = _tree(tmp_path / "risky", {"k.cu": "__global__ void k(float* x) { x[0] = __shfl_sync(0xffffffff, x[1], 1); }\n"})
    clean = _tree(tmp_path / "clean", {"k.cu": "__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n"})
    code, out, err = run_cli(["scan", risky, "--json"], capsys)
    assert {f["severity"] for f in json.loads(out)["findings"]} == {"blocker"}
    for threshold in ("blocker", "slow", "info"):
        code, _out, err = run_cli(["scan", risky, "--fail-on", threshold], capsys)
        assert code == 1 and f"--fail-on {threshold}" in err and "Traceback" not in err
        code, out, err = run_cli(["scan", clean, "--fail-on", threshold, "--json"], capsys)
        assert code == 0 and not json.loads(out)["findings"], err
    assert run_cli(["scan", risky], capsys)[0] == 0  # without --fail-on findings never fail the run
    assert_input_error(run_cli(["scan", risky, "--fail-on", "severe"], capsys), "--fail-on", "blocker")


def test_include_dir_names_are_the_projects_own(tmp_path: Path, capsys) -> None:
    """-I: a macro defined in a header outside the tree (CUDNN_CHECK) is the project's, not a cuDNN call."""
    inc = _tree(tmp_path / "inc", {"check.h": "#define CUDNN_CHECK(x) do { (void)(x); } while (0)\n"})
    src = _tree(tmp_path / "src", {"k.cu": '#include "check.h"\nvoid f(int s) { CUDNN_CHECK(s); }\n'})
    _c, out_without, _e = run_cli(["scan", src, "--json"], capsys)
    code, out_with, err = run_cli(["scan", src, "-I", inc, "--json"], capsys)
    assert code == 0, err
    names = lambda doc: {c.get("cuda_name") or c.get("name") for c in json.loads(doc)["api_calls"]}  # noqa: E731 - one use
    assert "CUDNN_CHECK" in names(out_without) and "CUDNN_CHECK" not in names(out_with)
    assert_input_error(run_cli(["build-check", src, "-I", tmp_path / "nope"], capsys), "nope", "--include-dir")


def test_shell_completion_completes_commands_and_options() -> None:
    import subprocess
    import sys

    def complete(words: str, cword: int) -> str:
        env = {**os.environ, "_HIPGAUGE_COMPLETE": "complete_bash", "COMP_WORDS": words, "COMP_CWORD": str(cword)}
        return subprocess.run([sys.executable, "-m", "hipgauge"], env=env, capture_output=True, text=True,
                              timeout=120).stdout

    assert "scan" in complete("hipgauge sc", 1).split()
    assert "--fail-on" in complete("hipgauge scan --fa", 2).split()
