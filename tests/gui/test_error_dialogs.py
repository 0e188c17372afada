"""Issue 10 §8: the GUI never dies on an error: a dialog, the unsaved plan kept, details in
errors.log."""

from __future__ import annotations

import os
import sys

import pytest

from planner_app.core.planfile import load_plan
from planner_app.core.support.errors import InputError
from planner_app.gui.errors import install_error_dialogs


@pytest.mark.qt_no_exception_capture
def test_an_exception_in_a_slot_shows_a_dialog_and_keeps_the_plan(demo, dialogs, qtbot,
                                                                 monkeypatch) -> None:
    from PySide6.QtCore import QTimer

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    session = demo.session
    first = session.plan.queries[0]
    session.set_epsilon(first.id, first.epsilon * 2)  # an unsaved edit
    assert session.dirty
    install_error_dialogs(demo)

    def broken_slot() -> None:
        raise ZeroDivisionError("division by zero")

    QTimer.singleShot(0, broken_slot)
    qtbot.waitUntil(lambda: bool(dialogs.shown), timeout=5000)
    kind, title, text = dialogs.shown[-1]
    assert kind == "critical" and title == "Something went wrong"
    assert "ZeroDivisionError" in text and "Traceback" not in text
    recovery = sorted((session.home.data_dir / "recovery").glob("plan-*.json"))
    assert len(recovery) == 1 and str(recovery[0]) in text
    assert load_plan(recovery[0]) == session.plan  # the edit is in the kept copy
    log = (session.home.data_dir / "errors.log").read_text()
    assert "ZeroDivisionError" in log and "broken_slot" in log
    if os.name == "posix":  # the app home's private parts are the owner's alone
        assert (session.home.data_dir / "errors.log").stat().st_mode & 0o777 == 0o600
        assert recovery[0].parent.stat().st_mode & 0o777 == 0o700
    assert demo.isVisible() and session.plan is not None  # the window lives on


def test_an_expected_error_shows_its_own_message(demo, dialogs) -> None:
    from planner_app.gui.errors import show_error

    exc = InputError("plan.json", "queries[n].epsilon", "must be above 0")
    show_error(demo, type(exc), exc, None)
    kind, title, text = dialogs.shown[-1]
    assert kind == "critical"
    # the control the path names (the command line keeps queries[n].epsilon)
    assert text.startswith("plan.json: ε of statistic “n”: must be above 0")
    assert "Your plan is still open" in text  # nothing unsaved: no recovery file
