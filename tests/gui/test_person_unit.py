"""Who one person is, asked on the panel table (issue 22): a column that repeats like an id
is named on the Data tab, one click makes it the person id, and the release checklist keeps
its ✗ until the owner answers (the id, or rows that are different people, with a reason)."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt

from planner_app.core.planfile import save_plan
from planner_app.gui.main_window import MainWindow
from tests.panel import write_panel


def _checklist(window: MainWindow, qtbot) -> tuple[str, object]:  # type: ignore[no-untyped-def]
    wizard = window.launchers.release()
    assert wizard is not None
    qtbot.addWidget(wizard)
    text = wizard.checklist.items.text()
    return text, wizard


def test_the_panel_asks_who_one_person_is(window: MainWindow, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = write_panel(tmp_path / "panel.csv")
    window.files.load_table(path, synchronous=True)
    pane = window.data_pane
    assert window.tabs.currentWidget() is pane  # the question comes first
    assert window.session.plan.privacy_unit.kind == "row"
    # the owner-only note names the column and how many rows share a value
    assert pane.repeat_note.isVisible()
    assert "nr repeats: up to 8 rows share a value" in pane.repeat_note.text()
    assert pane.use_id.isVisible() and pane.use_id.text() == "Use nr as the person id"
    # the checklist's item is ✗ and names the way out
    text, wizard = _checklist(window, qtbot)
    assert "✗ nr repeats: up to 8 rows share a value" in text
    assert "choose nr as the person id, with at most 8 rows" in text
    wizard.close()

    qtbot.mouseClick(pane.use_id, Qt.MouseButton.LeftButton)
    unit = window.session.plan.privacy_unit
    assert (unit.kind, unit.id_column) == ("person", "nr")
    assert not pane.use_id.isVisible() and not pane.repeat_note.isVisible()
    assert pane.unit_person.isChecked() and pane.id_column.currentText() == "nr"
    # the number of rows is the owner's to state (it is published): asked, with the table's
    assert pane.max_rows_hint.isVisible() and "The table shows up to 8" in \
        pane.max_rows_hint.text()
    pane.max_rows.setValue(8)  # typed, then Enter
    pane.max_rows.editingFinished.emit()
    assert window.session.plan.privacy_unit.max_rows == 8
    text, wizard = _checklist(window, qtbot)
    assert "nr repeats" not in text
    assert "✓ One person is identified by nr, with at most 8 rows." in text
    wizard.close()


def test_rows_are_people_needs_a_reason_and_is_saved(window: MainWindow, qtbot, dialogs,  # type: ignore[no-untyped-def]
                                                     tmp_path: Path) -> None:
    path = write_panel(tmp_path / "panel.csv")
    window.files.load_table(path, synchronous=True)
    pane = window.data_pane
    assert pane.rows_reason.isVisible()
    qtbot.mouseClick(pane.record_reason, Qt.MouseButton.LeftButton)  # no reason yet
    assert dialogs.shown and dialogs.shown[-1][0] == "warning"
    assert window.session.plan.privacy_unit.rows_reason is None
    qtbot.keyClicks(pane.rows_reason, "nr numbers households; one row per person")
    qtbot.mouseClick(pane.record_reason, Qt.MouseButton.LeftButton)
    unit = window.session.plan.privacy_unit
    assert (unit.kind, unit.rows_reason) == ("row", "nr numbers households; one row per person")
    assert not pane.use_id.isVisible()
    text, wizard = _checklist(window, qtbot)
    assert "✓ Each row is a different person: your recorded decision" in text
    assert "✗ nr repeats" not in text
    wizard.close()
    out = tmp_path / "plan.json"
    save_plan(window.session.plan, out)
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved["privacy_unit"] == {
        "kind": "row", "rows_are_people": {"reason": "nr numbers households; one row per person"}}
    # undo brings the question back
    window.session.undo()
    assert window.session.plan.privacy_unit.rows_reason is None
    assert pane.use_id.isVisible()
