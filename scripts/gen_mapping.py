#!/usr/bin/env python3
"""Generate ``hipgauge/data/hipify_mapping.tsv`` from the public HIPIFY tables.

Input: ``shared/knowledge/hipify/mapping.tsv`` (CUDA → HIP) and ``mapping_roc.tsv`` (CUDA → ROC/MIOpen),
both derived from ROCm/HIPIFY ``docs/tables`` at commit 014177b (the folder's ``SOURCE.md`` says how).

Output columns: ``cuda_name hip_name library kind status``.

* ``library`` is our short name: runtime, driver, device, cublas, cublaslt, cudnn, cufft, cusparse,
  curand, cusolver, cub, nvrtc, complex (the other libraries come from ``mapping_extra.tsv``).
* ``kind`` is function, type, enum or macro (the tables' ``device_function`` becomes ``function``).
* ``status`` is ``mapped`` (HIP has it; the tables' supported/experimental), ``deprecated`` (HIP has it,
  but CUDA deprecated or removed the name), or ``unsupported`` (no HIP counterpart).
* cuDNN maps to MIOpen (the ROC table), the library ROCm ships for it; hipDNN names in the HIP table
  are used only where MIOpen has no counterpart, so a translated tree stays on one library as far as
  the tables allow.

Usage: ``python scripts/gen_mapping.py [--knowledge DIR] [--out FILE]``.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_KNOWLEDGE = REPO.parent / "shared" / "knowledge" / "hipify"
DEFAULT_OUT = REPO / "hipgauge" / "data" / "hipify_mapping.tsv"
GENERATED = "2026-11-29"
HIPIFY_TABLES = "https://github.com/ROCm/HIPIFY/tree/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables"

LIBRARY = {
    "CUDA Runtime API": "runtime",
    "CUDA Driver API": "driver",
    "CUDA Device API": "device",
    "cuBLAS": "cublas",
    "cuDNN": "cudnn",
    "cuFFT": "cufft",
    "cuSPARSE": "cusparse",
    "cuRAND": "curand",
    "cuSOLVER": "cusolver",
    "CUB": "cub",
    "NVRTC": "nvrtc",
    "cuComplex": "complex",
}
# preference when a name is listed by several tables (e.g. CUstream_st in runtime and driver)
ORDER = ["runtime", "driver", "device", "cublas", "cublaslt", "cudnn", "cufft", "cusparse", "curand",
         "cusolver", "cub", "nvrtc", "complex"]


def library_of(table_library: str, section: str, name: str) -> str:
    lib = LIBRARY[table_library]
    if lib == "cublas":
        if "BLASLt" in section or name.lower().startswith("cublaslt"):
            return "cublaslt"
        if section == "CUDA Library Data types":
            return "runtime"  # library_types.h (cudaDataType_t, CUDA_R_16F …) ships with the runtime
    return lib


def status_of(row: dict[str, str], target: str) -> str:
    if not target or row.get("hip_removed"):
        return "unsupported"
    if row["status"] in ("deprecated", "removed") or row.get("hip_deprecated"):
        return "deprecated"
    if row["status"] in ("supported", "experimental"):
        return "mapped"
    return "unsupported"


def kind_of(kind: str) -> str:
    return "function" if kind == "device_function" else kind


def read(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def build(knowledge: Path) -> list[tuple[str, str, str, str, str]]:
    rows: dict[str, tuple[str, str, str, str, str]] = {}
    miopen: dict[str, dict[str, str]] = {}
    for row in read(knowledge / "mapping_roc.tsv"):
        if row["library"] == "cuDNN->MIOPEN":
            miopen[row["cuda_name"]] = row
    for row in read(knowledge / "mapping.tsv"):
        name = row["cuda_name"].strip()
        if not name or row["library"] not in LIBRARY:
            continue
        lib = library_of(row["library"], row["section"], name)
        target = row["hip_name"].strip()
        if lib == "cudnn":
            roc = miopen.get(name)
            if roc is not None and roc["target_name"].strip():
                row, target = roc, roc["target_name"].strip()
        entry = (name, target, lib, kind_of(row["kind"]), status_of(row, target))
        old = rows.get(name)
        if old is None or _better(entry, old):
            rows[name] = entry
    return sorted(rows.values(), key=lambda e: (ORDER.index(e[2]), e[0]))


def _better(new: tuple[str, ...], old: tuple[str, ...]) -> bool:
    """Keep a mapped row over an unmapped one, then the library earlier in ORDER."""
    if (new[4] == "unsupported") != (old[4] == "unsupported"):
        return old[4] == "unsupported"
    return ORDER.index(new[2]) < ORDER.index(old[2])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--knowledge", type=Path, default=DEFAULT_KNOWLEDGE)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    for name in ("mapping.tsv", "mapping_roc.tsv"):
        if not (args.knowledge / name).is_file():
            print(f"{args.knowledge / name}: not found", file=sys.stderr)
            return 2
    entries = build(args.knowledge)
    counts: dict[str, list[int]] = {}
    for e in entries:
        c = counts.setdefault(e[2], [0, 0])
        c[0 if e[4] != "unsupported" else 1] += 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8", newline="") as fh:
        fh.write("# CUDA -> HIP name mapping used by hipgauge scan and translate.\n")
        fh.write("# Source: public HIPIFY tables, ROCm/HIPIFY @014177b (docs/tables), "
                 f"generated {GENERATED} by scripts/gen_mapping.py.\n")
        fh.write(f"# as_of: {GENERATED}\n")
        fh.write(f"# sources: {HIPIFY_TABLES}\n")
        fh.write("# cuDNN names map to MIOpen (HIPIFY's ROC table) where MIOpen has a counterpart, else to hipDNN.\n")
        fh.write("# status: mapped | deprecated (HIP has it; CUDA deprecated/removed it) | unsupported (no HIP counterpart)\n")
        fh.write("# rows per library (with counterpart / without): "
                 + ", ".join(f"{lib} {c[0]}/{c[1]}" for lib, c in sorted(counts.items(), key=lambda kv: ORDER.index(kv[0])))
                 + "\n")
        fh.write("cuda_name\thip_name\tlibrary\tkind\tstatus\n")
        for e in entries:
            fh.write("\t".join(e) + "\n")
    tmp.replace(args.out)
    print(f"wrote {len(entries)} rows to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
