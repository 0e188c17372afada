"""A synthetic table may not list the person id (privacy_unit.id_column): its made-up rows
would carry declared ids. Refused by the plan's validation, and by the check (every caller,
the release and the app's, comes there) when the unit was changed after the table."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from planner_app.core.model import PrivacyUnit
from planner_app.core.planfile import plan_from_dict
from planner_app.core.planning.check import check_plan
from planner_app.core.support.errors import InputError
from tests.cli.test_synthetic_cli import PLAN


def test_the_id_column_in_a_synthetic_table_is_refused_by_validation() -> None:
    doc = copy.deepcopy(PLAN)
    doc["queries"][0]["columns"].append({"column": "person_id", "categories": ["1", "2"]})
    with pytest.raises(InputError) as e:
        plan_from_dict(doc)
    text = str(e.value)
    assert "queries[survey_synth].columns[3].column" in text
    assert "is the id of a person (privacy_unit.id_column)" in text
    assert len(text.splitlines()) == 1


def test_a_unit_changed_to_a_synthetic_column_is_refused_by_the_check() -> None:
    plan = plan_from_dict(copy.deepcopy(PLAN))
    changed = replace(plan, privacy_unit=PrivacyUnit("person", "smoker", 3))
    with pytest.raises(InputError) as e:
        check_plan(changed)
    assert "queries[survey_synth].columns[2].column" in str(e.value)
    check_plan(plan)  # the plan as it was is fine
