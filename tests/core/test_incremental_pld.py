"""The PLD total from the editor's cache is the total composed from nothing, to the bit.

The accountant (accounting.PldTree) keeps the nodes of a fixed composition tree so that an ε
slider step recomposes one statistic's path; these tests hold it to three independent answers:
a fresh tree (nothing cached), a fresh process, and dp-accounting's own operations.
"""

from __future__ import annotations

import math
import random
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from functools import reduce
from pathlib import Path

import numpy as np
import pytest
from dp_accounting.pld import pld_pmf
from dp_accounting.pld import privacy_loss_distribution as dp_pld

from planner_app.core.dp import accounting, laplace_pld, pld_ops
from planner_app.core.dp.accounting import PldTree
from planner_app.core.dp.measure import Measurement, laplace_scale
from planner_app.core.dp.pld_pmf import Pmf, to_dense
from planner_app.core.dp.sensitivity import Component
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.model import Plan
from planner_app.core.planfile.serialisation import load_plan, save_plan
from planner_app.core.support.resources import demo_plan_path
from tests.core import pld_reference as ref

ROOT = Path(__file__).resolve().parents[2]


def _plan(n: int, seed: int) -> Plan:
    """n statistics of every kind in the demo plan, each with its own ε."""
    rng = random.Random(seed)
    demo = load_plan(demo_plan_path())
    queries = [replace(demo.queries[i % len(demo.queries)], id=f"s{i}", label=f"Statistic {i}",
                       epsilon=round(rng.uniform(0.001, 0.2), 4)) for i in range(n)]
    return demo.with_queries(queries)


def _measurements(plan: Plan) -> list[Measurement]:
    return [m for q in plan.queries for m in measurements_for(q, plan)]


def _scratch(ms: list[Measurement], delta: float) -> float:
    tree = PldTree()
    root = tree.root(ms)
    assert root is not None
    return tree.epsilon(root, delta)


def _edit(plan: Plan, rng: random.Random, step: int) -> Plan:
    """One editor action: a new ε in the middle, a statistic removed, or one added."""
    queries = list(plan.queries)
    action = rng.choice(["epsilon", "epsilon", "remove", "add"])
    i = rng.randrange(len(queries))
    if action == "epsilon":
        queries[i] = replace(queries[i], epsilon=round(queries[i].epsilon * rng.uniform(0.5, 2),
                                                       5))
    elif action == "remove" and len(queries) > 2:
        del queries[i]
    else:
        queries.insert(i, replace(queries[i], id=f"new{step}", epsilon=0.0371))
    return plan.with_queries(queries)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_edits_in_the_middle_removals_and_additions_give_the_total_composed_from_nothing(
        seed: int) -> None:
    rng = random.Random(seed)
    plan = _plan(25, seed)
    delta = plan.budget.delta
    for step in range(12):
        plan = _edit(plan, rng, step)
        ms = _measurements(plan)
        cached = accounting.pld(ms, delta).epsilon  # the module's tree: all of history cached
        assert cached == _scratch(ms, delta)  # exactly: the same convolutions, same order


def test_a_cache_too_small_for_the_tree_still_gives_the_same_total_and_stays_bounded() -> None:
    rng = random.Random(7)
    plan = _plan(30, 7)
    small = PldTree(max_bytes=2_000_000)
    for step in range(8):
        plan = _edit(plan, rng, step)
        ms = _measurements(plan)
        root = small.root(ms)
        assert root is not None
        assert small.epsilon(root, 1e-6) == _scratch(ms, 1e-6)
        assert small.cached_bytes <= small.max_bytes


def test_stale_paths_are_dropped_past_three_times_the_current_tree(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(accounting, "PLD_CACHE_FLOOR", 100_000)
    rng = random.Random(9)
    plan = _plan(30, 9)
    tree = PldTree()
    for step in range(25):
        plan = _edit(plan, rng, step)
        ms = _measurements(plan)
        root = tree.root(ms)
        assert root is not None
        assert tree.epsilon(root, 1e-6) == _scratch(ms, 1e-6)
        fresh = PldTree()
        fresh.root(ms)  # what this plan's tree alone holds
        assert tree.cached_bytes <= max(3 * fresh.cached_bytes, 100_000)


def test_a_thousand_statistics_edited_give_the_total_composed_from_nothing() -> None:
    plan = _plan(1000, 11)
    delta = plan.budget.delta
    tree = PldTree()
    by_id = {q.id: measurements_for(q, plan) for q in plan.queries}
    first = tree.root([m for ms in by_id.values() for m in ms])
    assert first is not None
    queries = list(plan.queries)
    for i in (0, 517, 999):  # the first, one in the middle, the last
        queries[i] = replace(queries[i], epsilon=queries[i].epsilon * 1.5)
        plan = plan.with_queries(queries)
        by_id[queries[i].id] = measurements_for(queries[i], plan)
        ms = [m for q in plan.queries for m in by_id[q.id]]
        root = tree.root(ms)
        assert root is not None
        assert tree.epsilon(root, delta) == _scratch(ms, delta)


@pytest.mark.subprocess
def test_the_total_does_not_depend_on_what_was_composed_before_in_the_process(
        tmp_path: Path) -> None:
    """An editor session's total equals a fresh process's: a release composed in the app
    recomposes exactly in `verify` (before, the cache's order followed the editing history
    and the two could differ in the last digits)."""
    plan = _plan(60, 5)
    rng = random.Random(5)
    for step in range(6):
        plan = _edit(plan, rng, step)
        accounting.pld(_measurements(plan), 1e-6)
    ours = accounting.pld(_measurements(plan), 1e-6).epsilon
    path = tmp_path / "plan.json"
    save_plan(plan, path)
    code = ("import sys; from planner_app.core.planfile.serialisation import load_plan\n"
            "from planner_app.core.kinds.shared_dp import measurements_for\n"
            "from planner_app.core.dp.accounting import pld\n"
            "p = load_plan(sys.argv[1])\n"
            "print(repr(pld([m for q in p.queries for m in measurements_for(q, p)], "
            "1e-6).epsilon))")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          text=True, check=True, cwd=ROOT)
    assert float(done.stdout.strip()) == ours


