"""The kinds' "data" section: every kind describes its aggregate (``aggregate_of``), and every
engine computes exactly the parts a description names.

The independent answers are the plan model's own tables (``NEEDS_BOUNDS``, ``YES_NO_KINDS``),
the DP layer's ``cell_count`` and the release's reading of ``Aggregate.parts``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from planner_app.core.data.engines import make_engine
from planner_app.core.data.synthetic_marginals import SyntheticEngine, expanded_plan
from planner_app.core.data.tables import load_table, open_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.kinds import KINDS, kind_of
from planner_app.core.kinds.registry import make_query
from planner_app.core.kinds.shared_data import (
    GRID_PARTS,
    BinCounts,
    CategoryCounts,
    GridStepCounts,
    GridSums,
    Marginals,
    RowCounts,
    YesNoAnswers,
)
from planner_app.core.kinds.shared_dp import cell_count, cell_labels
from planner_app.core.model import Query
from tests.engine.helpers import SALT, plan_of, write_csv
from tests.engine.test_duckdb_equals_pandas import FRAME, QUERIES
from tests.kind_table import DISCOVERY_KINDS, NEEDS_BOUNDS, YES_NO_KINDS
from tests.oracle.pandas_engine import PandasEngine

SYNTHETIC: dict[str, Any] = {
    "id": "syn", "kind": "synthetic", "epsilon": 1.0, "delta": 1e-6, "method": "mst",
    "columns": [{"column": "g", "categories": ["a", "b"]},
                {"column": "n", "bins": [0, 5, 16]}]}
PEOPLE: dict[str, Any] = {"id": "cp", "kind": "count", "of": "people", "epsilon": 1}
PERSON = {"kind": "person", "id_column": "pid", "max_rows": 2}
SD: dict[str, Any] = {"id": "sd", "kind": "standard_deviation", "column": "n", "lower": 0,
                      "upper": 16, "epsilon": 1}
ALL = QUERIES + [PEOPLE, SYNTHETIC, SD]


def _queries() -> list[Query]:
    return list(plan_of(ALL, privacy_unit=PERSON).queries)


def test_the_samples_cover_every_kind() -> None:
    # the discovery kinds' aggregates (people per key present, counts per grid step) are
    # checked against pandas in tests/core/test_discovery_kinds.py
    assert {q.kind for q in _queries()} == set(KINDS) - set(DISCOVERY_KINDS)


@pytest.mark.parametrize("query", _queries(), ids=lambda q: q.id)
def test_every_kind_describes_its_aggregate_as_the_model_tables_say(query: Query) -> None:
    what = kind_of(query).aggregate_of(query)
    assert what.reads_answers == (query.kind in YES_NO_KINDS)
    assert what.reads_numbers == (query.kind in NEEDS_BOUNDS
                                  or (query.kind == "histogram" and query.params.bins is not None))
    assert len(cell_labels(query)) == cell_count(query)
    if isinstance(what, (GridSums, GridStepCounts)):
        assert (what.column, what.lower, what.upper) == (query.column, query.params.lower,
                                                         query.params.upper)
    if isinstance(what, GridSums):
        assert set(what.parts) <= set(GRID_PARTS)
    if isinstance(what, Marginals):
        assert [c.column for c in what.columns] == ["g", "n"]


def _expected_parts(query: Query) -> set[str]:
    """The parts the release reads of each description (independently of the engines)."""
    what = kind_of(query).aggregate_of(query)
    if isinstance(what, RowCounts):
        return {"count"}
    if isinstance(what, (CategoryCounts, BinCounts)):
        return {"cells"}
    if isinstance(what, GridSums):
        return set(what.parts)
    if isinstance(what, Marginals):
        return {"oneway:g", "oneway:n", "pair:0:1"}
    assert isinstance(what, (YesNoAnswers, GridStepCounts))
    return set()


def test_every_engine_computes_exactly_the_described_parts(tmp_path: Path) -> None:
    plan = plan_of(ALL, privacy_unit=PERSON)
    path = write_csv(FRAME, tmp_path / "t.csv")
    loaded, opened = load_table(path), open_table(path)
    assert opened.source is not None
    wide = expanded_plan(plan)
    engines = [
        SyntheticEngine(PandasEngine(wide, loaded.frame, SeededRandomSource(0), loaded.name,
                                     salt=SALT)),
        SyntheticEngine(make_engine("duckdb", wide, opened.source, SALT, opened.name)),
    ]
    try:
        for q in plan.queries:
            what = kind_of(q).aggregate_of(q)
            got = [engine.aggregate(q) for engine in engines]
            for agg in got:
                assert set(agg.parts) == _expected_parts(q), q.id
                assert (agg.answers is not None) == isinstance(what, YesNoAnswers)
                assert (agg.sorted_values is not None or agg.step_counts is not None) == \
                    isinstance(what, GridStepCounts)
            left, right = ({k: v.tolist() for k, v in a.parts.items()} for a in got)
            assert left == right, q.id
    finally:
        for engine in engines:
            engine.close()


@pytest.mark.parametrize("name", list(KINDS))
def test_a_kind_says_how_it_reads_its_column_before_its_fields_are_complete(name: str) -> None:
    """The app's form asks how a statistic reads its column while the owner edits it (no
    bounds or bins yet); the kind answers as its description would."""
    draft = make_query(name, id="d", epsilon=1.0, column="x")
    kind = KINDS[name]
    assert kind.reads_numbers(draft) == (name in NEEDS_BOUNDS or name == "histogram")
    assert kind.reads_answers == (name in YES_NO_KINDS)


@pytest.mark.parametrize("name", [k for k in KINDS if k != "synthetic"])
def test_the_fit_of_a_statistic_being_edited_is_asked_without_its_bounds(name: str) -> None:
    """The app's form asks whether a statistic fits the table while the owner types (no
    bounds yet): the fit rule answers (here: the text column holds no numbers, where the
    kind needs them) instead of failing on the missing bounds (a merge of issue 23 did)."""
    import pandas as pd

    from planner_app.core.data.fit import query_problems

    draft = make_query(name, id="d", epsilon=1.0, column="t")
    frame = pd.DataFrame({"t": ["a", "b", "c"]})
    problems = query_problems(draft, frame, "table.csv", {})
    words = " ".join(str(p) for p in problems)
    assert ("holds text, not numbers" in words) == KINDS[name].reads_numbers(draft)
