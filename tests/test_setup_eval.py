"""setup.py followed per build (hipgauge/source/setup_eval.py): the sources each build's extension calls receive,
on the shapes real trees write (xformers' globs and set differences, mamba's HIP_BUILD switch, a CUDA-only
tree)."""

from __future__ import annotations

from collections.abc import Iterable
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
    assert got is not None and got.lossy == [4] and not got.builds  # an operand it cannot follow: nothing claimed
    text = text.replace(" + some_helper()", "")
    got = setup_sources("setup.py", text, frozenset({"csrc/a.cu", "csrc/b.cu"}))
    assert got is not None and not got.has_hip and got.builds == {"csrc/a.cu": {"cuda"}, "csrc/b.cu": {"cuda"}}
    assert setup_sources("setup.py", "def (:\n", frozenset()) is None  # not Python: no claim, no raise


def _write(root: Path, files: Iterable[str], text: str) -> None:
    """Each of ``files`` under ``root`` with ``text``, folders made."""
    for f in files:
        p = root / f
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def test_a_cuda_only_extension_is_a_zero_hour_note_in_the_scan(tmp_path: Path):
    _write(tmp_path, _FILES, "__global__ void k(int* o) { o[threadIdx.x & 31] = 0; __shfl_xor_sync(0xffffffff, 1, 16); }\n")
    (tmp_path / "setup.py").write_text(_XFORMERS)
    res = scan_tree([tmp_path], ScanOptions(workers=1))
    by_file = {f.file: f for f in res.findings if f.code == "HG101"}
    assert by_file["pkg/csrc/sparse24/gemm.cu"].branch == "cuda-only"
    assert by_file["pkg/csrc/sparse24/gemm.cu"].effort_hours == 0
    assert by_file["pkg/csrc/attention/attention.cpp"].effort_hours > 0  # both builds compile it: a real gap
    assert not [f for f in res.findings if f.file == "setup.py" and f.effort_hours > 0]  # --use_fast_math: CUDA's
    notes = estimate_cost(res).notes
    assert any("pkg/csrc/sparse24/ (1)" in n and "the HIP build lacks" in n for n in notes)


def _apex_like(root: Path) -> None:
    """ROCm apex's shape: op_builder/*.py name each op's sources relative to the package root, through a
    symlinked folder (contrib/csrc -> apex/contrib/csrc); one builder picks its sources per vendor; a contrib
    folder (fmha) has no builder; its kernel reaches a PTX header through an angle-bracket include."""
    (root / "op_builder").mkdir()
    (root / "op_builder" / "builder.py").write_text(
        "import torch\nclass OpBuilder:\n    def sources(self):\n        pass\n"
        "    def is_rocm_pytorch(self):\n        return torch.version.hip is not None\n")
    (root / "op_builder" / "mha.py").write_text(
        "from .builder import OpBuilder\nclass MhaBuilder(OpBuilder):\n    SRC = 'contrib/csrc/mha'\n"
        "    def sources(self):\n        return [f'{self.SRC}/mha.cpp', f'{self.SRC}/mha_cuda.cu']\n")
    (root / "op_builder" / "conv.py").write_text(
        "from .builder import OpBuilder\nclass ConvBuilder(OpBuilder):\n    def sources(self):\n"
        "        if self.is_rocm_pytorch():\n            return ['contrib/csrc/conv/conv_rocm.cpp']\n"
        "        return ['contrib/csrc/conv/conv.cpp']\n")
    (root / "op_builder" / "p2p.py").write_text(
        "from .builder import OpBuilder\nclass P2PBuilder(OpBuilder):\n"
        "    def is_compatible(self):\n        if self.is_rocm_pytorch():\n            return False\n        return True\n"
        "    def sources(self):\n        return ['contrib/csrc/p2p/p2p.cu']\n")
    (root / "op_builder" / "xpu").mkdir()
    (root / "op_builder" / "xpu" / "mha.py").write_text(
        "class XpuMhaBuilder:\n    def sources(self):\n        return ['contrib/csrc/xpu/mha.cpp']\n")
    (root / "setup.py").write_text("import torch\nfrom op_builder.mha import MhaBuilder\n"
                                   "IS_ROCM = torch.version.hip is not None\next_modules = [MhaBuilder().builder()]\n")
    kernel = "__global__ void k(int* o) { o[threadIdx.x & 31] = 0; }\n"
    for f in ("mha/mha.cpp", "mha/mha_cuda.cu", "conv/conv.cpp", "conv/conv_rocm.cpp", "p2p/p2p.cu",
              "xpu/mha.cpp", "fmha/src/fmha_fwd.cu"):
        p = root / "apex" / "contrib" / "csrc" / f
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(kernel if not f.startswith("fmha") else "#include <fmha/utils.h>\n" + kernel)
    utils = root / "apex" / "contrib" / "csrc" / "fmha" / "src" / "fmha" / "utils.h"
    utils.parent.mkdir(parents=True)
    utils.write_text('__device__ unsigned f() { unsigned r; asm volatile("mov.u32 %0, 0;" : "=r"(r)); return r; }\n')
    (root / "contrib").mkdir()
    (root / "contrib" / "csrc").symlink_to("../apex/contrib/csrc")


