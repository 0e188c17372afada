"""Plan files: every validation rule names its field; round trips; the shipped schema agrees."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from planner_app.core.planfile import (
    load_plan,
    parse_plan_text,
    plan_from_dict,
    plan_to_dict,
    save_plan,
)
from planner_app.core.support.errors import InputError
from planner_app.core.support.resources import demo_plan_path, plan_schema_path
from tests.conftest import plan_dict, write_json

SCHEMA = json.loads(plan_schema_path().read_text())


def q(**fields: Any) -> dict[str, Any]:
    base = {"id": "s", "kind": "sum", "column": "x", "lower": 0, "upper": 10, "epsilon": 0.5}
    base.update(fields)
    return {k: v for k, v in base.items() if v is not ...}


BAD_PLANS = [
    # (plan, expected field in message, expected words)
    (plan_dict(format="planner-app/plan@3"), "format", "unknown format version"),  # cal26: @2
    ({k: v for k, v in plan_dict().items() if k != "format"}, "format", "required"),
    (plan_dict(extra=1), "extra", "unknown field"),
    (plan_dict(dataset={"name": ""}), "dataset.name", "blank"),
    (plan_dict(dataset={"name": "d", "path": "/home/owner/secret/people.csv"}), "dataset.path",
     "absolute path"),
    (plan_dict(dataset={"name": "d", "path": "C:\\Users\\owner\\people.csv"}),
     "dataset.path", "absolute path"),
    (plan_dict(dataset={"name": "a\u202eb"}), "dataset.name", "direction control"),
    (plan_dict(privacy_unit={"kind": "person", "id_column": "id"}), "privacy_unit.max_rows",
     "required"),
    (plan_dict(privacy_unit={"kind": "person", "id_column": "id", "max_rows": 0}),
     "privacy_unit.max_rows", "between"),
    (plan_dict(privacy_unit={"kind": "household"}), "privacy_unit.kind", "not one of"),
    (plan_dict(neighbouring="swap"), "neighbouring", "not one of"),
    (plan_dict(budget={"epsilon": 0}), "budget.epsilon", "above 0"),
    (plan_dict(budget={"epsilon": -1}), "budget.epsilon", "above 0"),
    (plan_dict(budget={"epsilon": "1"}), "budget.epsilon", "must be a number"),
    (plan_dict(budget={"epsilon": True}), "budget.epsilon", "must be a number"),
    (plan_dict(budget={"epsilon": 1, "delta": 1}), "budget.delta", "[0, 1)"),
    (plan_dict(budget={"epsilon": 1, "delta": -0.1}), "budget.delta", "[0, 1)"),
    (plan_dict(budget={"epsilon": 1, "accountant": "renyi"}), "budget.accountant", "not one of"),
    (plan_dict(queries=[]), "queries", "non-empty"),
    (plan_dict(queries=[q(kind="median")]), "queries[s].kind", "not one of"),
    (plan_dict(queries=[q(column=...)]), "queries[s].column", "required"),
    (plan_dict(queries=[q(lower=10, upper=0)]), "queries[s].lower", "must be below upper"),
    (plan_dict(queries=[q(lower=5, upper=5)]), "queries[s].lower", "must be below upper"),
    (plan_dict(queries=[q(upper=...)]), "queries[s].upper", "required"),
    (plan_dict(queries=[q(epsilon=0)]), "queries[s].epsilon", "above 0"),
    (plan_dict(queries=[q(epsilon=float("inf"))]), "queries[s].epsilon", "finite"),
    (plan_dict(queries=[q(delta=0.1)]), "queries[s].delta", "only used by the gaussian"),
    (plan_dict(queries=[q(mechanism="gaussian")]), "queries[s].delta", "needs a delta"),
    (plan_dict(queries=[q(mechanism="gaussian", delta=1.5)]), "queries[s].delta", "[0, 1)"),
    (plan_dict(queries=[q(mechanism="exponential")]), "queries[s].mechanism", "not one of"),
    (plan_dict(queries=[q(), q()]), "queries[1].id", "duplicate id"),
    (plan_dict(queries=[q(id="a b")]), "queries[0].id", "letters, digits"),
    (plan_dict(queries=[q(kind="histogram", lower=..., upper=..., categories=[])]),
     "queries[s].categories", "must not be empty"),
    (plan_dict(queries=[q(kind="histogram", lower=..., upper=..., categories=["a", "a"])]),
     "queries[s].categories[1]", "repeats"),
    (plan_dict(queries=[q(kind="histogram", lower=..., upper=..., categories=[1, "1"])]),
     "queries[s].categories[1]", "repeats"),
    (plan_dict(queries=[q(kind="histogram", lower=..., upper=...)]), "queries[s]",
     "exactly one of categories"),
    (plan_dict(queries=[q(kind="histogram", lower=..., upper=..., bins=[0, 0, 1])]),
     "queries[s].bins[1]", "increase strictly"),
    (plan_dict(queries=[q(kind="histogram", lower=..., upper=..., bins=[0])]),
     "queries[s].bins", "at least two"),
    (plan_dict(queries=[q(kind="count", lower=0)]), "queries[s].lower", "not used by kind"),
    (plan_dict(queries=[q(kind="quantile")]), "queries[s].quantile", "required"),
    (plan_dict(queries=[q(kind="quantile", quantile=1.5)]), "queries[s].quantile", "[0, 1]"),
    (plan_dict(queries=[q(where=[{"column": "x", "op": "=~", "value": 1}])]),
     "queries[s].where[0].op", "not one of"),
    (plan_dict(queries=[q(where="x > 1")]), "queries[s].where", "list of"),
    (plan_dict(queries=[q(where=[{"column": "x", "op": "<", "value": "a"}])]),
     "queries[s].where[0].value", "compares numbers"),
    (plan_dict(queries=[q(where=[{"column": "x", "op": "in", "value": []}])]),
     "queries[s].where[0].value", "must not be empty"),
    (plan_dict(queries=[q(missing="zero")]), "queries[s].missing", '"drop"'),
    (plan_dict(queries=[q(missing={"impute": "many"})]), "queries[s].missing.impute", "number"),
    (plan_dict(queries=[q(group_by={"column": "g"})]), "queries[s].group_by.keys", "required"),
    (plan_dict(queries=[q(grid_step=0.3)]), "queries[s].grid_step", "power of two"),
    (plan_dict(queries=[q(lower=-1e16)]), "queries[s].upper", "within"),
    (plan_dict(queries=[q(kind="randomized_response", lower=..., upper=...,
                          missing={"impute": "maybe"})]),
     "queries[s].missing.impute", "yes/no"),
    (plan_dict(queries=[q(label="a\x00b")]), "queries[s].label", "control character"),
]


@pytest.mark.parametrize("doc,where,words", BAD_PLANS)
def test_invalid_plans_name_the_field(doc: dict[str, Any], where: str, words: str) -> None:
    with pytest.raises(InputError) as info:
        plan_from_dict(doc, "p.json")
    message = str(info.value)
    assert message.startswith("p.json: ")
    assert f": {where}: " in message, message
    assert words in message, message
    assert "\n" not in message


SCHEMA_CAN_SEE = [case for case in BAD_PLANS if case[2] not in (
    "must be below upper", "duplicate id", "repeats", "increase strictly", "blank",
    "direction control", "control character", "compares numbers", "yes/no", "number",
    "power of two", "within", "not used by kind", "only used by the gaussian",
    "absolute path")]


def _schema_path(path: Any) -> str:
    """A JSON Schema error's location written as the code's messages write it."""
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else key)
    return out


def _indexed(doc: dict[str, Any], where: str) -> str:
    """``where`` with each queries[<id>] as queries[<index>] (the schema counts, the code
    names the statistic)."""
    ids = [q.get("id") if isinstance(q, dict) else None for q in doc.get("queries") or []]
    return re.sub(r"^queries\[([^\]]+)\]",
                  lambda m: f"queries[{ids.index(m[1]) if m[1] in ids else m[1]}]", where)


@pytest.mark.parametrize("doc,where,words", SCHEMA_CAN_SEE)
def test_schema_rejects_what_it_can_express(doc: dict[str, Any], where: str, words: str) -> None:
    """The schema refuses the plan, and for the field the code's message names: an error (or,
    under oneOf/anyOf, a branch's error) at that field, or on its object naming it as missing
    or unexpected."""
    instance = json.loads(json.dumps(doc, allow_nan=True))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(instance, SCHEMA)
    target = _indexed(instance, where)
    parent, _, field = target.rpartition(".")

    def located(error: Any) -> bool:
        at = _schema_path(error.absolute_path)
        return at == target or (at == parent and repr(field) in error.message)

    def every(errors: Any) -> Any:
        for error in errors:
            yield error
            yield from every(error.context)

    errors = list(every(jsonschema.validators.validator_for(SCHEMA)(SCHEMA)
                        .iter_errors(instance)))
    assert any(located(e) for e in errors), [
        f"{_schema_path(e.absolute_path)}: {e.message}" for e in errors]


def test_demo_plan_is_valid_for_code_and_schema() -> None:
    doc = json.loads(demo_plan_path().read_text())
    jsonschema.validate(doc, SCHEMA)
    plan = load_plan(demo_plan_path())
    kinds = {query.kind for query in plan.queries}
    assert kinds == {"count", "sum", "mean", "variance", "histogram", "quantile",
                     "randomized_response"}
    assert any(query.group_by for query in plan.queries)
    assert any(query.mechanism == "gaussian" for query in plan.queries)


def test_round_trip_is_stable(tmp_path: Path) -> None:
    plan = load_plan(demo_plan_path())
    out = tmp_path / "again.json"
    save_plan(plan, out)
    again = load_plan(out)
    assert again == plan
    assert plan_to_dict(again) == plan_to_dict(plan)
    jsonschema.validate(json.loads(out.read_text()), SCHEMA)


@pytest.mark.parametrize("text,where,words", [
    ("{", "line 1 column 2", "invalid JSON"),
    ('{"format": "planner-app/plan@1",\n "format": 1}', None, "the key 'format' appears twice"),
    ('{"budget": NaN}', None, "NaN is not allowed"),
    ("[1, 2]", None, "must be a JSON object, not a list"),
])
def test_bad_json_is_a_clear_input_error(text: str, where: str | None, words: str) -> None:
    with pytest.raises(InputError) as info:
        parse_plan_text(text, "p.json")
    message = str(info.value)
    assert message.startswith("p.json: ") and words in message and "\n" not in message, message
    assert info.value.where == where, message


def test_load_plan_file_problems(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_plan(tmp_path / "missing.json")
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(InputError, match="not UTF-8"):
        load_plan(binary)
    with pytest.raises(InputError, match="folder"):
        load_plan(tmp_path)


def test_conditions_are_data_not_code(tmp_path: Path) -> None:
    doc = plan_dict(queries=[q(where=[{"column": "x", "op": "==",
                                       "value": "__import__('os').system('echo hi')"}])])
    plan = plan_from_dict(write_json(tmp_path / "p.json", doc) and doc)
    condition = plan.queries[0].where[0]
    assert condition.op == "==" and isinstance(condition.value, str)
