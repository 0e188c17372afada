"""The SQL engine's aggregates, one function per kind of aggregate description
(core/kinds/shared_data.py): each runs GROUP BYs over the bounded table ``b`` of derived
columns that ``sql_plan.SqlEngine`` made, and returns exact integers. The SQL helpers here
write numpy's binning and rounding in SQL (they transpile to Spark SQL)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import pandas as pd

from ..kinds.params import answer_reader_of
from ..kinds.results import Aggregate, exact_integers, exact_sums
from ..kinds.shared_data import (
    BinCounts,
    CategoryCounts,
    GridStepCounts,
    GridSums,
    RowCounts,
)
from ..model import Query, canonical_key, canonical_keys
from .fit import ABSENT, NEITHER
from .source import literal
from .sql_runner import SqlRunner

MISSING = -2  # a cell's code when it is empty
UNDECLARED = -1  # a cell's code when its value is none of the declared ones


class DerivedTable(Protocol):
    """What these functions use of ``SqlEngine``: its derived columns and its GROUP BY."""

    runner: SqlRunner

    def number(self, column: str) -> str: ...

    def present(self, column: str) -> str: ...

    def index_in(self, column: str, declared: Sequence[Any]) -> str: ...

    def answer_code(self, q: Query) -> str: ...

    def grouped(self, keys: dict[str, str], sums: dict[str, str], where: str
                ) -> pd.DataFrame: ...


def yes_no_answers(e: DerivedTable, q: Query, agg: Aggregate, where: str) -> Aggregate:
    """``YesNoAnswers``: the yes answers, then the no answers."""
    facts = agg.facts
    code = e.answer_code(q)
    considered = e.grouped({}, {}, where)
    facts.rows_considered = int(considered["n"].sum()) if len(considered) else 0
    t = e.grouped({"a": code}, {}, "TRUE")
    counts = {int(a): int(n) for a, n in zip(t["a"], t["n"], strict=True)}
    yes, no = counts.get(1, 0), counts.get(0, 0)
    unknown = counts.get(NEITHER, 0) + counts.get(ABSENT, 0)
    facts.not_yes_no = counts.get(NEITHER, 0)
    if q.missing.policy == "impute":
        facts.missing_imputed = unknown
        fill = bool(answer_reader_of(q)(q.missing.value))
        yes, no = (yes + unknown, no) if fill else (yes, no + unknown)
    else:
        facts.missing_dropped = unknown
    agg.answers = np.concatenate([np.ones(yes, dtype=bool), np.zeros(no, dtype=bool)])
    return agg


def row_counts(e: DerivedTable, q: Query, what: RowCounts, agg: Aggregate,
               keys: dict[str, str], where: str, n_cells: int) -> Aggregate:
    """``RowCounts``: rows (or distinct people) per cell."""
    facts = agg.facts
    present = what.present_in
    keys["p"] = f"CASE WHEN {e.present(present)} THEN 1 ELSE 0 END" \
        if present is not None else "1"
    t = e.grouped(keys, {}, where)
    g, p, n = (np.asarray(t[c], dtype=np.int64) for c in ("g", "p", "n"))
    facts.rows_considered = int(n.sum())
    facts.outside_declared = int(n[g < 0].sum())
    inside = g >= 0
    if q.missing.policy == "drop":
        facts.missing_dropped = int(n[inside & (p == 0)].sum())
        use = inside & (p == 1)
    else:
        facts.missing_imputed = int(n[inside & (p == 0)].sum())
        use = inside
    agg.parts["count"] = _exact_bincount(g[use], n[use], n_cells)
    if what.people:  # each person once a cell: any of their kept rows in it
        kept = where if present is None or q.missing.policy != "drop" \
            else f"({where}) AND {e.present(present)}"
        t = e.runner.query(
            f"SELECT {keys['g']} AS g, count(DISTINCT __id) AS n FROM b "
            f"WHERE {kept} GROUP BY ALL")
        g, n = (np.asarray(t[c], dtype=np.int64) for c in ("g", "n"))
        agg.parts["count"] = _exact_bincount(g[g >= 0], n[g >= 0], n_cells)
    return agg

def cell_counts(e: DerivedTable, q: Query, what: CategoryCounts | BinCounts,
                agg: Aggregate, keys: dict[str, str], where: str, n_cells: int) -> Aggregate:
    """``CategoryCounts``, ``BinCounts``: rows per (group, category or bin)."""
    facts = agg.facts
    impute = q.missing.policy == "impute"
    if isinstance(what, CategoryCounts):
        inner_n = len(what.categories)
        code = e.index_in(what.column, what.categories)
        if impute:
            declared = canonical_keys(what.categories)
            lookup = dict(zip(declared, range(len(declared)), strict=True))
            fill_code = lookup.get(canonical_key(q.missing.value), UNDECLARED)
            keys["i"] = f"CASE WHEN {code} = {MISSING} THEN {fill_code} ELSE {code} END"
        else:
            keys["i"] = code
        imputed_sql = f"CASE WHEN {code} = {MISSING} THEN 1 ELSE 0 END"
    else:
        edges = [float(e) for e in what.edges]
        inner_n = len(edges) - 1
        v = e.number(what.column)
        if impute:
            assert q.missing.value is not None
            v = f"COALESCE({v}, {double_literal(float(q.missing.value))})"
        # grouped by the number itself and binned here: a SQL expression over the
        # edges grows with them (200,001 edges took 3.9 GB in the engine's planner)
        keys["i"] = v
        imputed_sql = f"CASE WHEN {e.number(what.column)} IS NULL THEN 1 ELSE 0 END"
    keys["m"] = imputed_sql
    t = e.grouped(keys, {}, where)
    if isinstance(what, BinCounts):
        t = t.assign(i=bin_of(np.asarray(t["i"], dtype=np.float64),
                              np.asarray(edges, dtype=np.float64)))
    g, i, m, n = (np.asarray(t[c], dtype=np.int64) for c in ("g", "i", "m", "n"))
    facts.rows_considered = int(n.sum())
    facts.outside_declared = int(n[g < 0].sum())
    inside = g >= 0
    if impute:  # the empty cells filled in, as the owner's facts count them (facts.py)
        facts.missing_imputed = int(n[inside & (m == 1)].sum())
    else:
        facts.missing_dropped = int(n[inside & (i == MISSING)].sum())
    facts.outside_declared += int(n[inside & (i == UNDECLARED)].sum())
    use = inside & (i >= 0)
    agg.parts["cells"] = _exact_bincount(g[use] * inner_n + i[use], n[use], n_cells)
    return agg

def grid_aggregate(e: DerivedTable, q: Query, what: GridSums | GridStepCounts,
                   agg: Aggregate, keys: dict[str, str], where: str, n_cells: int
                   ) -> Aggregate:
    """``GridSums``, ``GridStepCounts``: the cell's number on the grid, in steps."""
    facts = agg.facts
    v = e.number(what.column)
    impute = q.missing.policy == "impute"
    keys["m"] = f"CASE WHEN {v} IS NULL THEN 1 ELSE 0 END"
    value = v
    if impute:
        assert q.missing.value is not None
        value = f"COALESCE({v}, {double_literal(float(q.missing.value))})"
    grid = what.grid
    step = _grid_step_sql(value, what.lower, what.upper, float(grid.step),
                          grid.lo, grid.hi)
    inside_sql = f"{keys['g']} >= 0" + ("" if impute else f" AND {v} IS NOT NULL")

    def inside(expr: str) -> str:  # a cell's number on the grid; 0 on a row no cell reads
        return f"CASE WHEN {inside_sql} THEN {expr} ELSE 0 END"

    # one GROUP BY gives the facts (rows per group and missing flag) and the cells (issue 24:
    # a scan of ``b`` each, 10^8 rows at scale); a row no cell reads is told apart by its keys
    grid_keys = {"g": keys["g"], "m": keys["m"]}
    sums: dict[str, str] = {}
    if isinstance(what, GridStepCounts):
        grid_keys["s"] = inside(step)
    else:
        centred = f"({step} - {grid.centre})" if what.centred else step
        if "sum" in what.parts:
            sums["s1"] = inside(centred)
        if "sumsq" in what.parts:
            sums["s2"] = inside(f"CAST({centred} AS DECIMAL(38,0)) * "
                                f"CAST({centred} AS DECIMAL(38,0))")
    t = e.grouped(grid_keys, sums, where)
    g, m, n = (np.asarray(t[c], dtype=np.int64) for c in ("g", "m", "n"))
    facts.rows_considered = int(n.sum())
    facts.outside_declared = int(n[g < 0].sum())
    missing_here = int(n[(g >= 0) & (m == 1)].sum())
    if impute:
        facts.missing_imputed = missing_here
    else:
        facts.missing_dropped = missing_here
    read = (g >= 0) & (True if impute else m == 0)  # the rows of the cells

    if isinstance(what, GridStepCounts):
        steps = np.asarray(t["s"], dtype=np.int64)
        agg.step_counts = []
        for cell in range(n_cells):
            here = read & (g == cell)
            # an imputed and a present cell on the same step are two groups (m): one count
            values, where_in = np.unique(steps[here], return_inverse=True)
            counts = np.zeros(values.size, dtype=np.int64)
            np.add.at(counts, where_in, n[here])
            agg.step_counts.append((values, counts))
        return agg

    gg = g[read]
    if "count" in what.parts:
        agg.parts["count"] = _exact_bincount(gg, n[read], n_cells)
    # the sums are exact integers of any size (128-bit in the engine, Python ints here)
    if "sum" in what.parts:
        agg.parts["sum"] = _exact_bincount(gg, _ints(t["s1"])[read], n_cells)
    if "sumsq" in what.parts:
        agg.parts["sumsq"] = _exact_bincount(gg, _ints(t["s2"])[read], n_cells)
    return agg


