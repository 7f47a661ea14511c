"""One file's analysis: parse → inventory → rules → statistics, the step scan, translate's share and the
build-check all take (one copy of it).

``analyze_file`` never raises for a failure of its own steps: each failure is kept on the result
(``inventory_error``, ``rules_error``, ``stats_error``) so that each pipeline words it as it always has
(scan skips the file, the build-check warns and goes on, translate's share leaves the file without
statistics).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from hipgauge.knowledge.mapping import Mapping, load_mapping
from hipgauge.model import FileStats, Finding
from hipgauge.rules.engine import check_file
from hipgauge.rules.share import file_stats
from hipgauge.source.dualtarget import (FileView, TreeDual, adjust_api_calls, apply_to_findings, file_view,
                                       kernel_variants)
from hipgauge.source.inventory import FileInventory, inventory_file
from hipgauge.rules.registry import anchor_index
from hipgauge.source.defined import QualifierMacro, tree_names
from hipgauge.source.walk import SourceEntry


@dataclass
class FileAnalysis:
    """What ``analyze_file`` learnt from one parsed file, and which of its steps failed."""

    inventory: FileInventory | None = None
    findings: list[Finding] = field(default_factory=list)
    stats: FileStats | None = None
    inventory_error: Exception | None = None
    rules_error: Exception | None = None
    stats_error: Exception | None = None
    #: the file as the CUDA and HIP builds see it (``dualtarget.FileView``), when a tree view was given
    view: FileView | None = None


def analyze_file(pf: Any, *, mapping: Mapping | None = None, defined: frozenset[str] = frozenset(),
                 qualifier_macros: tuple[Any, ...] = (), ignore: set[str] | frozenset[str] = frozenset(),
                 rules: bool = True, stats: bool = True, rules_without_inventory: bool = False,
                 dual: TreeDual | None = None, kind: str | None = None) -> FileAnalysis:
    """Inventory, findings and statistics of one ``ParsedFile``.

    ``defined`` / ``qualifier_macros``: the tree-wide names and qualifier macros (``tree_scan_names``).
    ``ignore``: rule codes never reported. When the inventory fails, the rules run only with
    ``rules_without_inventory`` (the build-check's choice) and no statistics are computed.
    ``dual``: the tree's dual-target view (``dualtarget.tree_dual``): references to names a project shim maps
    count as translated, findings in code only the HIP build compiles (and on shims) are dropped, findings in
    CUDA-only branches become zero-hour notes (``dualtarget.apply_to_findings``), before the statistics.
    """
    out = FileAnalysis()
    try:
        out.inventory = inventory_file(pf, mapping or load_mapping(), defined, qualifier_macros)
    except Exception as exc:  # noqa: BLE001 - kept for the caller to word
        out.inventory_error = exc
        if not rules_without_inventory:
            return out
    if dual is not None:
        kind = str(kind or getattr(pf, "kind", None) or "cuda")
        out.view = file_view(getattr(pf, "display", ""), pf.data, dual, kind)
        script_vis = dual.builds.script_visibility(out.view.file) if dual.builds is not None else None
        if script_vis is not None:  # a CMake script as the build selection read it (if(BUILD_CUDA) … elseif(BUILD_HIP))
            out.view.vis = script_vis
        if out.inventory is not None:
            out.inventory.api_calls = adjust_api_calls(out.inventory.api_calls, dual, out.view)
            kernel_variants(out.view, out.inventory.kernels)
    if rules:
        try:
            out.findings = list(check_file(pf, out.inventory, set(ignore), defined))
            if out.view is not None:
                out.findings = apply_to_findings(out.view, out.findings, dual)
                if dual is not None and dual.builds is not None:  # the tree's build scripts were read
                    from hipgauge.source.build_selection import apply_builds  # noqa: PLC0415 - loaded with them

                    out.findings, dropped, noted = apply_builds(dual.builds, out.view.file, out.findings, out.view.vis,
                                                                str(kind))
                    out.view.dropped += dropped
                    out.view.noted += noted
        except (RecursionError, MemoryError, Exception) as exc:  # noqa: BLE001 - kept for the caller to word
            out.rules_error = exc
    if stats and out.inventory is not None:
        try:
            out.stats = file_stats(pf, out.inventory.api_calls, out.findings)
        except Exception as exc:  # noqa: BLE001 - kept for the caller to word
            out.stats_error = exc
    return out


def tree_qualifier_macros(entries: list[SourceEntry], max_bytes: int = 8 * 1024 * 1024) -> tuple[QualifierMacro, ...]:
    """The qualifier macros ``entries`` define (``ScanOptions.qualifier_macros``): give them to ``inventory_file``
    to find a file's kernels as ``scan_entries`` does."""
    return tree_names(entries, None, max_bytes)[1]


def tree_scan_names(entries: list[SourceEntry], rules: bool = True, max_bytes: int = 8 * 1024 * 1024
                    ) -> tuple[frozenset[str], tuple[QualifierMacro, ...]]:
    """In one pass over the files: the names ``entries`` define that look like CUDA library names
    (``ScanOptions.defined``) and their qualifier macros (``ScanOptions.qualifier_macros``); give both to
    ``inventory_file`` (and the names to ``check_file``) to analyse a file of the tree as ``scan_entries`` does."""
    return tree_names(entries, library_name_test(load_mapping(), rules), max_bytes)


def library_name_test(mapping: Any, rules: bool = True) -> Callable[[str], bool]:
    """Which tree-defined names matter: not an exact name of the mapping, and classified by one of its prefix
    rules or matched by a library rule's anchor."""
    index = None
    if rules:
        index = anchor_index()

    def keep(name: str) -> bool:
        if name in mapping.entries:
            return False
        if mapping.lookup(name) is not None:
            return True
        return index is not None and any(r.category == "library" for r in index.word_rules(name.encode()))
    return keep
