"""The statistic editor's numbers are kept as typed: a number outside the plan's range is
refused with the form's red message naming the field and the range, never clamped into it
(issue 22: 1.5 typed as a quantile level became 1.00, the median became the maximum)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from planner_app.core.planfile import plan_to_dict
from planner_app.gui.dialogs.query_dialog import QueryDialog

# (field, statistic, typed, the control's name, words of the allowed range)
OUT_OF_RANGE = [
    ("quantile", "income_median", "1.5", "Quantile level", "[0, 1]"),
    ("quantile", "income_median", "-0.2", "Quantile level", "[0, 1]"),
    ("epsilon", "income_median", "0", "ε", "above 0 and at most 1000"),
    ("epsilon", "hours_mean", "5000", "ε", "above 0 and at most 1000"),
    ("epsilon", "hours_mean", "0.1.2", "ε", "must be a number"),
]


@pytest.mark.parametrize(("field", "ident", "typed", "name", "allowed"), OUT_OF_RANGE)
def test_an_out_of_range_number_is_refused_not_clamped(  # type: ignore[no-untyped-def]
        demo, qtbot, field: str, ident: str, typed: str, name: str, allowed: str) -> None:
    session = demo.session
    before = plan_to_dict(session.plan)
    dialog = QueryDialog(session, session.plan.query(ident))
    qtbot.addWidget(dialog)
    dialog.show()
    box = getattr(dialog, field)
    box.setFocus()
    box.selectAll()
    qtbot.keyClicks(box, typed)
    dialog.label.setFocus()  # focus leaves the field, as a click on OK does
    buttons = dialog.findChild(QDialogButtonBox)
    ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and dialog.result_plan is None  # the dialog stays open
    message = dialog.error.text()
    assert message.startswith(f"{name}: ") and allowed in message, message
    assert "queries[" not in message
    assert box.text() == typed  # kept as typed, not clamped
    assert plan_to_dict(session.plan) == before  # the plan is unchanged


def test_an_allowed_level_reaches_the_plan_exactly(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    session = demo.session
    dialog = QueryDialog(session, session.plan.query("income_median"))
    qtbot.addWidget(dialog)
    dialog.quantile.selectAll()
    qtbot.keyClicks(dialog.quantile, "0.95")
    dialog.epsilon.selectAll()
    qtbot.keyClicks(dialog.epsilon, "0.00005")  # below a 4-decimal spin box's smallest step
    dialog.checks.accept()
    assert dialog.result_plan is not None, dialog.error.text()
    q = dialog.result_plan.query("income_median")
    assert (q.params.quantile, q.epsilon) == (0.95, 0.00005)


def test_an_unedited_epsilon_is_kept_to_the_last_digit(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Opening a statistic and pressing OK changes nothing (a 4-decimal field rounded it)."""
    session = demo.session
    session.set_epsilon("hours_mean", 0.123457)
    dialog = QueryDialog(session, session.plan.query("hours_mean"))
    qtbot.addWidget(dialog)
    dialog.checks.accept()
    assert dialog.result_plan is not None, dialog.error.text()
    assert dialog.result_plan.query("hours_mean").epsilon == 0.123457
