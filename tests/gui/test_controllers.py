"""The main window composes its controllers (issue 23): files, launchers and menus each get
the session and the window only as a host (gui/controllers/host.WindowHost), never as a base
class. mypy checks the window is a host where it builds them; these check what it cannot: the
window has no mixin left, each host method is the window's own, and the menu items that
menus.py builds per tab and per recent file open what they name."""

from __future__ import annotations

import inspect
from pathlib import Path

from PySide6.QtWidgets import QMainWindow, QMenu

from planner_app.gui.controllers.files import FileController
from planner_app.gui.controllers.host import WindowHost
from planner_app.gui.controllers.launchers import Launchers
from planner_app.gui.controllers.menus import MenuController
from planner_app.gui.main_window import MainWindow
from tests.conftest import plan_dict, write_json


def test_the_window_is_a_qmainwindow_with_no_mixin() -> None:
    assert MainWindow.__bases__ == (QMainWindow,)
    for controller in (FileController, Launchers, MenuController):
        assert not issubclass(controller, QMainWindow), controller


def test_the_statistic_form_owns_its_checks(window: MainWindow) -> None:
    from PySide6.QtWidgets import QDialog, QWidget

    from planner_app.gui.dialogs.query_checks import FormChecks
    from planner_app.gui.dialogs.query_dialog import QueryDialog

    assert QueryDialog.__bases__ == (QDialog,) and not issubclass(FormChecks, QWidget)
    dialog = QueryDialog(window.session, None, window)
    assert isinstance(dialog.checks, FormChecks) and dialog.checks.form is dialog
    dialog.deleteLater()


def test_the_window_is_the_host_its_controllers_see(window: MainWindow) -> None:
    declared = [n for n, v in vars(WindowHost).items()
                if inspect.isfunction(v) and not n.startswith("_")]
    assert "dialog_parent" in declared and "show_unit_question" in declared
    for name in declared:
        assert callable(getattr(window, name, None)), name
    assert window.dialog_parent() is window
    for controller in (window.files, window.launchers, window.menus):
        assert controller.host is window and controller.session is window.session


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
    window.files.remember(plan)
    recent = [a for a in window.menus.recent_menu.actions() if a.text() == "a-plan.json"]
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


def test_a_closed_statistic_form_hears_no_more_answers(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The form's checks listen to the session's data answers; a plain object's slot
    outlived the dialog, and a later answer touched its deleted widgets (RuntimeError in
    the event loop). The checks belong to the dialog and go with it."""
    import shiboken6

    from planner_app.gui.dialogs.query_dialog import QueryDialog
    from planner_app.gui.session import Answered

    dialog = QueryDialog(window.session, None, window)
    shiboken6.delete(dialog)  # the C++ dialog and its widgets are gone
    with qtbot.captureExceptions() as exceptions:
        window.session.dataAnswered.emit(Answered.QUERY)
    assert exceptions == []
