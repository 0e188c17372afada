"""Does a plan fit a table? One rule for the app, ``check --data`` and the release.

Every column the plan names must exist; the person id column must give every row an id;
numeric statistics (and numeric bins, a synthetic table's among them, and comparisons) must
read a column of numbers; and a yes/no statistic must know what every cell means: a query
without ``"yes"``/``"no"`` lists reads only the fixed vocabulary (yes/no, true/false, 1/0),
so any other value in its column is a problem, never a silent "no" or a silently dropped row.
The problems are found before any charge or noise. They are for the owner: messages name
columns and fields, never a cell. A synthetic table is checked as written
(``columns[i].column``), never as the histograms its marginals are computed with, so each
mistake is named by its own field and counted once.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..kinds.params import answer_reader_of, answers_of, synth_columns_of
from ..kinds.registry import kind_of
from ..model import (
    FIXED_YES_NO,
    Plan,
    Query,
    canonical_key,
)
from ..support.errors import InputError
from .cells_sql import is_nested
from .facts import (
    YesNoTally,
    missing_ids,
    numeric_columns,
    plan_columns,
    yes_no_counts,
    yes_no_queries,
)
from .facts_reader import Reader
from .frame_cells import factorize_cells
from .source import TableSource

NUMERIC_SHARE = 0.5  # a column is numbers when at least half of its filled cells read as one
NEITHER = -1  # a filled cell that is neither a yes nor a no value
ABSENT = -2  # an empty cell


def yes_no_codes(query: Query, series: pd.Series) -> np.ndarray:
    """Each cell read as the query reads it: 1 yes, 0 no, NEITHER or ABSENT. Distinct values
    are mapped once, not every row."""
    read = answer_reader_of(query)
    codes, uniques = factorize_cells(series)
    table = np.array([{True: 1, False: 0, None: NEITHER}[read(u)] for u in uniques] + [ABSENT],
                     dtype=np.int8)
    out: np.ndarray = table[codes]  # code -1 (missing) picks the trailing ABSENT
    return out


def _problem(field: str, text: str) -> InputError:
    return InputError("plan", field, text)


def is_numeric_column(series: pd.Series) -> bool:
    """True when at least half of the filled cells are numbers (an empty column counts: its
    cells are all missing, which the missing-value policy handles)."""
    source = _as_source(pd.DataFrame({"c": series}), "table")
    with Reader(source, ["c"]) as r:
        return numeric_columns(r, ["c"], NUMERIC_SHARE)["c"]


def needs_numbers(query: Query) -> bool:
    """The statistic reads its column as numbers (bounds or numeric bins)."""
    return kind_of(query).reads_numbers(query)


def _as_source(data: pd.DataFrame | TableSource, table_name: str) -> TableSource:
    """A table in memory as a source the engine reads (the rules below are engine queries)."""
    if isinstance(data, TableSource):
        return data
    return TableSource(name=table_name, format="frame",
                       columns=tuple(str(c) for c in data.columns),
                       frame=data.rename(columns=str))


def query_problems(query: Query, data: pd.DataFrame | TableSource, table_name: str,
                   known: Mapping[str, tuple[int, int]] | None = None) -> list[InputError]:
    """What keeps one statistic from being computed on this table as the plan means it
    (``known``: columns' filled and numeric cells already counted, see facts.table_facts)."""
    return _problems([query], _as_source(data, table_name), table_name, known=known)


def _problems(queries: Sequence[Query], source: TableSource,
              table_name: str, reader: Reader | None = None,
              known: Mapping[str, tuple[int, int]] | None = None) -> list[InputError]:
    columns = set(source.columns)
    named = [c for q in queries for _, c in q.columns_read()]
    own = reader is None
    r = Reader(source, named) if reader is None else reader
    try:
        wanted = [q.column for q in queries if q.column in columns and needs_numbers(q)]
        wanted += [c.column for q in queries for c in synth_columns_of(q)
                   if c.column in columns and c.bins is not None]
        wanted += [c.column for q in queries for c in q.where
                   if c.column in columns and c.op in ("<", "<=", ">", ">=")]
        numeric = numeric_columns(r, [str(c) for c in wanted], NUMERIC_SHARE, known)
        yes_no = yes_no_counts(r, yes_no_queries(queries, columns))
    finally:
        if own:
            r.close()
    return fit_rule(queries, columns, table_name, numeric=lambda c: bool(numeric[c]),
                    yes_no=lambda q: yes_no[q.id])


def fit_rule(queries: Sequence[Query], columns: Collection[str], table_name: str, *,
             numeric: Callable[[str], bool], yes_no: Callable[[Query], tuple[int, int]],
             id_column: str | None = None,
             ids_missing: Callable[[str], bool] | None = None) -> list[InputError]:
    """The plan/table rule, in one place, over facts an engine gives: which columns exist,
    ``numeric(column)`` (mostly numbers), ``yes_no(query)`` (cells read as neither, cells
    read as yes or no) and, for a person-level unit, ``ids_missing(id_column)``. Every
    engine (the DuckDB reader here, the release engines of sql_plan.py) calls this."""
    out: list[InputError] = []
    if id_column is not None:
        if id_column not in columns:
            out.append(_problem("privacy_unit.id_column",
                                f"no column {id_column!r} in {table_name}"))
        elif ids_missing is not None and ids_missing(id_column):
            out.append(InputError(table_name, f"column {id_column!r}",
                                  "some rows have no person id; every row needs one"))
    for query in queries:
        where = f"queries[{query.id}]"

        def exists(field: str, column: str, where: str = where) -> bool:
            if column in columns:
                return True
            out.append(_problem(f"{where}.{field}", f"no column {column!r} in {table_name}"))
            return False

        if query.column is not None and exists("column", query.column):
            if needs_numbers(query) and not numeric(query.column):
                kind = kind_of(query)
                what = f"a {kind.words} needs" if kind.bounded else "numeric bins need"
                out.append(_problem(f"{where}.column", f"{query.column!r} in {table_name} holds "
                                    f"text, not numbers: {what} a column of numbers (choose "
                                    "another column, or a histogram with categories)"))
            if kind_of(query).reads_answers:
                out.extend(_yes_no_problems(query, *yes_no(query), table_name))
        for i, sc in enumerate(synth_columns_of(query)):  # each column once, as written
            if exists(f"columns[{i}].column", sc.column) and sc.bins is not None \
                    and not numeric(sc.column):
                out.append(_problem(f"{where}.columns[{i}].column",
                                    f"{sc.column!r} in {table_name} holds text, not numbers: "
                                    "bins need a column of numbers (declare its categories "
                                    "instead)"))
        if query.group_by is not None:
            exists("group_by.column", query.group_by.column)
        for i, c in enumerate(query.where):
            if exists(f"where[{i}].column", c.column) and c.op in ("<", "<=", ">", ">=") \
                    and not numeric(c.column):
                out.append(_problem(f"{where}.where[{i}].column",
                                    f"{c.column!r} in {table_name} holds text, not numbers: "
                                    f"the operator {c.op} compares numbers"))
    return out


def _yes_no_problems(query: Query, neither: int, answered: int,
                     table_name: str) -> list[InputError]:
    declared = answers_of(query)
    if (declared is None or declared.yes is None) and neither:
        return [_problem(f"queries[{query.id}].yes",
                         f"{query.column!r} in {table_name} holds values other than "
                         f"{FIXED_YES_NO}: declare which values mean yes and which mean no "
                         '("yes": [...], "no": [...]); a value is never guessed')]
    if declared is not None and declared.yes is not None and neither and not answered:
        return [_problem(f"queries[{query.id}].yes",
                         f"no cell of {query.column!r} in {table_name} is one of the declared "
                         "yes or no values (values match by exact text)")]
    return []


def plan_problems(plan: Plan, data: pd.DataFrame | TableSource, table_name: str,
                  known: Mapping[str, tuple[int, int]] | None = None) -> list[InputError]:
    """Every way the plan does not fit the table, in plan order (empty when it fits). The
    table is read by the engine: only the columns the plan names, a few queries in all."""
    source = _as_source(data, table_name)
    out: list[InputError] = []
    unit = plan.privacy_unit
    with Reader(source, plan_columns(plan)) as r:
        nested = _nested_problem(plan, r.types, table_name)
        if nested is not None:
            return [nested]
        if unit.kind == "person":  # the id's rule (fit_rule), before the statistics'
            out.extend(fit_rule((), set(source.columns), table_name, numeric=bool,
                                yes_no=lambda q: (0, 0), id_column=str(unit.id_column),
                                ids_missing=lambda c: bool(missing_ids(r, c))))
        out.extend(_problems(plan.queries, source, table_name, r, known))
    return out


def _nested_problem(plan: Plan, types: dict[str, str], table_name: str) -> InputError | None:
    return nested_problem(plan, lambda c: c in types and is_nested(types[c]), table_name)


def nested_problem(plan: Plan, nested: Callable[[str], bool],
                   table_name: str) -> InputError | None:
    """A column a statistic uses must hold single values, not the lists, structs or maps a
    Parquet file can hold (their cells cannot be compared, counted or summed). The one rule
    for every engine; ``nested(column)`` is the engine's reading of a column."""
    for field_path, column in plan.columns_read():
        if column is not None and nested(column):
            return InputError("plan", field_path,
                              f"the column {column!r} of {table_name} holds lists or "
                              "records (a nested Parquet column), not single values; "
                              "flatten it first")
    return None


def require_fit(plan: Plan, data: pd.DataFrame | TableSource, table_name: str) -> None:
    """Raise the first problem (saying how many more there are); nothing when it fits."""
    problems = plan_problems(plan, data, table_name)
    if problems:
        first = problems[0]
        more = len(problems) - 1
        raise InputError(first.source, first.where, first.problem + (
            f" (and {more} more problem{'s' if more > 1 else ''} with this table)"
            if more else ""))


# ----------------------------------------------------------------------------- owner's view


def yes_no_tally(query: Query, series: pd.Series) -> YesNoTally:
    codes = yes_no_codes(query, series)
    return YesNoTally(int((codes == 1).sum()), int((codes == 0).sum()),
                      int((codes == NEITHER).sum()), int((codes == ABSENT).sum()))


def distinct_values(series: pd.Series, limit: int = 50) -> list[Any]:
    """Up to ``limit`` distinct filled values of a column, as text, for the owner to sort into
    yes and no (a suggestion the owner must confirm; never written anywhere by itself)."""
    seen: dict[str, Any] = {}
    for value in pd.unique(series.dropna()):
        key = canonical_key(value.item() if isinstance(value, np.generic) else value)
        if key and key not in seen:
            seen[key] = key
            if len(seen) >= limit:
                break
    return sorted(seen)


def plan_only_notes(query: Query) -> list[str]:
    """What the check without data says about how a yes/no column will be read."""
    declared = answers_of(query)
    if kind_of(query).reads_answers and (declared is None or declared.yes is None):
        return [f"{query.id}: no \"yes\"/\"no\" values are declared, so {query.column} is read "
                f"as {FIXED_YES_NO}; any other value in it stops the release (check with the "
                "data to see)"]
    return []
