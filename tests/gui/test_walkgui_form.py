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
    dialog._accept()
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
