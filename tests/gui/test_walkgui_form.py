"""The Add-statistic form as a newcomer used it (walk 2): conditions, numbers, the column
box, Escape, and a size that does not change with the kind."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QPushButton

from planner_app.gui.dialogs.query_dialog import QueryDialog


def _button(dialog: QueryDialog, text: str) -> QPushButton:
    return next(b for b in dialog.findChildren(QPushButton) if b.text() == text)


def test_add_condition_gives_a_row_of_choices_that_reaches_the_plan(  # type: ignore[no-untyped-def]
        demo, qtbot) -> None:
    """Walk 2, finding 1: the clicked flag became the column (a TypeError), the row had no
    editors, and OK failed on it."""
    session = demo.session
    dialog = QueryDialog(session)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.label.setText("People in the East")
    dialog.kind.setCurrentIndex(dialog.kind.findData("count"))
    qtbot.mouseClick(_button(dialog, "Add condition"), Qt.MouseButton.LeftButton)
    assert dialog.conditions.rowCount() == 1
    column = dialog.conditions.cellWidget(0, 0)
    op = dialog.conditions.cellWidget(0, 1)
    assert isinstance(column, QComboBox) and isinstance(op, QComboBox)
    assert column.currentText() == "person_id"  # a real column, never "False"
    column.setCurrentText("region")
    op.setCurrentText("==")
    item = dialog.conditions.item(0, 2)
    assert item is not None
    item.setText("East")
    dialog.checks.accept()
    assert dialog.result_plan is not None, dialog.error.text()
    where = dialog.result_plan.query(dialog.result_id).where
    assert [(c.column, c.op, c.value) for c in where] == [("region", "==", "East")]


def test_the_form_keeps_its_size_and_its_buttons_whatever_the_kind(  # type: ignore[no-untyped-def]
        demo, qtbot) -> None:
    """Walk 2, finding 11: the dialog grew from 692 to 884 px with the kind and pushed OK /
    Cancel off a 1000-px screen. The fields scroll inside a dialog that keeps its size."""
    dialog = QueryDialog(demo.session)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    size = dialog.size()
    room = dialog.screen().availableGeometry()
    assert size.height() <= room.height() and size.width() <= room.width()
    for i in range(dialog.kind.count()):
        dialog.kind.setCurrentIndex(i)
        qtbot.wait(10)
        assert dialog.size() == size, dialog.kind.currentText()
        ok = dialog.buttons.geometry()
        assert dialog.rect().contains(ok), dialog.kind.currentText()


def _ok(dialog: QueryDialog, qtbot) -> None:  # type: ignore[no-untyped-def]
    ok = dialog.buttons.button(dialog.buttons.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)


def _type(qtbot, box, text: str) -> None:  # type: ignore[no-untyped-def]
    box.setFocus()
    box.selectAll()
    qtbot.keyClicks(box, text)


def test_the_red_line_goes_when_the_field_it_names_is_filled_with_0(  # type: ignore[no-untyped-def]
        demo, qtbot) -> None:
    """Walk 2, finding 9: "Lower bound: is required" stayed while the field held 0 (and 1)."""
    dialog = QueryDialog(demo.session)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.label.setText("Mean hours")
    dialog.kind.setCurrentIndex(dialog.kind.findData("mean"))
    dialog.column.setCurrentText("hours_per_week")
    _type(qtbot, dialog.upper, "80")
    dialog.bounds_reason.setText("the form accepts 0 to 80")
    _ok(dialog, qtbot)
    assert dialog.error.text().startswith("Lower bound: is required"), dialog.error.text()
    _type(qtbot, dialog.lower, "0")
    assert dialog.error.text() == ""  # the message spoke of an empty field
    _ok(dialog, qtbot)
    assert dialog.result_plan is not None, dialog.error.text()
    q = dialog.result_plan.query(dialog.result_id)
    assert (q.params.lower, q.params.upper) == (0, 80)


# (kind, column, field, typed, what the plan holds)
ZEROS = [
    ("mean", "hours_per_week", "lower", "0", lambda q: q.params.lower),
    ("mean", "hours_per_week", "upper", "0", lambda q: q.params.upper),
    ("quantile", "income", "quantile", "0", lambda q: q.params.quantile),
    ("mean", "hours_per_week", "impute", "0", lambda q: q.missing.value),
    ("histogram", "age", "bins", "0, 10, 120", lambda q: q.params.bins[0]),
    ("count", None, "condition", "0", lambda q: q.where[0].value),
]


def test_0_is_a_value_in_every_numeric_field(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    for kind, column, field, typed, held in ZEROS:
        dialog = QueryDialog(demo.session)
        qtbot.addWidget(dialog)
        dialog.show()
        dialog.label.setText(f"zero in {field}")
        dialog.kind.setCurrentIndex(dialog.kind.findData(kind))
        if column:
            dialog.column.setCurrentText(column)
        if kind in ("mean", "quantile"):
            _type(qtbot, dialog.lower, "-10" if field == "upper" else "0")
            _type(qtbot, dialog.upper, "200000")
            dialog.bounds_reason.setText("the form's limits")
        if field == "impute":
            dialog.missing.setCurrentIndex(1)
        if field == "bins":
            dialog.use_bins.setChecked(True)
            dialog.bounds_reason.setText("standard bands")
        if field == "condition":
            qtbot.mouseClick(_button(dialog, "Add condition"), Qt.MouseButton.LeftButton)
            dialog.conditions.cellWidget(0, 0).setCurrentText("hours_per_week")
            dialog.conditions.item(0, 2).setText(typed)
        else:
            _type(qtbot, getattr(dialog, field), typed)
        _ok(dialog, qtbot)
        assert dialog.result_plan is not None, (field, dialog.error.text())
        assert held(dialog.result_plan.query(dialog.result_id)) == 0, field


def test_typing_in_the_column_box_replaces_the_name(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Walk 2, finding 10: a click into the Column box and typing appended to the name shown
    ("member_no" + "income" = "member_noincome")."""
    dialog = QueryDialog(demo.session)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.activateWindow()
    # a click gives the focus only in the active window (a side-by-side run may start here
    # before the window is activated: it then typed after "age" without any focus event)
    qtbot.waitUntil(dialog.isActiveWindow, timeout=10_000)
    dialog.kind.setCurrentIndex(dialog.kind.findData("mean"))
    dialog.column.setCurrentText("age")
    line = dialog.column.lineEdit()
    assert not line.hasFocus()  # the click below is what gives it the focus
    qtbot.mouseClick(line, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(line.hasFocus, timeout=10_000)
    qtbot.wait(50)  # the click has been handled, the selection made
    qtbot.keyClicks(line, "income")
    assert dialog.column.currentText() == "income"


def test_escape_asks_before_it_throws_a_changed_form_away(  # type: ignore[no-untyped-def]
        demo, qtbot, dialogs) -> None:
    """Walk 2, finding 12: Escape, meant for a drop-down, lost a filled Yes/no form."""
    from PySide6.QtWidgets import QMessageBox

    dialog = QueryDialog(demo.session)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.kind.setCurrentIndex(dialog.kind.findData("randomized_response"))
    qtbot.keyClicks(dialog.label, "Share employed")
    dialogs.answer = QMessageBox.StandardButton.Cancel  # keep editing
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert [title for _, title, _ in dialogs.shown] == ["Discard this statistic?"]
    assert dialog.isVisible() and dialog.label.text() == "Share employed"
    dialogs.answer = QMessageBox.StandardButton.Discard
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible() and dialog.result_plan is None


def test_escape_closes_an_untouched_form_without_a_question(  # type: ignore[no-untyped-def]
        demo, qtbot, dialogs) -> None:
    session = demo.session
    for query in (None, *session.plan.queries):  # every kind the demo has
        dialog = QueryDialog(session, query)
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        qtbot.keyClick(dialog, Qt.Key.Key_Escape)
        assert not dialog.isVisible()
    assert dialogs.shown == []
