"""The quantile sampler: running time on neighbouring tables (interleaved, Mann-Whitney U) and
on concentrated data on fine grids. Writes the '## Quantile sampler' section of results.md."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._results import write_section  # noqa: E402
from planner_app.core.dp.mechanisms import SystemRandomSource, exponential_quantile  # noqa: E402

N, LO, HI = 3808, 0, 6250  # the demo's median: 3,808 rows, 6,251 grid points


def neighbours(a: np.ndarray, b: np.ndarray, reps: int = 3000) -> tuple[float, float, float]:
    src = SystemRandomSource()
    times: dict[int, list[int]] = {0: [], 1: []}
    for i in range(reps):
        for k, v in ((0, a), (1, b)) if i % 2 else ((1, b), (0, a)):
            start = time.perf_counter_ns()
            exponential_quantile(src, v, LO, HI, 0.5, 0.4, 3)
            times[k].append(time.perf_counter_ns() - start)
    x, y = np.array(times[0]) / 1e6, np.array(times[1]) / 1e6
    return float(np.median(x)), float(np.median(y)), float(stats.mannwhitneyu(x, y).pvalue)


def once(values: np.ndarray, hi: int) -> float:
    start = time.perf_counter()
    exponential_quantile(SystemRandomSource(), values, 0, hi, 0.5, 1.0, 1)
    return time.perf_counter() - start


def main() -> None:
    rng = np.random.default_rng(1)
    spread = np.sort(rng.integers(LO, HI + 1, N))
    crowd = np.sort(np.append(np.full(N - 1, 3000), 10))
    rows = [
        ("spread values / one row changed", spread, np.sort(np.append(spread[:-1], 3125))),
        ("all but one row on one value / one more row elsewhere", crowd,
         np.sort(np.append(np.full(N - 2, 3000), [10, 6000]))),
    ]
    lines = ["## Quantile sampler", "",
             "Exact inversion over runs whose arrays depend on the grid size and the row count "
             "only (`mechanisms.exponential_quantile`). Neighbouring tables, 3,000 interleaved "
             "draws each (the rejection sampler it replaced: 58.8 vs 84.8 ms, p = 4e-6, and "
             "minutes on concentrated data on a fine grid).", "",
             "| neighbouring tables | median (ms) | median (ms) | Mann-Whitney p |",
             "|---|---:|---:|---:|"]
    for name, a, b in rows:
        ma, mb, p = neighbours(a, b)
        lines.append(f"| {name} | {ma:.4f} | {mb:.4f} | {p:.2g} |")
    fine = np.sort(np.append(np.full(999, 1 << 35), (1 << 35) + 1))
    big = np.sort(rng.integers(0, 1 << 30, 2_000_000))
    lines += ["", "| case | time |", "|---|---:|",
              f"| 1,000 rows on two values of a 2^36-point grid | "
              f"{1000 * once(fine, (1 << 36) - 1):.1f} ms |",
              f"| 2,000,000 rows on a 2^30-point grid (the largest work allowed, 2^22 runs) | "
              f"{once(big, (1 << 30) - 1):.2f} s |", ""]
    write_section("## Quantile sampler", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
