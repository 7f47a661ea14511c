"""Project configuration: ``hipgauge.toml`` or ``[tool.hipgauge]`` in ``pyproject.toml``.

Every key is declared in ``SCHEMA`` with its type, a check and a default; each value is validated by
pydantic (strict: no coercion, no booleans for numbers, no inf/nan, then the key's check). An unknown key,
a wrong type or an out-of-range value is an ``InputError`` whose one line names the file and the key
(``hipgauge.toml: economics.hourly_rate: must be ≥ 0, got -5``).

Values carry their provenance: ``Config.source(key)`` says whether a value came from the file
("config") or is the documented default ("default"), so reports can say where every number came from.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Callable, Union

from hipgauge.errors import InputError
from hipgauge.tomlfile import read_toml_file, toml_module


@dataclass(frozen=True)
class Key:
    """One configuration key: its type, default, description and check."""

    type: type | tuple[type, ...]
    default: Any
    doc: str
    check: Callable[[Any], str | None] | None = None  # returns a reason when the value is bad


def _non_negative(v: Any) -> str | None:
    return None if v >= 0 else f"must be ≥ 0, got {v}"


def _positive(v: Any) -> str | None:
    return None if v > 0 else f"must be > 0, got {v}"


def _fraction(v: Any) -> str | None:
    return None if 0 <= v <= 1 else f"must be between 0 and 1, got {v}"


def _percentile(v: Any) -> str | None:
    return None if 0 < v <= 100 else f"must be in (0, 100], got {v}"


def _one_of(*choices: str) -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        return None if v in choices else f"must be one of {', '.join(choices)}; got {v!r}"

    return check


def _str_list(v: Any) -> str | None:
    return None if isinstance(v, list) and all(isinstance(x, str) for x in v) else "must be a list of strings"


NUM = (int, float)

#: section -> key -> Key. The top-level section is "".
SCHEMA: dict[str, dict[str, Key]] = {
    "": {
        "exclude": Key(list, [], "glob patterns of paths to leave out of scans", _str_list),
        "ignore": Key(list, [], "rule codes never reported (e.g. ['HG405'])", _str_list),
        "max_file_bytes": Key(int, 8 * 1024 * 1024, "source files larger than this are skipped", _positive),
        "defines": Key(list, [], "preprocessor switches for the dual-target view: NAME[=V] (both builds), "
                                 "hip:NAME[=V], cuda:NAME[=V], [hip:|cuda:]!NAME (undefined)", _str_list),
    },
    "objectives": {
        "primary": Key(str, "unknown", "what the port is for", _one_of("portability", "throughput", "balanced", "unknown")),
        "fleet": Key(str, "unknown", "the GPUs the team runs today", _one_of("nvidia-only", "mixed", "amd", "unknown")),
        "procurement_pressure": Key(str, "unknown", "pressure to buy a second vendor", _one_of("none", "some", "strong", "unknown")),
        "latency_target_ms": Key(NUM, None, "end-to-end latency target at the percentile", _positive),
        "percentile": Key(NUM, 99.0, "latency percentile the target applies to", _percentile),
    },
    "economics": {
        "hourly_rate": Key(NUM, 150.0, "loaded cost of one engineering hour (USD)", _non_negative),
        "releases_per_year": Key(NUM, 8.0, "toolchain releases to validate per year (CUDA + ROCm)", _non_negative),
        "validation_hours_per_release": Key(NUM, 16.0, "hours to re-validate both toolchains per release", _non_negative),
        "tuned_variant_hours_per_year": Key(NUM, 12.0, "yearly upkeep per kernel that needs a vendor-tuned variant", _non_negative),
        "fleet_spend_per_year": Key(NUM, 0.0, "yearly GPU spend (USD) the lock-in applies to", _non_negative),
        "procurement_leverage": Key(NUM, 0.05, "expected saving from a second vendor, as a fraction of spend", _fraction),
        "slow_ratio_threshold": Key(NUM, 1.10, "a kernel slower than this ratio needs tuning", _positive),
    },
    # Overrides of hipgauge/data/cost_model.toml (None = the value in that file; see its header for the model).
    "cost_model": {
        "finding_low_factor": Key(NUM, None, "low-end multiplier on a rule's effort hours", _non_negative),
        "finding_high_factor": Key(NUM, None, "high-end multiplier on a rule's effort hours", _non_negative),
        "tuning_bands": Key(list, None, "[[max_ratio, low_hours, high_hours], …] per slow kernel", lambda v: None if all(isinstance(b, list) and len(b) == 3 and all(isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0 for x in b) for b in v) else "must be a list of [max_ratio, low_hours, high_hours] with numbers ≥ 0"),
        "unmatched_kernel_hours_low": Key(NUM, None, "hours per baseline kernel with no counterpart (low)", _non_negative),
        "unmatched_kernel_hours_high": Key(NUM, None, "hours per baseline kernel with no counterpart (high)", _non_negative),
        "library_op_hours_low": Key(NUM, None, "hours per unmapped library operator (low)", _non_negative),
        "library_op_hours_high": Key(NUM, None, "hours per unmapped library operator (high)", _non_negative),
        "build_error_hours_low": Key(NUM, None, "hours per port compile error no finding covers (low)", _non_negative),
        "build_error_hours_high": Key(NUM, None, "hours per port compile error no finding covers (high)", _non_negative),
        "min_kernel_share": Key(NUM, None, "kernels under this share of baseline time are not costed", _fraction),
        "dual_variant_categories": Key(list, None, "rule categories whose kernels keep two tuned variants", _str_list),
        "review_confidences": Key(list, None, "finding confidences listed for review with no hours (not costed)",
                                  _str_list),
        "library_family_hours": Key(dict, None, "{RULE = [low, high]}: hours per distinct kernel family of a template "
                                    "library rule (CUTLASS → Composable Kernel)", lambda v: None if isinstance(v, dict) and all(isinstance(b, list) and len(b) == 2 and all(isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0 for x in b) for b in v.values()) else "must map rule codes to [low_hours, high_hours]"),
        "horizon_years": Key(int, None, "years over which break-even is searched", _positive),
        "whatif_ratios": Key(list, None, "slowdowns tabulated per kernel group", lambda v: None if all(isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0 for x in v) else "must be a list of numbers > 0"),
    },
    "build": {
        "amd_arch": Key(list, ["gfx90a", "gfx940"], "AMD targets for build-check", _str_list),
        "nvidia_arch": Key(list, ["sm_90", "sm_80"], "NVIDIA targets for build-check", _str_list),
        "include_dirs": Key(list, [], "extra include directories for compile checks", _str_list),
        "defines": Key(list, [], "extra -D definitions for compile checks", _str_list),
        "timeout_s": Key(NUM, 300, "wall-time limit per compiler invocation", _positive),
    },
    "compare": {
        "map": Key(str, "", "kernel mapping file (glob -> glob), relative to the config file", None),
    },
}


@dataclass
class Config:
    """Configuration values by dotted key, with where each came from (config file, default or flag)."""

    values: dict[str, Any] = field(default_factory=dict)  # "section.key" (or "key") -> value
    sources: dict[str, str] = field(default_factory=dict)  # same keys -> "config" | "default" | "flag"
    path: str | None = None

    def get(self, dotted: str) -> Any:
        return self.values[dotted]

    def source(self, dotted: str) -> str:
        return self.sources.get(dotted, "default")

    def override(self, dotted: str, value: Any) -> None:
        """Set a value from a command-line flag (validated like the file's)."""
        section, _, key = dotted.rpartition(".")
        spec = SCHEMA[section][key]
        self.values[dotted] = _validate(spec, value, dotted, "command line")
        self.sources[dotted] = "flag"

    def section(self, name: str) -> dict[str, Any]:
        prefix = name + "."
        return {k[len(prefix):]: v for k, v in self.values.items() if k.startswith(prefix)}


def _validate(spec: Key, value: Any, dotted: str, where: str) -> Any:
    """``value`` checked by pydantic against the key's type (strict: no coercion, no booleans for numbers,
    no inf/nan) and its check; any failure is one InputError naming ``where`` and the key."""
    from pydantic import ValidationError  # noqa: PLC0415 - pydantic loads only when a file or flag sets a value

    if value is None:
        return None
    try:
        return _adapter(spec).validate_python(value)
    except ValidationError as exc:
        raise InputError(f"{dotted}: {_reason(spec, value, exc)}", where) from None


_ADAPTERS: dict[int, tuple[Key, Any]] = {}


def _adapter(spec: Key) -> Any:
    """A strict pydantic validator of one key (built once per key)."""
    kept = _ADAPTERS.get(id(spec))
    if kept is None or kept[0] is not spec:
        kept = _ADAPTERS[id(spec)] = (spec, _build_adapter(spec))
    return kept[1]


def _build_adapter(spec: Key) -> Any:
    """A strict pydantic ``TypeAdapter`` of one key: its type, finite numbers, then its check."""
    from pydantic import (  # noqa: PLC0415 - see _validate
        AfterValidator, AllowInfNan, Strict, StrictBool, StrictInt, StrictStr, TypeAdapter)

    number = Annotated[Union[StrictInt, Annotated[float, Strict(), AllowInfNan(False)]], "number"]
    base: Any = {str: StrictStr, int: StrictInt, list: Annotated[list, Strict()], dict: Annotated[dict, Strict()],
                       bool: StrictBool}.get(
        spec.type, number) if not isinstance(spec.type, tuple) else number
    validators: list[Any] = [AfterValidator(_finite_or_fail)]
    if spec.check is not None:
        validators.append(AfterValidator(_check_or_fail(spec.check)))
    annotated: Any = Annotated  # subscripted with a built tuple (no star inside [] before Python 3.11)
    return TypeAdapter(annotated[tuple([base, *validators])])


def _finite_or_fail(value: Any) -> Any:
    if not _finite(value):
        raise ValueError(f"must be a finite number, got {value!r}")
    return value


def _check_or_fail(check: Callable[[Any], str | None]) -> Callable[[Any], Any]:
    def run(value: Any) -> Any:
        reason = check(value)
        if reason:
            raise ValueError(reason)
        return value

    return run


def _reason(spec: Key, value: Any, exc: Any) -> str:
    """The one-line reason of a pydantic error, in hipgauge's words."""
    errors = exc.errors(include_url=False)
    for e in errors:
        if e.get("type") == "value_error":  # our own check's reason
            return str(e.get("ctx", {}).get("error", e.get("msg", "")))
        if e.get("type") == "finite_number":
            return f"must be a finite number, got {value!r}"
    if isinstance(value, bool):
        return f"expected {_type_name(spec.type)}, got a boolean"
    return f"expected {_type_name(spec.type)}, got {type(value).__name__} {value!r}"


def _finite(value: Any) -> bool:
    """False when ``value`` is, or (in a list) holds, an infinite or NaN float."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


def _type_name(t: type | tuple[type, ...]) -> str:
    if isinstance(t, tuple):
        return "a number" if set(t) == {int, float} else " or ".join(x.__name__ for x in t)
    return {str: "a string", int: "an integer", list: "a list", bool: "true/false", dict: "a table"}.get(t, t.__name__)


def _shown(key: str) -> str:
    """A key as written, quoted when it holds a newline or another unprintable character (one-line errors)."""
    return key if key.isprintable() else repr(key)


def defaults() -> Config:
    cfg = Config()
    for section, keys in SCHEMA.items():
        for key, spec in keys.items():
            dotted = f"{section}.{key}" if section else key
            cfg.values[dotted] = spec.default
            cfg.sources[dotted] = "default"
    return cfg


def find_config(start: Path) -> Path | None:
    """The nearest hipgauge.toml, or a pyproject.toml with [tool.hipgauge], at or above ``start``."""
    start = start if start.is_dir() else start.parent
    for folder in [start, *start.parents]:
        candidate = folder / "hipgauge.toml"
        if candidate.is_file():
            return candidate
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            try:
                text = pyproject.read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError):
                continue
            if "hipgauge" not in text:  # no [tool.hipgauge] can be in it: not parsed (tomllib is ~5 ms of a
                continue  # pre-commit scan in a Python project)
            tomllib = toml_module()
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError:
                continue
            tool = data.get("tool", {})
            if isinstance(tool, dict) and "hipgauge" in tool:
                return pyproject
    return None


def load(path: Path | str | None = None, start: Path | str | None = None) -> Config:
    """Load and validate a config file (``path``), or find one from ``start``; defaults when none."""
    cfg = defaults()
    if path is None and start is not None:
        path = find_config(Path(start))
    if path is None:
        return cfg
    path = Path(path)
    data = read_toml_file(path, "config file not found", "cannot read config")
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        data = tool.get("hipgauge", {}) if isinstance(tool, dict) else {}
    if not isinstance(data, dict):
        raise InputError("[tool.hipgauge] must be a table", path)
    cfg.path = str(path)
    for name, value in data.items():
        if name in SCHEMA and name != "":
            if not isinstance(value, dict):
                raise InputError(f"{name}: expected a table", path)
            for key, item in value.items():
                dotted = f"{name}.{key}"
                spec = SCHEMA[name].get(key)
                if spec is None:
                    known = ", ".join(sorted(SCHEMA[name]))
                    raise InputError(f"{_shown(dotted)}: unknown key (known in [{name}]: {known})", path)
                cfg.values[dotted] = _validate(spec, item, dotted, str(path))
                cfg.sources[dotted] = "config"
        else:
            spec = SCHEMA[""].get(name)
            if spec is None:
                known = ", ".join(sorted([*SCHEMA[""], *[s for s in SCHEMA if s]]))
                raise InputError(f"{_shown(name)}: unknown key (known: {known})", path)
            cfg.values[name] = _validate(spec, value, name, str(path))
            cfg.sources[name] = "config"
    return cfg
