"""The accountants' questions of a list of measurements are answered in one walk (issue 24).

At each ε slider step the editor composes the release's measurements and then the dataset's
lifetime (the same objects when nothing was released before); each accountant's rule walked
every measurement again (at 1,000 statistics a dozen walks a step). The tests count the walks
(calls of ``thresholded``), and hold the totals to ones computed by hand."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from planner_app.core.dp import accounting
from planner_app.core.dp.accounting import PldTree
from planner_app.core.dp.measure import Measurement
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.model import Plan
from planner_app.core.planfile.serialisation import load_plan
from planner_app.core.support.resources import demo_plan_path


def _plan(n: int) -> Plan:
    demo = load_plan(demo_plan_path())
    queries = [replace(demo.queries[i % len(demo.queries)], id=f"s{i}", label=f"Statistic {i}",
                       epsilon=0.001 * (1 + i % 7)) for i in range(n)]
    return demo.with_queries(queries)


def _measurements(plan: Plan) -> list[Measurement]:
    return [m for q in plan.queries for m in measurements_for(q, plan)]


def test_the_release_and_its_lifetime_walk_the_measurements_once(monkeypatch: Any) -> None:
    plan = _plan(40)
    per_query = [measurements_for(q, plan) for q in plan.queries]
    accounting.compose([m for ms in per_query for m in ms], 1e-6)  # the PLDs built: uncounted
    # a slider step: one statistic's ε moves, the others keep their measurements (the
    # editor keeps each statistic's measurements while it does not change)
    moved = plan.with_queries([replace(plan.queries[0], epsilon=0.0042), *plan.queries[1:]])
    ms = [*measurements_for(moved.queries[0], moved), *(m for q in per_query[1:] for m in q)]
    calls = [0]
    original = accounting.thresholded

    def counted(m: Measurement) -> bool:
        calls[0] += 1
        return original(m)

    monkeypatch.setattr(accounting, "thresholded", counted)
    release = accounting.compose(list(ms), 1e-6)
    lifetime = accounting.valid_totals(list(ms), 1e-6)
    # one walk, and the new measurement's PLD key: before, each rule walked them again
    assert calls[0] <= len(ms) + 4
    # the totals, independently: basic adds ε, zcdp adds ρ, the tightest is the least ε
    basic = next(t for t in lifetime if t.accountant == "basic")
    assert basic.epsilon == math.fsum(m.epsilon for m in ms)
    zcdp = next(t for t in lifetime if t.accountant == "zcdp")
    assert zcdp.rho == math.fsum(m.rho for m in ms)
    assert release.epsilon == min(t.epsilon for t in lifetime if t.delta <= 1e-6)


def test_a_new_list_of_other_objects_is_walked_again(monkeypatch: Any) -> None:
    """The facts are kept by the objects' identity: other measurements are never mistaken
    for the last ones."""
    small, large = _measurements(_plan(5)), _measurements(_plan(9))
    assert accounting.basic(small).epsilon == math.fsum(m.epsilon for m in small)
    assert accounting.basic(large).epsilon == math.fsum(m.epsilon for m in large)
    aim = [replace(small[0], mechanism="zcdp", sigma_sq=small[0].sigma_sq or 4)]
    assert accounting.accountant_refusal("pld", aim) == accounting.AIM_PLD_REFUSAL
    assert accounting.accountant_refusal("pld", small) is None


def test_the_pld_root_of_the_same_objects_is_the_same_node() -> None:
    ms = _measurements(_plan(12))
    tree = PldTree()
    first = tree.root(ms)
    again = tree.root(list(ms))  # another list of the very objects: the lifetime's
    fresh = PldTree().root(ms)
    assert first is not None and again is not None and fresh is not None
    assert again[0] == first[0]
    assert tree.epsilon(again, 1e-6) == PldTree().epsilon(fresh, 1e-6)
