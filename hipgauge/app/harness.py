"""``hipgauge capture torch``: time model variants interleaved, then trace each one, on CUDA or ROCm PyTorch.

The plan (``HarnessPlan``) and the loop (``run_harness``) are plain Python; everything that touches the GPU sits
behind a backend (``TorchBackend`` here, a fake one in the tests), and torch is imported only when a
``TorchBackend`` is made, so this module imports nothing heavy (no polars, duckdb, tree-sitter or torch).

What it does, in order (the recipe of tests/data/h200/pairs/capture_pairs.py):

1. builds every variant (``FACTORY(**kwargs)`` returns ``(model, example_inputs)``), applies its settings
   (autocast dtype, channels_last, TF32, a CUDA/HIP graph) and warms it up;
2. times ``iterations`` forwards per variant in ``rounds`` blocks, the variants' order shuffled per round (seeded),
   each forward between two device events followed by a synchronize: a drift of the host hits every variant
   alike instead of whichever ran last. Each block starts with ``settle`` untimed forwards: the first call after
   another model's runs 2-15% slower (median over 48 H200 series) and was a fifth of the P99 samples, a cost of
   interleaving that a server running one model does not pay. Short blocks (default 10 timed calls) put every
   variant inside the same slow spell of the host, which lasts from about one block to several rounds;
3. writes ``<variant>_latency_ms.csv`` (``iteration,round,latency_ms,host_ms``: ``host_ms`` is how long the
   forward call took on the host, from its start until it returned, before the synchronize: the host's own time,
   unprofiled), then traces each variant with the PyTorch profiler (CPU and device activities, ``record_shapes``,
   one ``ProfilerStep#N`` per forward) into ``<variant>_trace.json.gz``; ``pairs.csv`` pairs the first variant
   with each other one, and ``capture.json`` records the plan, the environment and the order of every round.

The profiler's own cost on the host. A profiled step spends 1.6x to 3.6x its unprofiled host time (H200, torch
2.11: RegNetY fp32 1.9x, the same model with TF32 3.6x, on two days), and no count of recorded events predicts which
(TF32 records fewer events yet costs more). So ``profile`` also times the host of each forward call, unprofiled,
in rounds right before the profiler starts (``time_same_spell``), and of each profiled step: ``capture.json`` keeps
both (``trace_host_ms`` per variant), and ``compare``/``project`` read them beside a trace to take the profiler's
cost out of that trace's host time by measurement instead of by a model.
"""

from __future__ import annotations

import csv
import gzip
import importlib
import importlib.util
import json
import os
import random
import shutil
import statistics
import sys
import time
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from hipgauge.errors import InputError
from hipgauge.profiles.spell_ratio import spell_plan, spell_ratio
from hipgauge.profiles.widening import tail_widening

SCHEMA = "hipgauge.capture-torch/1"
#: forward calls timed on the host, unprofiled, right before each trace (capture.json: ``trace_host_ms``): in
#: rounds of a block of the first variant then a block of this one, as the timing rounds run them, the first call of
#: each block untimed (a call right after another model's runs its host up to 12% slower than within a block:
#: ViT-B/16 TF32 after fp32 on the H200, against 3% in the timing rounds); as many rounds as ``[same_spell]`` of
#: measurement.toml asks (``time_same_spell``)
TRACE_HOST_BLOCK = 6

#: setting token → (field, value); a token with ``=`` is a keyword argument for the factory
FLAG_TOKENS: dict[str, tuple[str, Any]] = {
    "fp32": ("dtype", "fp32"), "fp16": ("dtype", "fp16"), "bf16": ("dtype", "bf16"),
    "tf32": ("tf32", True), "notf32": ("tf32", False),
    "cl": ("channels_last", True), "channels_last": ("channels_last", True), "nchw": ("channels_last", False),
    "graph": ("graph", True), "cuda_graph": ("graph", True),
}


