"""planner-app diff: what changed between two versions of a plan, with the change in the total
and in each ± checked against what `planner-app check` says of each plan on its own."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from planner_app.cli import main
from planner_app.core.dp.accuracy import shown_half_width
from planner_app.core.planfile import plan_digest, plan_from_dict
from planner_app.core.planning.plan_diff import diff_plans
from tests.conftest import plan_dict, write_json

OLD = plan_dict(
    dataset={"name": "survey", "expected_rows": 1000},
    budget={"epsilon": 3.0, "delta": 0.0},
    justification="yearly open data",
    queries=[
        {"id": "n", "kind": "count", "epsilon": 0.5},
        {"id": "hours", "label": "Mean hours", "kind": "mean", "column": "hours",
         "lower": 0, "upper": 80, "epsilon": 0.5,
         "justification": {"bounds": "the form accepts 0 to 80"}},
        {"id": "region", "kind": "histogram", "column": "region",
         "categories": ["North", "South", "East", "West"], "epsilon": 0.5,
         "justification": {"categories": "official regions"}},
        {"id": "steady", "kind": "count", "epsilon": 0.25,
         "where": [{"column": "wave", "op": "==", "value": 2025}]},
    ])


def _new() -> dict[str, Any]:
    doc = json.loads(json.dumps(OLD))
    queries = {q["id"]: q for q in doc["queries"]}
    queries["hours"]["upper"] = 100
    queries["hours"]["epsilon"] = 1.0
    queries["hours"]["justification"]["bounds"] = "the new form accepts 0 to 100"
    queries["n"]["epsilon"] = 0.25
    del queries["region"]
    queries["income"] = {"id": "income", "kind": "sum", "column": "income", "lower": 0,
                         "upper": 1000, "epsilon": 0.5,
                         "justification": {"bounds": "capped at 1000"}}
    doc["queries"] = list(queries.values())
    doc["budget"]["epsilon"] = 4.0
    return doc


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _check_json(path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, _ = _run(["check", str(path), "--json", "--confidence", "0.9"], capsys)
    assert code == 0
    return json.loads(out)


def test_diff_names_added_removed_changed_with_checks_numbers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old_file = write_json(tmp_path / "v1.json", OLD)
    new_file = write_json(tmp_path / "v2.json", _new())
    code, out, err = _run(["diff", str(old_file), str(new_file), "--json",
                           "--confidence", "0.9"], capsys)
    assert code == 0, err
    diff = json.loads(out)
    old_check, new_check = _check_json(old_file, capsys), _check_json(new_file, capsys)

    # the totals are check's, each plan on its own
    assert diff["total"]["old"]["epsilon"] == old_check["total"]["epsilon"]
    assert diff["total"]["new"]["epsilon"] == new_check["total"]["epsilon"]
    assert diff["total"]["new_fits_budget"] == new_check["fits_budget"]

    by_id = {s["id"]: s for s in diff["statistics"]}
    assert {i: s["status"] for i, s in by_id.items()} == {
        "region": "removed", "income": "added", "hours": "changed", "n": "changed"}
    assert diff["unchanged"] == ["steady"]
    old_acc = {q["id"]: shown_half_width(q["accuracy"]) for q in old_check["queries"]}
    new_acc = {q["id"]: shown_half_width(q["accuracy"]) for q in new_check["queries"]}
    for qid, s in by_id.items():
        assert s["accuracy"]["old_half_width"] == old_acc.get(qid), qid
        assert s["accuracy"]["new_half_width"] == new_acc.get(qid), qid
    # the count's ± from first principles: discrete Laplace of scale 1/ε, smallest k with
    # P(|X| > k) <= 10%
    for eps, side in ((0.5, "old_half_width"), (0.25, "new_half_width")):
        s = 1 / eps
        k = next(k for k in range(10_000)
                 if 2 * math.exp(-(k + 1) / s) / (1 + math.exp(-1 / s)) <= 0.1)
        assert by_id["n"]["accuracy"][side] == k
    # field by field
    fields = {f["field"]: f for f in by_id["hours"]["fields"]}
    assert fields["bounds"]["old"] == "[0, 80]" and fields["bounds"]["new"] == "[0, 100]"
    assert (fields["ε"]["old"], fields["ε"]["new"]) == ("0.5", "1")
    assert "reason for the bounds" in fields
    assert [f["field"] for f in diff["plan"]] == ["budget ε"]

    code, text, _ = _run(["diff", str(old_file), str(new_file), "--confidence", "0.9"],
                         capsys)
    assert code == 0
    assert "bounds: [0, 80] → [0, 100]" in text
    assert "- region" in text and "+ income" in text and "~ hours" in text
    assert "more accurate" in text  # hours: twice the ε
    assert "less accurate" in text  # n: half the ε
    assert text.index("Removed") < text.index("Added") < text.index("Changed")
    # stable: the same text every time
    assert _run(["diff", str(old_file), str(new_file), "--confidence", "0.9"],
                capsys)[1] == text


def test_a_plan_wide_change_shows_in_every_accuracy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new = json.loads(json.dumps(OLD))
    new["privacy_unit"] = {"kind": "person", "id_column": "pid", "max_rows": 2}
    diff = diff_plans(plan_from_dict(OLD), plan_from_dict(new), 0.95)
    assert [f.name for f in diff.plan_fields] == ["unit of privacy"]
    # two rows per person double every sensitivity: every ± widens, no field of its own moved
    assert {s.id for s in diff.statistics} == {q["id"] for q in OLD["queries"]}
    for s in diff.statistics:
        assert s.fields == ()
        assert s.accuracy.new_value > s.accuracy.old_value, s.id  # type: ignore[operator]


def test_identical_plans_say_no_change(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    a = write_json(tmp_path / "a.json", OLD)
    approved = json.loads(json.dumps(OLD))
    approved["approvals"] = [{"reviewer": "Officer", "decision": "approved", "comment": "",
                              "plan_sha256": plan_digest(plan_from_dict(OLD)),
                              "time": "2026-01-01T00:00:00Z"}]
    b = write_json(tmp_path / "b.json", approved)
    code, out, _ = _run(["diff", str(a), str(b)], capsys)
    assert code == 0
    assert "No change" in out
    assert "Changed" not in out and "Added" not in out
    # the approval is not a change, but the diff says it is bound to the newer plan
    assert "Approved by Officer" in out.splitlines()[-1]
    assert "bound to this exact plan" in out.splitlines()[-1]


def test_a_copied_approval_is_named_as_for_another_version(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new = _new()
    new["approvals"] = [{"reviewer": "Officer", "decision": "approved", "comment": "",
                         "plan_sha256": plan_digest(plan_from_dict(OLD)),
                         "time": "2026-01-01T00:00:00Z"}]
    diff = diff_plans(plan_from_dict(OLD), plan_from_dict(new))
    assert diff.new_approval_state == "changed"
    assert "another version" in diff.lines()[-1]


@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize("content", ["{", "[]", '{"format": "planner-app/plan@1"}', None])
def test_a_bad_file_is_one_line_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          which: int, content: str | None) -> None:
    good = write_json(tmp_path / "good.json", OLD)
    bad = tmp_path / "broken.json"
    if content is not None:
        bad.write_text(content, encoding="utf-8")
    argv = ["diff", str(good), str(bad)] if which else ["diff", str(bad), str(good)]
    code, out, err = _run(argv, capsys)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "broken.json" in err and "Traceback" not in err


def test_a_plan_check_refuses_is_named_by_its_file(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A plan that reads but cannot be checked (randomized response at a tiny ε): the
    diff says which of the two it is, as check does."""
    good = write_json(tmp_path / "good.json", OLD)
    tiny = write_json(tmp_path / "tiny.json", plan_dict(
        dataset={"name": "t", "expected_rows": 100},
        queries=[{"id": "r", "kind": "randomized_response", "column": "g", "yes": ["a"],
                  "no": ["b"], "epsilon": 1e-9}]))
    check_code, _, check_err = _run(["check", str(tiny)], capsys)
    code, out, err = _run(["diff", str(good), str(tiny)], capsys)
    assert (code, out) == (2, "") and check_code == 2
    assert err == check_err and "tiny.json: queries[r].epsilon" in err


