"""The per-operator table pairs operators that are the same work under each vendor's name."""

from __future__ import annotations

from hipgauge.profiles.parity import _pair_vendor_operators


def test_vendor_named_operators_pair() -> None:
    ab = {"aten::cudnn_convolution": (100, 4, "sm90_xmma_fprop_implicit_gemm"), "aten::addmm": (50, 2, "gemm")}
    ac = {"aten::miopen_convolution": (80, 5, "igemm_fwd"), "aten::addmm": (60, 2, "Cijk_x")}
    assert _pair_vendor_operators(["aten::cudnn_convolution"], ["aten::miopen_convolution"], ab, ac) == {
        "aten::cudnn_convolution": "aten::miopen_convolution"}


def test_different_work_stays_apart() -> None:
    ab = {"aten::softmax": (10, 1, "softmax_warp_forward")}
    ac = {"aten::mm": (10, 1, "Cijk_x")}
    assert _pair_vendor_operators(["aten::softmax"], ["aten::mm"], ab, ac) == {}
