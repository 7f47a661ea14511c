"""Matching levels on small synthetic kernel tables (KERNEL_RECORD_SCHEMA frames built here)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from hipgauge.errors import InputError
from hipgauge.model import KERNEL_RECORD_SCHEMA, MatchLevel
from hipgauge.profiles.match import load_user_map, match_kernels


def frame(rows: list[dict], extra: dict[str, str] | None = None) -> pl.DataFrame:
    schema = {k: getattr(pl, v) for k, v in KERNEL_RECORD_SCHEMA.items()}
    for k, v in (extra or {}).items():
        schema[k] = getattr(pl, v)
    full = []
    for i, r in enumerate(rows):
        d = {k: None for k in schema}
        d.update({"vendor": "x", "source_format": "test", "start_ns": i * 1000, "correlation": i})
        d.update(r)
        d.setdefault("raw_name", d["name"])
        if d.get("raw_name") is None:
            d["raw_name"] = d["name"]
        if d.get("key") is None:
            d["key"] = d["name"]
        full.append(d)
    return pl.DataFrame(full, schema=schema)


def k(name: str, dur: int, op: str | None = None, key: str | None = None, **kw) -> dict:
    return {"name": name, "duration_ns": dur, "operator": op, "key": key, **kw}


def units_by_level(res):
    out: dict[MatchLevel, list] = {}
    for u in res.units:
        out.setdefault(u.level, []).append(u)
    return out


def test_exact_then_normalized_then_unmatched_listed():
    b = frame([k("void foo<4>(int)", 10, key="foo"), k("bar_kernel", 5), k("only_base", 7)])
    c = frame([k("void foo<8>(float)", 12, key="foo"), k("bar_kernel", 6), k("only_cand", 9)])
    res = match_kernels(b, c)
    lv = units_by_level(res)
    assert [u.label for u in lv[MatchLevel.EXACT]] == ["bar_kernel"]
    assert [u.label for u in lv[MatchLevel.NORMALIZED]] == ["foo"]
    assert res.unmatched_baseline() == [2]
    assert res.unmatched_candidate() == [2]
    # every row is in exactly one unit or unmatched
    assert sorted(i for u in res.units for i in u.baseline) + res.unmatched_baseline() == [0, 1, 2]


def test_exact_prefers_same_operator():
    b = frame([k("ew", 1, "aten::add"), k("ew", 2, "aten::gelu")])
    c = frame([k("ew", 3, "aten::gelu"), k("ew", 4, "aten::add")])
    res = match_kernels(b, c)
    assert len(res.units) == 2
    pairs = {u.operator: (u.baseline, u.candidate) for u in res.units}
    assert pairs["aten::add"] == ([0], [1])
    assert pairs["aten::gelu"] == ([1], [0])


def test_exact_across_operators_when_ops_differ():
    b = frame([k("same", 1, "aten::mm")])
    c = frame([k("same", 1, "aten::addmm")])
    res = match_kernels(b, c)
    assert res.units[0].level == MatchLevel.EXACT and res.units[0].operator is None


def test_user_map_rules(tmp_path: Path):
    f = tmp_path / "map.toml"
    f.write_text('[[map]]\nbaseline = "sm90_xmma_gemm*"\ncandidate = "Cijk_*"\n', encoding="utf-8")
    um = load_user_map(f)
    b = frame([k("sm90_xmma_gemm_bf16_tn", 10), k("sm90_xmma_gemm_bf16_nt", 10)])
    c = frame([k("Cijk_Alik_Bljk_MT64", 15)])
    res = match_kernels(b, c, um)
    assert len(res.units) == 1
    u = res.units[0]
    assert u.level == MatchLevel.USER_MAP and u.baseline == [0, 1] and u.candidate == [0]
    assert "sm90_xmma_gemm*" in u.label


def test_user_map_table_form(tmp_path: Path):
    f = tmp_path / "map.toml"
    f.write_text('[map]\n"flash_fwd*" = "attn_fwd*"\n"*fprop*" = "igemm_fwd*"\n', encoding="utf-8")
    um = load_user_map(f)
    assert [(r.baseline, r.candidate) for r in um.rules] == [("flash_fwd*", "attn_fwd*"), ("*fprop*", "igemm_fwd*")]


@pytest.mark.parametrize("text", [
    "[[map]]\nbaseline = 1\ncandidate = \"x\"\n",
    "[[map]]\nbaseline = \"a\"\n",
    "this is = not toml [",
    "[other]\nx = 1\n",
    "map = 3\n",
])
def test_user_map_bad_file(tmp_path: Path, text: str):
    f = tmp_path / "bad.toml"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_user_map(f)
    assert "bad.toml" in str(e.value) and "\n" not in str(e.value)


def test_user_map_missing_file(tmp_path: Path):
    with pytest.raises(InputError, match="not found"):
        load_user_map(tmp_path / "nope.toml")


def test_operator_level_by_name_and_occurrence():
    # two addmm calls and one flash attention; library kernels differ by vendor
    b = frame([k("cutlass_gemm_a", 10, "aten::addmm"), k("flash_fwd_kernel", 30, "aten::_flash_attention_forward"),
               k("sm90_xmma_gemm_b", 20, "aten::addmm")])
    c = frame([k("Cijk_A", 11, "aten::addmm"), k("attn_fwd", 90, "aten::_flash_attention_forward"),
               k("Cijk_B", 25, "aten::addmm")])
    res = match_kernels(b, c)
    assert all(u.level == MatchLevel.OPERATOR for u in res.units)
    by = {(tuple(u.baseline), tuple(u.candidate)) for u in res.units}
    # first addmm call with first, second with second (distinct kernel-name signatures → distinct rows)
    assert ((0,), (0,)) in by and ((2,), (2,)) in by and ((1,), (1,)) in by
    assert not res.unmatched_baseline() and not res.unmatched_candidate()


def test_operator_call_aggregates_several_kernels():
    # one conv call: NVIDIA launches 3 kernels, AMD launches 2; ids give the call identity
    b = frame([k("nchwToNhwc", 2, "aten::conv", operator_id=5), k("xmma_fprop", 10, "aten::conv", operator_id=5),
               k("nhwcToNchw", 1, "aten::conv", operator_id=5)], {"operator_id": "Int64"})
    c = frame([k("igemm_fwd", 8, "aten::conv", operator_id=9), k("batched_transpose", 1, "aten::conv", operator_id=9)],
              {"operator_id": "Int64"})
    res = match_kernels(b, c)
    assert len(res.units) == 1 and res.units[0].baseline == [0, 1, 2] and res.units[0].candidate == [0, 1]
    assert res.units[0].calls == 1


def test_operator_parent_fallback_with_stack():
    b = frame([k("gemm_nv", 10, "aten::addmm", operator_stack="aten::linear > aten::addmm")],
              {"operator_stack": "String"})
    c = frame([k("Cijk_x", 12, "aten::mm", operator_stack="aten::linear > aten::mm")], {"operator_stack": "String"})
    res = match_kernels(b, c)
    assert len(res.units) == 1
    u = res.units[0]
    assert u.level == MatchLevel.OPERATOR and u.label == "aten::linear"


def test_operator_parent_fallback_with_range_column():
    b = frame([k("gemm_nv", 10, "aten::addmm", range="aten::linear")])
    c = frame([k("Cijk_x", 12, "aten::mm", range="aten::linear")])
    res = match_kernels(b, c)
    assert len(res.units) == 1 and res.units[0].label == "aten::linear"


def test_operator_group_fallback_vendor_specific_ops():
    b = frame([k("xmma_fprop", 10, "aten::cudnn_convolution"), k("relu", 1, "aten::relu_")])
    c = frame([k("igemm_fwd", 8, "aten::miopen_convolution"), k("relu", 1, "aten::relu_")])
    res = match_kernels(b, c)
    conv = [u for u in res.units if u.level == MatchLevel.OPERATOR]
    assert len(conv) == 1 and "aten::cudnn_convolution" in conv[0].label and "miopen" in conv[0].label


def test_range_used_when_no_operator():
    b = frame([k("nv_kernel", 10, None, range="decoder")])
    c = frame([k("amd_kernel", 12, None, range="decoder")])
    res = match_kernels(b, c)
    assert len(res.units) == 1 and res.units[0].label == "range:decoder"


def test_extra_call_on_one_side_is_listed_not_dropped():
    b = frame([k("g1", 10, "aten::addmm"), k("x", 1, "aten::relu"), k("g1", 10, "aten::addmm")])
    c = frame([k("C1", 10, "aten::addmm"), k("x", 1, "aten::relu"), k("C1", 10, "aten::addmm"),
               k("x", 1, "aten::relu"), k("C1", 10, "aten::addmm")])
    res = match_kernels(b, c)
    assert not res.unmatched_baseline()
    # the candidate's third addmm call has no baseline counterpart: extra work, listed as unmatched
    assert res.unmatched_candidate() == [4]


def test_unpaired_calls_fall_back_to_all_calls_of_the_name():
    # baseline: two calls fused into one run? no: ids say 3 calls; candidate 2 calls with 2 kernels each
    b = frame([k("g", 10, "aten::addmm", operator_id=1), k("g", 10, "aten::addmm", operator_id=2),
               k("g2", 10, "aten::addmm", operator_id=3)], {"operator_id": "Int64"})
    c = frame([k("C", 10, "aten::addmm", operator_id=7), k("D", 5, "aten::addmm", operator_id=7),
               k("C", 10, "aten::addmm", operator_id=8)], {"operator_id": "Int64"})
    res = match_kernels(b, c)
    # calls 1↔7 and 2↔8 pair by occurrence; call 3 has no partner and nothing left on the other side
    assert res.unmatched_baseline() == [2]
    assert not res.unmatched_candidate()


def test_kernels_without_operator_or_range_stay_unmatched():
    b = frame([k("a", 10)])
    c = frame([k("b", 10)])
    res = match_kernels(b, c)
    assert not res.units and res.unmatched_baseline() == [0] and res.unmatched_candidate() == [0]


def test_empty_frames():
    res = match_kernels(frame([]), frame([]))
    assert res.units == [] and res.baseline_unit == [] and res.candidate_unit == []


def test_all_calls_fallback_pairs_leftovers_of_the_same_operator():
    # call 1: baseline launches an extra B; call 2: candidate launches an extra C → B and C pair as "all calls"
    b = frame([k("A", 5, "aten::conv", operator_id=1), k("B", 2, "aten::conv", operator_id=1),
               k("A", 5, "aten::conv", operator_id=2)], {"operator_id": "Int64"})
    c = frame([k("A", 5, "aten::conv", operator_id=1), k("A", 5, "aten::conv", operator_id=2),
               k("C", 3, "aten::conv", operator_id=2)], {"operator_id": "Int64"})
    res = match_kernels(b, c)
    assert not res.unmatched_baseline() and not res.unmatched_candidate()
    labels = {u.label: u for u in res.units}
    assert labels["aten::conv (all calls)"].baseline == [1] and labels["aten::conv (all calls)"].candidate == [2]
