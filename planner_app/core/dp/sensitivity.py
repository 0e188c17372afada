"""Exact sensitivities for every kind of statistic, with a derivation a person can read.

Every statistic is computed as one or more integer *components* (a count, a sum in grid
steps, a vector of cell counts, ...). For each component we know the set of contributions
one unit of privacy can make: each of its rows adds a value in [a, b] (in grid steps) to one
cell, or nothing at all when the row can be filtered out, dropped as missing, or fall outside
the declared categories. From that set:

* add-remove: sensitivity = the largest norm of one unit's contribution;
* replace-one: sensitivity = the largest distance between two possible contributions.

With k rows per person the contribution is the sum of 1..k row contributions. This gives the
textbook values of ../shared/reference/formulas.md (count 1, sum max(|L|,|U|) or U-L,
histogram 1 or 2, all times k) and stays exact for filters and group-bys, where a row can move
in or out of a cell.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..model import PrivacyUnit, Query
from ..model.grid import grid_step_for
from ..support.words import format_number, present_words, rows_per_person


@dataclass(frozen=True)
class Component:
    """One integer-valued aggregate of a statistic and its sensitivity, in its own steps."""

    name: str  # count | sum | sumsq | cells | rank | answers
    step: float  # value units per integer step (a power of two, 1 for counts)
    l1: int  # L1 sensitivity in steps
    l2_sq: int  # squared L2 sensitivity in steps^2
    cells: int  # how many disjoint cells the component releases
    single_cell: bool  # True when one unit can change only one cell
    derivation: str

    @property
    def l2(self) -> float:
        return math.sqrt(self.l2_sq)

    @property
    def l1_value(self) -> float:
        return self.l1 * self.step

    @property
    def l2_value(self) -> float:
        return self.l2 * self.step


@dataclass(frozen=True)
class Grid:
    """The fixed power-of-two grid a bounded column is rounded to before aggregation."""

    step: float
    lo: int  # lower bound in steps
    hi: int  # upper bound in steps

    @property
    def centre(self) -> int:
        return (self.lo + self.hi) // 2

    @property
    def radius(self) -> int:
        return max(self.centre - self.lo, self.hi - self.centre)

    @property
    def points(self) -> int:
        return self.hi - self.lo + 1


def bounds_grid(lower: float, upper: float, grid_step: float | None, bits: int) -> Grid:
    """Grid step: the plan's ``grid_step``, else 2^(floor(log2(U-L)) - bits) (the kind's
    ``grid_bits``: 16, 12 for quantiles): depends on the public bounds only, never on the
    data."""
    step = grid_step_for(bits, lower, upper, grid_step)
    return Grid(step=step, lo=round(lower / step), hi=round(upper / step))


def groups_of(query: Query) -> int:
    """How many declared groups a query's group-by has (1 without one)."""
    return len(query.group_by.keys) if query.group_by is not None else 1


def fmt(x: float) -> str:
    return f"{x:.10g}"


def bounds_text(column: str | None, lower: float | None, upper: float | None) -> str:
    """"<column> clamped to [lower, upper]"."""
    return f"{column} clamped to [{fmt(lower or 0)}, {fmt(upper or 0)}]"


def unit_text(unit: PrivacyUnit) -> str:
    return rows_per_person(unit.max_rows if unit.kind == "person" else None)


def row_component(
    name: str, a: int, b: int, step: float, unit: PrivacyUnit, relation: str, what: str,
    *, cells: int, can_be_empty: bool,
) -> Component:
    """Sensitivity of a component whose rows add a value in [a, b] steps to one of ``cells``
    cells (``can_be_empty``: a row may contribute nothing -- filtered, dropped, outside the
    declared cells)."""
    k = unit.rows_per_unit
    row_lo = min(a, 0) if can_be_empty else a
    row_hi = max(b, 0) if can_be_empty else b
    lo = min(row_lo, k * row_lo)  # the smallest total of 1..k rows
    hi = max(row_hi, k * row_hi)
    biggest = max(abs(lo), abs(hi))
    if relation == "add-remove":
        l1 = biggest
        l2_sq = biggest * biggest
        rule = "add-remove: one person's largest total"
        single = k == 1  # with several rows, a person may touch several cells
    else:
        in_one_cell = hi - lo
        if cells > 1:
            # a person's rows may move from one cell to another
            l1 = max(in_one_cell, 2 * biggest)
            l2_sq = max(in_one_cell * in_one_cell, 2 * biggest * biggest)
            rule = "replace-one: a person's rows may move to another cell"
            single = False
        else:
            l1 = in_one_cell
            l2_sq = in_one_cell * in_one_cell
            rule = "replace-one: the widest change of one person's total"
            single = True
    if cells == 1:
        single = True
    sens = l1 * step
    derivation = f"{what}, {unit_text(unit)}, {rule}: sensitivity {format_number(sens)}"
    return Component(name=name, step=step, l1=l1, l2_sq=l2_sq, cells=cells, single_cell=single,
                     derivation=derivation)


