"""The quantile sampler on fine grids (issue 24): peak memory and CPU time of one draw from
an engine's counts per grid step, for 300 rows up to 10^7 rows on grids of 2^10, 2^30 and
2^40 points. Each case is a fresh process measured from outside (``os.wait4``: its CPU
seconds and peak RSS); inside it, the draw's own time and tracemalloc peak. Writes the
'## Quantile on fine grids' section of results.md.

    python bench/bench_fine_grid.py                    # 300 and 10^5 rows (a shared machine)
    nice -n 10 python bench/bench_fine_grid.py 300 10000000
    python bench/bench_fine_grid.py --no-write 300     # print the rows only

The values are a Parquet file per (rows, grid) written by DuckDB's COPY (never through
Python), uniform over the grid: as many distinct values as can be, the most runs. Each case
reads the file's counts per grid step as an engine gives them (DuckDB's GROUP BY, sorted)
and draws once with ``mechanisms.exponential_quantile``.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
import tracemalloc
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._results import write_section  # noqa: E402

GRID_BITS = (10, 30, 40)
DEFAULT_ROWS = (300, 100_000)
DATA = Path(os.environ.get("PLANNER_BENCH_DATA", "/tmp/bench-data"))
MARK = "## Quantile on fine grids (issue 24)"


def values_file(rows: int, bits: int) -> Path:
    """``rows`` values uniform on [0, 2^bits), one column ``x``, written by DuckDB's COPY."""
    import duckdb

    path = DATA / f"fine-grid-{rows}-{bits}.parquet"
    if not path.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        part = path.with_name(path.name + ".part")
        con = duckdb.connect()
        con.execute("SET memory_limit = '2GB'")
        con.execute("SET enable_progress_bar = false")
        con.execute(f"COPY (SELECT CAST(hash(i, 24) % {1 << bits} AS BIGINT) AS x "
                    f"FROM range({rows}) t(i)) TO '{part}' (FORMAT parquet)")
        con.close()
        part.replace(path)
    return path


def one(rows: int, bits: int) -> dict[str, Any]:
    """One case in this process: the counts per grid step read from the file, one draw."""
    import duckdb

    from planner_app.core.dp.mechanisms import SystemRandomSource, exponential_quantile

    hi = (1 << bits) - 1
    start = time.process_time()
    con = duckdb.connect()
    got = con.execute(f"SELECT x, count(*) AS n FROM read_parquet('{values_file(rows, bits)}') "
                      "GROUP BY x ORDER BY x").fetchnumpy()
    con.close()
    steps = np.asarray(got["x"], dtype=np.int64)
    counts = np.asarray(got["n"], dtype=np.int64)
    read = time.process_time() - start
    tracemalloc.start()
    start = time.process_time()
    exponential_quantile(SystemRandomSource(), None, 0, hi, 0.5, 1.0, 1, (steps, counts))
    draw = time.process_time() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"read_cpu": read, "draw_cpu": draw, "traced_mb": peak / 1e6,
            "distinct": int(steps.size)}


def measured(rows: int, bits: int) -> dict[str, Any]:
    """``one`` in a fresh process: its own figures plus the process's CPU and peak RSS."""
    proc = subprocess.Popen([sys.executable, __file__, "--one", str(rows), str(bits)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the case {rows} rows, 2^{bits} failed")
    r: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    r.update(cpu=usage.ru_utime + usage.ru_stime, rss_mb=usage.ru_maxrss / 1024)
    return r


def main(rows_list: list[int], write: bool) -> None:
    for rows in rows_list:  # the files first: their writing is not measured
        for bits in GRID_BITS:
            values_file(rows, bits)
    load = os.getloadavg()[0]
    lines = [MARK, "",
             "One draw of `mechanisms.exponential_quantile` from an engine's counts per grid "
             "step (the DuckDB/Spark path), the values uniform over the grid (a Parquet file "
             "per case, written by DuckDB's COPY); each case a fresh process. *Process CPU* "
             "and *process peak RSS*: the whole process from outside (`os.wait4`: Python, "
             "DuckDB reading and grouping the file, numpy, the draw); *draw CPU* and *draw "
             "peak*: the draw alone (`time.process_time`, tracemalloc's peak, numpy's arrays "
             "included). Before issue 24 the engine path spelled out the grid: 300 rows on "
             "2^30 points took 8.6 GB and 155 s (the issue's figure), 2^40 points could not "
             "run (8 TiB).", "",
             f"Machine: {os.cpu_count()} cores, shared with other developers' work (load "
             f"average {load:.1f} at the start: read CPU, not wall), CPython "
             f"{platform.python_version()}; {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC; "
             f"`python bench/bench_fine_grid.py {' '.join(str(r) for r in rows_list)}`. "
             "A release refuses a quantile whose runs could pass 2^22 (about 2.1M rows on a "
             "grid larger than the rows) before the charge; the sampler itself is measured "
             "here.", "",
             "| rows | grid points | distinct values | runs | process CPU | process peak RSS "
             "| reading the counts (CPU) | draw CPU | draw peak |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for rows in rows_list:
        for bits in GRID_BITS:
            r = measured(rows, bits)
            runs = (1 << bits) if (1 << bits) <= rows else 2 * r["distinct"] + 1
            line = (f"| {rows:,} | 2^{bits} | {r['distinct']:,} | {runs:,} | "
                    f"{r['cpu']:.2f} s | {r['rss_mb']:,.0f} MB | {r['read_cpu']:.2f} s | "
                    f"{r['draw_cpu']:.3f} s | {r['traced_mb']:,.1f} MB |")
            lines.append(line)
            print(line, flush=True)
    lines.append("")
    if write:
        write_section(MARK, "\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--one":
        print(json.dumps(one(int(sys.argv[2]), int(sys.argv[3]))))
    else:
        argv = [a for a in sys.argv[1:] if a != "--no-write"]
        main([int(a) for a in argv] or list(DEFAULT_ROWS), "--no-write" not in sys.argv)