def test_op_builders_say_what_each_build_compiles(tmp_path: Path):
    from hipgauge.source.build_selection import build_selection
    from hipgauge.source.walk import walk_tree

    _apex_like(tmp_path)
    entries, _ = walk_tree([tmp_path], [], 1 << 20, python=True)
    sel = build_selection(entries)
    assert sel is not None and sel.has_hip_build
    c = "apex/contrib/csrc/"
    assert sel.builds_for(c + "mha/mha_cuda.cu") == {"cuda", "hip"}
    assert sel.builds_for(c + "conv/conv.cpp") == {"cuda"} and sel.builds_for(c + "conv/conv_rocm.cpp") == {"hip"}
    assert sel.builds_for(c + "p2p/p2p.cu") == {"cuda"}  # is_compatible() is False on ROCm
    assert sel.builds_for(c + "xpu/mha.cpp") == set()  # another accelerator's builder: no build here
    assert sel.builds_for(c + "fmha/src/fmha_fwd.cu") == set()  # no builder names it: neither build
    assert sel.builds_for(c + "fmha/src/fmha/utils.h") == set()  # reached only from it, through <fmha/utils.h>
    res = scan_tree([tmp_path], ScanOptions(workers=1))
    ptx = [f for f in res.findings if f.code == "HG301"]
    assert ptx and all(f.branch == "not-built" and f.effort_hours == 0 for f in ptx)
    costed = {f.file for f in res.findings if f.effort_hours > 0}
    # conv_rocm.cpp, which only the HIP build compiles, is the port itself: no port work
    assert costed == {c + "mha/mha.cpp", c + "mha/mha_cuda.cu"}
    assert not [f for f in res.findings if f.file == c + "conv/conv_rocm.cpp"]


def test_a_builder_source_list_not_followed_whole_marks_nothing_unbuilt(tmp_path: Path):
    from hipgauge.source.build_selection import build_selection
    from hipgauge.source.walk import walk_tree

    _apex_like(tmp_path)
    (tmp_path / "op_builder" / "mha.py").write_text(
        "from .builder import OpBuilder\nclass MhaBuilder(OpBuilder):\n"
        "    def sources(self):\n        return self.list_sources('contrib/csrc/mha')\n")
    entries, _ = walk_tree([tmp_path], [], 1 << 20, python=True)
    sel = build_selection(entries)
    assert sel is not None
    assert sel.builds_for("apex/contrib/csrc/fmha/src/fmha_fwd.cu") is None  # the build may compile it: unknown