@dataclass
class Variant:
    """One configuration of the model: ``dtype`` is autocast's (fp32: none), ``graph`` captures the forward once
    as a CUDA/HIP graph and replays it; ``kwargs`` go to the factory (``batch=8``)."""

    name: str
    dtype: str = "fp32"
    tf32: bool = False
    channels_last: bool = False
    graph: bool = False
    kwargs: dict[str, Any] = field(default_factory=dict)

    def settings(self) -> str:
        words = [self.dtype, "tf32" if self.tf32 else "", "channels_last" if self.channels_last else "",
                 "graph" if self.graph else ""] + [f"{k}={v}" for k, v in sorted(self.kwargs.items())]
        return ",".join(w for w in words if w)


def _value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_kwargs(items: list[str] | None, what: str) -> dict[str, Any]:
    """``['batch=8', 'size=224']`` → ``{'batch': 8, 'size': 224}``; InputError naming ``what`` on a bad item."""
    out: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise InputError(f"{what} {item!r}: expected NAME=VALUE with NAME a Python identifier")
        out[key.strip()] = _value(value.strip())
    return out


def parse_variant(text: str, common: dict[str, Any] | None = None) -> Variant:
    """``NAME=SETTINGS``: SETTINGS are comma-separated tokens (fp32, fp16, bf16, tf32, cl / channels_last, graph)
    and ``key=value`` factory arguments, e.g. ``r18_cl=fp16,cl,batch=8``. ``common`` factory arguments come first."""
    name, sep, settings = text.partition("=")
    name = name.strip()
    if not sep or not name or not all(c.isalnum() or c in "_-." for c in name):
        raise InputError(f"--variant {text!r}: expected NAME=SETTINGS, e.g. 'r18_cl=fp16,cl' (NAME of letters, "
                         f"digits, '_', '-', '.')")
    v = Variant(name=name, kwargs=dict(common or {}))
    for token in (t.strip() for t in settings.split(",")):
        if not token:
            continue
        if "=" in token:
            v.kwargs.update(parse_kwargs([token], f"--variant {name}:"))
        elif token.lower() in FLAG_TOKENS:
            attr, value = FLAG_TOKENS[token.lower()]
            setattr(v, attr, value)
        else:
            raise InputError(f"--variant {text!r}: unknown setting {token!r}; use {', '.join(sorted(FLAG_TOKENS))} "
                             f"or key=value for the factory")
    return v


def load_factory(spec: str) -> Callable[..., Any]:
    """``MODULE:FACTORY`` (a module on sys.path or the current folder, or a ``path/to/file.py``) → the callable."""
    module_name, sep, attr = spec.rpartition(":")
    if not sep or not module_name or not attr:
        raise InputError(f"{spec!r}: expected MODULE:FACTORY, e.g. 'mymodels:resnet' or 'models.py:build'")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise InputError("factory module not found", path)
            loaded = importlib.util.spec_from_file_location(path.stem, path)
            if loaded is None or loaded.loader is None:
                raise InputError("cannot import as a Python module", path)
            module = importlib.util.module_from_spec(loaded)
            sys.modules[path.stem] = module
            loaded.loader.exec_module(module)
        else:
            if "" not in sys.path and os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InputError(f"{spec!r}: cannot import {module_name!r}: {exc}") from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise InputError(f"{spec!r}: {module_name} has no callable {attr!r}")
    return factory


@dataclass
class HarnessPlan:
    factory: str
    variants: list[Variant]
    out_dir: Path
    iterations: int = 600
    rounds: int = 60
    warmup: int = 30
    settle: int = 1
    profile_steps: int = 10
    seed: int = 0

    def check(self) -> None:
        if not self.variants:
            raise InputError("give at least one --variant NAME=SETTINGS")
        names = [v.name for v in self.variants]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise InputError(f"--variant: the name {dup[0]!r} is given twice")
        if self.rounds < 1 or self.iterations < self.rounds:
            raise InputError(f"--iterations {self.iterations} --rounds {self.rounds}: need 1 ≤ rounds ≤ iterations")
        if self.warmup < 0 or self.profile_steps < 0 or self.settle < 0:
            raise InputError("--warmup, --settle and --profile-steps must be ≥ 0")

    def block_sizes(self) -> list[int]:
        """Iterations per round: equal blocks, the remainder spread over the first rounds."""
        base, extra = divmod(self.iterations, self.rounds)
        return [base + (1 if r < extra else 0) for r in range(self.rounds)]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["out_dir"] = str(self.out_dir)
        d["variants"] = [asdict(v) | {"settings": v.settings()} for v in self.variants]
        return d


