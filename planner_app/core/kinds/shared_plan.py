"""Plan fields shared by several statistic kinds: refusing a field a kind does not use,
reading a bounded column's declared bounds, and the order a statistic's fields are written in.
The kinds call these from their "plan fields" section; planfile/validation.py and
planfile/serialisation.py read and write the fields every statistic has."""

from __future__ import annotations

from typing import Any

from ..model.plan import MAX_ABS_BOUND, Query
from ..model.reader import FieldReader

#: the order a (non-synthetic) statistic's fields are written in the plan file
QUERY_KEY_ORDER = (
    "id", "label", "kind", "column", "lower", "upper", "categories", "bins", "quantile", "of",
    "group_by", "where", "missing", "mechanism", "epsilon", "delta", "grid_step",
    "expected_count", "justification", "yes", "no",
)


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


def bounds_to_dict(query: Query) -> dict[str, Any]:
    """A bounded column's lower and upper bounds as the plan file writes them."""
    if query.lower is None:
        return {}
    return {"lower": query.lower, "upper": query.upper}


def in_key_order(fields: dict[str, Any]) -> dict[str, Any]:
    """A statistic's fields in QUERY_KEY_ORDER (the plan file's canonical form)."""
    return {key: fields[key] for key in QUERY_KEY_ORDER if key in fields}
