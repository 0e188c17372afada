"""The statistic editor's order, as a person reads it top to bottom: a column's list (its
categories or bins, the reason for them and the declaration) together, then the settings of
the whole synthetic table (rows, ε, δ, method) together; a histogram's bin edges with their
reason."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QWidget

from planner_app.gui.dialogs.query_dialog import QueryDialog
from planner_app.gui.main_window import MainWindow
from tests.gui.synthetic_editing import open_synthetic_plan, synthetic_editor


def _top(dialog: QWidget, widget: QWidget) -> int:
    return widget.mapTo(dialog, widget.rect().topLeft()).y()


def _shown_in_order(dialog: QWidget, widgets: list[QWidget]) -> list[str]:
    """The accessible names of the shown ``widgets``, from the top of the dialog down."""
    shown = [w for w in widgets if w.isVisibleTo(dialog)]
    return [w.accessibleName() for w in sorted(shown, key=lambda w: _top(dialog, w))]


def _open(window: MainWindow, tmp_path: Path, qtbot) -> QueryDialog:  # type: ignore[no-untyped-def]
    open_synthetic_plan(window, tmp_path)
    return synthetic_editor(window, qtbot)


def _fields(d: QueryDialog) -> list[QWidget]:
    return [d.column, d.use_bins, d.categories, d.bins, d.bounds_reason, d.list_reason,
            d.declare, d.synth_rows, d.mechanism, d.epsilon, d.delta]


def test_a_listed_columns_fields_then_the_tables_own(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    d = _open(window, tmp_path, qtbot)
    assert d.column.currentText() == "region"  # a column of declared categories
    assert _shown_in_order(d, _fields(d)) == [
        "Column", "Use numeric bins", "Categories", "Reason for the list",
        "Declare the list public", "Rows to generate", "Noise mechanism", "Epsilon", "Delta"]
    # one reason and one declaration stand for every column's list: the box says so
    assert d.declare.text().startswith("I declare these lists public")


def test_a_binned_columns_fields_then_the_tables_own(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    d = _open(window, tmp_path, qtbot)
    d.synth_list.setCurrentRow(1)  # age, in bins
    qtbot.wait(10)
    assert d.column.currentText() == "age"
    assert _shown_in_order(d, _fields(d)) == [
        "Column", "Use numeric bins", "Bin edges", "Reason for the bounds",
        "Rows to generate", "Noise mechanism", "Epsilon", "Delta"]
    label = d._form.labelForField(d.bounds_reason)
    assert label is not None and label.text() == "Why the bin edges"


def test_a_histograms_bin_edges_sit_above_their_reason(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    d = _open(window, tmp_path, qtbot)
    d.kind.setCurrentIndex(d.kind.findData("histogram"))
    d.use_bins.setChecked(True)
    qtbot.wait(10)
    assert _shown_in_order(d, [d.column, d.use_bins, d.bins, d.bounds_reason, d.mechanism]) \
        == ["Column", "Use numeric bins", "Bin edges", "Reason for the bounds",
            "Noise mechanism"]
    assert "bin edges" in d.bounds_reason.placeholderText()  # not "the bounds"
    # a sum's bounds keep their reason right under them
    d.kind.setCurrentIndex(d.kind.findData("sum"))
    qtbot.wait(10)
    assert "bounds" in d.bounds_reason.placeholderText()
    # (a sum's "Why this list" keeps its place, greyed: choosing a group column moves nothing)
    shown = [w for w in (d.bounds_row, d.use_bins, d.categories, d.bins, d.list_reason,
                         d.bounds_reason) if w.isVisibleTo(d) and w.isEnabled()]
    assert shown == [d.bounds_row, d.bounds_reason]
    assert _top(d, d.bounds_row) < _top(d, d.bounds_reason)


def test_spare_height_never_opens_a_gap_around_the_selected_column(  # type: ignore[no-untyped-def]
        window, qtbot, tmp_path: Path) -> None:
    d = _open(window, tmp_path, qtbot)
    d.resize(d.width(), d.height() + 300)  # as after a long message that has since gone
    qtbot.wait(10)
    label = d._form.labelForField(d.column_row)
    assert label is not None and label.text() == "Selected column"
    # the column's name sits on its label's line, not centred in a stretched row
    assert abs(_top(d, d.column) - _top(d, label)) <= d.column.height()
