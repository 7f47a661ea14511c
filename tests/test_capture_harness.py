"""`hipgauge capture torch`: the harness's logic with a fake backend (interleaving, rounds, files, failures) and
the PyTorch backend against a fake `torch` module (torch is not installed here nor in CI); `capture commands`."""

from __future__ import annotations

import contextlib
import gzip
import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from hipgauge.app import harness as hz
from hipgauge.errors import InputError
from hipgauge.profiles.readers.latency import read_latency_rounds


class FakeBackend:
    """Latency = the variant's base time, + 1 ms for every block timed before (a host that slows down)."""

    def __init__(self, base: dict[str, float], fail: set[str] | None = None):
        self.base, self.fail, self.blocks, self.calls = base, fail or set(), 0, []  # type: ignore[var-annotated]

    def describe(self) -> dict[str, Any]:
        return {"torch": "fake", "gpu": "fake GPU", "runtime": "cuda"}

    def prepare(self, variant: hz.Variant, warmup: int) -> str:
        if variant.name in self.fail:
            raise RuntimeError("out of memory")
        return variant.name

    def time_block(self, step: str, variant: hz.Variant, n: int) -> list[float]:
        self.calls.append(step)
        drift = float(self.blocks)
        self.blocks += 1
        return [self.base[step] + drift] * n

    def profile(self, step: str, variant: hz.Variant, steps: int, path: Path,
                reference: tuple[str, hz.Variant] | None = None) -> None:
        with gzip.open(path, "wt") as f:
            json.dump({"traceEvents": [], "steps": steps}, f)


def _plan(tmp_path: Path, names: tuple[str, ...] = ("a", "b", "c"), **kw: Any) -> hz.HarnessPlan:
    return hz.HarnessPlan(factory="m:f", variants=[hz.parse_variant(f"{n}=fp16") for n in names], out_dir=tmp_path,
                          **kw)


def test_variants_are_timed_interleaved_in_shuffled_rounds(tmp_path: Path) -> None:
    be = FakeBackend({"a": 10.0, "b": 20.0, "c": 30.0})
    ticks: list[int] = []
    res = hz.run_harness(_plan(tmp_path, iterations=30, rounds=6), be, ticks.append)
    assert len(res.order) == 6 and all(sorted(o) == ["a", "b", "c"] for o in res.order)
    assert len({tuple(o) for o in res.order}) > 1  # shuffled per round
    assert be.calls == [n for o in res.order for n in o]
    assert sum(ticks) == hz.progress_units(res.plan)
    # the host's drift reaches every variant: each one's mean extra is within one round's span of the others'
    extra = {v.name: sum(v.latency_ms) / len(v.latency_ms) - be.base[v.name] for v in res.variants}
    assert max(extra.values()) - min(extra.values()) < 3.0
    values, rounds = read_latency_rounds(tmp_path / "a_latency_ms.csv")
    assert len(values) == 30 and rounds == sorted(rounds) and set(rounds) == set(range(6))
    assert (tmp_path / "a_latency_ms.csv").read_text().splitlines()[0] == "iteration,round,latency_ms"
    assert (tmp_path / "pairs.csv").read_text().splitlines() == [
        "base,cand,kind", "a,b,fp16 -> fp16", "a,c,fp16 -> fp16"]
    kw = hz.HarnessPlan("m:f", [hz.parse_variant("x=fp16,batch=8"), hz.parse_variant("y=fp16,cl,batch=8")], tmp_path / "k",
                        iterations=2, rounds=1)
    hz.run_harness(kw, FakeBackend({"x": 1.0, "y": 2.0}))
    assert (tmp_path / "k" / "pairs.csv").read_text().splitlines()[1] == 'x,y,"fp16,batch=8 -> fp16,channels_last,batch=8"'
    doc = json.loads((tmp_path / "capture.json").read_text())
    assert doc["schema"] == hz.SCHEMA and doc["order"] == res.order and len(doc["variants"]) == 3
    assert doc["variants"][0]["round_medians_ms"] and doc["variants"][0]["trace"] == "a_trace.json.gz"


def test_the_same_seed_gives_the_same_order(tmp_path: Path) -> None:
    a = hz.run_harness(_plan(tmp_path / "1", iterations=12, rounds=4), FakeBackend({"a": 1, "b": 2, "c": 3}))
    b = hz.run_harness(_plan(tmp_path / "2", iterations=12, rounds=4), FakeBackend({"a": 1, "b": 2, "c": 3}))
    assert a.order == b.order


