"""The typed parameters of the statistic kinds' families and their typed accessors.

A statistic's own fields live in ``Query.params`` (model.KindParams, subclassed here by family:
a bounded column, a quantile, declared cells, declared yes/no values, a count's ``of``, a
synthetic table's columns and rows). A kind reads them with ``params_of(query, ItsParams)``;
code outside core/kinds goes through the kind or an accessor below (``bounds_of``,
``cells_of``, ...), which says None for a statistic of another family. A new kind with a
field of its own declares its parameters in its own module (base.StatisticKind's
``params_type``), not here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from ..model.plan import KindParams, Query, Scalar, SynthColumn
from ..model.values import answer_reader

# --- the families' parameters -------------------------------------------------------------

@dataclass(frozen=True)
class CountParams(KindParams):
    """A count: what it counts, "rows" or "people" (distinct ids of the unit)."""

    of: str = "rows"


@dataclass(frozen=True)
class BoundedParams(KindParams):
    """A statistic of a column clamped to declared bounds, rounded to a grid (the plan's
    ``grid_step``, else one the kind derives from the bounds). The bounds are None only in a
    statistic still being edited."""

    lower: float | None = None
    upper: float | None = None
    grid_step: float | None = None


@dataclass(frozen=True)
class QuantileParams(BoundedParams):
    """A quantile: a bounded column and the level (0.5: the median)."""

    quantile: float | None = None


@dataclass(frozen=True)
class CellsParams(KindParams):
    """A histogram: its declared categories, or its bin edges (exactly one in a plan)."""

    categories: tuple[Scalar, ...] | None = None
    bins: tuple[float, ...] | None = None


@dataclass(frozen=True)
class YesNoParams(KindParams):
    """A yes/no share: the cell values that mean yes and no (None: the fixed vocabulary)."""

    yes: tuple[Scalar, ...] | None = None
    no: tuple[Scalar, ...] | None = None


@dataclass(frozen=True)
class SynthParams(KindParams):
    """A synthetic table: its columns with their public domains ("columns" in the plan) and
    the rows to generate (None: as many as the noised marginals say)."""

    columns: tuple[SynthColumn, ...] = ()
    rows: int | None = None
    #: AIM's workload (method "aim" only): the pairs of columns (None: every pair) and the
    #: triples, each as declared column names
    pairs: tuple[tuple[str, ...], ...] | None = None
    triples: tuple[tuple[str, ...], ...] = ()

    def columns_read(self) -> list[tuple[str, str]]:
        return [(f"columns[{i}].column", c.column) for i, c in enumerate(self.columns)]


# --- typed accessors -------------------------------------------------------------------------

P = TypeVar("P", bound=KindParams)


def params_of(query: Query, cls: type[P]) -> P:
    """The statistic's parameters as the kind's own type (a kind's code calls it with its
    ``params_type``; a statistic of another kind here is a bug, never a user's input)."""
    params = query.params
    if not isinstance(params, cls):
        raise TypeError(f"statistic {query.id!r} ({query.kind}) has no {cls.__name__}")
    return params


def family_of(query: Query, cls: type[P]) -> P | None:
    """The statistic's parameters when they are of the family ``cls``, else None."""
    params = query.params
    return params if isinstance(params, cls) else None


def bounded_of(query: Query) -> BoundedParams | None:
    """A bounded column's parameters (bounds and grid step), None for other kinds."""
    return family_of(query, BoundedParams)


def bounds_of(query: Query) -> tuple[float, float] | None:
    """A bounded column's declared (lower, upper), None for other kinds or while not set."""
    p = family_of(query, BoundedParams)
    if p is None or p.lower is None or p.upper is None:
        return None
    return p.lower, p.upper


def quantile_level(query: Query) -> float | None:
    """A quantile's level (0.5: the median), None for other kinds or while not set."""
    p = family_of(query, QuantileParams)
    return p.quantile if p is not None else None


def cells_of(query: Query) -> CellsParams | None:
    """A histogram's declared categories or bins, None for other kinds."""
    return family_of(query, CellsParams)


def answers_of(query: Query) -> YesNoParams | None:
    """A yes/no share's declared yes and no values, None for other kinds."""
    return family_of(query, YesNoParams)


def answers_declared(query: Query) -> bool:
    """Whether a yes/no share declares its yes and no values (else it reads the fixed
    vocabulary; False for other kinds)."""
    p = answers_of(query)
    return p is not None and p.yes is not None


def answer_reader_of(query: Query) -> Callable[[Any], bool | None]:
    """How the statistic reads a cell as yes, no or neither (model.answer_reader)."""
    p = answers_of(query)
    return answer_reader(p.yes if p else None, p.no if p else None)


def counted_of(query: Query) -> str:
    """What a count counts: "rows" or "people" ("rows" for every other kind)."""
    p = family_of(query, CountParams)
    return p.of if p is not None else "rows"


def synth_of(query: Query) -> SynthParams | None:
    """A synthetic table's columns and rows, None for other kinds."""
    return family_of(query, SynthParams)


def synth_columns_of(query: Query) -> tuple[SynthColumn, ...]:
    """A synthetic table's declared columns, () for other kinds."""
    p = family_of(query, SynthParams)
    return p.columns if p is not None else ()


def synth_rows_of(query: Query) -> int | None:
    """A synthetic table's rows to generate (None: from the noised marginals, or another
    kind)."""
    p = family_of(query, SynthParams)
    return p.rows if p is not None else None


def synth_workload_of(query: Query
                      ) -> tuple[tuple[tuple[str, ...], ...] | None, tuple[tuple[str, ...], ...]]:
    """An AIM table's declared pairs (None: every pair) and triples."""
    p = family_of(query, SynthParams)
    return (p.pairs, p.triples) if p is not None else (None, ())


def with_params(query: Query, **changes: Any) -> Query:
    """The statistic with some of its kind's own fields changed (``dataclasses.replace`` of
    its params)."""
    return replace(query, params=replace(query.params, **changes))
