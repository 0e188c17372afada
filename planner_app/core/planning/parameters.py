"""A statistic's public parameters and its handling of missing values, in words for a person.

The one describer: the privacy officer's review window, ``planner-app check`` (with or
without data) and the release report all show a statistic's parameters through
``parameter_lines``. Every line comes from the plan alone (never from the data), so each may
be published. The missing-values sentence states what the engines do (data/aggregate.py,
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

from collections.abc import Sequence

from ..model import PrivacyUnit, Query, Scalar, SynthColumn
from ..support.words import KIND_NAMES, format_number

MAX_LISTED_VALUES = 12  # values of one list named in a line; the plan has every one

NOISE_WORDS = {"laplace": "discrete Laplace", "gaussian": "discrete Gaussian",
               "exponential": "exponential mechanism", "randomized_response":
               "randomized response"}

#: What the review window and ``check`` call each line (the labels of parameter_lines).
MISSING_LABEL = "Missing values and rows left out"


def _num(x: float) -> str:
    """A public parameter as written in the plan (no rounding: it is exact)."""
    return f"{x:g}" if abs(x) < 1e15 else f"{x:.15g}"


def values_text(values: Sequence[Scalar], limit: int = MAX_LISTED_VALUES) -> str:
    """A declared list, its first ``limit`` values quoted as written and how many more."""
    shown = ", ".join(str(v) for v in values[:limit])
    more = len(values) - limit
    return shown + (f" and {more:,} more" if more > 0 else "")


def edges_text(edges: Sequence[float]) -> str:
    """Bin edges, with what the last bin includes."""
    return (f"{len(edges) - 1} bins with edges {values_text([_num(e) for e in edges])} "
            "(each bin includes its lower edge; the last also its upper edge)")


def _column_domain(c: SynthColumn) -> str:
    if c.categories is not None:
        return f"{c.column}: {len(c.categories)} categories ({values_text(c.categories)})"
    return f"{c.column}: {edges_text(list(c.bins or ()))}"


def _condition(column: str, op: str, value: object) -> str:
    if op == "in" and isinstance(value, (list, tuple)):
        return f"{column} is one of {values_text(list(value))}"
    words = {"==": "is", "!=": "is not", "<": "<", "<=": "≤", ">": ">", ">=": "≥"}
    return f"{column} {words.get(op, op)} {value}"


def public_parameters(q: Query) -> list[tuple[str, str]]:
    """(name, value) of every public parameter the statistic has, as a person reads it."""
    out: list[tuple[str, str]] = [("Kind", KIND_NAMES.get(q.kind, q.kind))]
    if q.kind == "synthetic":
        columns = q.synth_columns or ()
        out.append(("Columns", ", ".join(c.column for c in columns)))
        out += [("Values of " + c.column, _column_domain(c).split(": ", 1)[1])
                for c in columns]
        out.append(("Rows", f"{q.rows:,} made-up rows" if q.rows is not None else
                    "as many as the noised counts say"))
        out.append(("Method", q.mechanism.upper() if q.mechanism == "mst" else q.mechanism))
    else:
        if q.column is not None:
            out.append(("Column", q.column))
        if q.lower is not None and q.upper is not None:
            out.append(("Bounds", f"{_num(q.lower)} to {_num(q.upper)}"))
        if q.quantile is not None:
            out.append(("Quantile", f"{_num(q.quantile)}"
                        + (" (the median)" if q.quantile == 0.5 else "")))
        if q.categories is not None:
            out.append(("Categories", f"{len(q.categories)}: {values_text(q.categories)}"))
        if q.bins is not None:
            out.append(("Bins", edges_text(list(q.bins))))
        if q.group_by is not None:
            out.append(("Grouped by", f"{q.group_by.column}, {len(q.group_by.keys)} keys: "
                        f"{values_text(q.group_by.keys)}"))
        if q.yes is not None:
            out.append(("Read as yes", values_text(q.yes)))
        if q.no is not None:
            out.append(("Read as no", values_text(q.no)))
        if q.where:
            out.append(("Only rows where", " and ".join(_condition(c.column, c.op, c.value)
                                                         for c in q.where)))
        if q.grid_step is not None:
            out.append(("Grid step", _num(q.grid_step)))
        if q.expected_count is not None:
            out.append(("Expected rows", format_number(q.expected_count)))
        out.append(("Noise", NOISE_WORDS.get(q.mechanism, q.mechanism.replace("_", " "))))
    out.append(("ε", _num(q.epsilon)))
    if q.delta or q.kind == "synthetic":
        out.append(("δ", _num(q.delta)))
    return out


def _value(v: Scalar | None) -> str:
    """A value from the plan: a number as written (5, not 5.0), a text as it is."""
    return _num(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)


def _missing_cell(q: Query, column: str, numeric: bool) -> str:
    """What happens to a row whose ``column`` cell is missing (or, for a number, unreadable)."""
    cell = f"an empty {column} cell (or NA, NULL…)" + (" or one that is not a number"
                                                      if numeric else "")
    if q.missing.policy == "impute":
        return f"{cell} is read as {_value(q.missing.value)}"
    return f"a row with {cell} is left out"


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
    parts: list[str | None] = []
    if q.kind == "synthetic":
        cols = q.synth_columns or ()
        parts.append("a row with an empty cell in any of its columns, a value not among a "
                     "column's categories, or a number outside a column's bin edges (or not a "
                     "number) is left out of every count the table is made from")
        if any(c.bins is not None for c in cols):
            parts.append("no value is clamped")
    elif q.kind == "randomized_response":
        assert q.column is not None
        if q.missing.policy == "impute":
            parts.append(f"an empty {q.column} cell, or one that is neither a yes nor a no "
                         f"value, is read as {_value(q.missing.value)}")
        else:
            parts.append(f"a row whose {q.column} is empty or neither a yes nor a no value is "
                         "left out (it gives no answer)")
    elif q.kind == "count":
        if q.column is None:
            parts.append("no column's value is read, so no cell can be missing")
        elif q.missing.policy == "impute":
            parts.append(f"a row with an empty {q.column} cell is counted too")
        else:
            parts.append(f"a row with an empty {q.column} cell (or NA, NULL…) is not counted")
    elif q.kind == "histogram":
        assert q.column is not None
        parts.append(_missing_cell(q, q.column, q.bins is not None))
        if q.categories is not None:
            parts.append(f"a value of {q.column} not among the categories is left out")
        else:
            edges = list(q.bins or ())
            parts.append(f"a value of {q.column} below {_num(edges[0])} or above "
                         f"{_num(edges[-1])} is left out (not clamped)")
    else:  # sum, mean, variance, quantile: a bounded number
        assert q.column is not None and q.lower is not None and q.upper is not None
        parts.append(_missing_cell(q, q.column, True))
        grid = (f"a step of {_num(q.grid_step)}" if q.grid_step is not None else
                "a fine grid (far finer than the noise)")
        parts.append(f"a value below {_num(q.lower)} counts as {_num(q.lower)} and one above "
                     f"{_num(q.upper)} as {_num(q.upper)} (clamped), then it is rounded to "
                     f"{grid}")
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