class SwitchBackend(FakeBackend):
    """The first call of every block is 5 ms slow (the switch from another model), the rest at the base time."""

    def time_block(self, step: str, variant: hz.Variant, n: int) -> list[float]:
        self.calls.append((step, n))
        return [self.base[step] + 5.0] + [self.base[step]] * (n - 1)


def test_the_first_call_of_each_block_runs_untimed(tmp_path: Path) -> None:
    be = SwitchBackend({"a": 1.0, "b": 2.0})
    res = hz.run_harness(_plan(tmp_path, ("a", "b"), iterations=20, rounds=4), be)
    assert {n for _, n in be.calls} == {6}  # 5 timed + 1 settle per block
    assert all(v.latency_ms == [v.latency_ms[0]] * 20 for v in res.variants)  # the slow switch call is not kept
    assert len(read_latency_rounds(tmp_path / "a_latency_ms.csv")[0]) == 20
    assert json.loads((tmp_path / "capture.json").read_text())["plan"]["settle"] == 1
    be0 = SwitchBackend({"a": 1.0, "b": 2.0})
    res0 = hz.run_harness(_plan(tmp_path / "0", ("a", "b"), iterations=20, rounds=4, settle=0), be0)
    assert {n for _, n in be0.calls} == {5} and max(res0.variants[0].latency_ms) == 6.0  # --settle 0: all kept
    with pytest.raises(InputError, match="settle"):
        _plan(tmp_path, settle=-1).check()


def test_uneven_rounds_spread_the_remainder() -> None:
    assert _plan(Path("."), iterations=20, rounds=6).block_sizes() == [4, 4, 3, 3, 3, 3]


def test_a_variant_that_fails_is_reported_and_the_others_run(tmp_path: Path) -> None:
    res = hz.run_harness(_plan(tmp_path, iterations=10, rounds=2), FakeBackend({"a": 1, "b": 2, "c": 3}, {"b"}))
    b = next(v for v in res.variants if v.name == "b")
    assert b.error and "out of memory" in b.error and not b.latency_ms
    assert not (tmp_path / "b_latency_ms.csv").exists() and (tmp_path / "c_latency_ms.csv").exists()


@pytest.mark.parametrize("text,expected", [
    ("r18_cl=fp16,cl,batch=8", hz.Variant("r18_cl", "fp16", False, True, False, {"batch": 8})),
    ("tf=fp32,tf32", hz.Variant("tf", "fp32", True)),
    ("g=bf16,graph,name=resnet18", hz.Variant("g", "bf16", graph=True, kwargs={"name": "resnet18"})),
])
def test_variant_settings_parse(text: str, expected: hz.Variant) -> None:
    assert hz.parse_variant(text) == expected


@pytest.mark.parametrize("text", ["noequals", "=fp16", "a=fp64", "a b=fp16", "a=fp16,1x=2"])
def test_bad_variants_are_one_line_errors(text: str) -> None:
    with pytest.raises(InputError):
        hz.parse_variant(text)


def test_plan_checks(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="twice"):
        _plan(tmp_path, ("a", "a")).check()
    with pytest.raises(InputError, match="rounds"):
        _plan(tmp_path, iterations=3, rounds=6).check()


def test_load_factory_from_a_file(tmp_path: Path) -> None:
    f = tmp_path / "mymodels.py"
    f.write_text("def build(batch=1):\n    return ('model', batch)\n")
    assert hz.load_factory(f"{f}:build")(batch=3) == ("model", 3)
    with pytest.raises(InputError, match="no callable"):
        hz.load_factory(f"{f}:nope")
    with pytest.raises(InputError, match="MODULE:FACTORY"):
        hz.load_factory("justamodule")
    with pytest.raises(InputError, match="cannot import"):
        hz.load_factory("no_such_module_here_xyz:f")


# --------------------------------------------------------------------------------------------
# the PyTorch backend against a fake torch
# --------------------------------------------------------------------------------------------