def describe_rows(query: Query) -> str:
    """Which rows a statistic keeps, in words, in brackets ("" when every row)."""
    parts = []
    if query.where:
        parts.append("rows filtered by " + ", ".join(
            f"{c.column} {c.op} {list(c.value) if c.op == 'in' else c.value}" for c in query.where))
    if query.group_by is not None:
        parts.append(f"grouped by {query.group_by.column} over {len(query.group_by.keys)} "
                     "declared keys")
    if query.column is not None and query.missing.policy == "drop":
        parts.append("missing cells dropped")
    elif query.column is not None and query.missing.policy == "impute":
        parts.append("missing cells imputed, and counted")
    return (" (" + "; ".join(parts) + ")") if parts else ""


def present_text(query: Query) -> str:
    """" where <column> is present" for a statistic of a column whose missing cells are left
    out; with imputation every row counts, a missing cell included."""
    return (f" {present_words(query.column)}"
            if query.column and query.missing.policy != "impute" else "")


def people_component(query: Query, unit: PrivacyUnit, relation: str, cells: int) -> Component:
    """A count of people (distinct ids): a person adds 1 to each cell that any of their kept
    rows falls in, so to at most m = min(max_rows, cells) cells, 1 each. Add-remove: L1 = m,
    L2² = m. Replace-one: their cells may all move, L1 = L2² = 2m (1 with a single cell)."""
    m = min(unit.rows_per_unit, cells)
    if relation == "add-remove":
        l1 = l2_sq = m
        rule = (f"add-remove: a person counts once in each of at most {m:,} cells"
                if m > 1 else "add-remove: a person counts once")
    else:
        l1 = l2_sq = 2 * m if cells > 1 else 1
        rule = ("replace-one: a person's cells may all move" if cells > 1
                else "replace-one: a person counts once")
    rows = present_text(query).replace("where", "with a row where")
    what = f"count of people (distinct {unit.id_column}){rows}{describe_rows(query)}"
    derivation = f"{what}, {unit_text(unit)}, {rule}: sensitivity {format_number(l1)}"
    return Component(name="count", step=1.0, l1=l1, l2_sq=l2_sq, cells=cells,
                     single_cell=m == 1 and (cells == 1 or relation == "add-remove"),
                     derivation=derivation)


def rank_component(query: Query, unit: PrivacyUnit, relation: str, cells: int,
                   bounds: tuple[float, float]) -> Component:
    """The rank of a candidate among a clamped column's values (the exponential mechanism's
    score): one row moves it by at most 1, k rows by k; under replace-one a row may also
    leave one group and join another."""
    k = unit.rows_per_unit
    moves = relation == "replace-one" and cells > 1
    rank = 2 * k if moves else k
    why = ("a replaced row may leave one group and join another, moving a rank in each"
           if moves else "one row moves a rank by at most 1")
    derivation = (f"rank of a candidate among {query.column} clamped to "
                  f"[{fmt(bounds[0])}, {fmt(bounds[1])}]{describe_rows(query)}, "
                  f"{unit_text(unit)}, {relation}: {why}, so sensitivity {rank}")
    return Component(name="rank", step=1.0, l1=rank, l2_sq=rank * rank, cells=cells,
                     single_cell=cells == 1, derivation=derivation)


HEADLINE_ORDER = ("sum", "cells", "answers", "count", "rank")  # synthetic: its first


def headline_index(names: list[str]) -> int:
    """Which component stands for the whole statistic (the sum of a mean, the cells of a
    histogram)."""
    for name in HEADLINE_ORDER:
        if name in names:
            return names.index(name)
    return 0
