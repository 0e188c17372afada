"""The reviewers' findings on the app's key and review wording (issue 12): the review window
says a signed decision is signed and what to do next, and leads with the rule a release
applies; a key that cannot be used names no command-line option; the hints point to the app's
own menus and to the privacy officer."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from planner_app.core.planfile import load_plan, plan_to_json
from planner_app.core.records.keys import KeyStore
from planner_app.core.records.review import review
from planner_app.core.support.home import app_home
from planner_app.core.support.resources import demo_plan_path
from tests.conftest import DEMO_TABLE


def _review_window(window, qtbot, tmp_path: Path):  # type: ignore[no-untyped-def]
    path = tmp_path / "plan.json"
    shutil.copy(demo_plan_path(), path)
    dialog = window.launchers.review_plan_file(path)
    qtbot.addWidget(dialog)
    return dialog, path


def test_a_signed_decision_says_it_is_signed_and_what_to_do_next(  # type: ignore[no-untyped-def]
        window, qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLANNER_APP_PASSPHRASE", raising=False)
    KeyStore(window.session.home).create("ada")
    dialog, path = _review_window(window, qtbot, tmp_path)
    assert dialog.decide("approved")
    text = dialog.status.text()
    assert "not verified" not in text
    assert text.startswith("Signed: you approved this exact plan with your key ada")
    assert f"send {path.name} and your public key" in text and "ada.pub" in text


def test_the_review_status_leads_with_the_rule_release_applies(  # type: ignore[no-untyped-def]
        window, qtbot, tmp_path: Path) -> None:
    officer = KeyStore(app_home(tmp_path / "officer"))
    officer.create("ada")
    window.session.trust_key(officer.export("ada", tmp_path / "ada.pub"))
    dialog, path = _review_window(window, qtbot, tmp_path)
    dialog.sign_with.setCurrentIndex(dialog.sign_with.count() - 1)  # unsigned
    dialog.reviewer.setText("Owner")
    assert dialog.decide("approved")
    text = dialog.status.text()
    assert text.startswith("A release here accepts only decisions signed with a trusted key")
    # the owner's unsigned decision is named once, after the rule, with why it does not count
    assert text.index("No decision verifies") < text.index("the approval by Owner")
    assert text.count("Owner") == 1 and "is not signed" in text


def test_a_key_that_cannot_be_used_names_no_option_in_the_app(  # type: ignore[no-untyped-def]
        window, qtbot, dialogs, monkeypatch: pytest.MonkeyPatch) -> None:
    from planner_app.gui.signing import ask_signing_key

    monkeypatch.delenv("PLANNER_APP_PASSPHRASE", raising=False)
    KeyStore(window.session.home).create("owner", "right")
    got = ask_signing_key(window, window.session, "owner",
                          ask=lambda *a: ("wrong", True))
    assert got is None
    title, text = dialogs.shown[-1][1], dialogs.shown[-1][2]
    assert title == "Cannot sign with this key"
    assert "passphrase of key 'owner' is wrong" in text and "argument" not in text \
        and "--key" not in text


def test_the_sign_menu_without_keys_points_to_the_keys_dialog(window) -> None:  # type: ignore[no-untyped-def]
    texts = [a.text() for a in window.menus.sign_menu.actions()]
    assert any("File → Keys…" in t for t in texts) and not any("keys new" in t for t in texts)


def test_an_approval_refusal_tells_the_owner_to_send_the_plan(  # type: ignore[no-untyped-def]
        window, tmp_path: Path) -> None:
    window.session.set_require_approval(True)
    path = tmp_path / "plan.json"
    path.write_text(plan_to_json(load_plan(demo_plan_path())))
    window.files.load_table(DEMO_TABLE, synchronous=True)
    assert window.files.open_plan(path, confirmed=True)
    rule = window.session.release_rules(unit_confirmed=True).get("approval")
    assert rule.failed and "privacy officer" in rule.action and "Send this exact plan" in \
        rule.action


def test_the_bundle_viewer_says_whose_trust(tmp_path: Path) -> None:
    from planner_app.core.records.review import approval_status
    from planner_app.core.release.signing import approval_words

    officer = KeyStore(app_home(tmp_path / "officer"))
    officer.create("ada")
    plan = review(load_plan(demo_plan_path()), "Ada", "approved", key=officer.secret("ada"))
    record = approval_status(plan, [officer.public("ada")]).to_record()
    assert "a key the data owner trusted (ada" in approval_words(record)


def test_the_wizard_completes_a_release_whose_key_was_lost_unsigned(  # type: ignore[no-untyped-def]
        demo, qtbot, dialogs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from PySide6.QtWidgets import QMessageBox

    import planner_app.core.release.publish as publish_module
    from planner_app.core.records.ledger import Ledger
    from planner_app.core.release.bundle import RECORD, SIGNATURE, read_bundle
    from planner_app.core.release.verify_release import verify_bundle
    from tests.core.test_resume import failing_on_call

    session = demo.session
    store = KeyStore(session.home)
    store.create("lost")
    out = tmp_path / "unfinished.zip"
    with monkeypatch.context() as patch:
        patch.setattr(publish_module, "report_pdf",
                      failing_on_call(publish_module.report_pdf, 2))
        with pytest.raises(publish_module.ReleaseUnfinished):
            publish_module.publish(session.plan, session.table, out, session.home,
                                   sign_with=store.secret("lost"))
    [saved] = (session.home.data_dir / "pending").glob("*.json")
    record = json.loads(saved.read_text())["record"]
    for suffix in (".key", ".pub"):
        (store.keys_dir / f"lost{suffix}").unlink()
    session.refresh_lifetime()
    wizard = demo.launchers.release()
    qtbot.addWidget(wizard)
    dialogs.answer = QMessageBox.StandardButton.Cancel
    wizard.checklist.resume_button.click()  # cancelled: nothing happens
    assert wizard.resume_id is None and dialogs.shown[-1][1] == "The signing key is missing"
    dialogs.answer = QMessageBox.StandardButton.Yes
    wizard.checklist.resume_button.click()
    qtbot.waitUntil(lambda: wizard.result is not None, timeout=60_000)
    files = read_bundle(out)
    written = json.loads(files[RECORD])
    assert SIGNATURE not in files and "signed_by" not in written
    assert written["results"] == record["results"]  # no new noise
    assert verify_bundle(out).valid
    assert [r.status for r in Ledger(session.home.ledger_path).state(
        session.plan.dataset.name).releases] == ["completed"]
