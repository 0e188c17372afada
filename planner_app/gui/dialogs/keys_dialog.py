"""File → Keys…: your signing keys (new, export the public key) and the public keys you trust
(import, remove). Every key operation is the core's KeyStore, run through the session's
operation runner (operations.py), which reads the keys again and tells the views: trusting
and untrusting change which approvals a release accepts."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.planning.changes import OpChanges
from ...core.records.keys import KeyStore, check_name
from ...core.support.errors import PlannerError
from ..file_dialogs import ask_open_file, ask_save_file
from ..session import Session
from ..widgets.screen_fit import fit_to_screen


def _table(headers: list[str], name: str) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.setAccessibleName(name)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setStretchLastSection(True)
    return table


def _fill(table: QTableWidget, rows: list[list[str]]) -> None:
    table.setRowCount(len(rows))
    for i, row in enumerate(rows):
        for j, text in enumerate(row):
            item = QTableWidgetItem(text)
            item.setToolTip(text)
            table.setItem(i, j, item)
    if rows:
        table.selectRow(0)


class NewKeyDialog(QDialog):
    """A key's name and an optional passphrase, typed twice."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New key")
        layout = QVBoxLayout(self)
        intro = QLabel("A key signs your approvals, releases and policies. Its private "
                       "half stays in this app's folder; give its public key to whoever "
                       "checks your signatures. A "
                       "passphrase protects the private key: you type it each time you sign "
                       "(leave it empty for none).")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.name = QLineEdit()
        self.name.setAccessibleName("Key name")
        self.name.setPlaceholderText("e.g. ada-officer")
        self.passphrase = QLineEdit()
        self.passphrase.setEchoMode(QLineEdit.EchoMode.Password)
        self.passphrase.setAccessibleName("Passphrase")
        self.again = QLineEdit()
        self.again.setEchoMode(QLineEdit.EchoMode.Password)
        self.again.setAccessibleName("Passphrase again")
        form.addRow("Name", self.name)
        form.addRow("Passphrase (optional)", self.passphrase)
        form.addRow("The same again", self.again)
        layout.addLayout(form)
        self.problem = QLabel("")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #a00;")
        layout.addWidget(self.problem)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok |
                                   QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Make the key")
        buttons.accepted.connect(self._check)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        fit_to_screen(self, self.fontMetrics().averageCharWidth() * 70, self.sizeHint().height())

    def _check(self) -> None:
        try:
            check_name(self.name.text().strip())
        except PlannerError as exc:
            self.problem.setText(str(exc).removeprefix("argument: NAME: "))
            self.resize(self.width(), max(self.height(), self.sizeHint().height()))
            return
        if self.passphrase.text() != self.again.text():
            self.problem.setText("The two passphrases differ: type the same passphrase twice.")
            return
        self.accept()


