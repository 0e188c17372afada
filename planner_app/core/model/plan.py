"""The plan's vocabulary and its frozen dataclasses: what a privacy officer reviews and what a
release executes.

A plan is JSON with ``"format": "planner-app/plan@1"``: validation.py reads a decoded document
into these dataclasses, naming the field of every problem, and serialisation.py reads and
writes the JSON text. Plans come from other people, so nothing in them is ever evaluated as
code: conditions are data (column, operator, value), never expression strings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

FORMAT = "planner-app/plan@1"
# cal26 (issue 26): a plan released on a schedule (its ``programme``) is written as plan@2; every
# other plan is still plan@1, byte for byte. Both are read.
FORMAT_PROGRAMME = "planner-app/plan@2"
FORMATS = (FORMAT, FORMAT_PROGRAMME)
OPS = ("==", "!=", "<", "<=", ">", ">=", "in")
RELATIONS = ("add-remove", "replace-one")
ACCOUNTANTS = ("basic", "zcdp", "pld")
MAX_PLAN_BYTES = 50 * 1024 * 1024
MAX_QUERIES = 10_000
MAX_LIST = 1_000_000
MAX_ABS_BOUND = 1e15
MAX_EPSILON = 1000.0
MAX_TEXT = 2_000
MAX_EXPECTED_ROWS = 2_000_000_000  # the app's row-count field holds up to this
# The smallest δ above 0 that the tool accepts. Below it the accountants' arithmetic leaves
# the range where it is exact (1/δ overflows near 5.6e-309; δ itself is denormal below
# 2.2e-308), and no meaningful release needs it: a smaller δ is refused, never rounded.
MIN_DELTA = 1e-100
_ID_RE = re.compile(r"[A-Za-z0-9_.-]{1,64}")  # fullmatch: "$" would allow a final newline

Scalar = str | int | float | bool


@dataclass(frozen=True)
class Condition:
    """One filter condition: rows where ``column op value`` holds are kept."""

    column: str
    op: str
    value: Any


@dataclass(frozen=True)
class GroupBy:
    """Group the statistic by a column over a declared, public list of keys. ``bins``
    (internal, never in a plan file: a synthetic table's pair of two binned columns) groups
    by the bin of a numeric column instead, as a histogram bins it; ``keys`` then holds the
    bins' labels, one a group."""

    column: str
    keys: tuple[Scalar, ...]
    bins: tuple[float, ...] | None = None


@dataclass(frozen=True)
class Missing:
    """What to do with missing or unreadable cells: drop the row, or impute a value."""

    policy: str = "drop"
    value: Scalar | None = None


@dataclass(frozen=True)
class SynthColumn:
    """One column of a synthetic table with its public domain: declared categories, or bin
    edges (a numeric column; the last bin includes its upper edge, as in a histogram)."""

    column: str
    categories: tuple[Scalar, ...] | None = None
    bins: tuple[float, ...] | None = None

    @property
    def size(self) -> int:
        """How many values the column takes in the synthetic table."""
        if self.categories is not None:
            return len(self.categories)
        return len(self.bins or ()) - 1

    def labels(self) -> list[Scalar]:
        """The values written in the synthetic table: the categories, or each bin's label."""
        if self.categories is not None:
            return list(self.categories)
        edges = [_edge_text(float(e)) for e in self.bins or ()]
        return [f"[{edges[i]}, {edges[i + 1]}{']' if i == len(edges) - 2 else ')'}"
                for i in range(len(edges) - 1)]


def _edge_text(x: float) -> str:
    """A bin edge written exactly (whole numbers without ".0"), so two edges never share a
    label."""
    return str(int(x)) if x.is_integer() and abs(x) < 1e16 else repr(x)


@dataclass(frozen=True)
class KindParams:
    """A statistic kind's own fields (a histogram's categories, a sum's bounds, ...): each
    kind in core/kinds declares a frozen subclass, reads and validates it from the plan file
    and writes it back. The model knows only this base, so a new kind with a new field
    changes neither the model nor the plan file's reader and writer."""

    def columns_read(self) -> list[tuple[str, str]]:
        """(field, column) for the table columns its own fields read (a synthetic table's
        ``columns[i].column``), besides the statistic's column, group and filter."""
        return []


@dataclass(frozen=True)
class Query:
    """One statistic to publish: the fields every statistic has, its share of ε (and δ), and
    its kind's own fields in ``params`` (core/kinds reads them with a typed accessor)."""

    id: str
    kind: str
    epsilon: float
    label: str = ""
    column: str | None = None
    group_by: GroupBy | None = None
    where: tuple[Condition, ...] = ()
    missing: Missing = field(default_factory=Missing)
    mechanism: str = "laplace"
    delta: float = 0.0
    # a public guess of the rows the statistic uses (any kind but a synthetic table: the ±
    # of a mean or a share, the rows a preview draws)
    expected_count: float | None = None
    justification: Mapping[str, str] | None = None
    # required, by keyword: a statistic is made by its kind's reader or kinds.make_query,
    # never with params its kind cannot read
    params: KindParams = field(kw_only=True)

    @property
    def title(self) -> str:
        return self.label or self.id

    def columns_read(self) -> list[tuple[str, str]]:
        """(field, column) for every table column this statistic reads, the field as in the
        plan (``column``, ``group_by.column``, ``where[i].column``, ``columns[i].column``).
        The one list of what a statistic reads: the policy's forbidden columns, the engines'
        projection and the column checks all take it from here."""
        out = [("column", self.column)] if self.column else []
        if self.group_by is not None:
            out.append(("group_by.column", self.group_by.column))
        out += [(f"where[{i}].column", c.column) for i, c in enumerate(self.where)]
        return out + self.params.columns_read()

    @property
    def is_filtered(self) -> bool:
        """True when a row of a person may contribute nothing (filter or dropped cell)."""
        return bool(self.where) or self.missing.policy == "drop" and self.column is not None


@dataclass(frozen=True)
class PrivacyUnit:
    """What one person is: a row, or an id with at most ``max_rows`` rows. ``rows_reason``:
    with the row unit, the owner's recorded decision that the rows are different people even
    though a column repeats like an id (``rows_are_people.reason`` in the file). ``max_rows``
    None: a person unit whose number the owner has not stated yet (only in the app's plan
    being edited; the release rule ``rows`` refuses it, the plan reader outside the app too)."""

    kind: str = "row"
    id_column: str | None = None
    max_rows: int | None = 1
    rows_reason: str | None = None

    @property
    def rows_stated(self) -> bool:
        """False for a person unit whose rows per person are not stated yet."""
        return self.kind != "person" or self.max_rows is not None

    @property
    def rows_per_unit(self) -> int:
        """The contribution bound every computation uses: 1 for the row unit; a person's
        stated rows (1 while not stated: what is shown is then marked not ready)."""
        return (self.max_rows or 1) if self.kind == "person" else 1


@dataclass(frozen=True)
class Budget:
    epsilon: float
    delta: float = 0.0
    accountant: str | None = None


@dataclass(frozen=True)
class Dataset:
    name: str
    path: str | None = None
    expected_rows: int | None = None


@dataclass(frozen=True)
class Relation:
    """The cells of statistic ``parts`` add up to the cells of statistic ``total`` (issue 27).
    ``within``: for a two-level hierarchy (a group-by under a group-by of another column),
    each of the total's group keys with the parts' group keys that lie within it; empty
    when the total has one cell, or when both group by the same column and keys."""

    total: str
    parts: str
    within: tuple[tuple[Scalar, tuple[Scalar, ...]], ...] = ()


#: which values a consistent release shows first: the raw noised ones or the consistent ones
HEADLINES = ("raw", "consistent")


@dataclass(frozen=True)
class Consistency:
    """The plan's relations and how their consistent values are made (post-processing of
    the noised values: no privacy cost). ``non_negative``: no cell below 0; ``integer``:
    whole numbers that keep every relation exactly (controlled rounding)."""

    relations: tuple[Relation, ...]
    non_negative: bool = False
    integer: bool = False
    headline: str = "raw"


#: how often a programme's releases come when it declares a cadence (cal26)
CADENCES = ("week", "month", "quarter", "year")


@dataclass(frozen=True)
class Programme:
    """A plan released on a schedule (cal26, issue 26): the same plan, on new data about the
    same people, at each of its dates. ``dates`` are ISO dates (YYYY-MM-DD): the explicit
    list, or empty with ``start``, ``every`` and (optionally) ``end``. A release belongs to
    the latest date on or before its day, within ``window_days`` of it and before the next."""

    name: str
    start: str | None = None
    every: str | None = None
    end: str | None = None
    dates: tuple[str, ...] = ()
    window_days: int = 7


@dataclass(frozen=True)
class Plan:
    dataset: Dataset
    privacy_unit: PrivacyUnit
    budget: Budget
    queries: tuple[Query, ...]
    neighbouring: str = "add-remove"
    justification: str | None = None
    approvals: tuple[Mapping[str, Any], ...] = ()
    consistency: Consistency | None = None  # relations between statistics (issue 27)
    programme: Programme | None = None  # released on a schedule (cal26, issue 26)

    def query(self, query_id: str) -> Query:
        for q in self.queries:
            if q.id == query_id:
                return q
        raise KeyError(query_id)

    def columns_read(self) -> list[tuple[str, str]]:
        """(field, column) for every column the plan reads: the person id (person unit), then
        each statistic's columns (``Query.columns_read``), fields as in the plan."""
        unit = self.privacy_unit
        out = [("privacy_unit.id_column", unit.id_column)] \
            if unit.kind == "person" and unit.id_column else []
        return out + [(f"queries[{q.id}].{where}", column)
                      for q in self.queries for where, column in q.columns_read()]

    def with_queries(self, queries: Iterable[Query]) -> Plan:
        return replace(self, queries=tuple(queries))
