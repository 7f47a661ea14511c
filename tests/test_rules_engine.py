"""Engine behaviour on real files: realistic.cu, suppressions, build files, share, SARIF, CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from hipgauge.model import Severity
from hipgauge.report.sarif import sarif_document, write_sarif
from hipgauge.rules.engine import all_rules, check_file
from hipgauge.rules.examples import snippet_file
from hipgauge.rules.share import file_stats, overall_share

DATA = Path(__file__).parent / "data"
REALISTIC = DATA / "realistic" / "realistic.cu"


def scan(code: str, kind: str = "cuda", ignore=()):
    return check_file(snippet_file(code, kind), None, set(ignore))


@pytest.fixture(scope="module")
def realistic():
    if not REALISTIC.exists():
        pytest.skip("tests/data/realistic/realistic.cu is not here")
    return check_file(snippet_file(REALISTIC.read_text(), "cuda", "realistic.cu"), None, set())


# EXPECTED.md, "Port risks each line should trigger" → our codes.
EXPECTED = {
    14: {"HG201"}, 15: {"HG604"}, 33: {"HG107"}, 34: {"HG101"}, 35: {"HG101"}, 36: {"HG107"},
    42: {"HG103", "HG106"}, 47: {"HG103", "HG106"}, 56: {"HG103", "HG106"}, 61: {"HG103", "HG106"},
    77: {"HG101"}, 79: {"HG102", "HG103"}, 81: {"HG105"}, 82: {"HG103"}, 83: {"HG105"},
    90: {"HG201"}, 97: {"HG201"}, 98: {"HG201"}, 99: {"HG201"}, 100: {"HG201"}, 102: {"HG201"},
    103: {"HG201"}, 104: {"HG201"}, 106: {"HG201"}, 115: {"HG301", "HG302"}, 129: {"HG401"},
    167: {"HG604"}, 168: {"HG604"}, 170: {"HG604"}, 171: {"HG604"},
}


def test_realistic_codes_on_lines(realistic):
    got: dict[int, set[str]] = {}
    for f in realistic:
        got.setdefault(f.line, set()).add(f.code)
    for line, codes in EXPECTED.items():
        assert codes <= got.get(line, set()), f"line {line}: expected {codes}, got {got.get(line)}"
    unexpected = {line: c for line, c in got.items() if line not in EXPECTED and line != 166}
    assert not unexpected, unexpected


def test_realistic_clean_kernel_and_negative_controls(realistic):
    assert not [f for f in realistic if 154 <= f.line <= 159]
    assert not [f for f in realistic if f.line in (138, 144, 179, 208)]
    assert not [f for f in realistic if f.kernel == "saxpy_kernel"]


def test_realistic_findings_name_their_function(realistic):
    by_line = {f.line: f.kernel for f in realistic}
    assert by_line[34] == "warp_softmax_kernel" and by_line[79] == "compact_scores_kernel"
    assert by_line[97] == "wmma_gemm_kernel" and by_line[115] == "ptx_lane_id"
    assert by_line[170] == "cublas_gemm"
    assert all(f.snippet and f.fix and f.effort_hours > 0 for f in realistic)


def test_low_confidence_for_algorithmic_32():
    code = "__global__ void k(int* w, int n) { int word = n / 32; int bit = n % 32; w[word] = bit; }"
    found = [f for f in scan(code) if f.code == "HG101"]
    assert found and all(f.confidence.value == "low" for f in found)
    assert not [f for f in scan("int host(int n) { return n % 32; }") if f.code == "HG101"]


@pytest.mark.parametrize("comment, silenced", [
    ("// hipgauge: ignore[HG101]", {"HG101"}),
    ("// hipgauge: ignore[HG101,HG102]", {"HG101", "HG102"}),
    ("// hipgauge: ignore[hg102, HG101]", {"HG101", "HG102"}),
    ("// hipgauge: ignore", {"HG101", "HG102"}),
    ("// hipgauge: ignore[HG999]", set()),
])
def test_line_suppression(comment, silenced):
    code = ("__global__ void k(int* o) {\n"
            f"    unsigned int m = __ballot_sync(__activemask(), threadIdx.x & 31); {comment}\n"
            "    o[0] = m;\n}\n")
    before = {"HG101", "HG102"}
    got = {f.code for f in scan(code)} & before
    assert got == before - silenced


def test_config_ignore_list():
    code = "__global__ void k(int* o) { o[0] = threadIdx.x & 31; }"
    assert "HG101" in {f.code for f in scan(code)}
    assert "HG101" not in {f.code for f in scan(code, ignore={"HG101"})}


def test_build_files_skip_comments():
    cmake = ('# set(CMAKE_CUDA_ARCHITECTURES 80)\n'
             'project(x LANGUAGES CXX CUDA)  # -Xptxas is not used\n'
             'set(CMAKE_CUDA_ARCHITECTURES 80 90)\n'
             'target_compile_options(k PRIVATE "--use_fast_math")\n')
    found = scan(cmake, "cmake")
    assert {(f.line, f.code) for f in found} == {(3, "HG701"), (3, "HG702"), (4, "HG701")}
    setup = 'ext = CUDAExtension("k", ["k.cu"], extra_compile_args={"nvcc": ["-arch=sm_80", "-rdc=true"]})  # -maxrregcount=32\n'
    codes = {f.code for f in scan(setup, "setup.py")}
    assert codes == {"HG701", "HG702", "HG705"}
    make = "NVCCFLAGS = -arch=sm_90 --offload-arch=gfx942 -lcudadevrt\n"
    assert {f.code for f in scan(make, "make")} == {"HG701", "HG801"}


def test_static_shared_over_64k_and_dynamic_attribute():
    code = ("#define TILE 128\n__global__ void k(float* o) {\n  __shared__ float a[TILE][TILE];\n"
            "  __shared__ double b[TILE][TILE];\n  o[0] = a[0][0] + b[0][0];\n}\n"
            "void h() { cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024); }\n")
    found = scan(code)
    hg501 = sorted(f.line for f in found if f.code == "HG501")
    assert hg501 == [3, 7]
    assert "HG502" in {f.code for f in found if f.line == 7}


def test_file_stats_and_share(realistic):
    pf = snippet_file(REALISTIC.read_text(), "cuda", "realistic.cu")
    stats = file_stats(pf, [], realistic)
    severe = {f.line for f in realistic if Severity(f.severity) in (Severity.BLOCKER, Severity.WRONG_RESULTS)}
    assert stats.cuda_lines >= len({f.line for f in realistic})
    assert stats.clean_lines == stats.cuda_lines - len(severe)
    assert 0 < stats.translation_share < 1
    assert 155 in range(1, stats.lines + 1)
    empty = file_stats(snippet_file("int main() { return 0; }", "cpp"), [], [])
    assert empty.cuda_lines == 0 and empty.translation_share == 1.0
    assert overall_share([stats, empty]) == pytest.approx(stats.translation_share)
    assert overall_share([]) == 1.0


def test_sarif_validates(realistic, tmp_path):
    schema = json.loads((DATA / "rules" / "sarif-2.1.0-required.schema.json").read_text())
    doc = sarif_document(realistic, all_rules())
    jsonschema.validate(doc, schema)
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    for result in doc["runs"][0]["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    path = tmp_path / "findings.sarif"
    write_sarif(realistic, path)
    jsonschema.validate(json.loads(path.read_text()), schema)
    jsonschema.validate(sarif_document([]), schema)


def test_sarif_uri_is_relative_forward_slashes():
    f = scan("__global__ void k(int* o) { o[0] = threadIdx.x & 31; }")[0]
    f.file = ".\\src\\k.cu"
    uri = sarif_document([f])["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "src/k.cu"


runner = CliRunner()


def _cli(*args):
    from hipgauge.cli import app

    return runner.invoke(app, list(args))


@pytest.mark.parametrize("code", [r.code for r in all_rules()])
def test_explain_every_code(code):
    res = _cli("explain", code)
    assert res.exit_code == 0, res.output
    for heading in ("What it does", "Why is this bad?", "Example", "Use instead", "Fix", "Sources", "effort"):
        assert heading in res.output
    doc = json.loads(_cli("explain", code.lower(), "--json").output)
    assert doc["schema"] == "hipgauge.rule/1" and doc["code"] == code


def test_explain_unknown_code_exits_2():
    from hipgauge.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["explain", "HG999"])
    assert exc.value.code == 2


def test_rules_listing():
    doc = json.loads(_cli("rules", "--json").output)
    assert doc["schema"] == "hipgauge.rules/1" and len(doc["rules"]) == len(all_rules())
    warp = json.loads(_cli("rules", "--category", "warp", "--json").output)["rules"]
    assert warp and all(r["category"] == "warp" for r in warp)
    assert re.search(r"HG101", _cli("rules").output)


def test_finding_points_at_anchor_inside_swallowing_node():
    code = "#if HAS_FP8\nMACRO_WITHOUT_SEMICOLON\n#  include <cuda_fp8.h>\n#endif\n"
    lines = [f.line for f in scan(code, "header") if f.code == "HG208"]
    assert lines == [3]
