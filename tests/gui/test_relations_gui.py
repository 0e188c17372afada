"""Relations in the app (issue 27): the data checks name a relation the table breaks, the
results chart draws the headline values, the owner edits the relations and chooses the
headline values in the plan (one undo step each)."""

from __future__ import annotations

import json
from html import unescape
from pathlib import Path

from tests.census import census_frame, census_plan
from tests.gui.conftest import Dialogs


def _open(window, tmp_path: Path, frame, doc=None) -> None:  # type: ignore[no-untyped-def]
    data, plan = tmp_path / "census.csv", tmp_path / "census-plan.json"
    frame.to_csv(data, index=False)
    plan.write_text(json.dumps(doc or census_plan(1.0)), encoding="utf-8")
    window.files.load_table(data, synchronous=True)
    assert window.files.open_plan(plan, confirmed=True)


def test_the_data_checks_name_a_relation_the_table_breaks(window, qtbot, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                          dialogs: Dialogs) -> None:
    frame = census_frame(400)
    frame.loc[5, "district"] = "R1-D99"  # a district the plan's keys miss
    _open(window, tmp_path, frame)
    said = [text for _kind, title, text in dialogs.shown
            if title == "The plan does not fit the table"]
    assert said and "the cells of 'by_district' do not add up to 'by_region'" in said[-1], \
        dialogs.shown
    wizard = window.launchers.release()
    qtbot.addWidget(wizard)
    wizard.checklist.confirm_unit.setChecked(True)
    assert "do not add up to 'by_region'" in unescape(wizard.checklist.items.text())
    assert not wizard.checklist.isComplete()  # the release would refuse it: nothing spent
    wizard.reject()


def test_a_table_where_the_relations_hold_passes_the_checks(window, qtbot,  # type: ignore[no-untyped-def]
                                                            tmp_path: Path,
                                                            dialogs: Dialogs) -> None:
    _open(window, tmp_path, census_frame(400))
    assert not [t for _k, t, _x in dialogs.shown if t == "The plan does not fit the table"]
    wizard = window.launchers.release()
    qtbot.addWidget(wizard)
    wizard.checklist.confirm_unit.setChecked(True)
    assert "The plan fits census" in wizard.checklist.items.text()
    assert wizard.checklist.isComplete()
    wizard.reject()
