"""Release → Spending over time…: each dataset's past and planned lifetime spending against
its cap (cal26, issue 26). The core computes the forecast (core/planning/forecast.py, the
same as `planner-app ledger forecast`) on a worker; this dialog only chooses the dataset
and shows it."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from ...core.planning.forecast import Forecast, plan_forecast, timeline_datasets
from ...core.records.books import charged_to_words
from ...core.records.policy import policy_or_error
from ...core.support.errors import PlannerError
from ...core.support.words import (
    TIMELINE_COMPOSING,
    TIMELINE_EXPLAIN,
    TIMELINE_NO_DATASET,
    TIMELINE_TITLE,
)
from ..session import Session
from ..widgets.timeline_chart import TimelineChart
from ..workers import Worker, WorkerSlot


class TimelineDialog(QDialog):
    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setWindowTitle(TIMELINE_TITLE)
        self.forecast: Forecast | None = None
        self.problem: str | None = None
        self._slot = WorkerSlot()
        layout = QVBoxLayout(self)
        explain = QLabel(TIMELINE_EXPLAIN)
        explain.setWordWrap(True)
        layout.addWidget(explain)
        row = QHBoxLayout()
        row.addWidget(QLabel("Dataset:"))
        self.datasets = QComboBox()
        self.datasets.setAccessibleName("Dataset whose spending is shown")
        row.addWidget(self.datasets, 1)
        layout.addLayout(row)
        self.chart = TimelineChart()
        layout.addWidget(self.chart, 1)
        self.words = QLabel("")
        self.words.setWordWrap(True)
        layout.addWidget(self.words)
        self.ledger = QLabel(charged_to_words(policy_or_error(session.home)))
        self.ledger.setWordWrap(True)
        layout.addWidget(self.ledger)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(720, 560)
        try:
            names = timeline_datasets(session.home, session.plan)
        except PlannerError as exc:
            names, self.problem = [], str(exc)
        self.datasets.addItems(names)
        self.datasets.currentTextChanged.connect(self.show_dataset)
        if names:
            self.show_dataset(names[0])
        else:
            self.words.setText(self.problem or TIMELINE_NO_DATASET)
            self.chart.show_forecast(None)

    def show_dataset(self, name: str) -> None:
        """Compute the forecast of ``name`` on a worker, then draw it."""
        self.forecast = None
        self.words.setText(TIMELINE_COMPOSING.format(name=name))
        home, plan = self.session.home, self.session.plan
        worker = Worker(lambda _progress, _cancel: plan_forecast(home, name, plan))
        worker.signals.finished.connect(self._shown)
        worker.signals.failed.connect(self._failed)
        self._slot.start(worker)

    def _shown(self, found: Forecast) -> None:
        if found.dataset != self.datasets.currentText():
            return  # an earlier choice's answer
        self.forecast = found
        self.chart.show_forecast(found)
        self.words.setText(found.words())

    def _failed(self, exc: object) -> None:
        self.problem = str(exc) if isinstance(exc, PlannerError) else type(exc).__name__
        self.words.setText(self.problem)
        self.chart.show_forecast(None)
