"""The bundle viewer's check of a release's lists and bounds found privately (gui25), as
``planner-app verify BUNDLE --discovery DISCOVERY.zip`` checks them: the reader gives the
discovery bundles, the core's verdict (release/discovery_verdict) decides and words it."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from ...core.release.discovery_verdict import APP, DiscoveryVerdict, bundle_discovery_verdict
from ...core.support.errors import PlannerError
from ..file_dialogs import ask_open_file

COLOURS = {"✓": "#1e8449", "✗": "#c0392b", "⚠": "#b9770e"}


class BundleDiscoveries(QWidget):
    """The lines saying whether the release's discoveries were checked, and the button."""

    #: the problems of the discovery bundles given (empty: none), for the viewer's verdict
    checked = Signal(list)

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
        """After the bundle itself verified: the core's lines, when its plan names a
        discovery (a plan that cannot be read again shows none: the verdict named it)."""
        try:
            verdict = bundle_discovery_verdict(self.bundle, [], APP) if valid else None
        except PlannerError:
            verdict = None
        self.setVisible(verdict is not None and verdict.names_discoveries)
        if verdict is not None:
            self._say(verdict)

    def add(self, path: Path | None = None) -> bool | None:
        """A discovery bundle given; the core's verdict on all given so far: True when no
        problem was found, False when one was (None when nothing was chosen)."""
        if path is None:
            path = ask_open_file(self, "The discovery bundle", "Release bundles (*.zip)")
            if path is None:
                return None
        self.given.append(Path(path))
        try:
            verdict = bundle_discovery_verdict(self.bundle, self.given, APP)
        except PlannerError as exc:  # refused (not needed, not valid): said, not kept
            self.given.pop()
            # walk25c: above the verdict on the bundles still given, so the lines saying
            # what is not checked yet stay
            self._say(bundle_discovery_verdict(self.bundle, self.given, APP),
                      [("✗", str(exc))])
            return False
        self._say(verdict)
        self.checked.emit(list(verdict.problems))
        if verdict.problems:
            self.given.pop()  # a bundle refused is not kept: the reader may give another
        return not verdict.problems

    def _say(self, verdict: DiscoveryVerdict,
             refused: list[tuple[str, str]] | None = None) -> None:
        from ...core.support.words import DISCOVERY_NOT_VALID

        self._lines((refused or [])
                    + [("✗", DISCOVERY_NOT_VALID.format(problem=p)) for p in verdict.problems]
                    + [("✓", c[:1].upper() + c[1:]) for c in verdict.checks]
                    + [("⚠", n) for n in verdict.not_checked])

    def _lines(self, lines: list[tuple[str, str]]) -> None:
        self.line.setText("<br>".join(
            f"<span style='color:{COLOURS[mark]}'>{mark} {html.escape(text)}</span>"
            for mark, text in lines))
