"""The session's operation runner (gui/operations.py, issue 23): a persistent change made
through it emits its change set once, after the core call, and the session's caches are read
again; a failing one emits nothing and shows one line in a dialog. The review window's
decision on the open plan's own file comes into the open plan at once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from planner_app.core.planfile import load_plan
from planner_app.core.planning.changes import OpChanges
from planner_app.core.records.keys import KeyStore
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import app_home
from planner_app.core.support.resources import demo_plan_path


def _seen(window) -> list[OpChanges]:  # type: ignore[no-untyped-def]
    seen: list[OpChanges] = []
    window.session.changed.connect(seen.append)
    return seen


def test_a_change_through_the_runner_emits_its_change_set_once(window, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                               dialogs) -> None:
    session = window.session
    assert session.trusted_keys == ()  # read (and cached) before the change
    officer = KeyStore(app_home(tmp_path / "officer"))
    officer.create("ada")
    pub = officer.export("ada", tmp_path / "ada.pub")
    seen = _seen(window)
    key = session.op(window, lambda _p, _c: KeyStore(session.home).trust(pub, None),
                     OpChanges(settings=True), "This key was not trusted").run()
    assert key is not None and key.fingerprint == officer.public("ada").fingerprint
    assert seen == [OpChanges(settings=True)]
    # the runner made the session read the keys again: the new one counts at once
    assert [k.fingerprint for k in session.trusted_keys] == [key.fingerprint]
    assert dialogs.shown == []


def test_the_keys_dialog_trusts_through_the_runner_once(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    dialog = window.launchers.open_keys_dialog()
    qtbot.addWidget(dialog)
    officer = KeyStore(app_home(tmp_path / "officer"))
    officer.create("ada")
    seen = _seen(window)
    assert dialog.import_key(officer.export("ada", tmp_path / "ada.pub"))
    assert seen == [OpChanges(settings=True)]
    assert dialog.remove_trusted("ada")
    assert seen == [OpChanges(settings=True)] * 2 and window.session.trusted_keys == ()


def test_a_failing_operation_emits_nothing_and_shows_one_line(window, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                              dialogs) -> None:
    seen = _seen(window)

    def refuse(_p, _c):  # type: ignore[no-untyped-def]
        raise InputError("ada.pub", None, "is not a public key\n(details on a second line)")

    done: list[object] = []
    result = window.session.op(window, refuse, OpChanges(ledger=True),
                               "This key was not trusted").success(done.append).run()
    assert result is None and done == [] and seen == []
    assert dialogs.shown == [("warning", "This key was not trusted",
                              "ada.pub: is not a public key")]
    # the Keys dialog's bad file: the same, through the dialog
    bad = tmp_path / "bad.pub"
    bad.write_text("not a key\n")
    dialog = window.launchers.open_keys_dialog()
    assert not dialog.import_key(bad)
    assert seen == [] and dialogs.shown[-1][1] == "This key was not trusted"
    assert "\n" not in dialogs.shown[-1][2] and "bad.pub" in dialogs.shown[-1][2]
    dialog.close()


def test_a_defect_in_an_operation_reaches_the_error_dialog_and_emits_nothing(window) -> None:  # type: ignore[no-untyped-def]
    seen = _seen(window)

    def broken(_p, _c):  # type: ignore[no-untyped-def]
        raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):  # the app's excepthook shows it (errors.py)
        window.session.op(window, broken, OpChanges(ledger=True)).run()
    assert seen == []


def test_a_background_operation_emits_once_and_a_failure_only_what_it_still_changed(  # type: ignore[no-untyped-def]
        window, qtbot) -> None:
    session = window.session
    seen = _seen(window)
    done: list[object] = []
    session.op(window, lambda _p, _c: 41 + 1, lambda n: OpChanges(ledger=n == 42)) \
        .success(done.append).run_in_background()
    qtbot.waitUntil(lambda: done == [42], timeout=30_000)
    assert seen == [OpChanges(ledger=True)]

    def charged_then_failed(_p, _c):  # type: ignore[no-untyped-def]
        raise InputError("report", None, "could not be written")

    failed: list[BaseException] = []
    session.op(window, charged_then_failed, OpChanges(ledger=True, settings=True)) \
        .failure(failed.append).still_changed(lambda exc: OpChanges(ledger=True)) \
        .run_in_background()
    qtbot.waitUntil(lambda: len(failed) == 1, timeout=30_000)
    assert str(failed[0]) == "report: could not be written"
    assert seen == [OpChanges(ledger=True)] * 2


def test_a_decision_on_the_open_plans_file_comes_into_the_plan_at_once(  # type: ignore[no-untyped-def]
        window, qtbot, tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    shutil.copy(demo_plan_path(), path)
    assert window.files.open_plan(path, confirmed=True)
    assert window.session.plan.approvals == ()  # type: ignore[union-attr]
    dialog = window.launchers.review_plan_file(path)
    qtbot.addWidget(dialog)
    dialog.reviewer.setText("Ada Officer")
    seen = _seen(window)
    assert dialog.decide("approved")
    # before the window closes: the open plan has the decision the file has, announced once
    assert dialog.isVisible()
    on_disk = load_plan(path).approvals
    assert len(on_disk) == 1 and on_disk[0]["reviewer"] == "Ada Officer"
    assert window.session.plan.approvals == on_disk  # type: ignore[union-attr]
    assert not window.session.dirty and len([c for c in seen if c.plan]) == 1


def test_a_decision_that_cannot_be_written_says_so_in_one_line(window, qtbot, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                              dialogs) -> None:
    real = tmp_path / "real.json"
    shutil.copy(demo_plan_path(), real)
    link = tmp_path / "plan.json"
    link.symlink_to(real)  # a link is never replaced (core: refuse_unless_replaceable)
    dialog = window.launchers.review_plan_file(link)
    qtbot.addWidget(dialog)
    dialog.reviewer.setText("Ada Officer")
    seen = _seen(window)
    before = real.read_bytes()
    assert not dialog.decide("approved")
    assert dialogs.shown[-1][:2] == ("warning", "The decision was not recorded")
    assert "plan.json" in dialogs.shown[-1][2] and "\n" not in dialogs.shown[-1][2]
    assert real.read_bytes() == before and seen == []
    # the reviewer chose no name: the line says what they can do instead (review the file
    # the link points to), not "choose another name"
    text = dialogs.shown[-1][2]
    assert "another name" not in text and str(real) in text and "review" in text


def test_data_answers_are_typed(demo, qtbot, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from planner_app.gui.session import Answered

    session = demo.session
    monkeypatch.setattr(type(session), "ASYNC_ROWS", 1)  # the demo table asks on a worker
    answers: list[object] = []
    session.dataAnswered.connect(answers.append)
    query = session.plan.queries[0]
    with qtbot.waitSignal(session.dataAnswered, timeout=60_000):
        session.set_epsilon(query.id, query.epsilon / 2)  # a new plan: its fit is asked again
        assert session.ask_fit_problems() is None
    assert answers[-1] is Answered.FIT and isinstance(answers[-1], Answered)
    assert session.ask_fit_problems() == session.fit_problems()  # cached, same answer
    query = session.plan.queries[1]
    with qtbot.waitSignal(session.dataAnswered, timeout=60_000):
        assert session.ask_query_checks(query) is None
    assert answers[-1] is Answered.QUERY
    checks = session.ask_query_checks(query)
    assert checks is not None and checks.problems == session.query_fit(query)[0]
    column = query.column or session.columns[0].name
    with qtbot.waitSignal(session.dataAnswered, timeout=60_000):
        assert session.ask_column_values(column) is None
    assert answers[-1] is Answered.VALUES
    assert session.ask_column_values(column) == session.column_values(column)
    assert Answered.QUERY == "query"  # a view written against the old strings reads it
