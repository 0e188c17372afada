"""The bundle viewer's check of a release's lists and bounds found privately (gui25), as
``planner-app verify BUNDLE --discovery DISCOVERY.zip`` checks them: the reader gives the
discovery bundles, the core's rule (release/discovery_steps.bundle_discovery_item) decides."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from ...core.release.discovery_steps import bundle_discovery_item, bundle_plan, found_in
from ...core.support.errors import PlannerError
from ..file_dialogs import ask_open_file

NOT_CHECKED = ("Its lists or bounds say they were found privately (release {releases}): "
               "not checked until you give the discovery bundle (“Check its discoveries…”).")


class BundleDiscoveries(QWidget):
    """A line saying whether the release's discoveries were checked, and the button."""

    def __init__(self, bundle: Path) -> None:
        super().__init__()
        self.bundle = bundle
        self.given: list[Path] = []
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.line = QLabel()
        self.line.setWordWrap(True)
        self.button = QPushButton("Check its discoveries…")
        self.button.setToolTip("Give the discovery bundle its lists or bounds were found in")
        self.button.clicked.connect(lambda: self.add())
        row.addWidget(self.line, 1)
        row.addWidget(self.button)
        self.setVisible(False)

    def show_for(self, valid: bool) -> None:
        """After the bundle itself verified: the line, when its plan names a discovery."""
        try:
            releases = found_in(bundle_plan(self.bundle)) if valid else []
        except PlannerError:
            releases = []
        self.setVisible(bool(releases))
        if releases:
            self.line.setText("<span style='color:#b9770e'>⚠ " + html.escape(
                NOT_CHECKED.format(releases=", ".join(r[:12] for r in releases))) + "</span>")

    def add(self, path: Path | None = None) -> bool | None:
        """A discovery bundle given; the core's verdict on all given so far (None when
        nothing was chosen)."""
        if path is None:
            path = ask_open_file(self, "The discovery bundle", "Release bundles (*.zip)")
            if path is None:
                return None
        self.given.append(Path(path))
        item = bundle_discovery_item(self.bundle, self.given)
        if item is None:
            return None
        ok, text = item
        colour = "#1e8449" if ok else "#c0392b"
        self.line.setText(f"<span style='color:{colour}'>{'✓' if ok else '✗'} "
                          f"{html.escape(text)}</span>")
        if not ok:
            self.given.pop()  # a bundle refused is not kept: the reader may give another
        return ok