class Backend(Protocol):
    def describe(self) -> dict[str, Any]: ...

    def prepare(self, variant: Variant, warmup: int) -> Any: ...

    def time_block(self, step: Any, variant: Variant, n: int) -> BlockTimes | list[float]: ...

    def profile(self, step: Any, variant: Variant, steps: int, path: Path,
                reference: tuple[Any, Variant] | None = None) -> TraceHost | None: ...


@dataclass
class BlockTimes:
    """One timed block: per iteration, the device-event latency and the host time of the forward call."""

    latency_ms: list[float]
    host_ms: list[float]


@dataclass
class TraceHost:
    """The host time of each forward call around one trace: unprofiled right before it (alternating with the
    first variant's, the baseline, so that the two share the host's spell), and profiled (the recorded steps)."""

    unprofiled_ms: list[float]
    profiled_ms: list[float]
    reference: str | None = None  # the variant timed alternately with this one (None: this is the first)
    reference_unprofiled_ms: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        block = TRACE_HOST_BLOCK - 1
        rounds = len(self.unprofiled_ms) // block
        plan = spell_plan()
        d: dict[str, Any] = {
            "unprofiled": self.unprofiled_ms, "profiled": self.profiled_ms,
            "unprofiled_p50_ms": statistics.median(self.unprofiled_ms) if self.unprofiled_ms else None,
            "profiled_p50_ms": statistics.median(self.profiled_ms) if self.profiled_ms else None,
            "what": f"host time of each forward call (ms, from its start until it returned, before the synchronize): "
                    f"{len(self.unprofiled_ms)} unprofiled calls right before the profiler started, in {rounds} "
                    f"rounds of {TRACE_HOST_BLOCK} calls of the first variant (timed too, as 'reference') then "
                    f"{TRACE_HOST_BLOCK} of this one, the first of each block untimed ({plan.min_rounds} rounds, then "
                    f"more, up to {plan.max_rounds}, while the same-spell ratio's {100 * plan.confidence:.0f}% "
                    f"interval was wider than ±{100 * plan.tolerance:.0f}%); then each recorded step"}
        if self.reference is not None:
            d["reference"] = {"variant": self.reference, "unprofiled": self.reference_unprofiled_ms}
            d["rounds"], d["block"] = rounds, block
            spell = spell_ratio(self.unprofiled_ms, self.reference_unprofiled_ms, block)
            if spell is not None:
                d["same_spell_ratio"] = {"ratio": spell.ratio, "below": spell.below, "above": spell.above,
                                         "coverage": spell.confidence}
        return d


def time_same_spell(time_reference: Callable[[], float] | None, time_variant: Callable[[], float]
                    ) -> tuple[list[float], list[float]]:
    """The host times right before a trace: (this variant's, the reference's), in rounds of a block of the
    reference (the first variant; None when this is it) then a block of this variant, the first call of each block
    untimed. ``[same_spell]`` rounds at least; with a reference, more while the same-spell ratio's interval is wider
    than its tolerance (a spell of the host that hit one block and not its partner), up to its maximum."""
    plan = spell_plan()
    values: list[float] = []
    reference: list[float] = []
    for rounds in range(1, max(plan.min_rounds, plan.max_rounds) + 1):
        if time_reference is not None:
            reference += [time_reference() for _ in range(TRACE_HOST_BLOCK)][1:]
        values += [time_variant() for _ in range(TRACE_HOST_BLOCK)][1:]
        if rounds < plan.min_rounds:
            continue
        if time_reference is None:
            break
        spell = spell_ratio(values, reference, TRACE_HOST_BLOCK - 1)
        if spell is None or spell.settled(plan.tolerance):
            break
    return values, reference


