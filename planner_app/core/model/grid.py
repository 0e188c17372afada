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
    return None
