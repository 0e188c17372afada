"""Issue 22 §4: one describer of a statistic's public parameters and missing values
(planning.parameters) serves the review window, `planner-app check` and the report."""

from __future__ import annotations

from pathlib import Path

from planner_app.core.planfile import load_plan, plan_to_dict
from planner_app.core.planning.parameters import missing_values_words, parameter_lines
from planner_app.core.release.report import transparency
from planner_app.core.support.resources import demo_plan_path

ROOT = Path(__file__).resolve().parents[2]


def test_the_report_states_missing_values_in_the_describers_words() -> None:
    plan = load_plan(demo_plan_path())
    doc = plan_to_dict(plan)
    record = {"plan": doc, "privacy_unit": doc["privacy_unit"],
              "neighbouring": plan.neighbouring,
              "total": {"epsilon": 1.0, "delta": 0.0, "accountant": "basic"},
              "queries": [{"kind": q.kind, "label": q.title, "measurements": []}
                          for q in plan.queries],
              "ledger": {"spent": {"epsilon": 1}, "cap": {"epsilon": 5},
                         "remaining": {"epsilon": 4}}, "dataset": {"name": "x"},
              "post_processing": {}, "software": {"version": "0"}}
    answer = dict(transparency(record))["Pre-processing: missing values"]
    for q in plan.queries:
        assert f"{q.title}: {missing_values_words(q, plan.privacy_unit)}" in answer, q.id
    # the words say what the engine does: clamped to the bounds, imputed with the value
    hours = next(q for q in plan.queries if q.id == "satisfaction_by_region")
    words = missing_values_words(hours, plan.privacy_unit)
    assert "read as 5;" in words and "below 1 counts as 1" in words and "region" in words


def test_check_without_data_prints_every_parameter_line() -> None:
    from tests.conftest import run_in_process

    done = run_in_process(["check", str(demo_plan_path())])
    assert done.returncode == 0, done.stderr
    plan = load_plan(demo_plan_path())
    for q in plan.queries:
        for name, value in parameter_lines(q, plan.privacy_unit):
            if name not in ("Kind", "ε", "δ"):
                assert f"    {name}: {value}" in done.stdout, (q.id, name)
