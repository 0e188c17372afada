"""The quantile sampler on fine grids (issue 24): peak memory and time of one draw from an
engine's counts per grid step, for 300 rows and more on grids of 2^10, 2^30 and 2^40 points.
Each case runs in a fresh process (its peak RSS is its own). Writes the '## Quantile on fine
grids' section of results.md.

    python bench/bench_fine_grid.py                    # 300 and 10^5 rows (a shared machine)
    python bench/bench_fine_grid.py 300 100000 10000000
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._results import write_section  # noqa: E402

GRID_BITS = (10, 30, 40)
DEFAULT_ROWS = (300, 100_000)


def one(rows: int, bits: int) -> dict[str, float]:
    """One draw in this process: the rows spread uniformly over the grid (as many distinct
    values as can be: the most runs), given as an engine gives them (steps and counts)."""
    from planner_app.core.dp.mechanisms import SystemRandomSource, exponential_quantile

    hi = (1 << bits) - 1
    rng = np.random.default_rng(24)
    steps, counts = np.unique(rng.integers(0, hi + 1, rows, dtype=np.int64),
                              return_counts=True)
    counts = counts.astype(np.int64)
    tracemalloc.start()
    start = time.perf_counter()
    exponential_quantile(SystemRandomSource(), None, 0, hi, 0.5, 1.0, 1, (steps, counts))
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"seconds": seconds, "traced_mb": peak / 1e6, "rss_mb": rss_kib / 1024,
            "distinct": int(steps.size)}


def main(rows_list: list[int]) -> None:
    lines = ["## Quantile on fine grids (issue 24)", "",
             "One draw of `mechanisms.exponential_quantile` from an engine's counts per grid "
             "step (the DuckDB/Spark path), rows spread uniformly over the grid; each case in "
             "a fresh process. *Sampler peak*: tracemalloc's peak during the draw (numpy's "
             "arrays included); *process RSS*: the process's peak resident memory (Python, "
             "numpy and the data included). Before issue 24 the engine path spelled out the "
             "grid: 300 rows on 2^30 points took 8.6 GB and 155 s (the issue's figure), 2^40 "
             "points could not run (8 TiB).", "",
             f"Machine: {os.cpu_count()} cores, shared with other work; run at "
             f"{', '.join(f'{r:,}' for r in rows_list)} rows only (10^7 rows is left for a "
             "later run: `python bench/bench_fine_grid.py 300 100000 10000000`). A release "
             "refuses a quantile whose runs could pass 2^22 (about 2.1M rows on a grid larger "
             "than the rows) before the charge; the sampler itself is timed here.", "",
             "| rows | grid points | distinct values | runs | time | sampler peak | "
             "process RSS |", "|---:|---:|---:|---:|---:|---:|---:|"]
    for rows in rows_list:
        for bits in GRID_BITS:
            out = subprocess.run([sys.executable, __file__, "--one", str(rows), str(bits)],
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            runs = (1 << bits) if (1 << bits) <= rows else 2 * rows + 1
            line = (f"| {rows:,} | 2^{bits} | {r['distinct']:,} | {runs:,} | "
                    f"{1000 * r['seconds']:.1f} ms | {r['traced_mb']:.2f} MB | "
                    f"{r['rss_mb']:.0f} MB |")
            lines.append(line)
            print(line, flush=True)
    lines.append("")
    write_section("## Quantile on fine grids (issue 24)", "\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--one":
        print(json.dumps(one(int(sys.argv[2]), int(sys.argv[3]))))
    else:
        main([int(a) for a in sys.argv[1:]] or list(DEFAULT_ROWS))
