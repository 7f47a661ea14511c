"""Kernel identity: one module spells and compares kernel names for every stage."""

from __future__ import annotations

import ast
from pathlib import Path

import hipgauge
from hipgauge.kernel_names import (base_name, demangle, display_name, key_or_name, normalize_key, short_name,
                                   strip_vendor_words, unqualified_name, vendor_neutral)

PACKAGE = Path(hipgauge.__file__).resolve().parent


def test_one_name_many_views() -> None:
    raw = "_ZN2ns14softmax_kernelIfEEvPKfPfi"
    assert demangle(raw) == "void ns::softmax_kernel<float>(float const*, float*, int)"
    assert demangle(raw + ".kd") == demangle(raw)
    assert normalize_key(raw) == "ns::softmax_kernel"
    assert base_name(raw) == "softmax_kernel"
    assert unqualified_name(demangle(raw)) == "softmax_kernel"
    assert display_name(raw) == "ns::softmax_kernel"
    assert short_name(demangle(raw)) == "ns::softmax_kernel<…>"
    assert short_name("a_very_long_kernel_name_that_does_not_fit_in_a_chart_label", 20) == "a_very_long_k…_label"


def test_keys_fall_back_to_the_name() -> None:
    assert key_or_name("") == ""
    assert display_name("k") == "k"  # a key shorter than 4 characters says less than the name
    assert base_name("") == ""


def test_vendor_spellings_meet() -> None:
    assert strip_vendor_words("aten::cudnn_convolution") == strip_vendor_words("aten::miopen_convolution") == "aten::convolution"
    assert vendor_neutral("k(HIP_vector_type<float, 4u>*)") == "k(float4*)"
    assert base_name("void cutlass::Kernel<Gemm_op>(Gemm_op::Params)") == "gemm_op"


def test_only_the_identity_module_demangles() -> None:
    """No other module imports the demangler or keeps its own kernel-name normaliser."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "kernel_names.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) and any(a.name == "cxxfilt" for a in node.names):
                offenders.append(str(path))
            if isinstance(node, ast.ImportFrom) and node.module == "cxxfilt":
                offenders.append(str(path))
            if isinstance(node, ast.FunctionDef) and node.name in {"demangle", "normalize_key", "short_name", "display_name",
                                                                    "base_name", "_base_name", "_vendor_neutral"}:
                offenders.append(f"{path}:{node.name}")
    assert offenders == []
