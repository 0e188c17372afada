"""A statistic's public parameters and its handling of missing values, in words for a person.

The one describer: the privacy officer's review window, ``planner-app check`` (with or
without data) and the release report all show a statistic's parameters through
``parameter_lines``. Every line comes from the plan alone (never from the data), so each may
be published. The missing-values sentence states what the engines do (data/sql_aggregates.py,
data/sql_plan.py, data/synthetic_marginals.py; tests/core/test_parameters.py holds it to them):

- a cell is missing when it is empty or one of the texts read as empty (``NA``, ``NULL``…);
  a numeric statistic also treats a cell that is not a number as missing;
- ``missing: drop`` leaves the row out of that statistic; ``missing: {"impute": v}`` uses v;
- numbers below the lower bound or above the upper bound are set to the bound (clamped);
- a value not among the declared categories, keys or bins is left out (counted nowhere);
- a ``where`` condition keeps only rows that match (a missing cell never matches);
- with a person unit, at most ``max_rows`` rows of each person are used, chosen at random.
"""

from __future__ import annotations

from ..kinds import kind_of
from ..kinds.shared_release import plan_number
from ..model import PrivacyUnit, Query

#: What the review window and ``check`` call each line (the labels of parameter_lines).
MISSING_LABEL = "Missing values and rows left out"

def public_parameters(q: Query) -> list[tuple[str, str]]:
    """(name, value) of every public parameter the statistic has, as a person reads it."""
    kind = kind_of(q)
    out: list[tuple[str, str]] = [("Kind", kind_of(q).title),
                                  *kind.public_parameters(q)]
    out.append(("ε", plan_number(q.epsilon)))
    if q.delta or kind.always_shows_delta:
        out.append(("δ", plan_number(q.delta)))
    return out


def _where_words(q: Query) -> str | None:
    if not q.where:
        return None
    columns = ", ".join(dict.fromkeys(c.column for c in q.where))
    return f"only rows that meet the conditions on {columns} are used (an empty cell meets none)"


def _unit_words(unit: PrivacyUnit | None) -> str | None:
    if unit is None or unit.kind != "person" or unit.max_rows is None:
        return None
    rows = "one row" if unit.max_rows == 1 else f"{unit.max_rows} rows"
    return (f"at most {rows} of each person (by {unit.id_column}) are used, kept at random; "
            "the others are left out")


def missing_values_words(q: Query, unit: PrivacyUnit | None = None) -> str:
    """One sentence: what happens to missing, unreadable, out-of-bounds and undeclared
    values, and which rows are left out (see the module docstring)."""
    parts: list[str | None] = [*kind_of(q).missing_words(q)]
    if q.group_by is not None:
        parts.append(f"a row whose {q.group_by.column} is empty or not one of the keys is "
                     "left out")
    parts.append(_where_words(q))
    parts.append(_unit_words(unit))
    text = "; ".join(p for p in parts if p)
    return text[0].upper() + text[1:] + "."


def parameter_lines(q: Query, unit: PrivacyUnit | None = None) -> list[tuple[str, str]]:
    """Every public parameter, then the missing-values line: what the review window, the
    check command and the report show for one statistic."""
    return [*public_parameters(q), (MISSING_LABEL, missing_values_words(q, unit))]
