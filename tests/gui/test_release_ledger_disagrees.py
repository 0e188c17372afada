"""Issue 22 part 6: the release wizard refuses a release when the budget ledger was edited
behind the audit log's back, with its own title and advice (not "check that the folder is
writable"), and nothing is charged or written."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from planner_app.core.data.tables import load_table
from planner_app.core.planfile import load_plan
from planner_app.core.records.crosscheck import DISAGREE_ADVICE, DISAGREE_TITLE
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.publish import publish
from planner_app.core.support.resources import demo_plan_path, demo_table_path


def test_the_wizard_refuses_an_edited_ledger(demo, qtbot, dialogs, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    home = demo.session.home
    publish(load_plan(demo_plan_path()), load_table(demo_table_path()), tmp_path / "a.zip",
            home)
    con = sqlite3.connect(home.ledger_path)  # the first release made free in the ledger alone
    con.execute("UPDATE releases SET epsilon = 0, delta = 0, measurements = '[]'")
    con.commit()
    con.close()
    demo.session.refresh_lifetime()
    from PySide6.QtWidgets import QMessageBox

    dialogs.answer = QMessageBox.StandardButton.Yes  # "Release this plan again?" (it was)
    wizard = demo.launchers.release()
    qtbot.addWidget(wizard)
    wizard.checklist.confirm_unit.setChecked(True)
    wizard.next()
    wizard.confirm.path.setText(str(tmp_path / "b.zip"))
    wizard.next()
    qtbot.waitUntil(lambda: any(k == "warning" for k, _t, _x in dialogs.shown), timeout=60_000)
    kind, title, text = [d for d in dialogs.shown if d[0] == "warning"][-1]
    assert kind == "warning" and title == DISAGREE_TITLE
    assert "ε 0 in the ledger, 3.32" in text and DISAGREE_ADVICE in text
    assert not (tmp_path / "b.zip").exists()
    assert Ledger(home.ledger_path).releases_charged() == 1