def _fake_torch(clock: list[float]) -> types.ModuleType:
    torch: Any = types.ModuleType("torch")
    torch.__version__ = "0.0-fake"
    torch.version = types.SimpleNamespace(cuda="13.0", hip=None)
    torch.float16, torch.bfloat16, torch.channels_last = "float16", "bfloat16", "channels_last"
    torch.backends = types.SimpleNamespace(
        cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=False)),
        cudnn=types.SimpleNamespace(allow_tf32=False, benchmark=False, is_available=lambda: True, version=lambda: 1))

    class Tensor:
        def __init__(self, dims: int = 4):
            self.dims, self.fmt, self.where = dims, None, "cpu"

        def to(self, device: Any) -> Tensor:
            self.where = device
            return self

        def dim(self) -> int:
            return self.dims

        def contiguous(self, memory_format: Any = None) -> Tensor:
            self.fmt = memory_format
            return self

    class Event:
        def __init__(self, enable_timing: bool = False):
            self.t = 0.0

        def record(self) -> None:
            self.t = clock[0]

        def synchronize(self) -> None:
            pass

        def elapsed_time(self, other: Event) -> float:
            return other.t - self.t

    class Graph:
        def replay(self) -> None:
            clock[0] += 0.5

    torch.Tensor = Tensor
    torch.device = lambda name: types.SimpleNamespace(type=name.split(":")[0])
    torch.manual_seed = lambda seed: None
    torch.inference_mode = contextlib.nullcontext
    torch.autocast = lambda device, dtype=None, enabled=True: contextlib.nullcontext()
    torch.cuda = types.SimpleNamespace(
        is_available=lambda: True, get_device_name=lambda d: "Fake H200", synchronize=lambda: None, Event=Event,
        CUDAGraph=Graph, Stream=lambda: types.SimpleNamespace(wait_stream=lambda s: None),
        current_stream=lambda: types.SimpleNamespace(wait_stream=lambda s: None),
        stream=lambda s: contextlib.nullcontext(), graph=lambda g: contextlib.nullcontext())
    profiler: Any = types.ModuleType("torch.profiler")

    class Profile:
        def __init__(self, **kw: Any):
            self.kw, self.steps = kw, 0

        def __enter__(self) -> Profile:
            return self

        def __exit__(self, *a: Any) -> None:
            pass

        def step(self) -> None:
            self.steps += 1

        def export_chrome_trace(self, path: str) -> None:
            Path(path).write_text(json.dumps({"traceEvents": [], "steps": self.steps,
                                              "record_shapes": self.kw["record_shapes"]}))

    profiler.profile, profiler.ProfilerActivity = Profile, types.SimpleNamespace(CPU="cpu", CUDA="cuda")
    profiler.schedule = lambda **kw: kw
    torch.profiler = profiler
    return torch