def test_the_tree_agrees_with_a_plain_chain_of_dp_accounting_compositions() -> None:
    """Against dp-accounting composing the same PLDs one after another (its own order): the
    order of convolutions changes only floating-point rounding and where the 1e-15 tails are
    cut (always pessimistically), far below the 1e-4 loss discretisation."""
    rng = random.Random(3)
    comp = Component("count", 1.0, 1, 1, 1, True, "")
    for _ in range(5):
        ms = []
        for i in range(rng.randrange(2, 25)):
            eps = round(rng.uniform(0.01, 1.0), 3)
            kind = rng.choice(["laplace", "gaussian", "randomized_response", "exponential"])
            if kind == "laplace":
                m = Measurement(f"q{i}", comp, kind, eps, 0.0, scale=laplace_scale(1, eps))
            elif kind == "gaussian":
                m = Measurement(f"q{i}", comp, kind, eps, 1e-7,
                                sigma_sq=Fraction(rng.randrange(4, 400)))
            elif kind == "randomized_response":
                m = Measurement(f"q{i}", comp, kind, eps, 0.0,
                                truth=Fraction(3, 4) + Fraction(rng.randrange(0, 200), 1000))
            else:
                m = Measurement(f"q{i}", comp, kind, eps, 0.0)
            ms.append(m)
        chain = reduce(lambda a, b: a.compose(b), [ref.pld_of(m) for m in ms])
        expected = chain.get_epsilon_for_delta(1e-6)
        got = accounting.pld(ms, 1e-6).epsilon
        assert math.isclose(got, expected, rel_tol=1e-7, abs_tol=1e-12)


def _plds() -> list[dp_pld.PrivacyLossDistribution]:
    out = [
        dp_pld.from_laplace_mechanism(1.0, value_discretization_interval=1e-4),
        dp_pld.from_discrete_gaussian_mechanism(3.0, value_discretization_interval=1e-4),
        dp_pld.from_randomized_response(0.3, 2, value_discretization_interval=1e-4),
        ref.theirs(laplace_pld.discrete_laplace_pld(Fraction(7, 3), 5)),
        dp_pld.from_gaussian_mechanism(2.0, value_discretization_interval=1e-4,
                                       use_connect_dots=False),
    ]
    plan = _plan(40, 2)
    root = PldTree().root(_measurements(plan))
    assert root is not None
    out.append(ref.theirs(root[1]))  # a large composed one (its tails: long runs of tiny masses)
    return out


def _same(a: Pmf, b: dp_pld.PrivacyLossDistribution | pld_pmf.PLDPmf) -> None:
    """The same PMF, dense (pld_reference.assert_same also holds sparse to its order)."""
    pb = b._pmf_remove if isinstance(b, dp_pld.PrivacyLossDistribution) else b
    da, db = to_dense(a), pb.to_dense_pmf()
    assert da.lower_loss == db._lower_loss
    assert da.infinity_mass == db._infinity_mass
    assert np.array_equal(da.probs, db._probs)


def test_compose_is_dp_accountings_compose_to_the_bit() -> None:
    plds = _plds()
    for a in plds:
        for b in plds:
            _same(pld_ops.compose(ref.ours(a), ref.ours(b)), a.compose(b))
    # not symmetric: the add and remove PMFs each (the product's PLDs are all symmetric)
    pair = dp_pld.from_gaussian_mechanism(1.5, value_discretization_interval=1e-4,
                                          sampling_prob=0.5)
    both = pair.compose(plds[0])
    for mine, theirs in ((pair._pmf_remove, both._pmf_remove), (pair._pmf_add, both._pmf_add)):
        _same(pld_ops.compose(ref.ours(mine), ref.ours(plds[0])), theirs)


def test_epsilon_for_delta_is_dp_accountings_to_the_bit() -> None:
    plds = _plds()
    plds += [plds[-1].compose(plds[-1]), plds[0].self_compose(30)]
    for value in plds:
        for delta in (0.5, 1e-1, 1e-3, 1e-6, 1e-9, 1e-12, 1e-300, 0.0):
            assert (pld_ops.epsilon_for_delta(ref.ours(value), delta)
                    == value.get_epsilon_for_delta(delta))


@pytest.mark.parametrize("max_bytes", [256 * 2**20, 3_000_000, 600_000])
def test_a_slider_dragged_back_and_forth_gives_the_total_composed_from_nothing(
        max_bytes: int) -> None:
    """A drag: one statistic's ε again and again, back to earlier values, with the last
    tree's nodes reused from its slots (a cache large enough, one that drops nodes of the
    tree being reused, and one too small to keep the slots at all)."""
    plan = _plan(80, 13)
    tree = PldTree(max_bytes=max_bytes)
    by_id = {q.id: measurements_for(q, plan) for q in plan.queries}
    queries = list(plan.queries)
    for eps in (0.05, 0.07, 0.05, 0.3, 0.07, 0.0123):
        queries[40] = replace(queries[40], epsilon=eps)
        plan = plan.with_queries(queries)
        by_id[queries[40].id] = measurements_for(queries[40], plan)
        ms = [m for q in plan.queries for m in by_id[q.id]]
        root = tree.root(ms)
        assert root is not None
        assert tree.epsilon(root, 1e-6) == _scratch(ms, 1e-6)
