"""Signed releases in the app: the setting "Sign releases with key" (through the Session),
the wizard's passphrase dialog before the charge (a wrong one charges nothing), and the bundle
viewer's signer, fingerprint and check against a public key file; screenshots at 1x and 2x."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from planner_app.core.planning.settings import load_settings
from planner_app.core.records.keys import KeyStore
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.verify_release import verify_bundle
from tests.gui.conftest import SHOTS, offscreen_screen

HERE = Path(__file__).resolve().parent
PASSPHRASE = "tr0ub4dor&3"


def answers(*texts: str | None) -> Any:
    """A stand-in for QInputDialog.getText that answers ``texts`` in turn (None: Cancel)."""
    queue = list(texts)
    asked: list[str] = []

    def get_text(_parent, _title, label, *_args, **_kwargs):  # type: ignore[no-untyped-def]
        asked.append(label)
        text = queue.pop(0)
        return (text or "", text is not None)

    get_text.asked = asked  # type: ignore[attr-defined]
    return get_text


def test_the_signing_key_is_a_setting_chosen_from_the_menu(window) -> None:  # type: ignore[no-untyped-def]
    session = window.session
    KeyStore(session.home).create("owner")
    KeyStore(session.home).create("guarded", PASSPHRASE)
    assert session.signing_key is None
    window.menus.sign_menu.aboutToShow.emit()
    texts = [a.text() for a in window.menus.sign_menu.actions()]
    assert texts[0] == "Do not sign releases" and window.menus.sign_menu.actions()[0].isChecked()
    owner = next(a for a in window.menus.sign_menu.actions() if a.text().startswith("owner"))
    assert KeyStore(session.home).public("owner").fingerprint in owner.text()
    assert any("guarded" in t and "passphrase" in t for t in texts)
    owner.trigger()
    assert session.signing_key == "owner"
    assert load_settings(session.home.settings_path).sign_with == "owner"  # saved
    window.menus.sign_menu.aboutToShow.emit()
    checked = [a.text() for a in window.menus.sign_menu.actions() if a.isChecked()]
    assert len(checked) == 1 and checked[0].startswith("owner")
    window.menus.sign_menu.actions()[0].trigger()
    assert session.signing_key is None


def test_a_wrong_passphrase_charges_nothing_then_the_right_one_signs(  # type: ignore[no-untyped-def]
        demo, qtbot, dialogs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QInputDialog

    monkeypatch.delenv("PLANNER_APP_PASSPHRASE", raising=False)
    session = demo.session
    KeyStore(session.home).create("guarded", PASSPHRASE)
    session.set_signing_key("guarded")
    ask = answers("wrong", None, PASSPHRASE)
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(ask))
    out = tmp_path / "signed.zip"
    wizard = demo.launchers.release()
    qtbot.addWidget(wizard)
    wizard.checklist.confirm_unit.setChecked(True)
    wizard.next()
    assert "signed with your key <b>guarded</b>" in wizard.confirm.signing.text()
    assert "passphrase is asked next" in wizard.confirm.signing.text()
    wizard.confirm.path.setText(str(out))
    ledger = session.home.ledger_path
    before = ledger.read_bytes() if ledger.exists() else None
    wizard.next()  # a wrong passphrase: a clear dialog, still on the confirm page
    assert wizard.currentPage() is wizard.confirm
    kind, title, text = dialogs.shown[-1]
    assert (kind, title) == ("warning", "Cannot sign with this key")
    assert "passphrase of key 'guarded' is wrong" in text and "Nothing was charged" in text
    wizard.next()  # cancelled: no message, still there
    assert wizard.currentPage() is wizard.confirm and len(dialogs.shown) == 1
    assert (ledger.read_bytes() if ledger.exists() else None) == before and not out.exists()
    wizard.next()  # the right one
    qtbot.waitUntil(lambda: wizard.result is not None, timeout=60_000)
    qtbot.waitUntil(lambda: wizard.currentPage() is wizard.results, timeout=10_000)
    assert len(ask.asked) == 3 and "guarded" in ask.asked[0]
    public = KeyStore(session.home).public("guarded")
    assert verify_bundle(out, trusted=[public]).valid
    assert "Signed by guarded" in wizard.results.summary.text()
    assert len(Ledger(ledger).state("demo-survey").releases) == 1


def test_the_viewer_shows_the_signer_and_checks_a_public_key(  # type: ignore[no-untyped-def]
        window, qtbot, dialogs, tmp_path: Path) -> None:
    sys.path.insert(0, str(HERE))
    from signed_shots import make_bundles

    made = make_bundles(tmp_path)
    fingerprint = made["fingerprint"]
    window.files.open_path(made["signed"])
    viewer = window.launchers.bundle_dialog
    qtbot.addWidget(viewer)
    qtbot.waitUntil(lambda: viewer.opened is not None, timeout=30_000)
    assert "integrity only, not origin" in viewer.verdict.text()
    origin = viewer.origin.text()
    assert fingerprint in origin and "claims to be <b>owner</b>" in origin
    assert "not yet checked" in origin and viewer.trust_button.isEnabled()
    viewer.choose_trusted_key(str(made["other_pub"]))  # the wrong key: not valid
    qtbot.waitUntil(lambda: "NOT valid" in viewer.verdict.text(), timeout=30_000)
    assert "not a trusted key" in viewer.verdict.text() and fingerprint in viewer.verdict.text()
    viewer.choose_trusted_key(str(made["owner_pub"]))
    qtbot.waitUntil(lambda: "origin proven" in viewer.verdict.text(), timeout=30_000)
    assert "✓ Signed by owner" in viewer.origin.text()
    assert viewer.tabs.count() == 4  # the tabs were rebuilt, not added twice
    bad = tmp_path / "bad.pub"
    bad.write_text("nope")
    viewer.choose_trusted_key(str(bad))
    assert dialogs.shown[-1][:2] == ("warning", "Not a public key")
    window.files.open_path(made["unsigned"])
    unsigned = window.launchers.bundle_dialog
    qtbot.addWidget(unsigned)
    qtbot.waitUntil(lambda: unsigned.opened is not None, timeout=30_000)
    assert "<b>Not signed</b>" in unsigned.origin.text()


@pytest.mark.subprocess
@pytest.mark.parametrize("scale", ["1", "2"])
def test_screenshots(tmp_path: Path, scale: str) -> None:
    env = {**os.environ, "QT_SCALE_FACTOR": scale,
           "QT_QPA_PLATFORM": offscreen_screen(tmp_path, scale),  # windows fit the screen
           "PLANNER_APP_SCREENSHOTS": str(SHOTS), "PLANNER_APP_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, str(HERE / "signed_shots.py"), str(tmp_path)],
                          env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["clipped"] == {}, found
    assert len(found["shots"]) == 4
    for name in found["shots"]:
        assert (SHOTS / name).stat().st_size > (2_000 if "menu" in name else 10_000)


def test_the_wizard_completes_a_signed_release_with_its_key(  # type: ignore[no-untyped-def]
        demo, qtbot, dialogs, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QInputDialog

    import planner_app.core.release.publish as publish_module
    from tests.core.test_resume import failing_on_call

    monkeypatch.delenv("PLANNER_APP_PASSPHRASE", raising=False)
    session = demo.session
    store = KeyStore(session.home)
    store.create("guarded", PASSPHRASE)
    out = tmp_path / "unfinished.zip"
    with monkeypatch.context() as patch:
        patch.setattr(publish_module, "report_pdf",
                      failing_on_call(publish_module.report_pdf, 2))
        with pytest.raises(publish_module.ReleaseUnfinished):
            publish_module.publish(session.plan, session.table, out, session.home,
                                   sign_with=store.secret("guarded", lambda _n: PASSPHRASE))
    session.refresh_lifetime()
    ask = answers("wrong", PASSPHRASE)
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(ask))
    wizard = demo.launchers.release()
    qtbot.addWidget(wizard)
    wizard.checklist.resume_button.click()  # a wrong passphrase: nothing happens but a dialog
    assert wizard.resume_id is None and wizard.currentPage() is wizard.checklist
    assert dialogs.shown[-1][1] == "Cannot sign with this key" and not out.exists()
    wizard.checklist.resume_button.click()
    qtbot.waitUntil(lambda: wizard.result is not None, timeout=60_000)
    assert verify_bundle(out, trusted=[store.public("guarded")]).valid
    assert [r.status for r in Ledger(session.home.ledger_path).state("demo-survey").releases] \
        == ["completed"]