class KeysDialog(QDialog):
    """Your keys with their fingerprints, and the public keys you trust."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.store = KeyStore(session.home)
        self.setWindowTitle("Keys")
        layout = QVBoxLayout(self)
        own = QLabel("<b>Your keys</b> sign your approvals of plans, your releases and "
                     "policies. Give the public key (Export public key…) to whoever checks "
                     "your signatures, and tell them its fingerprint and SHA-256 another way "
                     "(say, by phone): they compare both, since a forged key can copy the "
                     "fingerprint but not the SHA-256.")
        own.setWordWrap(True)
        layout.addWidget(own)
        self.keys = _table(["Name", "Fingerprint", "Key SHA-256", "Passphrase",
                            "Public key file"], "Your keys")
        layout.addWidget(self.keys, 1)
        row = QHBoxLayout()
        self.new_button = QPushButton("New key…")
        self.export_button = QPushButton("Export public key…")
        row.addWidget(self.new_button)
        row.addWidget(self.export_button)
        row.addStretch(1)
        layout.addLayout(row)
        trusted = QLabel("<b>Trusted public keys</b> are other people's, such as a privacy "
                         "officer's. When a release requires approval, only an approval signed "
                         "with one of these keys counts (with none, any approval of the exact "
                         "plan counts, unverified). An installed organisation's policy that "
                         "names its officers decides instead: then only their approvals "
                         "count.")
        trusted.setWordWrap(True)
        layout.addWidget(trusted)
        self.trusted = _table(["Name", "Fingerprint", "Key SHA-256", "File"],
                              "Trusted public keys")
        layout.addWidget(self.trusted, 1)
        row = QHBoxLayout()
        self.import_button = QPushButton("Import…")
        self.remove_button = QPushButton("Remove")
        row.addWidget(self.import_button)
        row.addWidget(self.remove_button)
        row.addStretch(1)
        layout.addLayout(row)
        self.folder = QLabel(f"Kept in {self.store.keys_dir} (your keys) and "
                             f"{self.store.trusted_dir} (trusted keys)")
        self.folder.setWordWrap(True)
        self.folder.setStyleSheet("color: #555;")
        layout.addWidget(self.folder)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout.addWidget(close)
        self.new_button.clicked.connect(self._new)
        self.export_button.clicked.connect(self._export)
        self.import_button.clicked.connect(self._import)
        self.remove_button.clicked.connect(self._remove)
        self.refresh()
        fit_to_screen(self, self.fontMetrics().averageCharWidth() * 130,
                      self.fontMetrics().lineSpacing() * 36)

    def refresh(self) -> None:
        _fill(self.keys, [[k.name, k.fingerprint, k.key_hash, "yes" if k.protected else "no",
                           k.public_path.name] for k in self.store.key_infos()])
        _fill(self.trusted, [[k.name, k.fingerprint, k.key_hash,
                              self.store.trusted_path(k.name).name]
                             for k in self.store.trusted()])
        self.export_button.setEnabled(self.keys.rowCount() > 0)
        self.remove_button.setEnabled(self.trusted.rowCount() > 0)

    def _selected(self, table: QTableWidget) -> str | None:
        rows = table.selectionModel().selectedRows()
        if not rows:
            return None
        item = table.item(rows[0].row(), 0)
        return item.text() if item is not None else None

    # -- the actions, each callable without its file dialog (tests, scripts) -------------------

    def create_key(self, name: str, passphrase: str = "") -> bool:
        key = self.session.op(self, lambda _p, _c: self.store.create(name, passphrase),
                              OpChanges(settings=True), "The key was not made").run()
        if key is None:
            return False
        self.refresh()
        QMessageBox.information(self, "Key made", f"Made key {name}, fingerprint "
                                f"{key.fingerprint}, SHA-256 {key.key_hash}. Export its "
                                "public key for whoever checks your signatures.")
        return True

    def export_key(self, name: str, path: Path) -> bool:
        # the save dialog asked already before overwriting; nothing in the app home changes
        return self.session.op(
            self, lambda _p, _c: self.store.export(name, path, overwrite=True),
            OpChanges(), "The public key was not written").run() is not None

    def import_key(self, path: Path) -> bool:
        key = self.session.op(self, lambda _p, _c: self.store.trust(path, None),
                              OpChanges(settings=True), "This key was not trusted").run()
        if key is None:
            return False
        self.refresh()
        QMessageBox.information(self, "Key trusted", f"Trusted {key.name}, fingerprint "
                                f"{key.fingerprint}, SHA-256 {key.key_hash}. Compare this "
                                f"with the owner's: ask them for both codes (another way than "
                                "the file) before relying on it; the fingerprint alone can be "
                                "copied by a forged key.")
        return True

    def remove_trusted(self, name: str) -> bool:
        def untrust(_p: object, _c: object) -> bool:
            self.store.untrust(name)
            return True

        done = self.session.op(self, untrust, OpChanges(settings=True),
                               "The key was not removed").run()
        if done is None:
            return False
        self.refresh()
        return True

    # -- the buttons ------------------------------------------------------------------------------

    def _new(self) -> None:
        dialog = NewKeyDialog(self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.create_key(dialog.name.text().strip(), dialog.passphrase.text())

    def _export(self) -> None:
        name = self._selected(self.keys)
        if name is None:
            return
        target = ask_save_file(self, f"Export the public key of {name}", f"{name}.pub",
                               "Public keys (*.pub)")
        if target is not None:
            self.export_key(name, target)

    def _import(self) -> None:
        source = ask_open_file(self, "Trust a public key", "Public keys (*.pub);;All files (*)")
        if source is not None:
            self.import_key(source)

    def _remove(self) -> None:
        name = self._selected(self.trusted)
        if name is None:
            return
        answer = QMessageBox.question(
            self, "Stop trusting this key?", f"Approvals signed only with {name}'s key will "
            "no longer count for releases that require approval.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
        if answer == QMessageBox.StandardButton.Yes:
            self.remove_trusted(name)
