"""Aggregation: filter, bound contributions, clamp, aggregate. No noise here.

The release step (release.py) only needs, per query, integer ``Aggregate`` arrays in the
declared cell order. ``AggregateEngine`` is that small interface; ``PandasEngine`` implements
it for tables in memory. Another engine (a database, a chunked reader) can compute the same
arrays for tables that do not fit in memory, and the noise step stays as it is.

The results of this module are the true values: they never leave the process. Only
``AggregateFacts`` (counts of dropped or imputed cells) is shown to the owner, and it is never
exported.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from planner_app.core.data.cells import numeric_values
from planner_app.core.data.fit import NEITHER, nested_problem, require_fit, yes_no_codes
from planner_app.core.dp.mechanisms import RandomSource
from planner_app.core.kinds.params import answer_reader_of
from planner_app.core.kinds.registry import kind_of
from planner_app.core.kinds.results import Aggregate, AggregateFacts, exact_sums
from planner_app.core.kinds.shared_data import (
    BinCounts,
    CategoryCounts,
    GridStepCounts,
    Marginals,
    RowCounts,
    YesNoAnswers,
)
from planner_app.core.kinds.shared_dp import cell_count, cell_labels
from planner_app.core.model import Condition, Plan, Query, canonical_key
from planner_app.core.support.errors import InputError

MISSING = -2
UNDECLARED = -1


def _index_of(series: pd.Series, declared: Sequence[Any]) -> np.ndarray:
    """Index of each cell's value in ``declared`` (UNDECLARED, or MISSING for empty cells)."""
    lookup = {canonical_key(v): i for i, v in enumerate(declared)}
    if series.dtype == object:  # cell by cell: pandas takes True and 1 for one value
        missing = series.isna().to_numpy()
        return np.array([MISSING if gone else lookup.get(canonical_key(v), UNDECLARED)
                         for v, gone in zip(series.to_numpy(), missing, strict=True)],
                        dtype=np.int64)
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    mapped = np.array([lookup.get(canonical_key(u), UNDECLARED) for u in uniques] + [MISSING],
                      dtype=np.int64)
    return mapped[codes]  # code -1 (missing) picks the trailing MISSING


def bin_index(values: np.ndarray, bad: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Each value's bin (the last bin includes its upper edge; UNDECLARED outside the edges,
    MISSING where ``bad``), as every engine bins a histogram."""
    inner_n = len(edges) - 1
    idx: np.ndarray = np.searchsorted(edges, values, side="right") - 1
    idx[values == edges[-1]] = inner_n - 1  # the last bin includes its upper edge
    idx[(idx < 0) | (idx >= inner_n)] = UNDECLARED
    idx[bad] = MISSING
    return idx


def _int_sum(cells: np.ndarray, values: np.ndarray, n: int, biggest: int,
             squared: bool = False) -> np.ndarray:
    """The exact sum per cell of ``values`` (or of their squares), each at most ``biggest``
    in magnitude: in int64 while no cell's sum can pass 2^63, else in Python ints."""
    bound = (biggest * biggest if squared else biggest) * max(1, values.size)
    if bound >= 1 << 63:
        values = values.astype(object)  # Python ints: exact whatever their size
    return exact_sums(cells, values * values if squared else values, n, bound)


KEY_HEX_CHARS = 12  # 48 bits: a short key the engines compare fast; ties go by position


def row_keys(salt: bytes, n: int) -> np.ndarray:
    """The bounding key of rows 0..n-1 (their positions in the file), as the SQL engines
    compute it (docs/engine.md): the first 12 lowercase hex digits of sha256 of the salt in
    URL-safe base64 without its padding, ':', and the position in decimal. Sorted stably,
    equal keys keep position order, as the engines' ``ORDER BY key, row``."""
    prefix = base64.urlsafe_b64encode(salt).decode("ascii").rstrip("=") + ":"
    return np.array([hashlib.sha256((prefix + str(i)).encode("ascii")).hexdigest()
                     [:KEY_HEX_CHARS] for i in range(n)], dtype=object)


