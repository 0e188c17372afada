"""Small rules of the dialogs a newcomer met: a decision button is never the default (Enter
in the comment must not reject a plan), and the value for missing cells can be typed only
when it is used."""

from __future__ import annotations

import shutil
from pathlib import Path

from planner_app.core.support.resources import demo_plan_path


def test_no_decision_is_the_default_button(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "plan.json"
    shutil.copy(demo_plan_path(), path)
    dialog = window.launchers.review_plan_file(path)
    qtbot.addWidget(dialog)
    for button in (dialog.approve, dialog.reject_button):
        assert not button.isDefault() and not button.autoDefault(), button.text()


def test_the_missing_value_field_is_used_only_with_its_choice(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    from planner_app.gui.dialogs.query_dialog import QueryDialog

    dialog = QueryDialog(demo.session)
    qtbot.addWidget(dialog)
    dialog.missing.setCurrentIndex(0)  # Leave the row out
    assert not dialog.impute.isEnabled()
    dialog.missing.setCurrentIndex(1)  # Use this value:
    assert dialog.impute.isEnabled()


def test_a_review_from_the_file_menu_of_the_open_plan_comes_back(window, qtbot,  # type: ignore[no-untyped-def]
                                                                 tmp_path: Path) -> None:
    """File → Review on the open plan's own file: the approval is in the app afterwards, so
    the owner's next save keeps it (it used to write the file without it)."""
    from planner_app.core.planfile import load_plan
    from planner_app.core.records.review import approval_status

    path = tmp_path / "plan.json"
    shutil.copy(demo_plan_path(), path)
    assert window.files.open_plan(path, confirmed=True)
    dialog = window.launchers.review_plan_file(path)  # as File → Review opens it
    qtbot.addWidget(dialog)
    dialog.reviewer.setText("Ada Officer")
    assert dialog.decide("approved")
    dialog.close()
    assert approval_status(window.session.plan).state == "approved"
    assert window.files.save_plan()
    assert approval_status(load_plan(path)).state == "approved"


def _mean_hours(dialog, label: str) -> None:  # type: ignore[no-untyped-def]
    dialog.label.setText(label)
    dialog.kind.setCurrentIndex(dialog.kind.findData("mean"))
    dialog.column.setCurrentText("hours_per_week")
    dialog.lower.setText("0")
    dialog.upper.setText("80")
    dialog.bounds_reason.setText("The questionnaire accepts 0 to 80 hours")


def test_a_second_statistic_with_the_same_label_gets_its_own_id(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The id is made from the label; a clash said "queries[3].id: duplicate id ..." about
    an id the person never typed."""
    from planner_app.gui.dialogs.query_dialog import QueryDialog

    ids = []
    for _ in range(2):
        dialog = QueryDialog(demo.session)
        qtbot.addWidget(dialog)
        _mean_hours(dialog, "Mean income")
        dialog.checks.accept()
        assert dialog.result_id is not None, dialog.error.text()
        demo.session.add_query(dialog.result_plan.query(dialog.result_id))
        ids.append(dialog.result_id)
    assert ids == ["mean_income", "mean_income_2"]


def test_a_form_error_names_the_field_as_the_form_does(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    from planner_app.gui.dialogs.query_dialog import QueryDialog

    dialog = QueryDialog(demo.session)
    qtbot.addWidget(dialog)
    _mean_hours(dialog, "Another mean")
    dialog.lower.setText("abc")
    dialog.checks.accept()
    assert dialog.result_id is None
    text = dialog.error.text()
    assert text.startswith(("Lower bound:", "Lower bound")), text
    assert "queries[" not in text and "string" not in text
