"""Operator call signatures: what work a kernel was launched for.

A signature is the launching operator with its inputs' dims, types and concrete (scalar) values, as
PyTorch's profiler records them with ``record_shapes=True``. Two kernels launched by calls of different
signatures do different work, whatever their names: matching pairs kernels only within one signature
(``profiles.match``), and a row that has to hold several says so.

Readers store a signature in the ``operator_signature`` / ``range_signature`` columns as the compact
JSON text ``encode`` writes; this module reads it back (``decode``) and formats it for people
(``describe``: ``aten::bmm [12,577,64]×[12,64,577] bf16``). It knows nothing of file formats.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

#: PyTorch's C++ type names → the short names people use
_SHORT_TYPES = {
    "float": "fp32", "double": "fp64", "c10::Half": "fp16", "c10::BFloat16": "bf16", "half": "fp16",
    "bfloat16": "bf16", "long int": "int64", "int": "int32", "short int": "int16", "signed char": "int8",
    "unsigned char": "uint8", "bool": "bool", "c10::Float8_e4m3fn": "fp8e4m3", "c10::Float8_e5m2": "fp8e5m2",
    "c10::Float8_e4m3fnuz": "fp8e4m3fnuz", "c10::Float8_e5m2fnuz": "fp8e5m2fnuz", "c10::complex<float>": "c64",
}


@dataclass(frozen=True)
class Signature:
    operator: str
    input_dims: tuple[Any, ...]  # per input: a list of ints for a tensor, [] for a scalar or none
    input_types: tuple[str, ...]
    concrete_inputs: tuple[Any, ...] = ()

    @property
    def work(self) -> str:
        """The inputs without the operator's name: the same work under a vendor's operator name
        (``aten::cudnn_convolution`` ↔ ``aten::miopen_convolution``) has the same work key."""
        return json.dumps([list(self.input_dims), list(self.input_types)], separators=(",", ":"))

    def to_dict(self) -> dict[str, Any]:
        return {"operator": self.operator, "input_dims": list(self.input_dims),
                "input_types": list(self.input_types), "concrete_inputs": list(self.concrete_inputs)}


def encode(operator: str, dims: Any, types: Any, concrete: Any = None) -> str:
    """The canonical text of one signature (what readers put in the frame)."""
    return json.dumps([operator, dims if isinstance(dims, list) else [],
                       types if isinstance(types, list) else [],
                       concrete if isinstance(concrete, list) else []], separators=(",", ":"))


def _freeze(x: Any) -> Any:
    return tuple(_freeze(v) for v in x) if isinstance(x, list) else x


@lru_cache(maxsize=65536)
def decode(text: str | None) -> Signature | None:
    """The signature of an ``encode`` text; None for None or text that is not one."""
    if not text:
        return None
    try:
        op, dims, types, concrete = json.loads(text)
    except (ValueError, TypeError):
        return None
    return Signature(str(op), _freeze(dims), tuple(str(t) for t in types), _freeze(concrete))


def short_type(t: str) -> str:
    return _SHORT_TYPES.get(t, t)


def _dims_text(d: Any) -> str:
    """``(12, 577, 64)`` → ``[12,577,64]``; a tensor list's nested dims the same way, nested."""
    return "[" + ",".join(_dims_text(x) if isinstance(x, (tuple, list)) else str(x) for x in d) + "]"


@lru_cache(maxsize=65536)
def describe(text: str | None, width: int = 0) -> str:
    """``aten::bmm [12,577,64]×[12,64,577] bf16``: the operator, its tensor inputs' dims and their
    distinct types (scalars left out). ``width`` > 0 shortens the dims list to fit."""
    sig = decode(text)
    if sig is None:
        return ""
    tensors = [(d, t) for d, t in zip(sig.input_dims, sig.input_types) if isinstance(d, tuple) and d]
    dims = "×".join(_dims_text(d) for d, _ in tensors)
    types: list[str] = []
    for _, t in tensors:
        s = short_type(t)
        if s and s not in types:
            types.append(s)
    out = " ".join(x for x in (sig.operator, dims, "/".join(types)) if x)
    if width and len(out) > width and len(tensors) > 1:
        first = _dims_text(tensors[0][0])
        out = " ".join(x for x in (sig.operator, f"{first}×…({len(tensors) - 1} more)", "/".join(types)) if x)
    return out


def types_of(text: str | None) -> list[str]:
    """The distinct short type names of a signature's tensor inputs."""
    sig = decode(text)
    if sig is None:
        return []
    out: list[str] = []
    for d, t in zip(sig.input_dims, sig.input_types):
        s = short_type(t)
        if isinstance(d, tuple) and d and s and s not in out:
            out.append(s)
    return out
