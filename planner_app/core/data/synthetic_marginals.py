"""The true marginals of a synthetic table, from any engine, as histograms the engines
already compute identically.

A synthetic table's marginals count the rows whose every declared column holds a declared
value (a category, or a number within the bin edges); a row with a missing or undeclared
value in any of them counts in none. Each marginal is expressed as ordinary histogram
queries with ``where`` conditions and a ``group_by`` (docs/synthetic.md):

* one-way of column c: the histogram of c, where every other column is in its domain;
* two-way of (a, b): the histogram of one grouped by the other when that one has
  categories; when both are binned, the histogram of a grouped by b's bins (an internal
  ``GroupBy.bins``: every engine bins the group column as it bins a histogram, the last bin
  closed). Every two-way marginal is thus one engine query.

So every engine (pandas, DuckDB, Spark) gives the same counts, after the same per-person
contribution bounding, through code the engine tests already hold to each other.
``SyntheticEngine`` wraps an engine opened on the expanded plan; its ``aggregate`` of a
synthetic query returns the one-way parts ``oneway:<column>`` and the two-way parts
``pair:<i>:<j>`` (cells of column i by column j, row-major, i < j), and for AIM's declared
triples ``triple:<i>:<j>:<k>`` (i < j < k, row-major), each computed as one pair histogram
per value of k. True values: memory only.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..kinds.params import synth_columns_of, synth_workload_of
from ..kinds.registry import kind_of, make_query
from ..kinds.results import Aggregate, AggregateFacts
from ..kinds.shared_data import Marginals
from ..model import Condition, GroupBy, Plan, Query, SynthColumn


def is_marginals(q: Query) -> bool:
    """The statistic's aggregate is marginals, computed as histograms (a synthetic table)."""
    return isinstance(kind_of(q).aggregate_of(q), Marginals)


def in_domain(c: SynthColumn) -> tuple[Condition, ...]:
    """Conditions that hold exactly when column c's cell is one of its declared values."""
    if c.categories is not None:
        return (Condition(c.column, "in", tuple(c.categories)),)
    edges = c.bins or ()
    return (Condition(c.column, ">=", float(edges[0])), Condition(c.column, "<=", float(edges[-1])))


def _histogram(qid: str, c: SynthColumn, where: tuple[Condition, ...],
               group_by: GroupBy | None = None) -> Query:
    return make_query("histogram", id=qid, epsilon=1.0, column=c.column,
                      categories=c.categories, bins=c.bins, where=where, group_by=group_by)


def _others(cols: tuple[SynthColumn, ...], *skip: int) -> tuple[Condition, ...]:
    return tuple(cond for k, c in enumerate(cols) if k not in skip for cond in in_domain(c))


def _pair(qid: str, cols: tuple[SynthColumn, ...], i: int, j: int,
          base: tuple[Condition, ...]) -> tuple[str, Query]:
    """The one histogram of the pair (i, j) on the rows ``base`` keeps (its side: "a", i
    grouped by j; "b", j grouped by i)."""
    a, b = cols[i], cols[j]
    name = f"{qid}:{a.column}*{b.column}"
    if b.categories is not None:
        return "a", _histogram(name, a, base + in_domain(b),
                               GroupBy(b.column, tuple(b.categories)))
    if a.categories is not None:
        return "b", _histogram(name, b, base + in_domain(a),
                               GroupBy(a.column, tuple(a.categories)))
    # both binned: one histogram of a grouped by b's bins
    return "a", _histogram(name, a, base + in_domain(b),
                           GroupBy(b.column, tuple(b.labels()), bins=tuple(b.bins or ())))


def value_condition(c: SynthColumn, v: int) -> tuple[Condition, ...]:
    """Conditions that hold exactly when column c's cell is its v-th declared value (a
    category, or a bin: left-closed, the last closed, as a histogram bins)."""
    if c.categories is not None:
        return (Condition(c.column, "in", (c.categories[v],)),)
    edges = c.bins or ()
    last = v == len(edges) - 2
    return (Condition(c.column, ">=", float(edges[v])),
            Condition(c.column, "<=" if last else "<", float(edges[v + 1])))


