"""An older bundle's PLD total still verifies.

Before the composition tree (accounting.PldTree), a release composed its PLD total as a chain:
equal measurements grouped across statistics and self-composed, the groups composed one after
another in the order of ``repr((key, times))`` (what a fresh process gave). The tree composes
the same PLDs in another order, which moves the total by about 1e-9 relative at 100 statistics
and more: more than verify's tolerance, so an honest older bundle was refused. Verify now also
recomposes a PLD total the way those releases did, exactly, rather than widening its tolerance.
"""

from __future__ import annotations

import random
from dataclasses import replace

from planner_app.core.dp import accounting
from planner_app.core.dp.accuracy import DEFAULT_CONFIDENCE
from planner_app.core.dp.measure import measurement_to_dict
from planner_app.core.kinds import shared_release
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.model import Plan
from planner_app.core.planfile.serialisation import load_plan
from planner_app.core.planning.check import check_plan
from planner_app.core.release import verify_release
from planner_app.core.support.resources import demo_plan_path
from tests.core import pld_reference as ref


def _plan(n: int, seed: int) -> Plan:
    rng = random.Random(seed)
    demo = load_plan(demo_plan_path())
    queries = [replace(demo.queries[i % len(demo.queries)], id=f"s{i}", label=f"Statistic {i}",
                       epsilon=round(rng.uniform(0.001, 0.2), 4)) for i in range(n)]
    plan = demo.with_queries(queries)
    return replace(plan, budget=replace(plan.budget, epsilon=1000.0, accountant="pld"))


def _old_total(plan: Plan) -> float:
    """The PLD total as the releases before the tree composed it, with dp-accounting's own
    operations (the code of commit 58e15b2^, ``accounting.pld``, in a fresh process)."""
    groups: dict[object, list] = {}
    for q in plan.queries:
        for m in measurements_for(q, plan):
            if m.mechanism != "none":
                groups.setdefault(accounting._pld_key(m), []).append(m)
    total = None
    for key, times in sorted(((k, len(v)) for k, v in groups.items()), key=repr):
        one = ref.pld_of(groups[key][0])
        part = one.self_compose(times) if times > 1 else one
        total = part if total is None else total.compose(part)
    assert total is not None
    return max(float(total.get_epsilon_for_delta(plan.budget.delta)), 0.0)


def _record(plan: Plan, epsilon: float) -> dict:
    """release.json's checked parts, as publish writes them, with the stated total ε."""
    report = check_plan(plan)
    queries = [{**qc.to_dict(), "measurements": [measurement_to_dict(m)
                                                  for m in qc.measurements]}
               for qc in report.queries]
    return {"confidence": DEFAULT_CONFIDENCE, "queries": queries,
            "total": {**report.total.to_dict(), "epsilon": epsilon}}


def test_a_pld_total_composed_as_before_the_tree_verifies() -> None:
    plan = _plan(100, 5)
    old = _old_total(plan)
    new = check_plan(plan).total
    assert new.accountant == "pld"
    assert abs(old - new.epsilon) > shared_release.REL * new.epsilon  # the orders differ
    problems: list[str] = []
    verify_release._recompute(plan, _record(plan, old), problems)
    assert problems == []


def test_a_pld_total_neither_way_is_still_refused() -> None:
    plan = _plan(100, 5)
    new = check_plan(plan).total.epsilon
    for wrong in (new * (1 - 1e-6), _old_total(plan) * (1 + 1e-6)):
        problems: list[str] = []
        verify_release._recompute(plan, _record(plan, wrong), problems)
        assert problems and "does not recompute" in problems[0]


def test_a_pld_total_from_before_the_exact_grid_verifies() -> None:
    """Releases before the exact grid put a discrete Laplace loss on a grid point one step up
    (and a Gaussian's σ one float step down): their totals are larger, and still verify."""
    plan = _plan(30, 7)
    new = check_plan(plan).total.epsilon
    for way in ("tree, older grid", "chain, older grid"):
        old = accounting.pld_composed_as(way, [m for q in plan.queries
                                               for m in measurements_for(q, plan)],
                                         plan.budget.delta).epsilon
        assert old > new * (1 + 1e-6)
        problems: list[str] = []
        verify_release._recompute(plan, _record(plan, old), problems)
        assert problems == []
        problems = []
        verify_release._recompute(plan, _record(plan, old * (1 + 1e-6)), problems)
        assert problems and "does not recompute" in problems[0]
