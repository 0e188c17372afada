"""Who one person is, as a newcomer meets it on the panel table (issue 22, the unitflow
items): the rows per person are the owner's to type (never a silent 1), the row unit shows
as unanswered until it is answered, statistics wait for the answer, a numeric statistic
never starts on the id column, the checklist names controls, and empty message areas show
nothing."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt

from planner_app.core.kinds.registry import make_query
from planner_app.gui.main_window import MainWindow
from tests.panel import write_panel


def _panel(window: MainWindow, tmp_path: Path) -> None:
    window.files.load_table(write_panel(tmp_path / "panel.csv"), synchronous=True)


def _checklist(window: MainWindow, qtbot) -> str:  # type: ignore[no-untyped-def]
    wizard = window.launchers.release()
    assert wizard is not None
    qtbot.addWidget(wizard)
    text = wizard.checklist.items.text()
    wizard.close()
    return text


def _type_rows(window: MainWindow, text: str) -> None:
    pane = window.data_pane
    pane.max_rows.setText(text)  # typed, then Enter
    pane.max_rows.editingFinished.emit()


# ------------------------------------------------------------------ 1. rows per person: asked


def test_using_the_suggested_id_asks_for_the_rows_per_person(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    _panel(window, tmp_path)
    pane = window.data_pane
    qtbot.mouseClick(pane.use_id, Qt.MouseButton.LeftButton)
    unit = window.session.plan.privacy_unit
    assert (unit.kind, unit.id_column, unit.max_rows) == ("person", "nr", None)
    assert pane.max_rows.text() == ""  # no number the owner did not type
    assert "dropped at random" not in pane.max_rows_hint.text()
    # the precise message where the field is, naming the field
    assert pane.max_rows_error.text().startswith("Rows per person: is required")
    assert pane.max_rows_error.isVisible()
    text = _checklist(window, qtbot)
    assert "✗ How many rows one person (nr) may have is not stated." in text
    assert "“A person has up to”" in text and "privacy_unit" not in text
    _type_rows(window, "8")
    assert window.session.plan.privacy_unit.max_rows == 8
    assert pane.max_rows_error.text() == ""
    text = _checklist(window, qtbot)
    assert "may have is not stated" not in text
    assert "✓ One person is identified by nr, with at most 8 rows." in text


def test_a_plan_with_unstated_rows_is_saved_and_opened_as_such(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    _panel(window, tmp_path)
    # a plan is saved with a statistic (an earlier plan's, say); its unit is asked after
    window.session.add_query(make_query("count", id="rows", epsilon=0.5))
    qtbot.mouseClick(window.data_pane.use_id, Qt.MouseButton.LeftButton)
    out = tmp_path / "panel-plan.json"
    assert window.files._write_plan(out)  # as File → Save as… writes it (the dialog aside)
    saved = json.loads(out.read_text(encoding="utf-8"))
    assert saved["privacy_unit"] == {"kind": "person", "id_column": "nr", "max_rows": None}
    assert window.files.open_plan(out, confirmed=True)
    assert window.session.plan.privacy_unit.max_rows is None
    assert window.data_pane.max_rows.text() == ""
    assert window.data_pane.unit_person.isChecked()


# ------------------------------------------------------------------ 2. the radios show the plan


def test_the_row_unit_shows_unanswered_while_an_id_repeats(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    _panel(window, tmp_path)
    pane = window.data_pane
    assert window.session.people_question() is not None
    # nothing answered yet: neither choice is shown as made
    assert not pane.unit_row.isChecked() and not pane.unit_person.isChecked()
    # choosing "Each row is a person" shows the choice and asks for its reason; the plan
    # records nothing until the reason is given
    pane.unit_row.click()  # (its label is narrower than the widget: a click on it)
    assert pane.unit_row.isChecked() and pane.rows_reason.hasFocus()
    assert window.session.plan.privacy_unit.rows_reason is None
    qtbot.keyClicks(pane.rows_reason, "nr numbers households; one row per person")
    qtbot.mouseClick(pane.record_reason, Qt.MouseButton.LeftButton)
    assert window.session.plan.privacy_unit.rows_reason
    assert pane.unit_row.isChecked() and not pane.unit_person.isChecked()
    window.session.undo()  # the question is open again
    assert not pane.unit_row.isChecked() and not pane.unit_person.isChecked()
    qtbot.mouseClick(pane.use_id, Qt.MouseButton.LeftButton)
    assert pane.unit_person.isChecked() and not pane.unit_row.isChecked()


def test_the_demo_shows_its_answer(demo: MainWindow) -> None:
    pane = demo.data_pane
    unit = demo.session.plan.privacy_unit  # the demo's plan answers: person_id, 3 rows
    assert (unit.kind, unit.id_column, unit.max_rows) == ("person", "person_id", 3)
    assert pane.unit_person.isChecked() and not pane.unit_row.isChecked()
    assert pane.max_rows.text() == "3" and pane.max_rows_error.text() == ""


# ------------------------------------------------------------------ 3. statistics wait


def test_statistics_wait_for_who_one_person_is(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    _panel(window, tmp_path)
    stats = window.statistics
    assert not stats.add.isEnabled() and not window.menus.add_action.isEnabled()
    assert "Data tab" in stats.add.toolTip() and "nr" in stats.add.toolTip()
    assert stats.waiting.isVisible() and "who one person is" in stats.waiting.text()
    qtbot.mouseClick(window.data_pane.use_id, Qt.MouseButton.LeftButton)
    assert not stats.add.isEnabled()  # the rows per person are not stated yet
    assert "how many rows" in stats.waiting.text()
    _type_rows(window, "8")
    assert stats.add.isEnabled() and window.menus.add_action.isEnabled()
    assert not stats.waiting.isVisible()


def test_the_link_leads_to_the_question(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    _panel(window, tmp_path)
    window.tabs.setCurrentIndex(2)
    window.statistics.waiting.linkActivated.emit("data")
    assert window.tabs.currentWidget() is window.data_pane


def test_the_demo_adds_statistics_at_once(demo: MainWindow) -> None:
    assert demo.statistics.add.isEnabled() and demo.menus.add_action.isEnabled()
    assert not demo.statistics.waiting.isVisible()


# ------------------------------------------------------------------ 4. never the id column


def test_a_new_mean_never_starts_on_the_id_column(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    from planner_app.gui.dialogs.query_dialog import QueryDialog

    _panel(window, tmp_path)
    qtbot.mouseClick(window.data_pane.use_id, Qt.MouseButton.LeftButton)
    _type_rows(window, "8")
    dialog = QueryDialog(window.session, None, window)
    qtbot.addWidget(dialog)
    for kind in ("mean", "sum", "variance", "quantile"):
        dialog.kind.setCurrentIndex(dialog.kind.findData(kind))
        assert dialog.column.currentText() == "wave", kind  # the first number column
    dialog.close()


def test_a_new_mean_skips_an_id_like_column_under_the_row_unit(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    from planner_app.gui.dialogs.query_dialog import QueryDialog

    _panel(window, tmp_path)
    window.session.set_rows_are_people("nr numbers households")
    dialog = QueryDialog(window.session, None, window)
    qtbot.addWidget(dialog)
    dialog.kind.setCurrentIndex(dialog.kind.findData("mean"))
    assert dialog.column.currentText() == "wave"
    dialog.close()


# ------------------------------------------------------------------ 5. controls, not paths


def test_the_checklist_names_controls_not_plan_paths(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    _panel(window, tmp_path)
    text = _checklist(window, qtbot)
    assert "✗ nr repeats" in text
    assert "plan file" not in text and "privacy_unit" not in text and "max_rows" not in text
    assert "“Who is one person?”" in text and "“Record the reason”" in text


# ------------------------------------------------------------------ 6. empty notes show nothing


def test_empty_message_areas_show_nothing(  # type: ignore[no-untyped-def]
        window: MainWindow, qtbot, tmp_path: Path) -> None:
    _panel(window, tmp_path)
    pane = window.data_pane
    qtbot.mouseClick(pane.use_id, Qt.MouseButton.LeftButton)
    _type_rows(window, "8")
    assert pane.rows_error.text() == "" and pane.max_rows_error.text() == ""
    image = pane.grab().toImage()
    for note in (pane.rows_error, pane.max_rows_error):
        box = note.parentWidget()
        while box.parentWidget() is not pane:
            box = box.parentWidget()
        # the note's own pixels are those of the group box it sits in, around it
        at = note.mapTo(pane, note.rect().center())
        beside = note.mapTo(pane, note.rect().topLeft())
        background = image.pixelColor(beside.x() - 1 if beside.x() > box.x() + 4 else at.x(),
                                      beside.y() - 2)
        colours = {image.pixelColor(x, y).name()
                   for x in range(at.x() - 20, at.x() + 20, 4)
                   for y in range(beside.y() + 1, beside.y() + note.height() - 1, 2)}
        assert colours == {background.name()}, (note.accessibleName(), colours, background.name())
    before = pane.max_rows_error.geometry()
    _type_rows(window, "0")  # refused: the message shows in its place, nothing moves
    assert pane.max_rows_error.text().startswith("Rows per person:")
    assert pane.max_rows_error.geometry() == before
