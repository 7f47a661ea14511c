"""Terminal views of the ``hipgauge.translate/1`` and ``hipgauge.build-check/1`` documents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hipgauge.report.plaintext import table as new_table

if TYPE_CHECKING:
    from rich.console import Console


def _p(out: Console, text: str, style: str | None = None) -> None:
    out.print(text, markup=False, emoji=False, highlight=False, style=style)


def render_translate(out: Console, doc: dict[str, Any], limit: int = 20) -> None:
    s = doc["summary"]
    if s.get("caveat"):
        _p(out, "⚠ " + s["caveat"], style="bold yellow")
    table = new_table(out, title=f"translate {doc['source']} → {doc['output']}", show_lines=False)
    for col in ("file", "converted", "unconverted", "safe rewrites", "lines changed", "share"):
        table.add_column(col, justify="left" if col == "file" else "right")
    for f in doc["files"]:
        if f["converted"] or f["unconverted"] or f["changed"]:
            table.add_row(f["file"], str(f["converted"]), str(f["unconverted"]), str(sum(f["safe_rewrites"].values())),
                          str(f["lines_changed"]), f"{f['translation_share']:.0%}")
    out.print(table)
    kinds = ", ".join(f"{k} {v}" for k, v in s["converted_by_kind"].items()) or "none"
    rewrites = ", ".join(f"{k} {v}" for k, v in s["safe_rewrites"].items()) or "none"
    _p(out, f"files: {s['files']} translated ({s['files_changed']} changed), {s['files_copied']} copied")
    _p(out, f"converted references: {s['converted']} ({kinds}); unconverted: {s['unconverted']}")
    _p(out, f"safe rewrites: {rewrites}; lines changed: {s['lines_changed']}")
    _p(out, f"translation share: {s['translation_share']:.1%} of {s['cuda_lines']} CUDA lines need no hand edit "
              "(measured on this tree)")
    if s.get("files_not_analysed"):
        _p(out, f"not analysed: {s['files_not_analysed']} file(s) over max_file_bytes, copied unchanged and not in "
                "the share above")
    if not doc["options"].get("rules_share", True):
        _p(out, "(--no-share: scan's rules share not computed; this is translate's own count of lines left with no "
           "unconverted reference)")
    rocm = doc["options"].get("rocm")
    if rocm:
        _p(out, f"target: ROCm {rocm['version']} ({rocm['basis']}; *_sync warp builtins: {rocm['warp_sync']}, "
                f"{rocm['source']})")
    assumed = [r for r in doc["safe_rewrites"] if r.get("assumption") and r["rule"] != "runtime-include"]
    if assumed:
        _p(out, f"assumptions made by rewrites ({len(assumed)}):")
        for r in assumed[:limit]:
            _p(out, f"  {r['file']}:{r['line']}: {r['assumption']}")
        if len(assumed) > limit:
            _p(out, f"  … {len(assumed) - limit} more (--json lists all)")
    if doc["unconverted"]:
        _p(out, f"unconverted references ({len(doc['unconverted'])}):")
        for u in doc["unconverted"][:limit]:
            _p(out, f"  {u['file']}:{u['line']}: {u['cuda_name']} ({u['library']}, {u['status']})")
        if len(doc["unconverted"]) > limit:
            _p(out, f"  … {len(doc['unconverted']) - limit} more (--json lists all)")


def _res_cell(k: dict[str, Any] | None, occ: dict[str, Any] | None) -> str:
    if k is None:
        return "—"
    if k["vendor"] == "nvidia":
        text = f"{k['registers']} regs, smem {k['shared_bytes']} B"
        if k.get("spill_stores_bytes") or k.get("spill_loads_bytes"):
            text += f", spill {k['spill_stores_bytes']}/{k['spill_loads_bytes']} B"
    else:
        text = f"{k['vgprs']} V/{k['sgprs']} S/{k['agprs']} A, LDS {k['shared_bytes']} B"
        if k.get("stack_frame_bytes"):
            text += f", scratch {k['stack_frame_bytes']} B"
        if k.get("vgpr_spills") or k.get("sgpr_spills"):
            text += f", spill {k['vgpr_spills']}V/{k['sgpr_spills']}S"
    if occ is not None:
        text += f"; occ {occ['occupancy']:.0%} ({occ['limiter']})"
    return text


def render_build_check(out: Console, doc: dict[str, Any], limit: int = 30) -> None:
    tc = doc["toolchains"]
    for name in ("hipcc", "nvcc"):
        t = tc.get(name)
        _p(out, f"{name}: {t['path']} ({t['version'] or 'version unknown'})" if t else f"{name}: not found")
    if doc.get("translation"):
        tr = doc["translation"]
        _p(out, f"translated on the fly: {tr['converted']} references converted, {tr['unconverted']} unconverted, "
           f"translation share {tr['translation_share']:.1%}")
    table = new_table(out, title="compile")
    for col in ("file", "arch", "compiler", "result", "seconds"):
        table.add_column(col)
    for c in doc["compiles"]:
        res = "ok" if c["ok"] else (c["error"] or f"FAILED: {c['errors']} error(s)")
        table.add_row(c["file"], c["arch"], c["compiler"], res, f"{c['seconds']:.1f}")
    out.print(table)
    errors = [(c["arch"], d) for c in doc["compiles"] for d in c["diagnostics"]]
    if errors:
        _p(out, f"errors ({len(errors)}), at the CUDA source line:")
        for arch, d in errors[:limit]:
            where = f"{d['file']}:{d['line']}" if d["file"] else "(compiler)"
            codes = f" [{', '.join(d['rule_codes'])}]" if d["rule_codes"] else ""
            _p(out, f"  {where}: [{arch}] {d['message']}{codes}")
        if len(errors) > limit:
            _p(out, f"  … {len(errors) - limit} more (--json lists all)")
    archs = list(doc["nvidia_arch"]) + list(doc["amd_arch"])
    kt = new_table(out, title="kernels (resources: measured by the compilers; occupancy: estimated, arch_limits.toml)")
    kt.add_column("kernel")
    kt.add_column("block")
    for a in archs:
        kt.add_column(a)
    kt.add_column("flags")
    for k in doc["kernels"]:
        name = k["kernel"].split("(")[0]
        block = f"{k['block_size']}" + ("" if k["block_size_source"].startswith("launch") else " (assumed)")
        cells = [_res_cell(k["resources"].get(a), k["occupancy"].get(a)) for a in archs]
        kt.add_row(f"{name}\n{k['file']}:{k['line']}", block, *cells, "\n".join(k["flags"]))
    out.print(kt)