@dataclass
class VariantResult:
    name: str
    settings: str
    latency_ms: list[float] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)
    host_ms: list[float] = field(default_factory=list)
    trace_host: TraceHost | None = None
    csv: str | None = None
    trace: str | None = None
    error: str | None = None

    def summary(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "settings": self.settings, "iterations": len(self.latency_ms),
                             "latency_csv": self.csv, "trace": self.trace, "error": self.error}
        if len(self.latency_ms) >= 2:
            q = statistics.quantiles(self.latency_ms, n=100, method="inclusive")
            d |= {"p50_ms": statistics.median(self.latency_ms), "p99_ms": q[98],
                  "mean_ms": statistics.fmean(self.latency_ms),
                  # what compare/project will widen this P99's interval by above (hipgauge.profiles.widening)
                  "p99_tail_widening": round(tail_widening(len(self.latency_ms), 99.0), 3)}
            per_round: dict[int, list[float]] = {}
            for r, x in zip(self.rounds, self.latency_ms):
                per_round.setdefault(r, []).append(x)
            d["round_medians_ms"] = [statistics.median(per_round[r]) for r in sorted(per_round)]
        if self.host_ms and len(self.host_ms) == len(self.latency_ms):
            d["host_p50_ms"] = statistics.median(self.host_ms)
        if self.trace_host is not None:
            d["trace_host_ms"] = self.trace_host.to_dict()
        return d


@dataclass
class HarnessResult:
    plan: HarnessPlan
    environment: dict[str, Any]
    variants: list[VariantResult]
    order: list[list[str]]  # per round, the variants in the order they ran
    seconds: float = 0.0
    files: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "plan": self.plan.to_dict(), "environment": self.environment,
                "variants": [v.summary() for v in self.variants], "order": self.order, "seconds": self.seconds,
                "files": self.files,
                "method": ("variants timed interleaved: each round runs every variant's block in an order shuffled "
                           "per round (seeded), the first plan.settle calls of each block run untimed; device events "
                           "around each forward, a synchronize after each; no profiler attached while timing; traces "
                           "taken afterwards")}


def progress_units(plan: HarnessPlan) -> int:
    """What ``run_harness`` reports progress in: one per variant built, one per timed iteration, one per trace."""
    n = len(plan.variants)
    return n + plan.iterations * n + (n if plan.profile_steps else 0)


def _write_csv(path: Path, values: list[float], rounds: list[int], host: list[float] | None = None) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        if host and len(host) == len(values):
            f.write("iteration,round,latency_ms,host_ms\n")
            for i, (r, v, h) in enumerate(zip(rounds, values, host)):
                f.write(f"{i},{r},{v:.4f},{h:.4f}\n")
            return
        f.write("iteration,round,latency_ms\n")
        for i, (r, v) in enumerate(zip(rounds, values)):
            f.write(f"{i},{r},{v:.4f}\n")


def _settled(times: BlockTimes | list[float], settle: int) -> BlockTimes | list[float]:
    """A block's times less its first ``settle`` calls (run, not kept: the switch from another model)."""
    if not settle:
        return times
    if isinstance(times, BlockTimes):
        return BlockTimes(times.latency_ms[settle:], times.host_ms[settle:])
    return list(times)[settle:]