def triples_of(q: Query) -> list[tuple[int, int, int]]:
    """The declared triples of an AIM table as sorted column indices (none for MST)."""
    cols = synth_columns_of(q)
    index = {c.column: k for k, c in enumerate(cols)}
    _, triples = synth_workload_of(q)
    out = [sorted(index[c] for c in t) for t in triples]
    return [(t[0], t[1], t[2]) for t in out]


def derived_queries(q: Query) -> Iterator[tuple[tuple[Any, ...], Query]]:
    """(key, histogram query) for every marginal piece of a synthetic query: keys
    ("one", i), ("pair", i, j, "a") histogram of i grouped by j (by its categories or its
    bins), ("pair", i, j, "b") histogram of j grouped by i; for AIM's triples (i, j, k),
    ("triple", i, j, k, v, side): the pair (i, j) on the rows whose k is its v-th value."""
    cols = synth_columns_of(q)
    for i, c in enumerate(cols):
        yield ("one", i), _histogram(f"{q.id}:{c.column}", c, _others(cols, i))
    for i in range(len(cols)):
        for j in range(i + 1, len(cols)):
            side, query = _pair(q.id, cols, i, j, _others(cols, i, j))
            yield ("pair", i, j, side), query
    for i, j, k in triples_of(q):
        for v in range(cols[k].size):
            side, query = _pair(f"{q.id}:{v}", cols, i, j,
                                _others(cols, i, j, k) + value_condition(cols[k], v))
            yield ("triple", i, j, k, v, side), query


def expanded_plan(plan: Plan) -> Plan:
    """The plan an engine is opened on: its statistics, each synthetic table replaced by the
    histograms of its marginals."""
    out: list[Query] = []
    for q in plan.queries:
        if is_marginals(q):
            out.extend(d for _, d in derived_queries(q))
        else:
            out.append(q)
    return plan.with_queries(out)


def synthetic_aggregate(q: Query, aggregate: Any) -> Aggregate:
    """The synthetic query's parts from ``aggregate(histogram query) -> Aggregate``."""
    cols = synth_columns_of(q)
    agg = Aggregate(query_id=q.id, cells=[(None, None)])
    facts: AggregateFacts | None = None
    for key, d in derived_queries(q):
        part = aggregate(d)
        cells = np.asarray(part.parts["cells"], dtype=np.int64)
        if key[0] == "one":
            agg.parts[f"oneway:{cols[key[1]].column}"] = cells
            facts = facts or part.facts
            continue
        i, j = key[1], key[2]
        na, nb = cols[i].size, cols[j].size
        if key[-1] == "a":  # groups of j, each over i's values: (nb, na)
            table = cells.reshape(nb, na).T
        elif key[-1] == "b":  # groups of i, each over j's values: (na, nb)
            table = cells.reshape(na, nb)
        else:
            raise AssertionError(f"unknown marginal piece {key!r}")
        if key[0] == "triple":  # the slice v of k: cells (i, j, v) of the (i, j, k) cube
            k, v = key[3], key[4]
            name = f"triple:{i}:{j}:{k}"
            if name not in agg.parts:
                agg.parts[name] = np.zeros(na * nb * cols[k].size, dtype=np.int64)
            cube = agg.parts[name].reshape(na, nb, cols[k].size)
            cube[:, :, v] = table
            continue
        agg.parts[f"pair:{i}:{j}"] = np.ascontiguousarray(table).reshape(-1)
    if facts is not None:
        agg.facts = facts
    return agg


class SyntheticEngine:
    """An engine opened on ``expanded_plan(plan)`` that also answers synthetic queries."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.rows_dropped_by_bound: int = int(inner.rows_dropped_by_bound)

    @property
    def n_rows(self) -> int:
        return int(self._inner.n_rows)

    def aggregate(self, query: Query) -> Aggregate:
        if is_marginals(query):
            return synthetic_aggregate(query, self._inner.aggregate)
        result: Aggregate = self._inner.aggregate(query)
        return result

    def close(self) -> None:
        self._inner.close()

    def __getattr__(self, name: str) -> Any:  # column_facts and the engines' other helpers
        return getattr(self._inner, name)