def test_a_setup_py_whose_extensions_are_all_cudas(tmp_path: Path):
    """flash-attention's hopper/setup.py: ``if USE_TRITON_ROCM: SKIP_CUDA_BUILD = True`` and every extension under
    ``if not SKIP_CUDA_BUILD:``, its sources from f-strings hipgauge does not follow: every unit below it is the
    CUDA build's, and headers they reach through ``#include "x.h"`` of a folder above follow them, even where
    another folder has a header of the same name."""
    from hipgauge.source.build_selection import build_selection
    from hipgauge.source.walk import walk_tree

    hop = tmp_path / "hopper"
    (hop / "instantiations").mkdir(parents=True)
    (hop / "setup.py").write_text(
        "import os, itertools\nfrom torch.utils.cpp_extension import CUDAExtension\n"
        "USE_TRITON_ROCM = os.getenv('FLASH_ATTENTION_TRITON_AMD_ENABLE', 'FALSE') == 'TRUE'\n"
        "SKIP_CUDA_BUILD = os.getenv('SKIP', 'FALSE') == 'TRUE'\nif USE_TRITON_ROCM:\n    SKIP_CUDA_BUILD = True\n"
        "ext_modules = []\nif not SKIP_CUDA_BUILD:\n"
        "    srcs = [f'instantiations/fwd_hdim{h}.cu' for h, d in itertools.product([64], ['bf16'])]\n"
        "    ext_modules.append(CUDAExtension(name='fa3', sources=['flash_api.cpp'] + srcs,\n"
        "                                     extra_compile_args={'nvcc': ['--use_fast_math']}))\n")
    (hop / "flash_api.cpp").write_text('#include "launch.h"\n')
    (hop / "instantiations" / "fwd_hdim64.cu").write_text('#include "launch.h"\n')
    (hop / "launch.h").write_text('#include "mainloop.hpp"\n')
    (hop / "mainloop.hpp").write_text("__device__ void f() { asm volatile(\"wgmma.fence.sync.aligned;\"); }\n")
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "launch.h").write_text("// another project's header of the same name\n")
    (tmp_path / "csrc" / "ck.cpp").write_text('#include "launch.h"\n')
    (tmp_path / "setup.py").write_text(
        "import torch\nfrom torch.utils.cpp_extension import CUDAExtension\n"
        "ext = CUDAExtension('fa', ['csrc/ck.cpp']) if torch.version.hip else None\n")
    entries, _ = walk_tree([tmp_path], [], 1 << 20, python=True)
    sel = build_selection(entries)
    assert sel is not None and sel.has_hip_build
    for f in ("hopper/flash_api.cpp", "hopper/instantiations/fwd_hdim64.cu", "hopper/launch.h",
              "hopper/mainloop.hpp"):
        assert sel.builds_for(f) == {"cuda"}, f
    res = scan_tree([tmp_path], ScanOptions(workers=1))
    assert not [f for f in res.findings if f.effort_hours > 0 and f.file.startswith("hopper/")]


_LAYER_NORM = (
    "import os\nfrom torch.utils.cpp_extension import CUDAExtension\n"
    "os.environ['TORCH_CUDA_ARCH_LIST'] = '8.0;9.0'\n"
    "cc_flag = ['-gencode', 'arch=compute_80,code=sm_80']\n"
    "ext_modules = [CUDAExtension('ln', sources=['ln_api.cpp', 'ln_fwd.cu'],\n"
    "                             extra_compile_args={'nvcc': ['--use_fast_math'] + cc_flag})]\n")


