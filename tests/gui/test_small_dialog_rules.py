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
    dialog = window.review_plan_file(path)
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
