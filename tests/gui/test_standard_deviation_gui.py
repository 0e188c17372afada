"""A standard deviation is added and edited in the app through the statistic form (issue 23:
the kind the registry alone added). The form offers it by its name, shows a variance's
fields (bounds and their reason), and the statistic pane shows its ± in the column's units:
the square root of the ± the same statistic has as a variance (an independent answer)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from planner_app.core.kinds.shared_dp import accuracy_for
from planner_app.gui.dialogs.query_dialog import QueryDialog

SCREENSHOTS = Path(__file__).resolve().parents[2] / "tests" / "_screenshots"


def _fill(dialog: QueryDialog) -> None:
    dialog.label.setText("Spread of age")
    dialog.kind.setCurrentIndex(dialog.kind.findData("standard_deviation"))
    dialog.column.setCurrentText("age")
    dialog.lower.setText("16")
    dialog.upper.setText("100")
    dialog.bounds_reason.setText("Respondents are 16 or older; 100 is a public cap")
    dialog.epsilon.setValue(0.5)


def test_a_standard_deviation_is_added_then_edited_in_the_form(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    session = demo.session
    dialog = QueryDialog(session, None, demo)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.kind.findText("Standard deviation") >= 0
    _fill(dialog)
    assert dialog.bounds_row.isVisible() and dialog.bounds_reason.isVisible()
    assert not dialog.quantile.isVisible() and not dialog.use_bins.isVisible()
    SCREENSHOTS.mkdir(exist_ok=True)
    dialog.grab().save(str(SCREENSHOTS / "standard-deviation-form.png"))
    dialog.checks.accept()
    assert dialog.result_plan is not None, dialog.error.text()
    new = dialog.result_plan.query(dialog.result_id or "")
    session.add_query(new)
    q = session.plan.query(new.id)
    assert (q.kind, q.column, q.params.lower, q.params.upper) == ("standard_deviation", "age",
                                                                  16, 100)

    # its ± in the app is the square root of the same statistic's as a variance
    shown = session.accuracy(q)
    as_variance = accuracy_for(q.__class__(**{**q.__dict__, "kind": "variance"}),
                               session.plan)
    assert shown.half_width is not None and as_variance.half_width is not None
    assert shown.half_width == pytest.approx(math.sqrt(as_variance.half_width))
    assert shown.unit == "value"

    # edited: new bounds come back into the plan
    edit = QueryDialog(session, q, demo)
    qtbot.addWidget(edit)
    edit.show()
    assert edit.kind.currentData() == "standard_deviation"
    edit.upper.setText("90")
    edit.checks.accept()
    assert edit.result_plan is not None, edit.error.text()
    session.replace_query(edit.result_plan.query(edit.result_id or ""), q.id)
    assert session.plan.query(q.id).params.upper == 90
