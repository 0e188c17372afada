"""walk25: an owner who found the categories of a column privately, then groups another
statistic by the same column and presses "Find the group keys privately…", paid a second
time for the same list (the same discovery plan charged twice in the ledger) and got a second
noised list of it. The app now offers the keys found already, at no cost; "No" still opens the
discovery dialog.

Independent answers: the table's own values (pandas), the ledger read from its file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from PySide6.QtWidgets import QMessageBox

from planner_app.core.records.ledger import Ledger
from planner_app.core.support.resources import demo_table_path

from .test_find_privately_gui import _accept, _find, _new_statistic


def _charges(session) -> int:  # type: ignore[no-untyped-def]
    return len(Ledger(session.home.ledger_path).state_without_creating(
        "demo-survey").releases)


def test_keys_found_already_are_used_again_at_no_cost(  # type: ignore[no-untyped-def]
        demo, qtbot, dialogs, tmp_path: Path) -> None:
    window, session = demo, demo.session
    regions = sorted(pd.read_csv(demo_table_path()).region.unique())
    by_region = _new_statistic(window, qtbot, "histogram", "region", "People by region")
    _find(by_region, qtbot, "categories", tmp_path, epsilon="0.5", delta="1e-7")
    assert by_region.categories.toPlainText().splitlines() == regions
    _accept(window, by_region)
    assert _charges(session) == 1

    income = _new_statistic(window, qtbot, "mean", "income", "Income by region")
    income.group_column.setCurrentText("region")
    dialogs.answer = QMessageBox.StandardButton.Yes
    income.finder.buttons["keys"].click()
    asked = [title for kind, title, _text in dialogs.shown if kind == "question"]
    assert asked == ["The keys of region were found already"]
    assert income.find_dialog is None  # no discovery dialog: nothing to spend
    assert income.group_keys.toPlainText().splitlines() == regions
    assert income.list_reason.text() == by_region.list_reason.text()
    assert _charges(session) == 1  # charged once, not twice

    dialogs.answer = QMessageBox.StandardButton.No  # the owner may still find again
    income.finder.buttons["keys"].click()
    assert income.find_dialog is not None and income.find_dialog.isVisible()
    income.find_dialog.reject()
