"""Benchmark: exact discrete Laplace samples per second vs numpy's (insecure, floating-point)
Laplace, side by side in one run. Writes its figures to bench/results.md.

Run: python bench/bench_samplers.py
"""

from __future__ import annotations

import platform
import time
from fractions import Fraction

import numpy as np

from planner_app.core.dp.mechanisms import (
    SystemRandomSource,
    discrete_gaussian,
    discrete_laplace,
    discrete_laplace_scalar,
)

N = 2_000_000
REPEATS = 3
from _results import write_section  # noqa: E402

MARK = "## Samplers"


def best_rate(fn, n: int) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn(n)
        best = min(best, time.perf_counter() - start)
    return n / best


def main() -> None:
    src = SystemRandomSource()
    rng = np.random.default_rng()
    rows = []
    for scale in (Fraction(1), Fraction(10), Fraction(10**5), Fraction(7, 3)):
        exact = best_rate(lambda n, scale=scale: discrete_laplace(src, scale, n), N)
        numpy = best_rate(lambda n, scale=scale: rng.laplace(0.0, float(scale), n), N)
        rows.append((f"discrete Laplace, scale {scale}", exact, numpy))
    scalar = best_rate(lambda n: [discrete_laplace_scalar(src, Fraction(10)) for _ in range(n)],
                       20_000)
    gauss = best_rate(lambda n: discrete_gaussian(src, Fraction(100), n), 100_000)
    numpy_g = best_rate(lambda n: rng.normal(0.0, 10.0, n), N)
    lines = [
        MARK,
        "",
        f"Exact samplers fed by the OS CSPRNG (`secrets`) vs numpy's floating-point samplers "
        f"(seeded generator, not safe for release), measured side by side in one run; best of "
        f"{REPEATS}, {N:,} samples a run. Machine: {platform.machine()}, "
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"numpy {np.__version__}. Target: at least 1,000,000 exact samples per second.",
        "",
        "| sampler | exact (samples/s) | numpy (samples/s) | numpy / exact |",
        "|---|---:|---:|---:|",
    ]
    for name, exact, numpy in rows:
        lines.append(f"| {name} | {exact:,.0f} | {numpy:,.0f} | {numpy / exact:.1f}x |")
    lines.append(f"| discrete Gaussian, σ = 10 | {gauss:,.0f} | {numpy_g:,.0f} | "
                 f"{numpy_g / gauss:.1f}x |")
    lines.append(f"| discrete Laplace, scale 10, scalar big-int path (reference) | "
                 f"{scalar:,.0f} | - | - |")
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lines.append(f"\nPeak memory of this benchmark process: {peak:.0f} MB.")
    lines.append("")
    section = "\n".join(lines)
    write_section(MARK, section)
    print(section)


if __name__ == "__main__":
    main()
