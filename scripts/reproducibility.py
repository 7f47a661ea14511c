"""Does the sampling part of the interval hold a re-measurement, and how many rounds make a percentile reproducible?

    python scripts/reproducibility.py                      # every committed harness CSV with at least 8 rounds
    python scripts/reproducibility.py --data DIR [DIR …]   # other capture folders (searched for *_latency_ms.csv)
    python scripts/reproducibility.py --quarters           # a quarter of the rounds against another quarter
    python scripts/reproducibility.py --later              # the run's first half against its second half

Only latency CSVs are read (no traces), each from a run of interleaved timing rounds (``hipgauge capture torch``):

1. **Coverage.** The rounds are split into two interleaved halves (even- and odd-numbered). Half A is assessed as
   hipgauge assesses any latency CSV (``stability.assess``: its percentile and that percentile's interval); half B is
   the re-measurement. The interval claims the percentile's own uncertainty; a second measurement of the same size
   samples the host again, so what it should hold is the prediction interval, the sampling part taken twice (√2 on
   each side, as ``interval.prediction_interval_ms``). Each split counts both ways (A→B, B→A). Reported with the
   bootstrap alone (the wider of those over iterations and over whole rounds: the interval before 2026-12-05) and as
   ``stability.assess`` gives it now, widened where few iterations lie beyond the percentile
   (``widening.tail_widening``; ``--quarters`` checks it at a quarter of the rounds, a sample size it was not fitted
   on).
2. **Scaling.** Random disjoint pairs of R rounds each: how far apart the two percentiles lie, by R. Were the
   iterations independent, it would shrink as 1/√R.

The GPU of each CSV is read from the nearest ``env.txt`` above it (``nvidia-smi`` output), "unknown" without one.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import zlib
from collections import defaultdict
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hipgauge.profiles import stability as st  # noqa: E402 - after sys.path points at this checkout

DATA = [ROOT / "tests" / "data" / "h200"]
PERCENTILES = (50.0, 90.0, 95.0, 99.0)
ROUND_COUNTS = (5, 10, 15, 30)
DRAWS = 40
MIN_ROUNDS = 8


def gpu_of(csv: Path) -> str:
    """The GPU named in the nearest env.txt above ``csv`` (its "NVIDIA …" field), or "unknown"."""
    for folder in csv.parents:
        env = folder / "env.txt"
        if env.is_file():
            for line in env.read_text(encoding="utf-8", errors="replace").splitlines():
                if "NVIDIA" in line:
                    return next(f.strip() for f in line.split(",") if "NVIDIA" in f)
            return "unknown"
    return "unknown"


def rounds_of(csv: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """(latency_ms, round) of a CSV with a round column and at least MIN_ROUNDS rounds, else None."""
    df = pl.read_csv(csv)
    if "round" not in df.columns or "latency_ms" not in df.columns or df["round"].n_unique() < MIN_ROUNDS:
        return None
    return df["latency_ms"].to_numpy().astype(np.float64), df["round"].to_numpy()


def bootstrap_only(x: np.ndarray, rounds: list[int], p: float) -> tuple[float, float]:
    """The percentile's interval as assessed before 2026-12-05: the wider of the two bootstraps, not widened."""
    lo, hi = st.percentile_ci(x, p) or (math.nan, math.nan)
    by_round = st.round_percentile_ci(x, rounds, p)
    if by_round is not None:
        lo, hi = min(lo, by_round[0]), max(hi, by_round[1])
    return lo, hi


def splits(labels: list[int], parts: int, later: bool = False) -> list[tuple[list[int], list[int]]]:
    """(assessed rounds, re-measurement rounds): interleaved groups of every ``parts``-th round, or with ``later``
    consecutive ones (the first half of the run against the second), paired and each way."""
    size = len(labels) // parts
    groups = [labels[i * size:(i + 1) * size] for i in range(parts)] if later else [labels[i::parts] for i in range(parts)]
    pairs = [(groups[i], groups[i + 1]) for i in range(0, parts - 1, 2)]
    return [s for a, b in pairs for s in ((a, b), (b, a))]


def coverage(csv: Path, parts: int = 2, later: bool = False) -> list[dict]:
    """One row per (direction, percentile): does group A's prediction interval hold group B's percentile?"""
    data = rounds_of(csv)
    if data is None:
        return []
    x, r = data
    labels = sorted(set(r.tolist()))
    if len(labels) < MIN_ROUNDS * parts // 2:
        return []
    gpu = gpu_of(csv)
    out = []
    for a, b in splits(labels, parts, later):
        in_a, in_b = np.isin(r, a), np.isin(r, b)
        xa, ra = x[in_a], r[in_a].tolist()
        for p in PERCENTILES:
            measured = float(np.percentile(x[in_b], p))
            s = st.assess(xa, p, ra)
            v = float(s.percentile_ms or 0.0)
            row = {"csv": str(csv.relative_to(ROOT)) if csv.is_relative_to(ROOT) else str(csv), "gpu": gpu, "p": p,
                   "iterations": int(xa.size), "value": v, "other_half": measured, "widening": s.tail_widening}
            for name, (lo, hi) in (("bootstrap", bootstrap_only(xa, ra, p)), ("assessed", s.percentile_ci_ms)):
                plo, phi = v - math.sqrt(2) * (v - lo), v + math.sqrt(2) * (hi - v)
                row[f"{name}_held"] = plo <= measured <= phi
                row[f"{name}_width"] = (phi - plo) / v if v else math.nan
            out.append(row)
    return out


