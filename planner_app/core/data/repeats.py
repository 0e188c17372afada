"""Columns whose values repeat like a person's id: the one rule of "is one person several
rows?", and its owner-only words.

A table where one person has several rows (a panel: one row per wave) protects each *row*
under the row unit, so a person with 8 rows is 8× less protected than the screen says. The
engine's pass over a table (``facts.table_facts``) counts each column's distinct values
(approximately, in the same pass) and, for the few columns that could be ids, how many rows
share one value at most (one GROUP BY each). Everything here is read from the private table:
it is shown to the owner (the Data tab, ``check --data``, ``plan new``) and never published.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class Reader(Protocol):
    """What this module needs of ``facts_reader.Reader`` (which calls it: no import back)."""

    def run(self, sql: str, progress: Callable[[float, str], None] | None = None,
            cancel: Callable[[], bool] | None = None,
            message: str = "Reading") -> list[tuple[Any, ...]]: ...

#: Fewer distinct values than this is a category (a region, a wave), never an id.
ID_MIN_VALUES = 20
#: Without an id-like name, a column needs this many distinct values (more than any age or
#: score column has) and most of its values repeating (rows per value at least
#: ``ID_MIN_ROWS_PER_VALUE`` and at most ``ID_MAX_ROWS_PER_VALUE`` on average).
ID_MIN_VALUES_UNNAMED = 200
ID_MIN_ROWS_PER_VALUE = 1.5
ID_MAX_ROWS_PER_VALUE = 50.0
#: Candidates read exactly (one GROUP BY each) per table, the likeliest first.
MAX_CANDIDATES = 8

_ID_WORDS = frozenset({
    "id", "ids", "nr", "no", "num", "number", "pid", "key", "uuid", "guid", "code", "person",
    "persons", "respondent", "participant", "patient", "customer", "client", "member",
    "household", "hh", "subject", "case", "user", "ssn", "bsn", "identifier", "ident",
    "account", "employee", "student", "pupil", "citizen", "resident", "individual",
})


def id_name(name: str) -> bool:
    """True when a column's name reads as an identifier: a word of it is ``id``, ``nr``,
    ``person``, ``respondent``… (``person_id``, ``PersonNr``, ``hh-nr``)."""
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", name)
    return any(w.lower() in _ID_WORDS for w in words)


@dataclass(frozen=True)
class Repeats:
    """How a column's values repeat: ``distinct`` values over ``filled`` cells, at most
    ``most`` rows sharing one value. Private: for the owner's eyes only."""

    column: str
    distinct: int
    filled: int
    most: int

    @property
    def id_like(self) -> bool:
        return id_like(self.column, self.distinct, self.filled, self.most)


def may_be_id(name: str, detected_type: str, distinct: int, filled: int,
              fractions: int = 0) -> bool:
    """Whether a column is worth the exact count (``id_like`` before ``most`` is known):
    text, or numbers that are all whole (not a measurement), with enough distinct values,
    some of them repeating. ``distinct`` may be approximate here."""
    if detected_type not in ("text", "number") or fractions:
        return False
    if distinct < ID_MIN_VALUES or filled < 2:
        return False
    if id_name(name):
        return True
    if detected_type == "number":  # whole numbers under another name are measurements
        return False  # (an income of 2,394 values over 4,167 rows was asked about; issue 22)
    return (distinct >= ID_MIN_VALUES_UNNAMED * 0.9  # the count is approximate
            and ID_MIN_ROWS_PER_VALUE * 0.9 <= filled / max(distinct, 1)
            <= ID_MAX_ROWS_PER_VALUE * 1.1)


def id_like(name: str, distinct: int, filled: int, most: int) -> bool:
    """The rule: a column that may be a person's id (whole numbers or text, checked by
    ``may_be_id``) whose values repeat (two rows or more share one), with many distinct
    values: an id-like name (``nr``, ``person_id``…) and at least 20, or else at least 200
    with most values repeating. A category (5 regions, 8 waves) or an age is not one."""
    if most < 2 or distinct < ID_MIN_VALUES:
        return False
    if id_name(name):
        return True
    return (distinct >= ID_MIN_VALUES_UNNAMED
            and ID_MIN_ROWS_PER_VALUE <= filled / distinct <= ID_MAX_ROWS_PER_VALUE)


def id_like_columns(found: Iterable[Repeats | None]) -> list[Repeats]:
    """The id-like repeating columns, the likeliest person id first (an id-like name, then
    more distinct values)."""
    out = [r for r in found if r is not None and r.id_like]
    return sorted(out, key=lambda r: (not id_name(r.column), -r.distinct))


def repeat_note(r: Repeats) -> str:
    """The owner-only note on one repeating column."""
    return (f"{r.column} repeats: up to {r.most:,} rows share a value ({r.distinct:,} values "
            f"over {r.filled:,} rows) — is one person several rows?")


def repeat_notes(found: Sequence[Repeats]) -> str:
    return " ".join(repeat_note(r) for r in found)


def repeat_counts(r: Reader, columns: Sequence[str],
                  cancel: Callable[[], bool] | None = None,
                  progress: Callable[[float, str], None] | None = None) -> dict[str, Repeats]:
    """For each column: its distinct filled values, its filled cells and the most rows that
    share one value (exact), in one statement (one GROUP BY a column)."""
    if not columns:
        return {}
    from .source import ident  # here: source loads pandas, which the app's start must not

    selects = []
    for i, col in enumerate(columns):
        x = ident(col)
        selects.append(f"SELECT {i} AS at, count(*), COALESCE(sum(n), 0), COALESCE(max(n), 0) "
                       f"FROM (SELECT {x}, count(*) AS n FROM src WHERE {x} IS NOT NULL "
                       f"GROUP BY {x})")
    rows = r.run(" UNION ALL ".join(selects), progress, cancel,
                 "Counting how often each id-like value repeats")
    return {columns[int(at)]: Repeats(columns[int(at)], int(d), int(f), int(m))
            for at, d, f, m in rows}


OWNER_ONLY = "Read from your table: for you only, never published."
WHY_IT_MATTERS = ("If one person has several rows, each row alone would be protected, not "
                  "the person: make the column the person id.")
ROWS_REASON_ASK = ("If the rows are different people after all, say why: your reason is "
                   "saved in the plan and shown to your privacy officer.")


def max_rows_hint(r: Repeats, max_rows: int | None) -> str:
    """With ``r.column`` as the person id: what the number of rows per person means here
    (``max_rows`` None: not stated yet)."""
    drop = (f" With {max_rows:,}, a person's rows beyond {max_rows:,} are dropped at random."
            if max_rows is not None and max_rows < r.most else "")
    return (f"How many rows can one {r.column} have at most? Say it from how the data was "
            "collected (the number of waves or visits), not from the table: it is published "
            f"with the plan. The table shows up to {r.most:,} (for you only).{drop}")