def _layer_norm_tree(root: Path, hip_root: bool, lossy: bool = False) -> None:
    """flash-attention's csrc/layer_norm/setup.py: a package of its own with no HIP branch and nvcc flags, in a
    tree whose root setup.py is the one with the HIP build (``lossy``: its sources come from a call not followed)."""
    ln = root / "csrc" / "layer_norm"
    ln.mkdir(parents=True)
    (ln / "setup.py").write_text(_LAYER_NORM.replace("sources=['ln_api.cpp', 'ln_fwd.cu']", "sources=srcs()")
                                 if lossy else _LAYER_NORM)
    (ln / "ln_api.cpp").write_text("int f();\n")
    (ln / "ln_fwd.cu").write_text("__global__ void k(float* o) { o[threadIdx.x] = 0; }\n")
    (root / "csrc" / "ck.cpp").write_text("int g();\n")
    if hip_root:
        (root / "setup.py").write_text(
            "import torch\nfrom torch.utils.cpp_extension import CUDAExtension\n"
            "ext = CUDAExtension('fa', ['csrc/ck.cpp']) if torch.version.hip else None\n")


def _costed_in(res: object, file: str) -> list[str]:
    return [f.code for f in res.findings if f.file == file and f.effort_hours > 0]  # type: ignore[attr-defined]


def test_a_setup_py_that_builds_only_cuda_units_is_the_cuda_builds_script(tmp_path: Path):
    """Its nvcc flags and CUDA architecture list configure the CUDA build alone: no port work where another
    script is the tree's HIP build (named by a conditional expression); costed where the tree has no HIP build, or
    where the script's sources are not followed."""
    _layer_norm_tree(tmp_path / "fa", hip_root=True)
    assert not _costed_in(scan_tree([tmp_path / "fa"], ScanOptions(workers=1)), "csrc/layer_norm/setup.py")
    _layer_norm_tree(tmp_path / "cuda", hip_root=False)
    assert {"HG701", "HG702"} <= set(_costed_in(scan_tree([tmp_path / "cuda"], ScanOptions(workers=1)),
                                                "csrc/layer_norm/setup.py"))
    _layer_norm_tree(tmp_path / "lossy", hip_root=True, lossy=True)
    assert "HG701" in _costed_in(scan_tree([tmp_path / "lossy"], ScanOptions(workers=1)), "csrc/layer_norm/setup.py")


def test_an_extension_call_in_a_conditional_expression_is_that_branchs_build():
    text = ("import torch\nfrom torch.utils.cpp_extension import CUDAExtension\n"
            "ext = CUDAExtension('m', ['ck.cpp']) if torch.version.hip else CUDAExtension('m', ['cutlass.cu'])\n")
    got = setup_sources("setup.py", text, frozenset({"ck.cpp", "cutlass.cu"}))
    assert got is not None and got.has_hip
    assert got.builds == {"ck.cpp": {"hip"}, "cutlass.cu": {"cuda"}}
    plain = text.replace(" if torch.version.hip else CUDAExtension('m', ['cutlass.cu'])", "")
    assert setup_sources("setup.py", plain, frozenset({"ck.cpp"})).builds == {"ck.cpp": {"cuda"}}  # type: ignore[union-attr]


# torchao's setup.py, cut down: a vendor test kept in a name, flags set only in the CUDA build, sources filtered by
# comprehensions, a helper called only from the CUDA build's branch
_TORCHAO = '''
import glob, os, torch
from torch.utils.cpp_extension import CUDAExtension, CUDA_HOME, ROCM_HOME

def get_cutlass_build_flags():
    return "-gencode=arch=compute_90a,code=sm_90a" in os.environ.get("FLAGS", "")

def get_extensions():
    if ROCM_HOME is None and torch.version.hip:
        print("ROCm is not available")
    use_cuda = torch.version.cuda and CUDA_HOME is not None
    use_rocm = torch.version.hip and ROCM_HOME is not None
    extension = CUDAExtension if (use_cuda or use_rocm) else None
    curdir = os.path.dirname(os.path.curdir)
    extensions_dir = os.path.join(curdir, "pkg", "csrc")
    sources = list(glob.glob(os.path.join(extensions_dir, "**/*.cpp"), recursive=True))
    cuda_sources = list(glob.glob(os.path.join(extensions_dir, "cuda", "**/*.cu"), recursive=True))
    if use_cuda:
        sources += cuda_sources
    use_cutlass = False
    sm90a_sources = None
    if use_cuda and not os.name == "nt":
        use_cutlass = True
    if use_cutlass:
        sm90a = get_cutlass_build_flags()
        sm90a_sources = [os.path.join(extensions_dir, "cuda", "sparse_sm90a.cu")]
        sources = [s for s in sources if s not in sm90a_sources]
    ext_modules = [extension("pkg._C", sources)]
    if sm90a_sources is not None:
        ext_modules.append(extension("pkg._C_90a", sm90a_sources,
                                     extra_compile_args={"nvcc": ["-gencode=arch=compute_90a,code=sm_90a"]}))
    return ext_modules
'''


