"""The per-file pass after either rewrite path (tree or lexical): target-aware edits (``target.py``) and the
runtime include (``runtime_include.py``), with the file's references and statistics brought up to date."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hipgauge.model import ApiCall
from hipgauge.translate.result import TranslatedFile, finish_file
from hipgauge.translate.runtime_include import INCLUDE, insert_runtime_include
from hipgauge.translate.safe_rewrites import RUNTIME_INCLUDE, SafeRewrite
from hipgauge.translate.target import apply_target


def adjust_file(tf: TranslatedFile, pf: Any, opts: Any) -> TranslatedFile:
    """``tf`` with ``opts.rocm``'s edits and, when the tree pass chose this file, the runtime include."""
    if pf.kind not in ("cuda", "cpp", "header"):
        return tf
    text = tf.text
    rewrites = list(tf.safe_rewrites)
    notes = [n for n in tf.notes if n != getattr(pf, "decode_note", None)]
    converted: dict[tuple[int, str], str] = {}
    touched = False
    if opts.rocm is not None:
        res = apply_target(text, opts.rocm, opts.safe_rewrites, opts.device_symbols, opts.known_local_names)
        if res.edits:
            touched = True
            text = res.text
            for e in res.edits:
                rewrites.append(SafeRewrite(pf.display, e.line, e.rule, e.before.strip(), e.after, e.assumption))
                converted[(e.line, e.cuda_name)] = e.hip_name
    if RUNTIME_INCLUDE in opts.safe_rewrites and pf.display in opts.runtime_include_files:
        text, line, kept = insert_runtime_include(text)
        touched = True
        rewrites.append(SafeRewrite(pf.display, line, RUNTIME_INCLUDE, "", INCLUDE,
                                    "nvcc includes the CUDA runtime in every .cu by itself; hipcc does not"))
        if not kept:
            notes.append(f"{pf.display}: {INCLUDE} added as a new first line with #line 1 after it (no blank or "
                         "comment line before the first code): later lines moved down by 2, compiler line numbers "
                         "unchanged")
    if not touched:
        return tf
    refs: list[ApiCall] = []
    flags: list[bool] = []
    unconverted = {id(u) for u in tf.unconverted}
    for r in tf.references:
        ok = id(r) not in unconverted
        key = (r.line, r.cuda_name)
        if not ok and key in converted:
            r = replace(r, hip_name=converted[key], status="mapped")
            ok = True
        refs.append(r)
        flags.append(ok)
    encoding = pf.encoding if pf.encoding != "utf-8" else "utf-8"
    out = text.encode(encoding, errors="replace")
    return finish_file(pf, text, out, refs, flags, rewrites, notes)
