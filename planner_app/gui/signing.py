"""Signing releases in the app: the setting "Sign releases with key" (Release menu) and the
passphrase dialog the release wizard shows before anything is charged. The key is chosen and
loaded through the Session; the core (release/signing.py) signs."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QInputDialog, QLineEdit, QMenu, QMessageBox, QWidget

from ..core.records.keys import SecretKey
from ..core.support.errors import PlannerError
from .session import Session

NO_KEY = "Do not sign releases"


def fill_sign_menu(menu: QMenu, session: Session) -> None:
    """One checkable entry per key of the app home, and "Do not sign releases"; choosing one
    sets the setting through the session."""
    menu.clear()
    group = QActionGroup(menu)
    group.setExclusive(True)
    chosen = session.signing_key
    entries: list[tuple[str, str | None, str]] = [(NO_KEY, None, "Releases are not signed: "
                                                   "a recipient can check their integrity, "
                                                   "not who made them")]
    names = set()
    for info in session.signing_keys():
        names.add(info.name)
        entries.append((f"{info.name}  (key {info.fingerprint}"
                        + (", passphrase" if info.protected else "") + ")", info.name,
                        f"Sign every release's manifest with the key {info.name}"))
    if chosen is not None and chosen not in names:
        entries.append((f"{chosen}  (missing from this app home)", chosen,
                        "The chosen key is not in this app home: choose another"))
    for text, name, tip in entries:
        action = QAction(text, menu)
        action.setCheckable(True)
        action.setChecked(name == chosen)
        action.setStatusTip(tip)
        action.setToolTip(tip)
        action.triggered.connect(lambda _checked=False, n=name: session.set_signing_key(n))
        group.addAction(action)
        menu.addAction(action)
    if not names:
        hint = QAction("No keys yet: make one in File → Keys…", menu)
        hint.setEnabled(False)
        menu.addAction(hint)


def ask_signing_key(parent: QWidget, session: Session, name: str,
                    ask: Any = None) -> SecretKey | None:
    """Load the key ``name`` before anything is charged, asking its passphrase in a dialog
    when it is protected. None (after a clear dialog) when it cannot be used or the person
    cancels; nothing has been charged then."""
    answer: dict[str, str | None] = {}

    def passphrase(key_name: str) -> str:
        getter = ask or QInputDialog.getText
        text, ok = getter(parent, "Passphrase", f"Passphrase of the key {key_name} (it signs "
                          "this release):", QLineEdit.EchoMode.Password, "")
        answer["text"] = text if ok else None
        return text if ok else ""

    try:
        return session.load_signing_key(name, passphrase if session.key_is_protected(name)
                                        else None)
    except PlannerError as exc:
        if "text" in answer and answer["text"] is None:
            return None  # cancelled: no message
        QMessageBox.warning(parent, "Cannot sign with this key",
                            f"{exc}\n\nNothing was charged. Try again, or choose another key "
                            "in Release → Sign releases with key.")
        return None