def run_harness(plan: HarnessPlan, backend: Backend, advance: Callable[[int], None] | None = None) -> HarnessResult:
    """Build, warm up, time interleaved, write the CSVs, trace; a variant that fails to build or run is reported
    (``error``) and the others go on."""
    plan.check()
    tick = advance or (lambda n: None)
    t0 = time.perf_counter()
    plan.out_dir.mkdir(parents=True, exist_ok=True)
    results = {v.name: VariantResult(v.name, v.settings()) for v in plan.variants}
    steps: dict[str, Any] = {}
    for v in plan.variants:
        try:
            steps[v.name] = backend.prepare(v, plan.warmup)
        except Exception as exc:  # noqa: BLE001 - the user's model code: report it and time the others
            results[v.name].error = f"build or warm-up failed: {type(exc).__name__}: {exc}"
        tick(1)
    rng = random.Random(plan.seed)
    order: list[list[str]] = []
    by_name = {v.name: v for v in plan.variants}
    for r, n in enumerate(plan.block_sizes()):
        names = [v.name for v in plan.variants if v.name in steps]
        rng.shuffle(names)
        order.append(names)
        for name in names:
            try:
                times = _settled(backend.time_block(steps[name], by_name[name], n + plan.settle), plan.settle)
            except Exception as exc:  # noqa: BLE001 - the user's model code: report it and time the others
                results[name].error = f"timing failed in round {r}: {type(exc).__name__}: {exc}"
                del steps[name]
                tick(n)
                continue
            values = times.latency_ms if isinstance(times, BlockTimes) else list(times)
            results[name].latency_ms += values
            results[name].rounds += [r] * len(values)
            if isinstance(times, BlockTimes):
                results[name].host_ms += times.host_ms
            tick(n)
    files: list[str] = []
    for v in plan.variants:
        res = results[v.name]
        if res.latency_ms:
            path = plan.out_dir / f"{v.name}_latency_ms.csv"
            _write_csv(path, res.latency_ms, res.rounds, res.host_ms)
            res.csv = path.name
            files.append(path.name)
    for v in plan.variants:
        if v.name not in steps or not plan.profile_steps:
            continue
        path = plan.out_dir / f"{v.name}_trace.json.gz"
        try:
            first = next(u for u in plan.variants if u.name in steps)
            reference = (steps[first.name], first) if first.name != v.name else None
            results[v.name].trace_host = backend.profile(steps[v.name], v, plan.profile_steps, path, reference)
            results[v.name].trace = path.name
            files.append(path.name)
        except Exception as exc:  # noqa: BLE001 - a profiler failure leaves the latencies standing
            results[v.name].error = f"trace failed: {type(exc).__name__}: {exc}"
        tick(1)
    ok = [v for v in plan.variants if results[v.name].csv]
    if len(ok) > 1:
        with open(plan.out_dir / "pairs.csv", "w", encoding="utf-8", newline="") as f:
            rows = csv.writer(f, lineterminator="\n")
            rows.writerow(["base", "cand", "kind"])
            for v in ok[1:]:
                rows.writerow([ok[0].name, v.name, f"{ok[0].settings()} -> {v.settings()}"])
        files.append("pairs.csv")
    result = HarnessResult(plan=plan, environment=backend.describe(), variants=[results[v.name] for v in plan.variants],
                           order=order, seconds=time.perf_counter() - t0, files=files)
    with open(plan.out_dir / "capture.json", "w", encoding="utf-8") as f:
        json.dump(result.to_dict(), f, indent=2)
        f.write("\n")
    result.files.append("capture.json")
    return result


