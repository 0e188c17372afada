"""One-line messages that say what is wrong in the words of the caller (the outsider's review
of issue 27): a bundle given where a plan is expected is named as a zip, not as "byte 14: is
not UTF-8 text"; a missing bundle is named once; a number too long to read names its field;
the Python API's overwrite refusal names ``overwrite=True``, not the command line's --force."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from planner_app import api
from planner_app.cli import main
from tests.conftest import DEMO_PLAN


def run(args: list[str], capsys: Any) -> tuple[int, str]:
    capsys.readouterr()
    code = main(args)
    return code, capsys.readouterr().err


def test_a_bundle_given_as_the_plan_of_apply_discovery(tmp_path: Path, demo_bundle: Path,
                                                       capsys: Any) -> None:
    bundle = tmp_path / "d.zip"
    shutil.copy(demo_bundle, bundle)
    code, err = run(["plan", "apply-discovery", str(bundle), "--bundle", str(bundle), "--out",
                     str(tmp_path / "x.json")], capsys)
    assert code == 2
    assert err == ("planner-app: error: d.zip: is a zip file (a release bundle?), not a plan "
                   "file (a plan file is JSON text)\n")
    code, err = run(["check", str(bundle)], capsys)
    assert code == 2 and "d.zip: is a zip file (a release bundle?), not a plan file" in err
    assert not (tmp_path / "x.json").exists()


def test_a_missing_bundle_is_named_once(tmp_path: Path, capsys: Any) -> None:
    code, err = run(["plan", "apply-discovery", str(DEMO_PLAN), "--bundle",
                     str(tmp_path / "nope.zip"), "--out", str(tmp_path / "x.json")], capsys)
    assert (code, err) == (2, "planner-app: error: nope.zip: no such file\n")


@pytest.mark.parametrize("field", ["max_keys", "max_rows"])
def test_a_number_too_long_to_read_names_its_field(tmp_path: Path, capsys: Any,
                                                   field: str) -> None:
    doc = json.loads(DEMO_PLAN.read_text("utf-8"))
    if field == "max_keys":
        doc["queries"].append({"id": "found", "kind": "discover_keys", "column": "region",
                               "epsilon": 0.5, "delta": 1e-7, "max_keys": 7777})
    else:
        doc["privacy_unit"]["max_rows"] = 7777
    plan = tmp_path / "long.json"
    plan.write_text(json.dumps(doc).replace("7777", "4" * 5000), "utf-8")
    where = "queries[found].max_keys" if field == "max_keys" else "privacy_unit.max_rows"
    expected = (f"long.json: {where}: is a 5,000-digit number, too long to read and too "
                "large for any plan field")
    code, err = run(["check", str(plan)], capsys)
    assert (code, err) == (2, f"planner-app: error: {expected}\n")
    with pytest.raises(api.InputError) as info:
        api.load_plan(plan)
    assert str(info.value) == expected


def test_the_api_says_overwrite_true(tmp_path: Path, capsys: Any) -> None:
    plan = api.load_plan(DEMO_PLAN)
    target = tmp_path / "plan.json"
    api.save_plan(plan, target)
    with pytest.raises(api.InputError) as info:
        api.save_plan(plan, target)
    assert str(info.value) == ("plan.json: already exists (use overwrite=True to overwrite, "
                               "or choose another name)")
    api.save_plan(plan, target, overwrite=True)
    # the command line still says --force, also after the API's refusal
    code, err = run(["plan", "new", "--data", str(DEMO_PLAN.parent / "survey.csv"), "--out",
                     str(target)], capsys)
    assert code == 2 and "plan.json: already exists (use --force to overwrite" in err


@pytest.mark.parametrize("digits", [1, 9, 17, 400, 4300, 5000])
def test_a_long_number_built_in_python_names_its_field(digits: int) -> None:
    """plan_from_dict given a Python int too long to write out (no JSON text in between)."""
    from planner_app.core.model.reader import digit_count

    number = 7 * (10 ** digits - 1) // 9  # 77…7 (int("7" * 5000) itself raises)
    assert digit_count(number) == digits == digit_count(-number)
    doc = json.loads(DEMO_PLAN.read_text("utf-8"))
    doc["privacy_unit"]["max_rows"] = 10 ** digits  # digits + 1 digits
    if digits < 16:
        return
    with pytest.raises(api.InputError) as info:
        api.plan_from_dict(doc)
    assert str(info.value) == (f"plan: privacy_unit.max_rows: is a {digits + 1:,}-digit "
                               "number, too large to be a count of rows")
    if digits < 400:  # a float holds it: the ε's range names it
        return
    doc = json.loads(DEMO_PLAN.read_text("utf-8"))
    doc["queries"][0]["epsilon"] = number
    with pytest.raises(api.InputError) as info:
        api.plan_from_dict(doc)
    assert str(info.value).endswith(f"epsilon: is a {digits:,}-digit number, too large for "
                                    "any computation")
