"""What a kernel name says about the work: the template arguments that change it, kept.

``normalize_key`` (``kernel_names``) strips all template arguments so that one kernel matches across
builds and vendors; but for PyTorch's generic kernels the template argument *is* the work:
``at::native::vectorized_elementwise_kernel<4, FillFunctor<float>, …>`` and
``…<4, BinaryFunctor<c10::BFloat16, …, MulFunctor<float>>, …>`` share a key and do different things.

- ``work_key(name)``: the normalized key plus the distinguishing template arguments (functors and
  dtypes; vector widths, ``Array<char*, N>`` argument packs and launch bounds dropped), for matching.
- ``abbreviate(name, width)``: a table label that fits ``width``: no namespaces, no lambda noise, the
  distinguishing template arguments kept (``vectorized_elementwise_kernel<GeluCUDAKernelImpl λ(BFloat16)>``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from hipgauge.kernel_names import demangle, normalize_key

_NUMERIC = re.compile(r"^\(?[-+]?\d+[uUlL]*\)?$|^(true|false)$")
_NS = re.compile(r"\b[A-Za-z_]\w*::")
_ANON = re.compile(r"\(anonymous namespace\)::")
_LAMBDA_ARGS = re.compile(r"\{lambda\(([^()]*)\)#\d+\}")
_PACKS = ("std::array<char*", "at::detail::Array<char*", "at::cuda::detail::Array<char*", "OffsetCalculator<",
          "TrivialOffsetCalculator<", "at::native::memory::", "at::cuda::", "std::integral_constant")


def _template_args(text: str, key_tail: str) -> list[str] | None:
    """The top-level template arguments following the kernel's own name in ``text``."""
    pos = text.find(key_tail + "<")
    if pos < 0:
        return None
    i = pos + len(key_tail)
    depth = 0
    start = i + 1
    args: list[str] = []
    paren = 0
    for j in range(i, len(text)):
        ch = text[j]
        if ch == "(":
            paren += 1
        elif ch == ")":
            paren -= 1
        elif ch == "<" and paren == 0:
            depth += 1
        elif ch == ">" and paren == 0:
            depth -= 1
            if depth == 0:
                args.append(text[start:j])
                return [a.strip() for a in args]
        elif ch == "," and depth == 1 and paren == 0:
            args.append(text[start:j])
            start = j + 1
    return None


def _simplify(arg: str) -> str:
    """One template argument without namespaces and lambda noise."""
    arg = _ANON.sub("", arg)
    if "{lambda" in arg:
        head = arg.split("(", 1)[0]
        head = _NS.sub("", head).replace(", ", ",").replace(" >", ">").strip()
        params = _LAMBDA_ARGS.findall(arg)
        last = next((p for p in reversed(params) if p.strip()), "")
        last = _NS.sub("", last).replace(" ", "")
        if "<" in head:
            # the wrapper's own template argument names the functor: the lambda adds nothing
            inner = head[head.index("<") + 1: head.rindex(">")] if ">" in head else head
            return inner
        return f"{head} λ({last})" if last and last not in ("int", "unsignedint", "long") else head
    return _NS.sub("", arg).replace(", ", ",").replace(" >", ">")


def _distinguishing(args: list[str]) -> list[str]:
    out = []
    for a in args:
        if not a or _NUMERIC.match(a) or a.startswith(_PACKS):
            continue
        out.append(_simplify(a))
    return out


@lru_cache(maxsize=65536)
def work_key(name: str) -> str:
    """``normalize_key(name)`` with the template arguments that change the work appended."""
    if not name:
        return ""
    key = normalize_key(name)
    if not key:
        return name
    text = demangle(name)
    tail = key.split("::")[-1]
    args = _template_args(text, tail)
    keep = _distinguishing(args) if args else []
    return f"{key}<{','.join(keep)}>" if keep else key


@lru_cache(maxsize=65536)
def abbreviate(name: str, width: int = 40) -> str:
    """A table label of at most ``width`` characters that still tells two kernels apart."""
    if not name:
        return ""
    try:
        key = normalize_key(name) or name
        text = demangle(name)
    except Exception:  # noqa: BLE001 - an unparsable name is shown as it is, shortened
        key, text = name, name
    tail = key.split("::")[-1] if "<" not in key else key
    args = _template_args(text, tail) if "<" not in key else None
    keep = _distinguishing(args) if args else []
    label = _NS.sub("", _ANON.sub("", tail)) + (f"<{','.join(keep)}>" if keep else "")
    if len(label) <= width:
        return label
    base = _NS.sub("", tail)
    if keep:
        inner = ",".join(keep)
        if len(base) + len(inner) + 2 > width:
            inner = _compact_args(inner)
        if len(base) + len(inner) + 2 > width:
            base = _compact_words(base)
        # the arguments are what tells generic kernels apart: they get at least half the room
        room = max(width // 2, width - len(base) - 2)
        if len(inner) > room:
            inner = _middle(inner, room)
        base = _middle(base, max(width - len(inner) - 2, 4))
        return f"{base}<{inner}>"
    return _middle(label, width)


_WRAPPERS = {"BinaryFunctor", "AUnaryFunctor", "BUnaryFunctor", "UnaryFunctor", "gpu_kernel_impl_nocast",
             "gpu_kernel_impl", "func_wrapper_t", "ReduceOp", "Flash_kernel_traits", "unsigned", "int", "long",
             "true", "false", "char"}
_DTYPES = {"BFloat16", "Half", "__half", "float", "double", "bfloat16_t", "half_t", "Float8_e4m3fn", "Float8_e5m2",
           "bool", "int8_t", "uint8_t"}


def _compact_args(inner: str) -> str:
    """``BinaryFunctor<BFloat16,BFloat16,BFloat16,MulFunctor<float>>`` → ``MulFunctor,BFloat16,float``: the
    functor names that are not generic wrappers, then the distinct dtypes, in order of appearance."""
    names: list[str] = []
    types: list[str] = []
    for tok in re.findall(r"[A-Za-z_]\w*", inner):
        if tok in _DTYPES:
            if tok not in types:
                types.append(tok)
        elif tok not in _WRAPPERS and not tok.isdigit():
            tok = re.sub(r"(Functor|_functor|CUDAKernelImpl)$", "", tok) or tok
            if tok not in names:
                names.append(tok)
    return ",".join(names + types) or inner


def _compact_words(base: str) -> str:
    """``vectorized_elementwise_kernel`` → ``vect_elem_kernel``: long words of a snake_case name cut to four letters."""
    words = base.split("_")
    if len(words) < 2:
        return base
    return "_".join(w[:4] if len(w) > 6 and i < len(words) - 1 else w for i, w in enumerate(words))


def _middle(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    head = width // 2
    return text[:head] + "…" + text[len(text) - (width - 1 - head):]
