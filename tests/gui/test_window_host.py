"""The main window's parts (file_ops, launchers, menus) are type-checked against
gui/window_host.WindowHost (issue 23). mypy checks its methods; these check what it cannot: a
real window has every attribute the host declares, of the declared type, and the menu items
that menus.py builds per tab and per recent file open what they name."""

from __future__ import annotations

import typing
from pathlib import Path

from PySide6.QtWidgets import QMenu

from planner_app.gui.main_window import MainWindow
from planner_app.gui.window_host import WindowHost
from tests.conftest import plan_dict, write_json


def test_the_window_has_every_attribute_its_parts_use(window: MainWindow) -> None:
    hints = typing.get_type_hints(WindowHost)
    assert "session" in hints and "undo_action" in hints  # the declarations were read
    for name, kind in hints.items():
        assert isinstance(getattr(window, name, None), kind), name


def test_every_declared_method_is_the_windows_own(window: MainWindow) -> None:
    # an abstract declaration never reaches run time: each name is implemented by the window
    declared = [n for n, v in vars(WindowHost).items() if getattr(v, "__isabstractmethod__", False)]
    assert "error" in declared and "review_bundle" in declared
    for name in declared:
        assert callable(getattr(window, name, None)), name
        assert getattr(type(window), name) is not getattr(WindowHost, name), name


def test_the_view_menu_and_a_recent_file_open_what_they_name(window: MainWindow,
                                                             tmp_path: Path) -> None:
    view = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    assert isinstance(view, QMenu)
    items = view.actions()
    assert [a.text() for a in items] == ["Data", "Statistic", "Budget", "What it means"]
    items[2].trigger()
    assert window.tabs.currentIndex() == 2
    items[0].trigger()
    assert window.tabs.currentIndex() == 0

    plan = write_json(tmp_path / "a-plan.json", plan_dict())
    window._remember(plan)
    recent = [a for a in window.recent_menu.actions() if a.text() == "a-plan.json"]
    assert len(recent) == 1
    recent[0].trigger()
    assert window.session.path == plan and window.session.plan is not None


def test_the_new_or_attach_question_defaults_to_a_new_plan(window: MainWindow) -> None:
    from planner_app.core.planfile import load_plan
    from planner_app.core.support.resources import demo_plan_path
    from planner_app.gui.table_link import new_or_attach_box

    box = new_or_attach_box(window, "chile.csv", load_plan(demo_plan_path()))
    default = box.defaultButton()
    assert default is not None and default.text() == "Start a new plan"
    box.deleteLater()