def test_the_torch_backend_times_with_device_events_and_traces_with_shapes(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [0.0]
    torch = _fake_torch(clock)
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch.profiler", torch.profiler)
    seen: list[Any] = []

    class Model:
        def eval(self) -> Model:
            return self

        def to(self, *a: Any, **kw: Any) -> Model:
            seen.append(kw.get("memory_format"))
            return self

        def __call__(self, x: Any) -> None:
            seen.append((x.fmt, torch.backends.cuda.matmul.allow_tf32))
            clock[0] += 2.0

    be = hz.TorchBackend(lambda batch=1: (Model(), torch.Tensor()))
    plan = hz.HarnessPlan("m:f", [hz.parse_variant("base=fp16"), hz.parse_variant("cl=fp32,tf32,cl"),
                                  hz.parse_variant("g=fp16,graph")], tmp_path, iterations=6, rounds=2, warmup=1,
                          profile_steps=3)
    res = hz.run_harness(plan, be)
    lat = {v.name: v.latency_ms for v in res.variants}
    assert lat["base"] == [2.0] * 6 and lat["cl"] == [2.0] * 6 and lat["g"] == [0.5] * 6
    # the host time of each forward call (by the real clock), and beside each trace: unprofiled, then profiled
    base = next(v for v in res.variants if v.name == "base")
    assert len(base.host_ms) == 6 and base.trace_host is not None
    assert len(base.trace_host.unprofiled_ms) == hz.spell_plan().min_rounds * (hz.TRACE_HOST_BLOCK - 1)
    assert len(base.trace_host.profiled_ms) == 3
    assert (tmp_path / "base_latency_ms.csv").read_text().splitlines()[0] == "iteration,round,latency_ms,host_ms"
    doc = json.loads((tmp_path / "capture.json").read_text())
    assert doc["variants"][0]["trace_host_ms"]["unprofiled"] == base.trace_host.unprofiled_ms
    assert "reference" not in doc["variants"][0]["trace_host_ms"]  # the first variant is the reference itself
    cl = next(v for v in res.variants if v.name == "cl")
    assert cl.trace_host is not None and cl.trace_host.reference == "base"
    # by the real clock, whose jitter may ask for more rounds than the least: as many of the reference as of this one
    n = len(cl.trace_host.reference_unprofiled_ms)
    assert n == len(cl.trace_host.unprofiled_ms) and n % (hz.TRACE_HOST_BLOCK - 1) == 0
    assert hz.spell_plan().min_rounds <= n // (hz.TRACE_HOST_BLOCK - 1) <= hz.spell_plan().max_rounds
    assert ("channels_last", True) in seen and "channels_last" in seen  # input and model in channels_last, TF32 on
    assert res.environment["gpu"] == "Fake H200" and res.environment["runtime"] == "cuda"
    with gzip.open(tmp_path / "base_trace.json.gz", "rt") as f:
        trace = json.load(f)
    assert trace["steps"] == 1 + 2 + 3 and trace["record_shapes"] is True
    assert not (tmp_path / "base_trace.json").exists()


def _fake_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake torch in sys.modules and a factory module using it: ``<path>:build``."""
    torch = _fake_torch([0.0])
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch.profiler", torch.profiler)
    mod = tmp_path / "fakemodels.py"
    mod.write_text("import torch\n\nclass M:\n    def eval(self): return self\n    def to(self, *a, **k): return self\n"
                   "    def __call__(self, x): return None\n\ndef build(batch=1):\n    return M(), torch.Tensor()\n")
    return mod


def test_capture_torch_runs_without_typer_through_the_fast_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from hipgauge.cli import main

    mod = _fake_models(tmp_path, monkeypatch)
    with pytest.raises(SystemExit) as info:
        main(["capture", "torch", f"{mod}:build", "--variant", "a=fp16", "--variant", "b=fp16,cl", "-o",
              str(tmp_path / "out"), "--iterations", "4", "--rounds", "2", "--warmup", "0", "--json"])
    assert info.value.code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == hz.SCHEMA and [v["iterations"] for v in doc["variants"]] == [4, 4]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "a_latency_ms.csv", "a_trace.json.gz", "b_latency_ms.csv", "b_trace.json.gz", "capture.json", "pairs.csv"]


def test_capture_torch_without_torch_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from hipgauge.cli import main

    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    mod = tmp_path / "m.py"
    mod.write_text("def f():\n    return 1, 2\n")
    with pytest.raises(SystemExit) as info:
        main(["capture", "torch", f"{mod}:f", "--variant", "a=fp16", "-o", str(tmp_path / "o")])
    assert info.value.code == 2 and "needs PyTorch" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# capture commands
# --------------------------------------------------------------------------------------------


def test_capture_commands_print_both_vendors_with_the_counters_the_figures_need(capsys: pytest.CaptureFixture[str]) -> None:
    from hipgauge.cli import main
    from hipgauge.profiles.counter_formulas import NEEDED

    with pytest.raises(SystemExit):
        main(["capture", "commands", "--json", "-o", "cap", "--", "python", "serve.py", "--batch", "8"])
    doc = json.loads(capsys.readouterr().out)
    by_tool = {c["tool"]: c for c in doc["commands"]}
    assert set(by_tool) >= {"nsys", "ncu", "rocprofv3", "rocprofv3-counters", "rocprof-compute", "torch"}
    assert {c["vendor"] for c in doc["commands"]} >= {"nvidia", "amd"}
    ncu = " ".join(by_tool["ncu"]["lines"])
    assert all(m in ncu for fig in NEEDED["nvidia"].values() for m in fig)
    assert "python serve.py --batch 8" in ncu
    amd = " ".join(by_tool["rocprofv3-counters"]["lines"])
    assert all(c in amd for fig in NEEDED["amd"].values() for c in fig if not c.startswith("TCC_EA_"))
    assert all(c in amd for fig in NEEDED["amd-gfx942"].values() for c in fig)
    with pytest.raises(SystemExit):
        main(["capture", "commands", "--amd-arch", "gfx90a", "--tool", "rocprofv3-counters", "--", "./app"])
    text = capsys.readouterr().out
    assert all(c in text for fig in NEEDED["amd"].values() for c in fig)
    for line in text.splitlines():
        if line.startswith("pmc:"):
            assert sum(1 for w in line.split() if w.startswith("TCC_")) <= 4


def test_capture_commands_refuse_an_unknown_tool(capsys: pytest.CaptureFixture[str]) -> None:
    from hipgauge.cli import main

    with pytest.raises(SystemExit) as info:
        main(["capture", "commands", "--tool", "vtune", "--", "./app"])
    assert info.value.code == 2 and "vtune" in capsys.readouterr().err


def test_the_summary_says_how_loose_its_p99_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """600 iterations put 6 beyond the P99: compare widens its interval ×2.65 above, and the summary says so with the
    iterations (about 3,000) that bring it to ×1.2; at 3,000 there is no such line."""
    from hipgauge.cli.capture_run import run_torch_capture
    from hipgauge.profiles.stability import tail_widening as stability_widening

    mod = _fake_models(tmp_path, monkeypatch)
    for n, line in ((600, True), (3000, False)):
        run_torch_capture(f"{mod}:build", ["a=fp16", "b=fp16,cl"], tmp_path / f"o{n}", iterations=n, rounds=10,
                          warmup=0, profile_steps=0, no_progress=True)
        out = capsys.readouterr().out
        doc = json.loads((tmp_path / f"o{n}" / "capture.json").read_text())
        assert doc["variants"][0]["p99_tail_widening"] == pytest.approx(stability_widening(n, 99.0), abs=1e-3)
        assert ("widen its interval ×2.65 above" in out and "2,935 iterations bring that to ×1.2" in out) is line


def _timer(times: list[float]) -> Any:
    """A host timer that returns ``times`` in turn, then the last one forever."""
    it = iter(times)
    last = [times[-1]]

    def call() -> float:
        last[0] = next(it, last[0])
        return last[0]
    return call


def test_same_spell_timing_stops_at_the_least_rounds_when_they_agree() -> None:
    plan = hz.spell_plan()
    values, reference = hz.time_same_spell(_timer([5.0]), _timer([6.0]))
    assert len(values) == len(reference) == plan.min_rounds * (hz.TRACE_HOST_BLOCK - 1)
    assert set(values) == {6.0} and set(reference) == {5.0}
    # the first variant is its own reference: the least rounds, no reference times
    values, reference = hz.time_same_spell(None, _timer([5.0]))
    assert reference == [] and len(values) == plan.min_rounds * (hz.TRACE_HOST_BLOCK - 1)


def test_same_spell_timing_adds_rounds_while_a_spell_hit_one_side() -> None:
    """blind12/regx04 (H200) in small: the reference's blocks of three early rounds ran in a 3x slow spell, so those
    rounds' ratios are 1/3 and the 8-round interval is wide; the harness times on until the slow rounds are a small
    enough share for the interval to close, and records every round it timed."""
    plan = hz.spell_plan()
    block = hz.TRACE_HOST_BLOCK
    ref_times = []
    for r in range(plan.max_rounds):
        ref_times += [15.0 if r in (0, 2, 5) else 5.0] * block
    values, reference = hz.time_same_spell(_timer(ref_times), _timer([5.5]))
    rounds = len(values) // (block - 1)
    assert plan.min_rounds < rounds < plan.max_rounds
    spell = hz.spell_ratio(values, reference, block - 1)
    assert spell is not None and spell.settled(plan.tolerance) and spell.ratio == pytest.approx(1.1)


def test_same_spell_timing_stops_at_its_most_rounds() -> None:
    plan = hz.spell_plan()
    block = hz.TRACE_HOST_BLOCK
    flip = []
    for r in range(plan.max_rounds + 5):
        flip += [5.0 if r % 2 else 10.0] * block  # every other round slow: the interval never closes
    values, reference = hz.time_same_spell(_timer(flip), _timer([6.0]))
    assert len(values) == len(reference) == plan.max_rounds * (block - 1)


def test_the_iterations_help_states_the_widening_the_model_gives() -> None:
    """``capture torch --iterations`` help quotes the P99 tail widening at 600 and 3,000 iterations as literals (a
    data read at CLI start-up would slow every command): they must be what ``widening.tail_widening`` gives."""
    import inspect

    from hipgauge.cli import capture as cli_capture
    from hipgauge.profiles.widening import tail_widening

    text = inspect.getsource(cli_capture)
    for n, words in ((600, "at 600"), (3000, "at 3,000")):
        assert f"×{tail_widening(n, 99.0):.2f} {words}" in text or f"×{tail_widening(n, 99.0):.2f} above {words}" in text


def test_the_summary_names_each_candidates_same_spell_ratio_and_its_rounds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from hipgauge.cli.capture_run import run_torch_capture

    mod = _fake_models(tmp_path, monkeypatch)
    run_torch_capture(f"{mod}:build", ["a=fp16", "b=fp16,cl"], tmp_path / "o", iterations=4, rounds=2, warmup=0,
                      profile_steps=2, no_progress=True)
    out = capsys.readouterr().out
    doc = json.loads((tmp_path / "o" / "capture.json").read_text())
    spell = doc["variants"][1]["trace_host_ms"]
    rounds = spell["rounds"]
    assert hz.spell_plan().min_rounds <= rounds <= hz.spell_plan().max_rounds
    assert "host time beside each trace" in out and f"over {rounds} rounds" in out and "b " in out
    assert "same_spell_ratio" not in doc["variants"][0]["trace_host_ms"]  # the first variant is the reference
