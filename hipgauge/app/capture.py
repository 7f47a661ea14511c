"""``hipgauge capture commands``: the exact profiler command lines for one program, both vendors.

The templates are data (``hipgauge/data/capture_commands.toml``); the counter names come from what the figures
need (``profiles.counter_formulas.NEEDED``) plus the data file's extras, so what this prints is what
``compare`` reads. Nothing is run.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from hipgauge.datafiles import load_data_toml
from hipgauge.errors import InputError
from hipgauge.profiles.counter_formulas import NEEDED, NVIDIA_LIMITERS

SCHEMA = "hipgauge.capture/1"


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    return load_data_toml("capture_commands.toml")


def tool_ids() -> list[str]:
    return [t["id"] for t in _data()["tool"]]


def amd_archs() -> list[str]:
    return [p["arch"] for p in _data()["amd_passes"]]


def ncu_metrics() -> list[str]:
    """Every metric the NVIDIA figures need, then the launch statistics and limiters, each once, in that order."""
    names = [m for fig in NEEDED["nvidia"].values() for m in fig] + list(_data()["ncu_extra_metrics"])
    names += list(NVIDIA_LIMITERS)
    return list(dict.fromkeys(names))


def amd_passes(arch: str) -> tuple[str, list[str]]:
    """(label, pmc lines) of the pass file for ``arch`` (gfx90a, gfx942)."""
    for p in _data()["amd_passes"]:
        if p["arch"] == arch:
            return p["label"], [f"pmc: {line}" for line in p["passes"]]
    raise InputError(f"--amd-arch {arch!r}: choose one of {', '.join(amd_archs())}")


@dataclass
class CaptureCommand:
    tool: str
    vendor: str
    what: str
    lines: list[str]
    gives: str

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "vendor": self.vendor, "what": self.what, "lines": self.lines, "gives": self.gives}


def commands(program: list[str], out: str = "hipgauge-capture", name: str = "run", tools: list[str] | None = None,
             arch: str = "gfx942") -> list[CaptureCommand]:
    """The command lines of every tool (or of ``tools``) for ``program`` (argv), writing under ``out``."""
    if not program:
        raise InputError("give the program to profile after the options, e.g. -- python serve.py --batch 8")
    unknown = [t for t in tools or [] if t not in tool_ids()]
    if unknown:
        raise InputError(f"--tool {unknown[0]!r}: choose among {', '.join(tool_ids())}")
    label, passes = amd_passes(arch)
    metrics = ",".join(ncu_metrics())
    fields = {
        "program": shlex.join(program), "out": shlex.quote(out), "name": shlex.quote(name), "metrics": metrics,
        "sections": " ".join(f"--section {s}" for s in _data()["ncu_sections"]),
        "passes": "\n".join(passes), "passes_file": shlex.quote(f"{out}/counters_{arch}.txt"), "arch_label": label,
    }
    result = []
    for t in _data()["tool"]:
        if tools and t["id"] not in tools:
            continue
        result.append(CaptureCommand(tool=t["id"], vendor=t["vendor"], what=t["what"].format(**fields),
                                     lines=[line.format(**fields) for line in t["lines"]],
                                     gives=t["gives"].format(**fields)))
    return result


def document(program: list[str], cmds: list[CaptureCommand], out: str, arch: str) -> dict[str, Any]:
    return {"schema": SCHEMA, "program": program, "out": out, "amd_arch": arch,
            "commands": [c.to_dict() for c in cmds],
            "note": ("commands only, nothing was run; the counter tools serialize and replay kernels: take time from "
                     "a timeline (nsys, rocprofv3 --kernel-trace, torch.profiler) and latency from a CSV measured with "
                     "device events, interleaved (hipgauge capture torch)")}
