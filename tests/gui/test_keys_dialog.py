"""File → Keys… and signing in the review window: every key operation is the core's KeyStore,
trusting goes through the session, a wrong passphrase writes nothing, and the wizard's
approval rule is the command line's (review.approval_keys). Screenshots at 1x and 2x with
nothing clipped (tests/gui/keys_walk.py)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from planner_app.cli import main as cli_main
from planner_app.core.planfile import load_plan, plan_to_json
from planner_app.core.planning.changes import OpChanges
from planner_app.core.records.keys import KeyStore
from planner_app.core.records.review import approval_status, review
from planner_app.core.support.home import app_home
from planner_app.core.support.resources import demo_plan_path
from tests.conftest import DEMO_TABLE
from tests.gui.conftest import SHOTS
from tests.gui.walk import run_walk


def _files(home: Path) -> dict[str, str]:
    h = app_home(home)
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in (h.ledger_path, h.audit_path) if p.exists()}


def test_the_keys_dialog_makes_exports_trusts_and_removes(window, qtbot, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                          dialogs) -> None:
    dialog = window.launchers.open_keys_dialog()
    qtbot.addWidget(dialog)
    assert dialog.keys.rowCount() == 0 and not dialog.export_button.isEnabled()
    assert dialog.create_key("owner", "pass phrase")
    store = KeyStore(window.session.home)
    key = store.public("owner")
    digest = hashlib.sha256(key.key).hexdigest()[:20]  # the key's SHA-256, by hand
    assert [dialog.keys.item(0, c).text() for c in range(4)] == \
        ["owner", key.fingerprint, " ".join(digest[i:i + 4] for i in range(0, 20, 4)), "yes"]
    assert not dialog.create_key("owner")  # already exists: a dialog, nothing changed
    assert dialog.keys.rowCount() == 1 and "already exists" in dialogs.shown[-1][2]
    pub = tmp_path / "owner.pub"
    assert dialog.export_key("owner", pub)
    assert pub.read_text() == key.to_text()
    # an officer's key, trusted through the session: the release rules are told
    officer = KeyStore(app_home(tmp_path / "officer"))
    officer.create("ada")
    seen: list[OpChanges] = []
    window.session.changed.connect(seen.append)
    assert dialog.import_key(officer.export("ada", tmp_path / "ada.pub"))
    assert [k.fingerprint for k in window.session.trusted_keys] == \
        [officer.public("ada").fingerprint]
    assert dialog.trusted.item(0, 1).text() == officer.public("ada").fingerprint
    assert any(c.settings for c in seen)
    bad = tmp_path / "bad.pub"
    bad.write_text("not a key\n")
    assert not dialog.import_key(bad) and "bad.pub" in dialogs.shown[-1][2]
    assert dialog.remove_trusted("ada")
    assert window.session.trusted_keys == () and dialog.trusted.rowCount() == 0


def _review_window(window, qtbot, tmp_path: Path):  # type: ignore[no-untyped-def]
    path = tmp_path / "plan.json"
    shutil.copy(demo_plan_path(), path)
    dialog = window.launchers.review_plan_file(path)
    qtbot.addWidget(dialog)
    return dialog, path


def test_the_review_window_signs_with_a_protected_key(window, qtbot, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                      dialogs,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLANNER_APP_PASSPHRASE", raising=False)
    store = KeyStore(window.session.home)
    store.create("ada", passphrase="right")
    dialog, path = _review_window(window, qtbot, tmp_path)
    assert dialog.sign_with.currentData() == "ada"  # your key first, unsigned last
    assert dialog.sign_with.itemData(dialog.sign_with.count() - 1) == ""
    before = path.read_bytes(), _files(window.session.home.data_dir.parent)
    # a wrong passphrase: a clear dialog, nothing written
    dialog.ask_passphrase = lambda name: "wrong"
    assert not dialog.decide("approved")
    assert dialogs.shown[-1][1] == "The decision was not signed"
    assert "passphrase of key 'ada' is wrong" in dialogs.shown[-1][2]
    assert (path.read_bytes(), _files(window.session.home.data_dir.parent)) == before
    # cancelled: no dialog, nothing written
    shown = len(dialogs.shown)
    dialog.ask_passphrase = lambda name: None
    assert not dialog.decide("approved") and len(dialogs.shown) == shown
    assert path.read_bytes() == before[0]
    # the right one: signed, the reviewer is the key's name when none is typed
    dialog.ask_passphrase = lambda name: "right"
    assert dialog.decide("approved")
    entry = json.loads(path.read_text())["approvals"][-1]
    assert entry["reviewer"] == "ada"
    assert entry["key_fingerprint"] == store.public("ada").fingerprint
    status = approval_status(load_plan(path), [store.public("ada")])
    assert status.state == "approved" and status.verified
    assert "Signed: you approved this exact plan with your key ada" in dialog.status.text()


def test_unsigned_is_still_a_choice(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    KeyStore(window.session.home).create("ada")
    dialog, path = _review_window(window, qtbot, tmp_path)
    dialog.sign_with.setCurrentIndex(dialog.sign_with.count() - 1)
    dialog.reviewer.setText("Ada Officer")
    assert dialog.decide("rejected")
    entry = json.loads(path.read_text())["approvals"][-1]
    assert entry["reviewer"] == "Ada Officer" and "signature" not in entry


def test_the_wizard_and_the_cli_accept_the_same_approvals(window, qtbot, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                          capsys) -> None:
    """With "Require approval before release" on and a trusted key in the app home, an
    unsigned approval is refused by the wizard's checklist and by `planner-app release`
    (the same home, no --trust): one rule, review.approval_keys."""
    officer = KeyStore(app_home(tmp_path / "officer"))
    officer.create("ada")
    window.session.set_require_approval(True)
    window.session.trust_key(officer.export("ada", tmp_path / "ada.pub"))
    home = window.session.home.data_dir.parent
    plan = load_plan(demo_plan_path())
    for signed, refused in ((False, True), (True, False)):
        approved = review(plan, "ada", "approved",
                          key=officer.secret("ada") if signed else None)
        path = tmp_path / f"plan-{signed}.json"
        path.write_text(plan_to_json(approved))
        window.files.load_table(DEMO_TABLE, synchronous=True)
        assert window.files.open_plan(path, confirmed=True)
        rules = window.session.release_rules(unit_confirmed=True)
        approval = rules.get("approval")
        assert approval is not None and approval.failed is refused, approval
        if refused:
            assert "is not signed" in approval.message
        wizard = window.launchers.release()
        qtbot.addWidget(wizard)
        wizard.checklist.confirm_unit.setChecked(True)
        assert wizard.checklist.isComplete() is (not refused)
        wizard.close()
        out = tmp_path / f"b-{signed}.zip"
        code = cli_main(["--home", str(home), "check", str(path), "--json"])
        report = json.loads(capsys.readouterr().out)
        assert code == 0 and report["ready"] is (not refused)
        before = _files(home)  # (check adds a "plan checked" entry to the audit log)
        if refused:
            code = cli_main(["--home", str(home), "release", str(path), "--data",
                             str(DEMO_TABLE), "--out", str(out)])
            err = capsys.readouterr().err
            assert code == 3 and "is not signed" in err and not out.exists()
            assert _files(home) == before


@pytest.mark.parametrize("scale", [1, 2])
def test_keys_and_review_windows_are_not_clipped(scale: int) -> None:
    found = run_walk(scale, SHOTS, module="tests.gui.keys_walk")
    assert set(found) == {"keys", "keys-new", "review-signed"}, found
    assert not any(found.values()), found


def test_a_key_trusted_on_the_command_line_counts_at_the_next_release(  # type: ignore[no-untyped-def]
        window, qtbot, tmp_path: Path) -> None:
    """`planner-app keys trust` while the app is open: the wizard reads the keys again."""
    officer = KeyStore(app_home(tmp_path / "officer"))
    officer.create("ada")
    window.session.set_require_approval(True)
    path = tmp_path / "plan.json"
    path.write_text(plan_to_json(review(load_plan(demo_plan_path()), "Ada", "approved")))
    window.files.load_table(DEMO_TABLE, synchronous=True)
    assert window.files.open_plan(path, confirmed=True)
    before = window.session.release_rules(unit_confirmed=True).get("approval")
    assert not before.failed and "anyone could have written it" in before.message
    KeyStore(window.session.home).trust(officer.export("ada", tmp_path / "ada.pub"))
    wizard = window.launchers.release()
    qtbot.addWidget(wizard)
    wizard.checklist.confirm_unit.setChecked(True)
    assert not wizard.checklist.isComplete()
    assert "is not signed" in window.session.release_rules(unit_confirmed=True).get(
        "approval").message
    wizard.close()


def test_the_new_key_dialog_checks_name_and_passphrase(qtbot) -> None:  # type: ignore[no-untyped-def]
    from planner_app.gui.dialogs.keys_dialog import NewKeyDialog

    dialog = NewKeyDialog()
    qtbot.addWidget(dialog)
    dialog.name.setText("../evil")
    dialog._check()
    assert "not a key name" in dialog.problem.text() and not dialog.result()
    dialog.name.setText("ada")
    dialog.passphrase.setText("one")
    dialog.again.setText("two")
    dialog._check()
    assert "differ" in dialog.problem.text() and not dialog.result()
    dialog.again.setText("one")
    dialog._check()
    assert dialog.result() == dialog.DialogCode.Accepted
