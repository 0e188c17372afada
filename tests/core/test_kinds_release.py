"""The planning-and-release section of the kind protocol (issue 23): every registered kind
answers it for a statistic of its kind, and what one kind releases passes that kind's own
verify check (an independent answer: the released rows of a seeded release over the demo
table, checked against the interval and bounds the plan states)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from planner_app.core.data.engines import open_engine
from planner_app.core.data.tables import load_table
from planner_app.core.dp.accuracy import DEFAULT_CONFIDENCE
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.kinds import KINDS, kind_of
from planner_app.core.kinds.results import QueryRelease
from planner_app.core.kinds.shared_dp import accuracy_for
from planner_app.core.model import Plan
from planner_app.core.planfile import plan_from_dict
from planner_app.core.planning.check import check_plan
from planner_app.core.release.noise import privatize
from planner_app.core.support.resources import demo_plan_path
from tests.conftest import DEMO_TABLE

SYNTH: dict[str, Any] = {
    "id": "synth", "label": "Synthetic survey", "kind": "synthetic", "method": "mst",
    "columns": [{"column": "region", "categories": ["North", "South", "East", "West"]},
                {"column": "smoker", "categories": ["yes", "no"]}],
    "epsilon": 2.0, "delta": 1e-6, "rows": 50,
    "justification": {"categories": "official regions and the form's answers"}}


@pytest.fixture(scope="module")
def plan() -> Plan:
    doc = json.loads(demo_plan_path().read_text(encoding="utf-8"))
    doc["queries"].append(SYNTH)
    doc["queries"].append({"id": "age_sd", "label": "SD of age", "kind": "standard_deviation",
                           "column": "age", "lower": 16, "upper": 100, "epsilon": 0.3,
                           "justification": {"bounds": "16 or older; 100 a public cap"}})
    doc["queries"].append({"id": "found_regions", "kind": "discover_keys", "column": "region",
                           "mechanism": "laplace_threshold", "epsilon": 0.5, "delta": 1e-6,
                           "publish_counts": True})
    doc["queries"].append({"id": "found_ages", "kind": "discover_bounds", "column": "age",
                           "lower": 0, "upper": 1000, "epsilon": 0.5,
                           "justification": {"bounds": "nobody is 1000 years old"}})
    doc["budget"] = {"epsilon": 10.0, "delta": 1e-5}
    return plan_from_dict(doc)


def test_the_plan_holds_every_kind(plan: Plan) -> None:
    assert {q.kind for q in plan.queries} == set(KINDS)


def test_every_kind_answers_its_planning_words(plan: Plan) -> None:
    checked = check_plan(plan)
    for q, qc in zip(plan.queries, checked.queries, strict=True):
        kind = kind_of(q)
        assert kind.missing_words(q) and all(isinstance(w, str) and w
                                             for w in kind.missing_words(q)), q.id
        params = kind.public_parameters(q)
        assert params and all(name and value for name, value in params), q.id
        centre, span, extent, where = kind.illustration(q, 100.0)
        assert isinstance(centre, float) and where.startswith(("at", "as")), q.id
        if span is not None:
            assert span[0] <= centre <= span[1], q.id
        assert kind.value_words("x") and kind.released_value_words("x"), q.id
        lines = kind.check_lines(q, plan, qc.accuracy.to_dict())
        assert all(isinstance(line, str) and line for line in lines), q.id
        assert kind.describe(q.column, kind.title)
        entry = {"id": q.id, "kind": q.kind, "column": q.column, "measurements": [],
                 "components": [], "accuracy": qc.accuracy.to_dict()}
        meaning = kind.report_meaning(entry, q, DEFAULT_CONFIDENCE)
        assert meaning.endswith(".") and "95%" in meaning or kind.makes_table, (q.id, meaning)


def test_what_a_kind_releases_passes_its_own_verify_check(plan: Plan) -> None:
    pytest.importorskip("mbi")
    table = load_table(DEMO_TABLE)
    engine = open_engine("pandas", plan, table, SeededRandomSource(3))
    aggregates = {q.id: engine.aggregate(q) for q in plan.queries}
    releases = privatize(plan, aggregates, source=SeededRandomSource(5))
    for q, r in zip(plan.queries, releases, strict=True):
        assert isinstance(r, QueryRelease) and r.query_id == q.id
        kind = kind_of(q)
        assert (r.synthetic is not None) == kind.makes_table, q.id
        assert (r.noised_answers is not None) == kind.publishes_answers, q.id
        half = accuracy_for(q, plan, DEFAULT_CONFIDENCE).half_width
        for v in r.values:
            assert v.query_id == q.id and v.value is not None, q.id
            assert (v.low is not None) == kind.interval_given(q), q.id
            assert kind.released_value_problem(q, float(v.value), v.low, v.high, half) is None
        if kind.interval_given(q) and not kind.publishes_answers and not kind.makes_table:
            v = r.values[0]
            assert v.low is not None and v.high is not None
            moved = float(v.high) + 1.0  # a value moved out of its own interval is found
            if kind.discovers_cells:  # its rows are checked together, intervals recomputed
                rows = [(str(w.cell), float(w.value)) for w in r.values]
                ends = [(w.low, w.high) for w in r.values]
                assert kind.discovered_rows_problem(q, plan, rows, ends,
                                                    DEFAULT_CONFIDENCE) is None, q.id
                rows[0] = (rows[0][0], moved)
                assert kind.discovered_rows_problem(q, plan, rows, ends,
                                                    DEFAULT_CONFIDENCE) is not None, q.id
            else:
                assert kind.released_value_problem(q, moved, v.low, v.high, half) is not None, \
                    q.id