def test_a_vendor_test_kept_in_a_name_and_flags_only_the_cuda_build_sets(tmp_path: Path):
    """torchao: ``use_cuda = torch.version.cuda and CUDA_HOME is not None`` then ``if use_cuda: sources +=
    cuda_sources``; ``use_cutlass`` and ``sm90a_sources`` set only under it; the sm90a kernel taken out of the main
    extension by a comprehension. Every .cu is the CUDA build's, the .cpp both builds'; the helper the CUDA branch
    alone calls, and the flags of the sm90a extension, are the CUDA build's too: no port work in setup.py."""
    import ast

    from hipgauge.source.pybranches import test_sides, vendor_lines

    files = frozenset({"pkg/csrc/ops.cpp", "pkg/csrc/cuda/quant.cu", "pkg/csrc/cuda/sparse_sm90a.cu"})
    got = setup_sources("setup.py", _TORCHAO, files)
    assert got is not None and not got.lossy
    assert got.builds == {"pkg/csrc/ops.cpp": {"cuda", "hip"}, "pkg/csrc/cuda/quant.cu": {"cuda"},
                          "pkg/csrc/cuda/sparse_sm90a.cu": {"cuda"}}
    tests = {(ast.get_source_segment(_TORCHAO, n.test) or ""): test_sides(_TORCHAO, n.test)
             for n in ast.walk(ast.parse(_TORCHAO)) if isinstance(n, ast.If)}
    assert tests["use_cutlass"][0] == tests["sm90a_sources is not None"][0] == tests["use_cuda"][0]
    vis = vendor_lines(_TORCHAO)
    helper = _TORCHAO.splitlines().index("    return \"-gencode=arch=compute_90a,code=sm_90a\" in os.environ.get(\"FLAGS\", \"\")") + 1
    assert vis.at(helper) == tests["use_cuda"][0]
    _write(tmp_path, files, "__global__ void k(int* o) { o[threadIdx.x & 31] = 0; }\n")
    (tmp_path / "setup.py").write_text(_TORCHAO)
    res = scan_tree([tmp_path], ScanOptions(workers=1))
    assert not [f for f in res.findings if f.effort_hours > 0 and f.file != "pkg/csrc/ops.cpp"]
    assert [f for f in res.findings if f.effort_hours > 0 and f.file == "pkg/csrc/ops.cpp"]


def test_a_name_set_in_both_builds_is_no_flag():
    """``arch = "sm_90"`` in the CUDA branch and ``arch = "gfx942"`` in the HIP one: ``if arch:`` decides nothing;
    an ``IfExp`` value (``ext = A if use_rocm else B``) is a value, not a test."""
    from hipgauge.source.pybranches import _aliases

    text = ("import torch\nif torch.version.cuda:\n    arch = 'sm_90'\nelse:\n    arch = 'gfx942'\n"
            "use_rocm = torch.version.hip is not None\next = 'a' if use_rocm else 'b'\n")
    got = _aliases(text)
    assert "arch" not in got and "ext" not in got and "use_rocm" in got