def scaling(csv: Path) -> list[dict]:
    """Random disjoint pairs of R rounds: |P(B) / P(A) − 1| per percentile and R."""
    data = rounds_of(csv)
    if data is None:
        return []
    x, r = data
    labels = np.array(sorted(set(r.tolist())))
    groups = {k: x[r == k] for k in labels}
    rng = np.random.default_rng(zlib.crc32(csv.name.encode()))
    gpu = gpu_of(csv)
    out = []
    for count in ROUND_COUNTS:
        if 2 * count > labels.size:
            continue
        for _ in range(DRAWS):
            pick = rng.permutation(labels)
            a = np.concatenate([groups[k] for k in pick[:count]])
            b = np.concatenate([groups[k] for k in pick[count:2 * count]])
            for p in PERCENTILES:
                out.append({"gpu": gpu, "rounds": count, "iterations": int(a.size), "p": p,
                            "apart": abs(float(np.percentile(b, p)) / float(np.percentile(a, p)) - 1.0)})
    return out


def coverage_table(rows: list[dict]) -> str:
    d = pl.DataFrame(rows)
    g = (d.group_by("gpu", "p").agg(pl.len().alias("n"), pl.col("bootstrap_held").mean(), pl.col("bootstrap_width").median(),
                                    pl.col("assessed_held").mean(), pl.col("assessed_width").median(),
                                    pl.col("csv").n_unique().alias("csvs"), pl.col("iterations").median(),
                                    pl.col("widening").median())
         .sort("gpu", "p"))
    lines = ["| GPU | percentile | splits (CSVs), iterations | bootstrap alone: held, median width | widened ×k: held, "
             "median width |", "|---|---|---|---|---|"]
    for row in g.iter_rows(named=True):
        lines.append(f"| {row['gpu']} | P{row['p']:g} | {row['n']} ({row['csvs']}), {row['iterations']:.0f} | "
                     f"{100 * row['bootstrap_held']:.0f}%, {100 * row['bootstrap_width']:.0f}% | "
                     f"×{row['widening']:.2f}: {100 * row['assessed_held']:.0f}%, {100 * row['assessed_width']:.0f}% |")
    return "\n".join(lines)


def scaling_table(rows: list[dict]) -> str:
    d = pl.DataFrame(rows).filter(pl.col("p").is_in([50.0, 99.0]))
    g = (d.group_by("gpu", "p", "rounds", "iterations").agg(pl.col("apart").median().alias("median"),
                                               pl.col("apart").quantile(0.9).alias("q90"),
                                               (pl.col("apart") > 0.15).mean().alias("over15"))
         .sort("gpu", "p", "iterations", "rounds"))
    lines = ["| GPU | percentile | rounds (iterations) each | apart: median | 90th percentile | share > 15% |",
             "|---|---|---|---|---|---|"]
    for row in g.iter_rows(named=True):
        lines.append(f"| {row['gpu']} | P{row['p']:g} | {row['rounds']} ({row['iterations']}) | "
                     f"{100 * row['median']:.1f}% | {100 * row['q90']:.0f}% | {100 * row['over15']:.0f}% |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="*", type=Path, default=DATA, help="folders searched for *_latency_ms.csv")
    ap.add_argument("--quarters", action="store_true",
                    help="assess a quarter of the rounds against another quarter (needs at least 16 rounds)")
    ap.add_argument("--later", action="store_true",
                    help="the first half of each run's rounds against the second (a re-measurement later, not interleaved)")
    args = ap.parse_args()
    csvs = sorted({c.resolve() for d in args.data for c in Path(d).rglob("*_latency_ms.csv")})
    with Pool(os.cpu_count() or 1) as pool:
        jobs = [(c, 4 if args.quarters else 2, args.later) for c in csvs]
        cov = [row for rows in pool.starmap(coverage, jobs) for row in rows]
        sca = [row for rows in pool.map(scaling, csvs) for row in rows]
    if not cov:
        sys.exit(f"no latency CSV with a round column and at least {MIN_ROUNDS} rounds under {args.data}")
    per_gpu: dict[str, set[str]] = defaultdict(set)
    for row in cov:
        per_gpu[row["gpu"]].add(row["csv"])
    print("CSVs: " + "; ".join(f"{gpu}: {len(v)}" for gpu, v in sorted(per_gpu.items())) + "\n")
    part = "quarter" if args.quarters else "half"
    how = "consecutive" if args.later else "interleaved"
    print(f"Coverage: the prediction interval of one {part} of the rounds ({how}) against another {part}'s "
          f"percentile\n")
    print(coverage_table(cov) + "\n")
    print("Scaling: two disjoint sets of R rounds, how far apart their percentiles lie\n")
    print(scaling_table(sca))


if __name__ == "__main__":
    main()