class TorchBackend:
    """The PyTorch side: torch is imported here, when the harness runs, and nowhere else in hipgauge.
    ``torch.cuda`` is the device API of both CUDA and ROCm builds of PyTorch (HIP events, HIP graphs)."""

    def __init__(self, factory: Callable[..., Any], device: str = "cuda"):
        try:
            import torch  # noqa: PLC0415 - the harness is the only part of hipgauge that runs PyTorch
        except ImportError:
            raise InputError("hipgauge capture torch needs PyTorch (import torch failed): run it where the model "
                             "runs") from None
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise InputError("PyTorch sees no GPU (torch.cuda.is_available() is False)")
        self.torch = torch
        self.factory = factory
        self.device = torch.device(device)
        torch.backends.cudnn.benchmark = True

    def describe(self) -> dict[str, Any]:
        torch = self.torch
        env: dict[str, Any] = {"torch": torch.__version__, "cuda": torch.version.cuda,
                               "hip": getattr(torch.version, "hip", None), "python": sys.version.split()[0]}
        if self.device.type == "cuda":
            env["gpu"] = torch.cuda.get_device_name(self.device)
            env["runtime"] = "hip" if env["hip"] else "cuda"
            if torch.backends.cudnn.is_available():
                env["cudnn"] = torch.backends.cudnn.version()
        try:
            import torchvision  # noqa: PLC0415 - optional: recorded when the factory used it

            env["torchvision"] = torchvision.__version__
        except ImportError:
            pass
        return env

    def _flags(self, v: Variant) -> None:
        self.torch.backends.cuda.matmul.allow_tf32 = v.tf32
        self.torch.backends.cudnn.allow_tf32 = v.tf32

    def _to(self, x: Any, channels_last: bool) -> Any:
        torch = self.torch
        if isinstance(x, torch.Tensor):
            x = x.to(self.device)
            return x.contiguous(memory_format=torch.channels_last) if channels_last and x.dim() == 4 else x
        if isinstance(x, (list, tuple)):
            return type(x)(self._to(i, channels_last) for i in x)
        if isinstance(x, dict):
            return {k: self._to(i, channels_last) for k, i in x.items()}
        return x

    def prepare(self, v: Variant, warmup: int) -> Any:
        torch = self.torch
        self._flags(v)
        torch.manual_seed(0)
        built = self.factory(**v.kwargs)
        if not (isinstance(built, tuple) and len(built) == 2):
            raise TypeError("the factory must return (model, example_inputs)")
        model, inputs = built
        model = model.eval().to(self.device)
        if v.channels_last:
            model = model.to(memory_format=torch.channels_last)
        inputs = self._to(inputs, v.channels_last)
        amp = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(v.dtype)

        def forward() -> Any:
            with torch.inference_mode(), torch.autocast(self.device.type, dtype=amp or torch.float16,
                                                        enabled=amp is not None):
                if isinstance(inputs, dict):
                    return model(**inputs)
                if isinstance(inputs, tuple):
                    return model(*inputs)
                return model(inputs)

        for _ in range(warmup):
            forward()
        torch.cuda.synchronize()
        if not v.graph:
            return forward
        graph = torch.cuda.CUDAGraph()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                forward()
        torch.cuda.current_stream().wait_stream(side)
        with torch.cuda.graph(graph):
            forward()
        torch.cuda.synchronize()

        def replay() -> None:
            graph.replay()

        for _ in range(warmup):
            replay()
        torch.cuda.synchronize()
        return replay

    def time_block(self, step: Any, v: Variant, n: int) -> BlockTimes:
        torch = self.torch
        self._flags(v)
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        out, host = [], []
        clock = time.perf_counter
        for _ in range(n):
            start.record()
            t0 = clock()
            step()
            t1 = clock()
            stop.record()
            stop.synchronize()
            out.append(float(start.elapsed_time(stop)))
            host.append((t1 - t0) * 1e3)
        return BlockTimes(out, host)

    def _host_ms(self, step: Any, v: Variant) -> float:
        """One forward call's host time in ms (until it returns, before the synchronize that follows)."""
        self._flags(v)
        t0 = time.perf_counter()
        step()
        t1 = time.perf_counter()
        self.torch.cuda.synchronize()
        return (t1 - t0) * 1e3

    def profile(self, step: Any, v: Variant, steps: int, path: Path,
                reference: tuple[Any, Variant] | None = None) -> TraceHost:
        torch = self.torch
        from torch.profiler import ProfilerActivity, profile, schedule  # noqa: PLC0415 - with torch, here only

        clock = time.perf_counter
        profiled: list[float] = []
        time_reference = None
        if reference is not None:
            ref_step, ref_variant = reference
            time_reference = lambda: self._host_ms(ref_step, ref_variant)  # noqa: E731 - one call, named for mypy
        unprofiled, ref_unprofiled = time_same_spell(time_reference, lambda: self._host_ms(step, v))
        self._flags(v)
        raw = path.with_suffix("")  # <name>_trace.json
        # one cycle, exported once: torch's warning that a cycle clears the previous one's events is noise here
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*Profiler clears events at the end of each cycle")
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                         schedule=schedule(wait=1, warmup=2, active=steps, repeat=1)) as prof:
                for i in range(1 + 2 + steps):
                    t0 = clock()
                    step()
                    if i >= 3:
                        profiled.append((clock() - t0) * 1e3)
                    torch.cuda.synchronize()
                    prof.step()
            prof.export_chrome_trace(str(raw))
        with open(raw, "rb") as src, gzip.open(path, "wb", compresslevel=9) as dst:
            shutil.copyfileobj(src, dst)
        os.remove(raw)
        return TraceHost(unprofiled, profiled, reference[1].name if reference is not None else None, ref_unprofiled)
