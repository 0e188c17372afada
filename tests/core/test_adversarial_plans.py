"""Plans from the adversarial pass (issue 22 §6): a data path that climbs out with '..', ids
that differ only in case, an over-long id, lists whose entries are equal after Unicode
normalisation, reasons and dataset names made of invisible characters, and a dataset name
the PDF report cannot draw. Each is refused at its rule with a line naming the field."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from planner_app.core.planfile import plan_from_dict
from planner_app.core.planning.editing import unique_id
from planner_app.core.planning.policy_rules import policy_rules
from planner_app.core.planning.readiness import reasons_rule
from planner_app.core.planning.starters import empty_plan
from planner_app.core.records.policy import Policy
from planner_app.core.support.errors import InputError

PLAN: dict[str, Any] = {
    "format": "planner-app/plan@1", "dataset": {"name": "corpus"},
    "privacy_unit": {"kind": "row"}, "budget": {"epsilon": 2.0, "delta": 1e-6},
    "justification": "the board's yearly budget",
    "queries": [
        {"id": "n", "kind": "count", "epsilon": 0.5},
        {"id": "s", "kind": "sum", "column": "x", "lower": 0, "upper": 10, "epsilon": 0.5,
         "justification": {"bounds": "a 0-10 scale"}},
        {"id": "h", "kind": "histogram", "column": "g", "categories": ["a", "b"],
         "epsilon": 0.5, "justification": {"categories": "the form's two options"}},
    ],
}
E_NFC, E_NFD = "\u00e9", "e\u0301"  # 'é' as one code point, and as 'e' + a combining accent


def doc(**top: Any) -> dict[str, Any]:
    out = copy.deepcopy(PLAN)
    out.update(top)
    return out


def query(i: int, **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(PLAN)
    out["queries"][i].update(changes)
    return out


def refusal(document: dict[str, Any]) -> str:
    with pytest.raises(InputError) as caught:
        plan_from_dict(document, "plan.json")
    return str(caught.value)


@pytest.mark.parametrize("path", ["../people.csv", "../../../etc/people.csv",
                                  "data/../../people.csv", "..\\private\\people.csv", ".."])
def test_a_data_path_that_climbs_out_is_refused(path: str) -> None:
    message = refusal(doc(dataset={"name": "corpus", "path": path}))
    assert message.startswith("plan.json: dataset.path: must be a file name or a path inside")
    assert "'..' climbs out of it" in message


@pytest.mark.parametrize("path", ["people.csv", "data/people.csv", "..people.csv",
                                  "v1..2.csv", "./people.csv"])
def test_a_path_inside_the_folder_is_kept(path: str) -> None:
    assert plan_from_dict(doc(dataset={"name": "corpus", "path": path})).dataset.path == path


def test_the_absolute_path_rule_is_unchanged() -> None:
    for path in ("/home/owner/people.csv", "C:\\data\\people.csv", "~/people.csv", "D:x.csv"):
        assert "an absolute path would reveal" in refusal(doc(dataset={"name": "c",
                                                                       "path": path}))


def test_ids_that_differ_only_in_case_are_refused() -> None:
    document = doc()
    document["queries"].append({"id": "N", "kind": "count", "epsilon": 0.1})
    assert refusal(document) == ("plan.json: queries[3].id: ids 'n' and 'N' differ only in "
                                 "letter case; their files would be one file on a disk that "
                                 "ignores case")


def test_a_duplicated_statistic_gets_an_id_of_another_letter_case_too() -> None:
    plan = plan_from_dict(doc())
    assert unique_id(plan, "N") == "N_2"


@pytest.mark.parametrize("length", [65, 3000])
def test_an_over_long_id_is_told_the_id_rule(length: int) -> None:
    message = refusal(query(1, id="a" * length))
    assert message == ("plan.json: queries[1].id: must be 1-64 letters, digits, '_', '.' or "
                       f"'-' (A-Z, a-z, 0-9), not {length:,} characters")


def test_categories_equal_after_nfc_are_refused() -> None:
    message = refusal(query(2, categories=[E_NFC, "b", E_NFD]))
    assert message.startswith("plan.json: queries[h].categories[2]: ")
    assert "is categories[0] written with other Unicode code points" in message


def test_group_keys_equal_after_nfc_are_refused() -> None:
    message = refusal(query(1, group_by={"column": "g", "keys": [E_NFD, E_NFC]}))
    assert message.startswith("plan.json: queries[s].group_by.keys[1]: ")


def test_a_synthetic_tables_categories_equal_after_nfc_are_refused() -> None:
    synthetic = {"id": "syn", "kind": "synthetic", "epsilon": 1.0, "delta": 1e-7,
                 "columns": [{"column": "g", "categories": [E_NFC, E_NFD]}]}
    message = refusal(doc(queries=[PLAN["queries"][0], synthetic]))
    assert "queries[syn].columns[0].categories[1]" in message


def test_distinct_accented_categories_are_kept() -> None:
    plan = plan_from_dict(query(2, categories=[E_NFC, "e", "\u00e8", "E"]))
    assert len(plan.query("h").params.categories or ()) == 4


@pytest.mark.parametrize("reason", ["\u200b", " \u200b\u200c\u2060 ", "\ufeff", "\u3000",
                                    "\u00ad", "\u3164"])
def test_an_invisible_reason_is_no_reason(reason: str) -> None:
    plan = plan_from_dict(query(1, justification={"bounds": reason}))
    rule = reasons_rule(plan)
    assert rule.status == "fail" and "s (bounds)" in rule.message


def test_the_policy_asks_for_a_visible_budget_reason() -> None:
    policy = Policy(name="org", require_reasons=True)
    plan = plan_from_dict(doc(justification="\u200b"))
    from planner_app.core.planning.check import check_plan

    total = check_plan(plan).total
    rules = {r.rule: r for r in policy_rules(policy, plan, total)}
    assert rules["policy-reasons"].status == "fail"
    assert "the budget's ε" in rules["policy-reasons"].message
    visible = plan_from_dict(doc())
    rules = {r.rule: r for r in policy_rules(policy, visible, check_plan(visible).total)}
    assert rules["policy-reasons"].status == "pass"


@pytest.mark.parametrize(("name", "what"), [
    ("a\nb", "contains a line break"), ("a\tb", "contains a tab"),
    ("a\u200bb", "contains the invisible character U+200B"),
    ("corpus\u2028", "contains the invisible character U+2028"),
    ("\u200b", "must not be blank"), ("\u3000", "must not be blank"),
])
def test_a_dataset_name_is_one_line_of_visible_text(name: str, what: str) -> None:
    assert refusal(doc(dataset={"name": name})).startswith(f"plan.json: dataset.name: {what}")


def test_a_dataset_name_the_report_cannot_draw_is_refused() -> None:
    message = refusal(doc(dataset={"name": "ＡＢＣ データ"}))
    assert message.startswith("plan.json: dataset.name: contains 'ＡＢＣデー' (U+FF21 and 5 "
                              "more), which the PDF report's font (DejaVu Sans) cannot draw")


def test_names_the_report_draws_are_kept() -> None:
    for name in ("Enquête santé 2024", "Ωmega survey", "Перепись", "O'Brien & co."):
        assert plan_from_dict(doc(dataset={"name": name})).dataset.name == name


def test_a_new_plan_from_a_table_of_any_name_has_a_valid_name() -> None:
    for stem, expected in (("データ", "dataset"), ("survey\u200b 2024", "survey 2024"),
                           ("Ｘ-people", "-people")):
        name = empty_plan(stem, "t.csv").dataset.name
        assert name == expected
        assert plan_from_dict(doc(dataset={"name": name})).dataset.name == expected