def test_a_reason_change_is_named(tmp_path: Path) -> None:
    new = json.loads(json.dumps(OLD))
    new["queries"][0]["justification"] = {"epsilon": "a count needs little"}
    diff = diff_plans(plan_from_dict(OLD), plan_from_dict(new))
    (s,) = diff.statistics
    assert [f.line for f in s.fields] == ["reason for the ε: none → 'a count needs little'"]
    assert s.accuracy.words.startswith("unchanged")


def test_a_synthetic_tables_own_fields_are_named() -> None:
    """An officer comparing two versions sees a synthetic table's columns, domains and rows
    change (they were reported as "none of its own fields changed")."""
    synth = {"id": "synth", "kind": "synthetic", "method": "mst", "epsilon": 2.0,
             "delta": 5e-7, "rows": 2000,
             "columns": [{"column": "region", "categories": ["North", "South"]},
                         {"column": "age", "bins": [16, 30, 100]},
                         {"column": "smoker", "categories": ["yes", "no"]}],
             "justification": {"categories": "the form's answers", "bounds": "age bands"}}
    old = plan_dict(budget={"epsilon": 4.0, "delta": 1e-5}, queries=[synth])
    new = json.loads(json.dumps(old))
    q = new["queries"][0]
    q["columns"] = [{"column": "region", "categories": ["North", "South"]},
                    {"column": "age", "bins": [16, 30, 50, 100]}]
    q["rows"] = 500
    diff = diff_plans(plan_from_dict(old), plan_from_dict(new))
    (s,) = diff.statistics
    lines = [f.line for f in s.fields]
    assert any(line.startswith("table columns") and "smoker" in line for line in lines), lines
    assert any(line.startswith("table columns") and "50" in line for line in lines), lines
    assert "rows to generate: 2000 → 500" in lines, lines
