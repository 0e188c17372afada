"""The Find-the-bounds dialog warns, in the core's sentence, when the plan's public row count
is too small for the quantiles asked (disc25c): the demo plan states 3,800 rows, on which the
1% quantile is 38 rows from the bottom, within the rank error at ε = 1; at ε = 10 or at the
5% and 95% quantiles the warning goes. Independent answer: the exponential mechanism's rank
error computed in tests/core/test_bounds_small_table.py."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from planner_app.core.support.resources import demo_plan_path, demo_table_path
from planner_app.gui.dialogs.find_privately import FindDialog
from tests.core.test_bounds_small_table import rank_error


def test_the_find_dialog_warns_on_a_table_too_small_for_its_quantiles(  # type: ignore[no-untyped-def]
        window, qtbot) -> None:
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(demo_plan_path(), confirmed=True)
    rows = window.session.plan.dataset.expected_rows
    assert rows == 3800
    dialog = FindDialog(window.session, "bounds", "income", parent=window)
    qtbot.addWidget(dialog)
    dialog.search_low.setText("0")
    dialog.search_high.setText("1000000")
    dialog.grid_reason.setText("no yearly income in the survey reaches a million")
    assert 0.01 * rows < rank_error(1.0, 0, 1_000_000) < 0.05 * rows
    text = dialog.preview.text()
    assert "⚠" in text and "3,800 rows" in text and "public bounds" in text, text
    dialog.epsilon.setText("10")
    assert rank_error(10.0, 0, 1_000_000) < 0.01 * rows
    assert "⚠" not in dialog.preview.text()
    dialog.epsilon.setText("1")
    dialog.q_low.setText("0.05")
    dialog.q_high.setText("0.95")
    assert "⚠" not in dialog.preview.text(), dialog.preview.text()


def test_the_preview_shows_every_line_in_a_small_dialog(  # type: ignore[no-untyped-def]
        window, qtbot) -> None:
    """At 200% on a 1400 × 1000 screen the dialog has about 640 × 440 points: the preview's
    last lines were cut off. Its text now scrolls with the form, never squeezed."""
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(demo_plan_path(), confirmed=True)
    dialog = FindDialog(window.session, "bounds", "income", parent=window)
    qtbot.addWidget(dialog)
    dialog.search_low.setText("0")
    dialog.search_high.setText("1000000")
    dialog.show()
    dialog.resize(640, 440)
    qtbot.waitUntil(lambda: dialog.height() <= 460, timeout=5_000)
    for _ in range(3):
        qtbot.wait(20)
    label = dialog.preview
    assert "⚠" in label.text()
    assert label.height() >= label.heightForWidth(label.width()), \
        (label.height(), label.heightForWidth(label.width()))


def test_without_a_row_count_the_dialog_names_the_apps_own_field(  # type: ignore[no-untyped-def]
        window, qtbot) -> None:
    """walk25c: with no public row count the dialog said "state the table's expected rows in
    the plan to be warned", the command line's words: an owner of the app has no plan file
    to edit, and the field is the Data tab's "About how many rows (public)". Stating it
    there brings the warning."""
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(demo_plan_path(), confirmed=True)
    window.session.set_dataset(expected_rows=None)
    assert window.session.plan.dataset.expected_rows is None
    label = window.data_pane.findChildren(QLabel)
    field = "About how many rows (public)"
    assert any(w.text() == field for w in label)  # the field the sentence names
    dialog = FindDialog(window.session, "bounds", "income", parent=window)
    qtbot.addWidget(dialog)
    dialog.search_low.setText("0")
    dialog.search_high.setText("1000000")
    text = dialog.preview.text()
    assert f"“{field}”" in text and "Data tab" in text, text
    assert "in the plan" not in text, text
    window.session.set_dataset(expected_rows=3800)
    later = FindDialog(window.session, "bounds", "income", parent=window)
    qtbot.addWidget(later)
    later.search_low.setText("0")
    later.search_high.setText("1000000")
    text = later.preview.text()
    assert "⚠" in text and "3,800 rows" in text, text
    assert "plan's expected rows" not in text.replace("&#x27;", "'"), text
    assert f"“{field}”" in text, text  # where the figure comes from, in the app's words
