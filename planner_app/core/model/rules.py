"""The numeric fields' allowed ranges, one rule each: the plan's validation and every form
ask these (a form shows the phrase beside the field's name and keeps what was typed), and
the reading of a statistic's reasons, which every kind shares."""

from __future__ import annotations

import math

from .plan import MAX_EPSILON, MAX_EXPECTED_ROWS, MIN_DELTA
from .reader import FieldReader


def delta_problem(delta: float) -> str | None:
    """Why ``delta`` cannot be used as a δ (one phrase), or None: δ is 0 or in
    [MIN_DELTA, 1)."""
    if not isinstance(delta, (int, float)) or not math.isfinite(delta):
        return "must be a finite number"
    if not 0 <= delta < 1:
        return f"must lie in [0, 1), not {delta:g}"
    if 0 < delta < MIN_DELTA:
        return (f"{delta:g} is too small for any accountant to handle: use 0 (no δ) or at "
                f"least {MIN_DELTA:g}")
    return None


# the numeric fields' allowed ranges, one rule each: the plan's validation and every form ask
# these (a form shows the phrase beside the field's name and keeps what was typed)
def epsilon_problem(epsilon: float) -> str | None:
    """Why ``epsilon`` cannot be an ε (one phrase), or None: ε is in (0, MAX_EPSILON]."""
    if not isinstance(epsilon, (int, float)) or not math.isfinite(epsilon):
        return "must be a finite number"
    if not 0 < epsilon <= MAX_EPSILON:
        return f"must be above 0 and at most {MAX_EPSILON:g}, not {epsilon:g}"
    return None


def quantile_problem(level: float) -> str | None:
    """Why ``level`` cannot be a quantile level, or None: it lies in [0, 1]."""
    if not isinstance(level, (int, float)) or not math.isfinite(level):
        return "must be a finite number"
    if not 0.0 <= level <= 1.0:
        return f"must lie in [0, 1], not {level:g}"
    return None


def expected_rows_problem(rows: float) -> str | None:
    """Why ``rows`` cannot be the dataset's public approximate row count, or None."""
    if not isinstance(rows, (int, float)) or not math.isfinite(rows) or rows != int(rows):
        return "must be a whole number"
    if not 1 <= rows <= MAX_EXPECTED_ROWS:
        return f"must be between 1 and {MAX_EXPECTED_ROWS:,}"
    return None




def expected_count_problem(count: float) -> str | None:
    """Why ``count`` cannot be a statistic's expected_count (a public guess of the rows it uses;
    with a group-by, its smallest group's), or None: a number above 0."""
    if not isinstance(count, (int, float)) or not math.isfinite(count):
        return "must be a finite number"
    if count <= 0:
        return f"must be above 0, not {count:g}"
    return None


MAX_ROWS_PER_PERSON = 1_000_000


#: What the rows per person need while unstated (None): the owner's number, never the table's
#: (``MAX_ROWS_ASK``: the app's line under the field, whose hint says the rest).
MAX_ROWS_ASK = "is required: the most rows one person may have"
MAX_ROWS_REQUIRED = (f"{MAX_ROWS_ASK}, from how the data was collected (never read from the "
                     "table: it is published with the plan)")


def max_rows_problem(rows: float | None) -> str | None:
    """Why ``rows`` cannot be the most rows one person has, or None. None (not stated yet: a
    new person unit, ``"max_rows": null`` in the file) is refused: a default of 1 would drop
    a person's other rows without a word, and the number must come from the owner."""
    if rows is None:
        return MAX_ROWS_REQUIRED
    if not isinstance(rows, (int, float)) or not math.isfinite(rows) or rows != int(rows):
        return "must be a whole number"
    if not 1 <= rows <= MAX_ROWS_PER_PERSON:
        return f"must be between 1 and {MAX_ROWS_PER_PERSON:,}, not {int(rows)}"
    return None


def read_justification(r: FieldReader) -> dict[str, str] | None:
    """The statistic's reasons (where its bounds, categories, ε, keys, values come from)."""
    if not r.has("justification"):
        return None
    j = FieldReader(r.source, r.obj["justification"], r.where("justification"),
                ("bounds", "categories", "epsilon", "keys", "values"))
    return {k: j.text(k) or "" for k in j.obj}
