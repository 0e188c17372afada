"""Issue 22 part 3: after a release the main window marks the plan released (when, its
bundle, its ε), and releasing the same plan again is asked first."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMessageBox

from planner_app.core.records.ledger import Ledger
from planner_app.gui.app import build_window
from tests.gui.conftest import release_with_wizard


def _minute(time: str) -> str:
    return f"{time[:10]} {time[11:16]} UTC"


def test_a_released_plan_is_marked_and_a_second_release_is_asked(demo, qtbot, dialogs,
                                                                 tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert demo.released_banner.isHidden()
    assert "released" not in demo.windowTitle()
    out = tmp_path / "first.zip"
    wizard = release_with_wizard(demo, qtbot, out)
    wizard.accept()
    # the independent answer: the ledger's record of the release, and the wizard's result
    (record,) = Ledger(demo.session.home.ledger_path).state("demo-survey").releases
    total = wizard.result.report.total.epsilon
    banner = demo.released_banner.text()
    assert not demo.released_banner.isHidden()
    assert f"released on {_minute(record.time)}" in banner
    assert f"bundle {out}" in banner and f"ε = {total:.4g}" in banner
    assert "(released)" in demo.windowTitle()

    # the same plan again: asked first; "No" opens no wizard and spends nothing
    assert demo.launchers.release() is None
    kind, title, text = dialogs.shown[-1]
    assert kind == "question" and title == "Release this plan again?"
    assert f"released on {_minute(record.time)} (bundle {out}, ε = {total:.4g})" in text
    assert "averaging" in text
    spent = Ledger(demo.session.home.ledger_path).state("demo-survey").spent.epsilon
    assert f"has spent ε = {spent:.4g} so far; this release (ε = {total:.4g} on its own) " \
           "brings the dataset's composed total" in text
    assert "lifetime cap ε = 10" in text
    assert len(Ledger(demo.session.home.ledger_path).state("demo-survey").releases) == 1
    dialogs.answer = QMessageBox.StandardButton.Yes
    again = release_with_wizard(demo, qtbot, tmp_path / "second.zip")
    again.accept()
    after = Ledger(demo.session.home.ledger_path).state("demo-survey")
    assert len(after.releases) == 2
    # the total the question quoted is the one the ledger's charge then recorded (composed,
    # not the two releases' ε added up)
    assert f"to ε = {after.spent.epsilon:.4g}" in text
    assert f"{after.spent.epsilon:.4g}" != f"{spent + total:.4g}"
    assert "released 2 times in all" in demo.released_banner.text()
    assert f"bundle {tmp_path / 'second.zip'}" in demo.released_banner.text()


def test_another_plan_is_not_marked_and_a_later_window_names_the_bundle(
        demo, qtbot, dialogs, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "first.zip"
    release_with_wizard(demo, qtbot, out).accept()
    assert not demo.released_banner.isHidden()
    session = demo.session
    session.set_epsilon(session.selected, session.selected_query.epsilon / 2)
    assert demo.released_banner.isHidden()  # a changed plan is another plan
    assert "released" not in demo.windowTitle()
    dialogs.shown.clear()
    wizard = demo.launchers.release()  # not asked
    assert wizard is not None and not [d for d in dialogs.shown if d[0] == "question"]
    wizard.reject()
    session.undo()  # the released plan again
    assert not demo.released_banner.isHidden()
    # a window opened later on the same app home knows it from the ledger and the audit log
    later = build_window(str(tmp_path / "home"))  # the demo fixture's app home
    qtbot.addWidget(later)
    assert later.session.home.ledger_path == session.home.ledger_path
    later.session.load_plan(session.plan, None)
    assert "bundle first.zip" in later.released_banner.text()


def test_a_second_release_the_cap_cannot_cover_is_refused_not_asked(demo, qtbot, dialogs,
                                                                      tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Walk 2, finding 22: the app asked "Release again?" although the lifetime cap could not
    cover the release; the checklist's rule is checked first and its words shown instead."""
    release_with_wizard(demo, qtbot, tmp_path / "first.zip").accept()
    ledger = Ledger(demo.session.home.ledger_path)
    spent = ledger.state("demo-survey").spent
    # room for less than the same release again (the independent answer: the ledger's own sum)
    ledger.set_cap("demo-survey", spent.epsilon * 1.5, max(spent.delta * 3, 1e-5))
    dialogs.shown.clear()
    assert demo.launchers.release() is None
    kinds = [(kind, title) for kind, title, _ in dialogs.shown]
    assert ("question", "Release this plan again?") not in kinds
    kind, title, text = dialogs.shown[-1]
    assert (kind, title) == ("warning", "This plan cannot be released again")
    assert "lifetime cap" in text
    assert len(Ledger(demo.session.home.ledger_path).state("demo-survey").releases) == 1
