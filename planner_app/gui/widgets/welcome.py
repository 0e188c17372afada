"""The first-run welcome: open a table, open the demo, or open a plan or bundle to review."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

INTRO = (
    "<h2>Publish statistics about people, with differential privacy</h2>"
    "<p>planner_app adds carefully measured random noise to the statistics you publish, so "
    "that nobody can learn much about any one person from them. You choose the statistics; "
    "the app shows how accurate each will be and what the privacy budget (ε) means in plain "
    "words, before anything is released.</p>"
)


class WelcomePage(QWidget):
    openTable = Signal()
    openDemo = Signal()
    openReview = Signal()

    def __init__(self) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        layout.setAlignment(Qt.AlignmentFlag.AlignCenter)
        intro = QLabel(INTRO)
        intro.setWordWrap(True)
        intro.setMaximumWidth(640)
        layout.addWidget(intro)
        choices = (
            ("Open a table…", "Start a plan from your own CSV, Excel or Parquet file",
             self.openTable),
            ("Open the demo", "A synthetic survey of 2,000 people with a plan that uses every "
                              "kind of statistic", self.openDemo),
            ("Open a plan or bundle to review…", "For privacy officers and recipients: read a "
                                                 "plan without its data, or verify a release",
             self.openReview),
        )
        for title, tip, signal in choices:
            button = QPushButton(title)
            button.setToolTip(tip)
            button.setMinimumHeight(44)
            button.setMaximumWidth(640)
            button.clicked.connect(signal)
            layout.addWidget(button)
            note = QLabel(tip)
            note.setMaximumWidth(640)
            note.setWordWrap(True)
            layout.addWidget(note)
