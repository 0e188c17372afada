"""The app's preview of a statistic in the plan's relations states the planned ± of its
consistent values beside the raw ones' (issue 27), from public parameters only."""

from __future__ import annotations

import re

from planner_app.core.dp.consistent import CellNoise, consistent_values
from planner_app.core.kinds.shared_dp import accuracy_for, measurements_for
from planner_app.core.planfile import plan_from_dict
from planner_app.core.planfile.relations import cell_tree
from planner_app.core.release.consistent import planned_consistent_words
from tests.census import census_plan


def _words(doc: dict, qid: str) -> str:  # type: ignore[type-arg]
    plan = plan_from_dict(doc)
    ms = {q.id: measurements_for(q, plan) for q in plan.queries}
    acc = accuracy_for(plan.query(qid), plan, 0.95, ms[qid])
    return planned_consistent_words(plan, ms, qid, acc.half_width, 0.95)


def test_gaussian_noise_gives_the_releases_own_interval() -> None:
    """With Gaussian noise the release's interval is in closed form: the preview's ± is the
    half-width of the interval the release computes for the same plan."""
    doc = census_plan(1.0, mechanism="gaussian", non_negative=False, integer=False)
    words = _words(doc, "by_region")
    plan = plan_from_dict(doc)
    tree = cell_tree(plan)
    noise = [CellNoise("gaussian", float(measurements_for(plan.query(qid), plan)[0].sigma_sq))
             for qid in tree.query_ids for _ in tree.cells_of(qid)]
    made = consistent_values([0.0] * tree.size, noise, tree.parent, non_negative=False,
                             integer=False, confidence=0.95)
    widest = max((made.high[i] - made.low[i]) / 2 for i in tree.cells_of("by_region"))
    shown = float(re.search(r"about ± ([\d,.]+)", words).group(1).replace(",", ""))
    assert abs(shown - widest) <= 0.051, (shown, widest)
    assert "The headline values are the consistent values." in words


def test_a_statistic_in_no_relation_has_no_words() -> None:
    doc = census_plan(1.0)
    doc["queries"].append({"id": "alone", "kind": "count", "epsilon": 0.1})
    assert _words(doc, "alone") == ""
    assert "never below 0" in _words(doc, "by_district")
