"""The reasons rule reuses what each unchanged statistic lacks between calls (the editor asks
at every slider step); a statistic that changed is looked at again, so the rule always says
what a walk of the plan from nothing says."""

from __future__ import annotations

from dataclasses import replace

from planner_app.core.model import Plan
from planner_app.core.planfile.serialisation import load_plan
from planner_app.core.planning.readiness import missing_reasons, reasons_rule
from planner_app.core.support.resources import demo_plan_path


def _lacking(plan: Plan) -> list[str]:
    return [q.id for q in plan.queries if missing_reasons(q)]


def test_each_call_says_what_the_plan_as_it_is_lacks() -> None:
    plan = load_plan(demo_plan_path())
    assert _lacking(plan) == [] and reasons_rule(plan).status == "pass"
    income = next(i for i, q in enumerate(plan.queries) if q.id == "income_2025")
    queries = list(plan.queries)
    queries[income] = replace(queries[income], justification=None)  # its bounds' reason gone
    without = plan.with_queries(queries)
    rule = reasons_rule(without)
    assert _lacking(without) == ["income_2025"]
    assert rule.status == "fail" and rule.where == "queries[income_2025].justification.bounds"
    again = without.with_queries([replace(q, epsilon=q.epsilon / 2) for q in without.queries])
    assert reasons_rule(again).status == "fail"  # every statistic new, the reason still gone
    assert reasons_rule(plan).status == "pass"  # the reason back