class PandasEngine:
    """Aggregates over a pandas DataFrame held in memory."""

    def __init__(self, plan: Plan, frame: pd.DataFrame, source: RandomSource,
                 table_name: str = "table", salt: bytes | None = None, *,
                 shown: Plan | None = None) -> None:
        self.plan = plan
        self.shown = shown or plan  # the plan as written: the fit's messages name its fields
        self.table_name = table_name
        self._check_columns(frame)
        self._salt = salt
        self.n_rows = int(len(frame))
        self.frame, self.rows_dropped_by_bound = self._bound_contributions(frame, source)
        self._done: dict[str, tuple[Query, Aggregate]] = {}

    def close(self) -> None:
        """Nothing to free (the SQL engines' counterpart)."""

    # -- plan/table fit -------------------------------------------------------------------

    def _check_columns(self, frame: pd.DataFrame) -> None:
        self._check_flat_columns(frame)  # first: a nested column is not "text"
        require_fit(self.shown, frame, self.table_name)  # the one plan/table rule (fit.py)

    def _check_flat_columns(self, frame: pd.DataFrame) -> None:
        """A column a statistic uses must hold single values, not the lists, structs or maps
        a Parquet file can hold (their cells cannot be compared, counted or summed)."""
        def nested(column: str) -> bool:
            if column not in frame.columns or frame[column].dtype != object:
                return False
            present = frame[column].dropna()
            return bool(len(present)) and isinstance(present.iloc[0],
                                                     (list, tuple, dict, set, np.ndarray))

        problem = nested_problem(self.shown, nested, self.table_name)
        if problem is not None:
            raise problem

    def _bound_contributions(self, frame: pd.DataFrame,
                             source: RandomSource) -> tuple[pd.DataFrame, int]:
        """Keep at most k rows per person, chosen at random (CSPRNG), before any aggregate.
        With a salt: the k rows with the smallest keys ``row_keys(salt)``, exactly the rows
        the SQL engines keep with the same salt (docs/engine.md)."""
        unit = self.plan.privacy_unit
        if unit.kind != "person":
            return frame.reset_index(drop=True), 0
        ids = frame[unit.id_column]
        if ids.isna().any():
            raise InputError(self.table_name, f"column {unit.id_column!r}",
                             "some rows have no person id; every row needs one")
        if self._salt is not None:
            order = np.argsort(row_keys(self._salt, len(frame)), kind="stable")
        else:
            order = np.argsort(source.words(len(frame)), kind="stable")
        shuffled = frame.iloc[order]
        rank = shuffled.groupby(unit.id_column, sort=False).cumcount().to_numpy()
        kept = shuffled[rank < unit.rows_per_unit].reset_index(drop=True)
        return kept, int(len(frame) - len(kept))

    # -- pieces ---------------------------------------------------------------------------

    def _where_mask(self, conditions: Sequence[Condition]) -> np.ndarray:
        mask = np.ones(len(self.frame), dtype=bool)
        for c in conditions:
            series = self.frame[c.column]
            if c.op in ("<", "<=", ">", ">="):
                values, bad = numeric_values(series)
                with np.errstate(invalid="ignore"):
                    hit = {"<": values < c.value, "<=": values <= c.value,
                           ">": values > c.value, ">=": values >= c.value}[c.op]
                mask &= hit & ~bad
            else:
                declared = list(c.value) if c.op == "in" else [c.value]
                idx = _index_of(series, declared)
                hit = idx >= 0
                if c.op == "!=":
                    hit = (idx == UNDECLARED)
                mask &= hit
        return mask

    def _numeric_column(self, q: Query, column: str, mask: np.ndarray,
                        facts: AggregateFacts) -> tuple[np.ndarray, np.ndarray]:
        """Values of the column for masked rows, with the query's missing policy; returns
        the values and the (possibly narrowed) row mask."""
        values, bad = numeric_values(self.frame[column])
        bad_here = bad & mask
        if q.missing.policy == "impute":
            facts.missing_imputed = int(bad_here.sum())
            fill = q.missing.value
            assert fill is not None  # the plan's validation: "impute" comes with a value
            values = np.where(bad, float(fill), values)
        else:
            facts.missing_dropped = int(bad_here.sum())
            mask = mask & ~bad
        return values, mask

    def _group_index(self, q: Query, mask: np.ndarray,
                     facts: AggregateFacts) -> tuple[np.ndarray, np.ndarray]:
        if q.group_by is None:
            return np.zeros(len(self.frame), dtype=np.int64), mask
        if q.group_by.bins is not None:  # a numeric column's bins (synthetic pairs)
            values, bad = numeric_values(self.frame[q.group_by.column])
            idx = bin_index(values, bad, np.asarray(q.group_by.bins, dtype=np.float64))
        else:
            idx = _index_of(self.frame[q.group_by.column], q.group_by.keys)
        facts.outside_declared += int((mask & (idx < 0)).sum())
        return idx, mask & (idx >= 0)

    # -- the interface --------------------------------------------------------------------

    def aggregate(self, query: Query) -> Aggregate:
        """The query's aggregates (computed once per engine: a check and the release that
        follows it share them, and the same bounded rows)."""
        hit = self._done.get(query.id)
        if hit is not None and hit[0] == query:
            return hit[1]
        agg = self._aggregate(query)
        self._done[query.id] = (query, agg)
        return agg

    def _aggregate(self, query: Query) -> Aggregate:
        q = query
        facts = AggregateFacts()
        mask = self._where_mask(q.where)
        facts.rows_considered = int(mask.sum())
        cells = cell_labels(q)
        n_cells = cell_count(q)
        agg = Aggregate(query_id=q.id, cells=cells, facts=facts)

        what = kind_of(q).aggregate_of(q)

        if isinstance(what, YesNoAnswers):
            answer = yes_no_codes(q, self.frame[what.column])
            known = answer >= 0
            facts.not_yes_no = int((answer == NEITHER).sum())
            if q.missing.policy == "impute":
                facts.missing_imputed = int((~known).sum())
                answers = np.where(known, answer == 1,
                                   bool(answer_reader_of(q)(q.missing.value)))
            else:
                facts.missing_dropped = int((~known).sum())
                answers = answer[known] == 1
            agg.answers = np.asarray(answers, dtype=bool)
            return agg
        if isinstance(what, Marginals):
            raise AssertionError(f"{q.id}: marginals are computed as histograms "
                                 "(synthetic_marginals.SyntheticEngine)")

        group, mask = self._group_index(q, mask, facts)

        if isinstance(what, RowCounts):
            if what.present_in is not None:
                present = ~self.frame[what.present_in].isna().to_numpy()
                if q.missing.policy == "drop":
                    facts.missing_dropped = int((mask & ~present).sum())
                    mask = mask & present
                else:
                    facts.missing_imputed = int((mask & ~present).sum())
            if what.people:  # each person once a cell: any of their kept rows in it
                unit = self.plan.privacy_unit
                pairs = pd.DataFrame({"g": group[mask],
                                      "id": self.frame[unit.id_column].to_numpy()[mask]})
                cells_of = pairs.drop_duplicates()["g"].to_numpy(dtype=np.int64)
                agg.parts["count"] = np.bincount(cells_of, minlength=n_cells).astype(np.int64)
                return agg
            agg.parts["count"] = np.bincount(group[mask], minlength=n_cells).astype(np.int64)
            return agg

        if isinstance(what, (CategoryCounts, BinCounts)):
            if isinstance(what, CategoryCounts):
                inner_n = len(what.categories)
                series = self.frame[what.column]
                missing = _index_of(series, what.categories) == MISSING  # before filling
                if q.missing.policy == "impute":
                    series = series.where(series.notna(), q.missing.value)
                idx = _index_of(series, what.categories)
            else:
                edges = np.asarray(what.edges, dtype=np.float64)
                inner_n = len(edges) - 1
                values, bad = numeric_values(self.frame[what.column])
                missing = bad  # before filling
                if q.missing.policy == "impute":
                    fill = q.missing.value
                    assert fill is not None  # the plan's validation: "impute" has a value
                    values = np.where(bad, float(fill), values)
                    bad = np.zeros_like(bad)
                idx = bin_index(values, bad, edges)
            if q.missing.policy == "impute":
                facts.missing_imputed = int((mask & missing).sum())
            else:
                facts.missing_dropped = int((mask & missing).sum())
            facts.outside_declared += int((mask & (idx == UNDECLARED)).sum())
            mask = mask & (idx >= 0)
            flat = group[mask] * inner_n + idx[mask]
            agg.parts["cells"] = np.bincount(flat, minlength=n_cells).astype(np.int64)
            return agg

        values, mask = self._numeric_column(q, what.column, mask, facts)
        grid = what.grid
        steps = np.rint(np.clip(values[mask], what.lower, what.upper) / grid.step
                        ).astype(np.int64)
        steps = np.clip(steps, grid.lo, grid.hi)
        where = group[mask]

        if isinstance(what, GridStepCounts):
            order = np.lexsort((steps, where))
            steps, where = steps[order], where[order]
            bounds = np.searchsorted(where, np.arange(n_cells + 1))
            agg.sorted_values = [steps[bounds[i]:bounds[i + 1]] for i in range(n_cells)]
            return agg

        # exact sums of any size: no grid and no row count is refused here (issue 24)
        centred = steps - grid.centre if what.centred else steps
        biggest = grid.radius if what.centred else max(abs(grid.lo), abs(grid.hi))
        if "count" in what.parts:
            agg.parts["count"] = np.bincount(where, minlength=n_cells).astype(np.int64)
        if "sum" in what.parts:
            agg.parts["sum"] = _int_sum(where, centred, n_cells, biggest)
        if "sumsq" in what.parts:
            agg.parts["sumsq"] = _int_sum(where, centred, n_cells, biggest, squared=True)
        return agg