def double_literal(x: float) -> str:
    """An exact double literal."""
    return f"CAST({literal(repr(float(x)))} AS DOUBLE)"


def _ints(column: pd.Series) -> np.ndarray:
    """An engine's exact sums (their digits, ``SqlEngine.grouped``) as exact integers."""
    return exact_integers([int(x) for x in column])


def _exact_bincount(cells: np.ndarray, weights: np.ndarray, n: int) -> np.ndarray:
    """Per cell, the exact sum of the groups' integers."""
    if weights.size == 0:
        return np.zeros(n, dtype=np.int64)
    biggest = int(np.abs(weights).max()) if weights.dtype != object \
        else max(abs(int(w)) for w in weights)
    return exact_sums(cells, weights, n, biggest * weights.size)


def bin_of(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The bin of each number as bin_case says it in SQL: numpy's searchsorted(edges, v,
    'right') - 1, the last bin closed, UNDECLARED outside, MISSING for NaN (an empty cell)."""
    out = np.searchsorted(edges, values, side="right").astype(np.int64) - 1
    last = len(edges) - 2
    with np.errstate(invalid="ignore"):
        out[values == edges[-1]] = last
        out[(values < edges[0]) | (values > edges[-1])] = UNDECLARED
    out[np.isnan(values)] = MISSING
    return out


def bin_case(v: str, edges: list[float]) -> str:
    """The bin of ``v`` as numpy's searchsorted(edges, v, 'right') - 1, the last bin closed
    (UNDECLARED outside, MISSING when empty): a balanced CASE tree over the edges."""
    last = len(edges) - 2

    def tree(lo: int, hi: int) -> str:  # bins lo..hi; v in [edges[lo], edges[hi + 1])
        if lo == hi:
            return str(lo)
        mid = (lo + hi + 1) // 2
        return f"CASE WHEN {v} < {double_literal(edges[mid])} THEN {tree(lo, mid - 1)} " \
               f"ELSE {tree(mid, hi)} END"

    return (f"CASE WHEN {v} IS NULL THEN {MISSING} "
            f"WHEN {v} = {double_literal(edges[-1])} THEN {last} "
            f"WHEN {v} < {double_literal(edges[0])} OR {v} >= {double_literal(edges[-1])} "
            f"THEN {UNDECLARED} "
            f"ELSE {tree(0, last)} END")


def _grid_step_sql(v: str, lower: float, upper: float, step: float, lo: int, hi: int) -> str:
    """numpy's clip(rint(clip(v, lower, upper) / step), lo, hi) as BIGINT: round half to even
    written out (t - floor(t) is exact in binary floating point)."""
    t = (f"(LEAST(GREATEST({v}, {double_literal(lower)}), {double_literal(upper)}) / "
         f"{double_literal(step)})")
    f = f"FLOOR({t})"
    rounded = (f"({f} + CASE WHEN {t} - {f} > 0.5 THEN 1 WHEN {t} - {f} < 0.5 THEN 0 "
               f"WHEN FLOOR({f} / 2) * 2 = {f} THEN 0 ELSE 1 END)")
    return f"LEAST(GREATEST(CAST({rounded} AS BIGINT), {int(lo)}), {int(hi)})"
