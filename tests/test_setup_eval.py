"""setup.py followed per build (hipgauge/source/setup_eval.py): the sources each build's extension calls receive,
on the shapes real trees write (xformers' globs and set differences, mamba's HIP_BUILD switch, a CUDA-only
tree)."""

from __future__ import annotations

from pathlib import Path

from hipgauge.app.scan import ScanOptions, scan_tree
from hipgauge.decide.cost import estimate_cost
from hipgauge.source.setup_eval import setup_sources

# xformers' setup.py, cut down: globs, the HIP sources taken out, the CUDA ones added in the CUDA branch only
_XFORMERS = '''
import glob, os
from torch.utils.cpp_extension import CUDAExtension

def get_extensions():
    extensions_dir = os.path.join("pkg", "csrc")
    sources = glob.glob(os.path.join(extensions_dir, "**", "*.cpp"), recursive=True)
    source_cuda = glob.glob(os.path.join(extensions_dir, "**", "*.cu"), recursive=True)
    source_hip = glob.glob(os.path.join(extensions_dir, "attention", "hip_*", "**", "*.cpp"), recursive=True)
    sources = list(set(sources) - set(source_hip))
    if "SELECTIVE" in os.environ:
        source_cuda = [f for f in source_cuda if "x" in f]
    if (torch.cuda.is_available() and torch.version.cuda is not None) or os.getenv("FORCE_CUDA", "0") == "1":
        extension = CUDAExtension
        sources += source_cuda
        nvcc_flags = ["--use_fast_math"]
    elif torch.version.hip and os.getenv("CK", "1") == "1":
        extension = CUDAExtension
        sources += [f.replace(".cpp", ".cu") for f in source_hip]
    return [extension("pkg._C", sorted(sources))]
'''

_FILES = ["pkg/csrc/attention/attention.cpp", "pkg/csrc/attention/hip_fmha/fmha.cpp",
          "pkg/csrc/sparse24/gemm.cu", "pkg/csrc/sparse24/sparse24.cpp", "pkg/csrc/swiglu.cu"]


def test_globs_differences_and_branches_as_xformers_writes_them():
    got = setup_sources("setup.py", _XFORMERS, frozenset([*_FILES, "setup.py"]))
    assert got is not None and got.has_hip
    assert got.builds == {"pkg/csrc/attention/attention.cpp": {"cuda", "hip"},
                          "pkg/csrc/sparse24/sparse24.cpp": {"cuda", "hip"},
                          "pkg/csrc/sparse24/gemm.cu": {"cuda"}, "pkg/csrc/swiglu.cu": {"cuda"}}
    assert got.where["pkg/csrc/sparse24/gemm.cu"] == _XFORMERS.splitlines().index(
        '    return [extension("pkg._C", sorted(sources))]') + 1


def test_paths_from_file_and_pathlib(tmp_path):
    text = ("import os\nfrom pathlib import Path\nfrom setuptools import setup\n"
            "from torch.utils.cpp_extension import CUDAExtension\n"
            "HERE = Path(__file__).parent.resolve()\nHIP_BUILD = bool(torch.version.hip)\n"
            "srcs = [str(p) for p in (HERE / 'csrc').rglob('*.cu')]\n"
            "if not HIP_BUILD:\n    srcs.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'extra', 'sm90.cu'))\n"
            "else:\n    srcs.remove(str(HERE / 'csrc' / 'nv_only.cu'))\n"
            "setup(ext_modules=[CUDAExtension(name='m', sources=srcs)])\n")
    files = frozenset({"py/csrc/a.cu", "py/csrc/sub/b.cu", "py/csrc/nv_only.cu", "py/extra/sm90.cu", "other/c.cu"})
    got = setup_sources("py/setup.py", text, files)
    assert got is not None
    assert got.builds == {"py/csrc/a.cu": {"cuda", "hip"}, "py/csrc/sub/b.cu": {"cuda", "hip"},
                          "py/csrc/nv_only.cu": {"cuda"}, "py/extra/sm90.cu": {"cuda"}}


def test_no_hip_branch_means_the_cuda_build_only_and_unknowns_add_nothing():
    text = ("import glob\nfrom torch.utils.cpp_extension import CUDAExtension\n"
            "srcs = glob.glob('csrc/*.cu') + some_helper()\n"
            "ext = CUDAExtension('m', srcs)\n")
    got = setup_sources("setup.py", text, frozenset({"csrc/a.cu", "csrc/b.cu"}))
    assert got is None  # an operand hipgauge cannot follow: nothing claimed
    text = text.replace(" + some_helper()", "")
    got = setup_sources("setup.py", text, frozenset({"csrc/a.cu", "csrc/b.cu"}))
    assert got is not None and not got.has_hip and got.builds == {"csrc/a.cu": {"cuda"}, "csrc/b.cu": {"cuda"}}
    assert setup_sources("setup.py", "def (:\n", frozenset()) is None  # not Python: no claim, no raise


def test_a_cuda_only_extension_is_a_zero_hour_note_in_the_scan(tmp_path: Path):
    for f in _FILES:
        p = tmp_path / f
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("__global__ void k(int* o) { o[threadIdx.x & 31] = 0; __shfl_xor_sync(0xffffffff, 1, 16); }\n")
    (tmp_path / "setup.py").write_text(_XFORMERS)
    res = scan_tree([tmp_path], ScanOptions(workers=1))
    by_file = {f.file: f for f in res.findings if f.code == "HG101"}
    assert by_file["pkg/csrc/sparse24/gemm.cu"].branch == "cuda-only"
    assert by_file["pkg/csrc/sparse24/gemm.cu"].effort_hours == 0
    assert by_file["pkg/csrc/attention/attention.cpp"].effort_hours > 0  # both builds compile it: a real gap
    assert not [f for f in res.findings if f.file == "setup.py" and f.effort_hours > 0]  # --use_fast_math: CUDA's
    notes = estimate_cost(res).notes
    assert any("pkg/csrc/sparse24/ (1)" in n and "the HIP build lacks" in n for n in notes)
