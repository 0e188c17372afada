"""The release wizard, the officer's review and the bundle viewer, with screenshots."""

from __future__ import annotations

import shutil
from pathlib import Path

from planner_app.core.kinds.params import answers_declared
from planner_app.core.planfile import load_plan
from planner_app.core.planning.check import check_plan
from planner_app.core.records.audit import AuditLog
from planner_app.core.records.ledger import Ledger
from planner_app.core.support.resources import demo_plan_path
from planner_app.gui.dialogs.release_wizard import checklist
from tests.conftest import flip_zip_byte
from tests.gui.conftest import SHOTS


def test_checklist_names_what_is_missing(demo) -> None:  # type: ignore[no-untyped-def]
    items = dict((text.split(":")[0], ok) for ok, text in checklist(demo.session))
    assert all(ok for ok, _ in checklist(demo.session)), checklist(demo.session)
    demo.session.set_require_approval(True)
    approval = [(ok, text) for ok, text in checklist(demo.session) if text.startswith("Approval")]
    assert len(approval) == 1  # the people rule (issue 22) follows it on the list
    last_ok, last_text = approval[0]
    assert not last_ok and last_text.startswith("Approval: Not reviewed yet")
    demo.session.set_require_approval(False)
    assert items


def test_the_wizard_releases_and_shows_results(demo, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    SHOTS.mkdir(parents=True, exist_ok=True)
    wizard = demo.launchers.release()
    qtbot.addWidget(wizard)
    page = wizard.checklist
    assert not page.isComplete()  # the unit of privacy is not confirmed yet
    page.confirm_unit.setChecked(True)
    assert page.isComplete()
    wizard.grab().save(str(SHOTS / "10-release-checklist.png"))
    wizard.next()
    out = tmp_path / "wizard.zip"
    wizard.confirm.path.setText(str(out))
    # the total is the core's, as `planner-app check` computes it (independent of the GUI),
    # and lies within basic composition: at most the sum of the statistics' ε, at least the
    # largest (formulas.md, Composition)
    plan = demo.session.plan
    total = check_plan(plan).total.epsilon
    shares = [q.epsilon for q in plan.queries]
    assert max(shares) <= total <= sum(shares)
    cap = Ledger(demo.session.home.ledger_path).state("demo-survey").cap.epsilon
    text = wizard.confirm.text.text()
    assert f"ε = {total:.4g}</b>" in text, (total, text)
    # what is left is the checklist's sentence (core/records/headroom.py), in the cap's terms
    assert f"about {cap - total:.4g} after this release" in text, (cap - total, text)
    wizard.grab().save(str(SHOTS / "11-release-confirm.png"))
    wizard.next()
    qtbot.waitUntil(lambda: wizard.result is not None, timeout=60_000)
    qtbot.waitUntil(lambda: wizard.currentPage() is wizard.results, timeout=10_000)
    assert out.exists()
    assert wizard.results.table.rowCount() == sum(len(r.values) for r in wizard.result.releases)
    wizard.grab().save(str(SHOTS / "12-release-results.png"))
    state = Ledger(demo.session.home.ledger_path).state("demo-survey")
    assert len(state.releases) == 1
    left = state.cap.epsilon - state.spent.epsilon  # the meter shows what is left now
    assert abs(state.spent.epsilon - total) <= 1e-9 * total  # one release: its own total
    assert f"{left:.4g}" in demo.meter.text.text(), (left, demo.meter.text.text())


def test_the_wizard_explains_a_refusal(demo, qtbot, dialogs, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    Ledger(demo.session.home.ledger_path).set_cap("demo-survey", 3.0, 1e-5)
    demo.session.refresh_lifetime()
    items = checklist(demo.session)
    assert not all(ok for ok, _ in items)
    assert any("not enough" in text for _, text in items)


def test_review_approves_and_a_change_needs_a_new_review(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    plan_file = tmp_path / "plan.json"
    shutil.copy(demo_plan_path(), plan_file)
    dialog = window.launchers.review_plan_file(plan_file)
    qtbot.addWidget(dialog)
    assert dialog.statistics.rowCount() == 10
    # the officer sees every public parameter, a yes/no share's declared values included
    plan = load_plan(plan_file)
    row = next(i for i, q in enumerate(plan.queries) if answers_declared(q))
    shown = dialog.statistics.item(row, 3).text()
    assert f"Read as yes: {', '.join(plan.queries[row].params.yes)}" in shown
    assert "Not reviewed yet" in dialog.status.text()
    assert not dialog.decide("approved")  # a name is required
    dialog.reviewer.setText("Ada Officer")
    dialog.comment.setText("bounds from the survey form")
    dialog.grab().save(str(SHOTS / "20-review.png"))
    assert dialog.decide("approved")
    saved = load_plan(plan_file)
    assert saved.approvals[-1]["reviewer"] == "Ada Officer"
    assert "Approved by Ada Officer" in dialog.status.text()
    events = [e["event"] for e in AuditLog(window.session.home.audit_path).read()]
    assert events[-1] == "plan approved"


def test_bundle_viewer_shows_verdict_then_contents(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from planner_app.core.data.tables import load_table
    from planner_app.core.release.publish import publish
    from planner_app.core.support.home import app_home
    from planner_app.core.support.resources import demo_table_path

    out = tmp_path / "b.zip"
    publish(load_plan(demo_plan_path()), load_table(demo_table_path()), out,
            app_home(tmp_path / "h"))
    window.files.open_path(out)
    viewer = window.launchers.bundle_dialog
    qtbot.addWidget(viewer)
    qtbot.waitUntil(lambda: viewer.opened is not None, timeout=30_000)  # verified in the worker
    assert "Verified" in viewer.verdict.text()
    tabs = [viewer.tabs.tabText(i) for i in range(viewer.tabs.count())]
    assert tabs == ["Results", "Parameters", "Audit trail", "Report"]
    for i in range(viewer.tabs.count()):
        viewer.tabs.setCurrentIndex(i)
        viewer.grab().save(str(SHOTS / f"3{i}-bundle-{tabs[i].lower().replace(' ', '-')}.png"))
    report = viewer.tabs.widget(3)
    assert "Transparency" in report.toPlainText()
    # a tampered bundle says NOT valid
    bad = tmp_path / "bad.zip"
    flip_zip_byte(out, bad, "results.csv", 50)
    window.files.open_path(bad)
    qtbot.waitUntil(lambda: window.launchers.bundle_dialog.opened is not None, timeout=30_000)
    assert "NOT valid" in window.launchers.bundle_dialog.verdict.text()
    assert "results.csv" in window.launchers.bundle_dialog.verdict.text()


def test_refusals_are_explained_with_what_to_do(demo, qtbot, dialogs) -> None:  # type: ignore[no-untyped-def]
    from planner_app.core.records.ledger import BudgetExceeded, LedgerError
    from planner_app.core.records.review import ApprovalRequired

    cases = [(BudgetExceeded("dataset 'demo-survey' has ε = 1 left"), "not enough budget",
              "Lower some statistics' ε"),
             (ApprovalRequired("the plan changed after the last review"), "approval needed",
              "Send this exact plan file to your privacy officer"),
             (LedgerError("the budget ledger is locked"), "ledger cannot be used",
              "Nothing was released")]
    for exc, title, advice in cases:
        wizard = demo.launchers.release()
        qtbot.addWidget(wizard)
        wizard.progress._failed(exc)
        kind, shown_title, text = dialogs.shown[-1]
        assert kind == "warning" and title in shown_title
        assert str(exc) in text and advice in text


def test_the_wizard_is_modal_and_reads_the_ledger_afresh(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    """The plan cannot change behind the confirmation (the wizard blocks the window), and a
    release made elsewhere (the command line, another window) since the app read the ledger
    is in the checklist."""
    from PySide6.QtWidgets import QApplication

    before = checklist(demo.session)
    assert all(ok for ok, _ in before)
    # spent elsewhere: the ledger is smaller than this release, and the app was not told
    Ledger(demo.session.home.ledger_path).set_cap("demo-survey", 3.0, 1e-5)
    wizard = demo.launchers.release()
    qtbot.addWidget(wizard)
    assert QApplication.activeModalWidget() is wizard
    assert not demo.isEnabled() or QApplication.activeModalWidget() is not demo
    assert "not enough" in wizard.checklist.items.text()


def test_after_the_release_there_is_no_way_back(demo, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The results page offered Back (to a dead "Releasing" page) and Cancel after the budget
    was spent; only Finish is left."""
    from PySide6.QtWidgets import QWizard

    from tests.gui.conftest import release_with_wizard

    wizard = release_with_wizard(demo, qtbot, tmp_path / "r.zip")
    shown = {b for b in (QWizard.WizardButton.BackButton, QWizard.WizardButton.CancelButton,
                         QWizard.WizardButton.FinishButton) if wizard.button(b).isVisible()}
    assert shown == {QWizard.WizardButton.FinishButton}


def test_rows_per_person_reads_in_the_plural(demo) -> None:  # type: ignore[no-untyped-def]
    """The demo's 3 rows per person read "3 row" until the box was edited."""
    assert demo.session.plan.privacy_unit.max_rows == 3
    pane = demo.data_pane
    assert (pane.max_rows.text(), pane.max_rows_unit.text()) == ("3", "rows")
