"""What a statistic's aggregate is, as a description the data engines run (the "data"
section of each kind).

A kind says WHAT its true aggregate is (``StatisticKind.aggregate_of(query)``), as one of the
small frozen dataclasses below; the engines (DuckDB and Spark SQL in data/sql_plan.py and
data/sql_aggregates.py, the owner's cell facts in data/facts.py) say HOW to compute each of them,
once, whatever the kind. The parts a description names are the keys of ``Aggregate.parts``.

What every description shares is read from the query itself and is the same for every kind:
its ``where`` conditions, its ``group_by`` (the outer cells), its missing-value policy and,
for yes/no answers, how a cell reads as yes or no (``model.answer_reader``). A description
holds the rest: the column it reads, how (numbers, keys, answers), the inner cells, and the
bounding of a number (clamped to the public bounds, rounded to the grid).

A new kind whose aggregate is one of these needs no engine change (a standard deviation's is
the variance's ``GridSums``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

from ..dp.sensitivity import Grid
from ..model import SynthColumn

#: the parts a ``GridSums`` may name, in the order they are computed
GRID_PARTS = ("count", "sum", "sumsq")


@dataclass(frozen=True)
class YesNoAnswers:
    """Each kept row's cell of ``column`` read as a yes/no answer (``Aggregate.answers``:
    the yes answers then the no answers; the missing policy drops or fills the others)."""

    column: str
    reads_numbers: ClassVar[bool] = False
    reads_answers: ClassVar[bool] = True

    def inner_labels(self) -> list[Any]:
        return [None]


@dataclass(frozen=True)
class RowCounts:
    """Rows per cell (part ``count``); ``present_in``: the column whose empty cells the
    missing policy drops (or counts, when imputed); ``people``: each person once a cell
    (any of their kept rows in it), not each row."""

    present_in: str | None
    people: bool = False
    reads_numbers: ClassVar[bool] = False
    reads_answers: ClassVar[bool] = False

    def inner_labels(self) -> list[Any]:
        return [None]


@dataclass(frozen=True)
class CategoryCounts:
    """Rows per (group, declared category of ``column``) (part ``cells``, row-major)."""

    column: str
    categories: Sequence[Any]
    reads_numbers: ClassVar[bool] = False
    reads_answers: ClassVar[bool] = False

    def inner_labels(self) -> list[Any]:
        return list(self.categories)


@dataclass(frozen=True)
class BinCounts:
    """Rows per (group, bin of ``column``'s number between the declared ``edges``; the last
    bin includes its upper edge) (part ``cells``, row-major)."""

    column: str
    edges: Sequence[float]
    reads_numbers: ClassVar[bool] = True
    reads_answers: ClassVar[bool] = False

    def inner_labels(self) -> list[Any]:
        edges = list(self.edges)
        return [f"[{edges[i]:g}, {edges[i + 1]:g}{']' if i == len(edges) - 2 else ')'}"
                for i in range(len(edges) - 1)]


@dataclass(frozen=True)
class GridSums:
    """``column``'s number clamped to [lower, upper] and rounded to the grid, per cell: the
    named ``parts`` among ``GRID_PARTS`` (``count`` rows, ``sum`` of the steps, ``sumsq`` of
    their squares), the steps taken from the grid's centre when ``centred``."""

    column: str
    lower: float
    upper: float
    grid: Grid
    parts: tuple[str, ...]
    centred: bool
    reads_numbers: ClassVar[bool] = True
    reads_answers: ClassVar[bool] = False

    def inner_labels(self) -> list[Any]:
        return [None]


@dataclass(frozen=True)
class GridStepCounts:
    """``column``'s number clamped to [lower, upper] and rounded to the grid, per cell: how
    many rows on each grid step (``Aggregate.step_counts``; the pandas engine keeps the
    sorted steps, ``Aggregate.sorted_values``)."""

    column: str
    lower: float
    upper: float
    grid: Grid
    reads_numbers: ClassVar[bool] = True
    reads_answers: ClassVar[bool] = False

    def inner_labels(self) -> list[Any]:
        return [None]


@dataclass(frozen=True)
class KeyCounts:
    """People per distinct present value of ``column`` (a discovery of keys): each person
    counts once in each key they hold, in at most ``max_keys`` keys (those with the smallest
    secret-salted hash; rows unit: each row once). ``Aggregate.cells`` are (None, key) for
    every key present, part ``count`` their counts: data-dependent, never published as such
    (the kind publishes the keys whose noised count clears its threshold)."""

    column: str
    max_keys: int
    reads_numbers: ClassVar[bool] = False
    reads_answers: ClassVar[bool] = False

    def inner_labels(self) -> list[Any]:
        return [None]


@dataclass(frozen=True)
class Marginals:
    """The one- and two-way marginals of the declared ``columns`` (a synthetic table):
    computed as ``BinCounts``/``CategoryCounts`` of derived queries
    (data/synthetic_marginals.py), never read by an engine directly. The query's own
    column is none (each declared column is read as its domain says)."""

    columns: Sequence[SynthColumn]
    reads_numbers: ClassVar[bool] = False
    reads_answers: ClassVar[bool] = False

    def inner_labels(self) -> list[Any]:
        return [None]


#: what a statistic's aggregate is: one of these
AggregateDescription: TypeAlias = (YesNoAnswers | RowCounts | CategoryCounts | BinCounts | GridSums
                        | GridStepCounts | Marginals | KeyCounts)
