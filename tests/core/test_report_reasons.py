"""The report shows the reason of every declared public parameter (walk 2, finding 17: the
bin edges' reason was in plan.json only), and its missing-values paragraph reads as
sentences (finding 19: statistics were joined by ".;")."""

from __future__ import annotations

from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.report import transparency
from tests.conftest import plan_dict


def _record(doc: dict) -> dict:  # type: ignore[type-arg]
    """The parts of a release record the transparency section reads."""
    return {"plan": doc, "privacy_unit": doc["privacy_unit"], "neighbouring": "add-remove",
            "total": {"epsilon": 1.0, "delta": 0.0, "accountant": "basic"},
            "queries": [{"id": q["id"], "label": q["id"], "kind": q["kind"],
                         "measurements": [{"mechanism": "laplace"}]} for q in doc["queries"]],
            "ledger": {"spent": {"epsilon": 1.0}, "cap": {"epsilon": 10.0},
                       "remaining": {"epsilon": 9.0}},
            "dataset": {"name": "test"}, "post_processing": {},
            "software": {"version": "test"}}


DOC = plan_dict(queries=[
    {"id": "ages", "kind": "histogram", "column": "age", "bins": [0, 10, 90, 100],
     "epsilon": 0.5, "justification": {"bounds": "Standard 10-year age bands"}},
    {"id": "regions", "kind": "histogram", "column": "sex", "categories": ["F", "M"],
     "group_by": {"column": "region", "keys": ["North", "South"]}, "epsilon": 0.5,
     "justification": {"categories": "The form's two boxes", "keys": "The official regions"}},
])


def test_the_report_shows_the_reason_for_bin_edges_and_for_each_list() -> None:
    answers = dict(transparency(_record(DOC), plan_from_dict(DOC)))
    bounds = answers["Pre-processing: bounds (clamping)"]
    assert "ages: bin edges 0, 10, 90, 100 — Standard 10-year age bands" in bounds
    lists = answers["Pre-processing: categories and keys"]
    assert "regions: 2 declared categories — The form's two boxes" in lists
    assert "regions: 2 declared group keys — The official regions" in lists


def test_the_missing_values_paragraph_keeps_each_statistic_a_sentence() -> None:
    answers = dict(transparency(_record(DOC), plan_from_dict(DOC)))
    text = answers["Pre-processing: missing values"]
    assert ".;" not in text
    assert text.count("ages: ") == 1 and ". regions: " in text and text.endswith(".")
