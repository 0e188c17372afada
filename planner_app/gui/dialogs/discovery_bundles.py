"""The release checklist's discovery bundles (gui25): the bundles the plan's lists and bounds
were found in, given as ``--discovery`` gives them on the command line. The core's one rule
(release/discovery_steps.discovery_item over require_discoveries) decides; this row only
asks for the files and says the core's line when the plan still refuses them."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QMessageBox, QPushButton, QWidget

from ...core.release.discovery import named_discoveries
from ...core.release.discovery_steps import discovery_item
from ...core.support.field_words import on_screen
from ..file_dialogs import ask_open_file
from ..session import Session

DISCOVERY_FILTER = "Release bundles (*.zip)"


class DiscoveryBundlesRow(QWidget):
    """"Discovery bundles…" and "Forget the bundles given", shown when the plan names a
    discovery or a bundle was given; ``changed`` after either."""

    changed = Signal()

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.add_button = QPushButton("Discovery bundles…")
        self.add_button.setToolTip("Give the bundle of each discovery the plan's lists or "
                                   "bounds were found in")
        self.add_button.setAccessibleName("Give a discovery bundle")
        self.add_button.clicked.connect(lambda: self.add())
        self.forget_button = QPushButton("Forget the bundles given")
        self.forget_button.clicked.connect(self.forget)
        row.addWidget(self.add_button)
        row.addWidget(self.forget_button)
        row.addStretch(1)

    def refresh(self) -> None:
        plan = self.session.plan
        named = plan is not None and bool(named_discoveries(plan))
        given = bool(self.session.discoveries)
        self.setVisible(named or given)
        self.forget_button.setVisible(given)

    def add(self, path: Path | None = None) -> None:
        """A discovery bundle for the plan (chosen in a file dialog); when the plan still
        refuses, the core's one line in a dialog (the checklist keeps it too)."""
        if path is None:
            path = ask_open_file(self, "Give a discovery bundle", DISCOVERY_FILTER)
            if path is None:
                return
        self.session.add_discovery(path)
        self.refresh()
        self.changed.emit()
        plan = self.session.plan
        found = discovery_item(plan, self.session.discoveries, self.session.home) \
            if plan is not None else None
        if found is not None and not found[0]:
            QMessageBox.warning(self, "The plan's discoveries do not match",
                                on_screen(found[1]))

    def forget(self) -> None:
        self.session.set_discoveries([])
        self.refresh()
        self.changed.emit()
