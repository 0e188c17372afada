"""Starter plans: what a new plan holds before the owner fills it in, the same in the app
("New plan", a new table) and on the command line (``planner-app plan new``).

A starter takes nothing from the data but the column names and their detected types: no
bound, category or key is ever read from the table. What only the owner knows (bounds,
categories, the most rows one person may have) is left empty, so that ``check`` names it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..data.repeats import id_like_columns
from ..model import Budget, Dataset, Plan, PrivacyUnit
from ..model.reader import usable_name
from ..planfile import plan_to_dict

if TYPE_CHECKING:  # a type only: the tables module imports pandas
    from ..data.tables import ColumnInfo

STARTER_EPSILON = 1.0  # the budget of one release a new plan starts with
STARTER_DELTA = 1e-6  # lets the owner choose the gaussian mechanism without a budget edit
TODO_BOUNDS = "TODO: where the bounds come from"
TODO_CATEGORIES = "TODO: where the list comes from"


def looks_like_id(name: str) -> bool:
    """True for a column name that reads as a person's identifier (id, key, *_id, ...)."""
    lowered = name.lower()
    return lowered in ("id", "key", "uuid") or lowered.endswith(("_id", " id", "-id"))


def starter_unit(column_names: Iterable[str] = ()) -> PrivacyUnit:
    """Who one person is in a new plan: a column that looks like a person id makes a person
    that id, its rows per person not stated (a number only the owner knows, never read from
    the table and never a silent 1: the release rule ``rows`` asks for it), else each row is a
    different person."""
    ids = [c for c in column_names if looks_like_id(c)]
    if ids:
        return PrivacyUnit(kind="person", id_column=ids[0], max_rows=None)
    return PrivacyUnit()


#: The type of column each kind reads best (a kind not named reads any column).
_KIND_TYPES = {"sum": "number", "mean": "number", "variance": "number", "quantile": "number",
               "histogram": "text", "randomized_response": "yes/no"}


def identifies_a_person(column: ColumnInfo, id_column: str | None) -> bool:
    """The one rule of which columns identify a person, so that no statistic starts on one:
    the plan's person id, a column named like an id, or one whose values repeat like an id
    (``repeats.id_like``)."""
    return (column.name == id_column or looks_like_id(column.name)
            or (column.repeats is not None and column.repeats.id_like))


def default_column(kind: str, columns: Iterable[ColumnInfo], types: Mapping[str, str],
                   id_column: str | None) -> str | None:
    """The column a new statistic of ``kind`` starts on: never one that identifies a person
    (``identifies_a_person``); the first of the type the kind reads (a mean: a number column;
    ``types``: the columns' types as the owner set them), else the first other; None when
    every column identifies a person."""
    usable = [c.name for c in columns if not identifies_a_person(c, id_column)]
    wanted = _KIND_TYPES.get(kind)
    typed = [name for name in usable if types.get(name) == wanted]
    return next(iter(typed or usable), None)


def empty_plan(name: str, table_name: str | None = None,
               column_names: Iterable[str] = ()) -> Plan:
    """A new plan with no statistics: who one person is (``starter_unit``), the starter
    budget."""
    return Plan(dataset=Dataset(name=usable_name(name), path=table_name, expected_rows=None),
                privacy_unit=starter_unit(column_names),
                budget=Budget(epsilon=STARTER_EPSILON, delta=STARTER_DELTA), queries=())


@dataclass(frozen=True)
class Starter:
    """A starter plan document, to be written and filled in (it does not validate yet)."""

    document: dict[str, Any]
    to_fill_in: int  # statistics that need bounds or categories from the owner
    id_column: str | None  # the column that looks like a person id, if any


def _ident(column: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "_.-" else "_" for ch in column)[:50]


def _statistic(col: ColumnInfo) -> dict[str, Any]:
    """The statistic a column of this type starts as (its ε is set after)."""
    ident = _ident(col.name)
    if col.detected_type == "number":
        return {"id": f"mean_{ident}", "label": f"Mean of {col.name}", "kind": "mean",
                "column": col.name, "lower": None, "upper": None, "epsilon": None,
                "justification": {"bounds": TODO_BOUNDS}}
    if col.detected_type == "yes/no":
        return {"id": f"share_{ident}", "label": f"Share of yes in {col.name}",
                "kind": "randomized_response", "column": col.name, "epsilon": None}
    return {"id": f"counts_{ident}", "label": f"Counts of {col.name}", "kind": "histogram",
            "column": col.name, "categories": [], "epsilon": None,
            "justification": {"categories": TODO_CATEGORIES}}


def starter_from_columns(name: str, table_name: str, columns: Iterable[ColumnInfo]) -> Starter:
    """A starter plan from a table's columns: the number of rows, then a mean of each number
    column, a share of each yes/no column and counts of each other column, the starter budget
    split evenly. A column whose values repeat like a person's id (``repeats.id_like``), or
    else one named like an id, becomes the privacy unit (its max_rows left for the owner: a
    number published with the plan, so never taken from the table), never a statistic."""
    columns = list(columns)
    repeating = [r.column for r in id_like_columns(c.repeats for c in columns)]
    queries: list[dict[str, Any]] = [
        {"id": "rows", "label": "Number of rows", "kind": "count", "epsilon": None}]
    queries += [_statistic(col) for col in columns if not identifies_a_person(col, None)]
    share = round(STARTER_EPSILON / len(queries), 6)
    for q in queries:
        q["epsilon"] = share
    # a column whose values repeat like an id first (the data shows one person on several
    # rows), then a column named like one; its max_rows is the owner's, never the table's
    ids = list(dict.fromkeys([*repeating, *(c.name for c in columns if looks_like_id(c.name))]))
    doc = plan_to_dict(empty_plan(name, table_name))
    if ids:  # with an id column, the owner must say how many rows one person may have
        # (the app's form starts at 1 and asks)
        doc["privacy_unit"] = {"kind": "person", "id_column": ids[0], "max_rows": None}
    doc["queries"] = queries
    todo = sum(1 for q in queries if q.get("lower", 0) is None or q.get("categories") == [])
    return Starter(document=doc, to_fill_in=todo, id_column=ids[0] if ids else None)
