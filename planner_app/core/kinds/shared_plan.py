"""Plan fields shared by several statistic kinds: refusing a field a kind does not use,
reading a bounded column's declared bounds and grid step, and the order a statistic's fields
are written in (their typed parameters are in params.py). planfile/validation.py and
planfile/serialisation.py read and write the fields every statistic has and leave the rest to
the kind (base.StatisticKind's "plan fields" section)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

from ..model.grid import grid_problem
from ..model.plan import MAX_ABS_BOUND, Query
from ..model.reader import FieldReader
from .params import bounded_of

#: the order a (non-synthetic) statistic's fields are written in the plan file; a field a
#: kind adds that is not listed here is written after these, in the kind's own order
QUERY_KEY_ORDER = (
    "id", "label", "kind", "column", "lower", "upper", "categories", "bins", "quantile", "of",
    "group_by", "where", "missing", "mechanism", "epsilon", "delta", "grid_step",
    "expected_count", "justification", "yes", "no",
)

#: where a kind's own fields are read among the fields every statistic has, in the order a
#: plan's first problem is found: before the mechanism ("opening"), after the column
#: ("leading"), after the where conditions ("answers", before missing values, whose imputed
#: value the fields read so far check), after delta ("tuning") and last ("trailing")
Stage = Literal["opening", "leading", "answers", "tuning", "trailing"]


# --- reading and writing --------------------------------------------------------------------

def not_used(r: FieldReader, kind: str, *keys: str) -> None:
    """Refuse the first of ``keys`` the statistic has: kind ``kind`` does not use it."""
    for key in keys:
        if r.has(key):
            r.fail(key, f"is not used by kind {kind}")


def read_bounds(r: FieldReader) -> tuple[float, float]:
    """The declared lower and upper bounds of a kind that clamps a column."""
    lower = r.number("lower")
    upper = r.number("upper")
    assert lower is not None and upper is not None
    if abs(lower) > MAX_ABS_BOUND or abs(upper) > MAX_ABS_BOUND:
        r.fail("upper", f"bounds must lie within ±{MAX_ABS_BOUND:g}")
    if not lower < upper:
        r.fail("lower", f"lower ({lower:g}) must be below upper ({upper:g})")
    return lower, upper


def _is_power_of_two(x: float) -> bool:
    if x <= 0 or not math.isfinite(x):
        return False
    mantissa, _ = math.frexp(x)
    return mantissa == 0.5


def read_grid_step(r: FieldReader, kind: str, bounded: bool, grid_bits: int,
                   got: Mapping[str, Any]) -> float | None:
    """The plan's grid step (a power of two), and a check that the grid of the bounds read
    before (``got``) can be computed with, so it never fails after the charge."""
    lower, upper = got.get("lower"), got.get("upper")
    grid_step = r.number("grid_step", required=False)
    if grid_step is not None:
        if not bounded:
            r.fail("grid_step", f"is not used by kind {kind}")
        if not _is_power_of_two(grid_step) or not 2.0**-40 <= grid_step <= 2.0**40:
            r.fail("grid_step", "must be a power of two (for example 0.25, 1 or 1024)")
        if lower is not None and upper is not None and (upper - lower) / grid_step > 2**40:
            r.fail("grid_step", "is too fine for these bounds (more than 2^40 steps)")
    if bounded and lower is not None and upper is not None and lower < upper:
        grid_error = grid_problem(grid_bits, lower, upper, grid_step)
        if grid_error is not None:
            r.fail(*grid_error)
    return grid_step


def bounds_to_dict(query: Query) -> dict[str, Any]:
    """A bounded column's bounds and grid step as the plan file writes them."""
    p = bounded_of(query)
    out: dict[str, Any] = {}
    if p is None:
        return out
    if p.lower is not None:
        out.update(lower=p.lower, upper=p.upper)
    if p.grid_step is not None:
        out["grid_step"] = p.grid_step
    return out


def in_key_order(fields: dict[str, Any]) -> dict[str, Any]:
    """A statistic's fields in QUERY_KEY_ORDER (the plan file's canonical form); fields the
    order does not list (a newer kind's own) follow in the order given."""
    ordered = {key: fields[key] for key in QUERY_KEY_ORDER if key in fields}
    return {**ordered, **{k: v for k, v in fields.items() if k not in ordered}}
