"""The power-of-two grid a bounded column is rounded to, from the plan's public numbers
alone (its bounds, grid_step, and its kind's ``grid_bits``), never from the data. The plan's
validation checks the grid here when a plan is read; the kinds build it for a statistic
(``StatisticKind.grid``)."""

from __future__ import annotations

import math

DEFAULT_GRID_BITS = 16
# quantiles choose among grid points: 2^12 of them keep the exact sampler fast and are finer
# than the mechanism's own rank error
QUANTILE_GRID_BITS = 12

# The smallest grid step: its square (a variance's unit) stays a normal float, so no step,
# step² or 1/step under- or overflows while the noise is drawn.
MIN_GRID_STEP = 2.0**-500
# The most steps a bound may lie from 0: |bound/step| is then exact in a float and far inside
# an int64 (the aggregates' integer type).
MAX_GRID_STEPS = 2**52


# Exact sums (issue 24): the engines add grid steps as 128-bit integers, the narrowest being
# Spark's DECIMAL(38, 0) (DuckDB's HUGEINT holds 2^127; the pandas path adds Python ints), and
# an overflow is an error, never a wrap. A grid is accepted when no sum of up to
# MAX_TABLE_ROWS rows can reach EXACT_SUM_LIMIT: with the grids plan validation allows (at
# most 2^40 steps wide, 2^52 from 0), every grid passes, at any row count a table has.
EXACT_SUM_LIMIT = 10**38
MAX_TABLE_ROWS = 2**48


def grid_step_for(bits: int, lower: float, upper: float, grid_step: float | None) -> float:
    """The grid step from the public bounds (and the plan's grid_step): about 2^bits points
    between them (the kind's ``grid_bits``: DEFAULT_GRID_BITS, or QUANTILE_GRID_BITS)."""
    if grid_step is not None:
        return grid_step
    exponent = math.floor(math.log2(upper - lower)) - bits
    return math.ldexp(1.0, exponent)


def grid_problem(bits: int, lower: float, upper: float,
                 grid_step: float | None) -> tuple[str, str] | None:
    """Why the grid of these bounds cannot be computed with (field, message), or None.
    Checked when the plan is read, so it never fails after the charge."""
    step = grid_step_for(bits, lower, upper, grid_step)
    if step < MIN_GRID_STEP:
        return ("upper", f"lower and upper are so close that the grid step (about {step:.3g}) "
                         f"or its square underflows; the bounds must differ by at least "
                         f"{MIN_GRID_STEP * 2**16:.3g}")
    if max(abs(lower), abs(upper)) / step > MAX_GRID_STEPS:
        return ("grid_step", f"lower and upper are too far from 0 for the grid step "
                             f"{step:.6g} (more than 2^52 steps); widen lower/upper or set "
                             f"a coarser grid_step")
    return exact_sum_problem(round(lower / step), round(upper / step))


def exact_sum_problem(lo: int, hi: int) -> tuple[str, str] | None:
    """Why sums over the grid lo..hi (in steps) could leave the engines' exact integers, or
    None: a sum of steps (each at most max(|lo|, |hi|)) or of squared distances to the
    grid's centre, over MAX_TABLE_ROWS rows, must stay below EXACT_SUM_LIMIT. From the
    plan's public numbers alone, so it is refused when the plan is read, before any row."""
    centre = (lo + hi) // 2
    radius = max(centre - lo, hi - centre)
    biggest = max(abs(lo), abs(hi), radius * radius)
    if biggest * MAX_TABLE_ROWS < EXACT_SUM_LIMIT:
        return None
    return ("grid_step", f"the grid is too fine for exact sums: {hi - lo:,} steps between "
                         f"lower and upper; set a coarser grid_step")
