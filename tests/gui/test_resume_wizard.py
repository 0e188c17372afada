"""The release wizard offers to complete a release that was charged but not written."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from planner_app.core.records.ledger import Ledger
from planner_app.core.release.verify_release import verify_bundle
from planner_app.gui.dialogs.release_wizard import checklist
from tests.gui.conftest import SHOTS


def unfinished_release(window, out: Path, monkeypatch: pytest.MonkeyPatch) -> str:  # type: ignore[no-untyped-def]
    """A release whose report fails after the charge (as 100 statistics once did)."""
    import planner_app.core.release.publish as publish_module

    real = publish_module.report_pdf
    calls = {"n": 0}

    def fails_after_the_charge(record, *rest):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 2:
            raise ValueError("row too high")
        return real(record, *rest)

    monkeypatch.setattr(publish_module, "report_pdf", fails_after_the_charge)
    session = window.session
    with pytest.raises(publish_module.ReleaseUnfinished) as info:
        publish_module.publish(session.plan, session.table, out, session.home)
    monkeypatch.undo()
    session.refresh_lifetime()  # as the wizard does when it shows the failure
    return info.value.release_id


def test_the_wizard_completes_an_unfinished_release(demo, qtbot, dialogs, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "unfinished.zip"
    release_id = unfinished_release(demo, out, monkeypatch)
    ledger = Ledger(demo.session.home.ledger_path)
    assert [r.status for r in ledger.state("demo-survey").releases] == ["charged"]
    spent = ledger.state("demo-survey").spent.epsilon
    wizard = demo.launchers.release()
    qtbot.addWidget(wizard)
    page = wizard.checklist
    assert not page.unfinished.isHidden() and not page.resume_button.isHidden()
    assert "charged but its bundle was not written" in page.unfinished.text()
    assert "unfinished.zip" in page.unfinished.text()
    # the charge shows: what is left is the cap less what the ledger holds as spent
    left = ledger.state("demo-survey").cap.epsilon - spent
    assert any(f"ε = {left:.4g}" in text and "left of" in text
               for _, text in checklist(demo.session)), (left, checklist(demo.session))
    SHOTS.mkdir(parents=True, exist_ok=True)
    wizard.grab().save(str(SHOTS / "13-release-unfinished.png"))
    page.resume_button.click()
    qtbot.waitUntil(lambda: wizard.result is not None, timeout=60_000)
    qtbot.waitUntil(lambda: wizard.currentPage() is wizard.results, timeout=10_000)
    assert wizard.result.release_id == release_id and wizard.result.bundle_path == out
    assert verify_bundle(out).valid
    state = ledger.state("demo-survey")
    assert [r.status for r in state.releases] == ["completed"]
    assert state.spent.epsilon == spent  # completed without a second charge
    wizard.grab().save(str(SHOTS / "14-release-resumed.png"))
    # nothing left to complete: the next wizard does not offer it (the plan is released now:
    # releasing it again is asked first, and answered yes here)
    dialogs.answer = QMessageBox.StandardButton.Yes
    # (unfinished_release's monkeypatch.undo() also undid the dialogs fixture's patch)
    monkeypatch.setattr(QMessageBox, "question", staticmethod(dialogs.record("question")))
    again = demo.launchers.release()
    assert dialogs.shown[-1][1] == "Release this plan again?"
    qtbot.addWidget(again)
    assert again.checklist.resume_button.isHidden()


def test_a_failure_after_the_charge_is_explained(demo, qtbot, dialogs) -> None:  # type: ignore[no-untyped-def]
    from planner_app.core.release.publish import ReleaseUnfinished

    wizard = demo.launchers.release()
    qtbot.addWidget(wizard)
    assert wizard.checklist.resume_button.isHidden()
    wizard.progress._failed(ReleaseUnfinished("ab12", "row too high", True))
    kind, title, text = dialogs.shown[-1]
    assert title == "The bundle was not written"
    assert "noised values are saved" in text and "Complete the unfinished release" in text
