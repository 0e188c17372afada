"""The main window as a user drives it, and the newcomer's first plan, with screenshots."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QMessageBox

from planner_app.core.planfile import load_plan
from planner_app.core.planning.editing import add_query
from planner_app.core.planning.settings import load_settings
from planner_app.core.support.resources import demo_plan_path
from planner_app.gui.app import run
from planner_app.gui.dialogs.query_dialog import QueryDialog
from tests.conftest import plan_dict, write_json
from tests.gui.conftest import SHOTS
from tests.gui.test_panes import fill


def test_welcome_first_then_the_planner(window) -> None:  # type: ignore[no-untyped-def]
    assert window.stack.currentWidget() is window.welcome
    assert not window.menus.save_action.isEnabled()
    menus = [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert menus == ["File", "Edit", "Release", "View", "Help"]
    assert window.menus.undo_action.shortcut().toString() == "Ctrl+Z"


def test_open_save_and_reopen_a_plan(demo, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    session = demo.session
    session.set_epsilon("responses", 0.25)
    assert session.dirty and demo.isWindowModified()
    out = tmp_path / "saved.json"
    monkeypatch.setattr("planner_app.gui.file_dialogs.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(out), ""))
    assert demo.files.save_plan_as()
    assert not session.dirty
    again = load_plan(out)
    assert again == session.plan and again.query("responses").epsilon == 0.25
    settings = load_settings(session.home.settings_path)
    assert str(out.resolve()) in settings.recent_files
    assert any(a.text() == "saved.json" for a in demo.menus.recent_menu.actions())


def test_an_invalid_plan_says_what_is_wrong(window, dialogs, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = write_json(tmp_path / "bad.json", plan_dict(queries=[
        {"id": "s", "kind": "sum", "column": "x", "lower": 9, "upper": 1, "epsilon": 1}]))
    assert not window.files.open_plan(bad)
    kind, title, text = dialogs.shown[-1]
    assert kind == "warning" and "cannot be opened" in title
    assert "bad.json: queries[s].lower: lower (9) must be below upper (1)" in text


def test_unsaved_changes_are_asked_about(demo, dialogs) -> None:  # type: ignore[no-untyped-def]
    demo.session.set_epsilon("responses", 0.2)
    dialogs.answer = QMessageBox.StandardButton.Cancel
    assert not demo.close()
    assert dialogs.shown[-1][0] == "question"
    dialogs.answer = QMessageBox.StandardButton.Discard
    assert demo.close()


def test_a_dropped_file_opens(demo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    plan = write_json(tmp_path / "dropped.json", json.loads(demo_plan_path().read_text()))
    demo.session.load_plan(demo.session.plan)  # nothing unsaved
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(plan))])
    event = QDropEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    demo.dropEvent(event)
    assert demo.session.path == plan


def test_a_bundle_opened_for_review_is_verified(window, qtbot, dialogs, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from planner_app.core.data.tables import load_table
    from planner_app.core.release.publish import publish
    from planner_app.core.support.home import app_home
    from planner_app.core.support.resources import demo_table_path

    out = tmp_path / "b.zip"
    publish(load_plan(demo_plan_path()), load_table(demo_table_path()), out,
            app_home(tmp_path / "h"))
    window.files.open_path(out)
    qtbot.waitUntil(lambda: window.launchers.bundle_dialog.opened is not None, timeout=30_000)
    assert "Verified" in window.launchers.bundle_dialog.verdict.text()
    broken = tmp_path / "x.zip"
    broken.write_text("not a zip")
    window.files.open_path(broken)
    qtbot.waitUntil(lambda: bool(dialogs.shown), timeout=30_000)
    assert dialogs.shown[-1][:2] == ("warning", "Not a release bundle")


def test_a_newcomer_plans_three_statistics(window, qtbot, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Open the demo, add three statistics, see what each ε means, keep the total within
    budget, save the plan; a screenshot of each step goes to tests/_screenshots."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    window.grab().save(str(SHOTS / "00-welcome.png"))
    from planner_app.core.support.resources import demo_table_path

    window.files.load_table(demo_table_path(), synchronous=True)
    window.session.new_plan("my-survey")
    window.show_tab(0)
    window.data_pane.expected_rows.setValue(4000)  # from the survey's published report
    window.data_pane.expected_rows.editingFinished.emit()
    # person_id is the person id; how many rows one may have is the owner's to type, and
    # statistics wait for it
    assert window.session.plan.privacy_unit.max_rows is None
    assert not window.statistics.add.isEnabled()
    window.data_pane.max_rows.setText("3")
    window.data_pane.max_rows.editingFinished.emit()
    assert window.statistics.add.isEnabled()
    window.grab().save(str(SHOTS / "01-data.png"))
    additions = [
        dict(label="People who answered", kind="count", epsilon=0.5),
        dict(label="Average age", kind="mean", column="age", lower=16, upper=110,
             reason="Respondents are 16 or older; 110 is a safe cap", epsilon=0.5),
        dict(label="Answers by region", kind="histogram", column="region",
             categories=["North", "South", "East", "West", "Islands"],
             reason="The official list of regions", epsilon=0.5),
    ]
    for i, fields in enumerate(additions):
        dialog = QueryDialog(window.session, None, window)
        fill(dialog, **fields)
        dialog.checks.accept()
        assert dialog.result_plan is not None, dialog.error.text()
        new = dialog.result_plan.query(dialog.result_id)
        window.session.apply(f"Add {new.title!r}", add_query(window.session.plan, new))
        window.session.select(new.id)
        window.show_tab(1)
        assert "at most" in window.statistic_pane.sentence.text()
        window.grab().save(str(SHOTS / f"02-statistic-{i + 1}.png"))
    plan = window.session.plan
    assert [q.kind for q in plan.queries] == ["count", "mean", "histogram"]
    assert window.session.accuracy(plan.queries[1]).half_width is not None
    assert window.meter.over  # 1.5 > the new plan's budget of 1
    window.show_tab(2)  # a pane is brought up to date when it is shown
    window.budget_pane.split_even.click()
    assert not window.meter.over
    assert window.session.total().epsilon <= window.session.plan.budget.epsilon
    window.grab().save(str(SHOTS / "03-budget.png"))
    window.show_tab(3)
    window.grab().save(str(SHOTS / "04-what-it-means.png"))
    out = tmp_path / "my-survey.json"
    monkeypatch.setattr("planner_app.gui.file_dialogs.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(out), ""))
    assert window.files.save_plan()
    saved = load_plan(out)
    assert len(saved.queries) == 3
    assert saved.query(saved.queries[2].id).justification == {
        "categories": "The official list of regions"}
    for name in ("00-welcome", "01-data", "02-statistic-3", "03-budget", "04-what-it-means"):
        assert (SHOTS / f"{name}.png").stat().st_size > 10_000


def test_smoke_test_exits_0(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert run(smoke_test=True, home=str(tmp_path / "home")) == 0

