"""The owner's comparison of a released synthetic table with the real one, on screen only:
the total variation distance of every one- and two-way marginal as a bar chart (core
release.synthetic_compare computes it, in a worker; nothing of it is ever written)."""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from ...core.release.synthetic_compare import MarginalDistance, compare_bundle_with_table
from ...core.support.errors import PlannerError
from ..session import Session
from ..workers import Worker, WorkerSlot

MAX_BARS = 40  # the worst marginals when a table has many pairs
MEASURED, INFERRED = "#2471a3", "#b9770e"


class SyntheticCompareDialog(QDialog):
    def __init__(self, session: Session, bundle: Path, query_ids: list[str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.bundle = bundle
        self.distances: list[MarginalDistance] | None = None
        self.setWindowTitle("Synthetic table against the real one (for you only)")
        self.resize(760, 560)
        layout = QVBoxLayout(self)
        about = QLabel("For you only: this reads your private table and is never saved, "
                       "exported or logged. Each bar is the total variation distance between "
                       "a marginal of the synthetic table and the same marginal of the real "
                       "rows it counts (0 is identical, 1 is all wrong).")
        about.setWordWrap(True)
        layout.addWidget(about)
        chooser = QHBoxLayout()
        chooser.addWidget(QLabel("Synthetic table:"))
        self.choice = QComboBox()
        self.choice.setAccessibleName("Synthetic table compared")
        plan = session.plan
        for qid in query_ids:
            self.choice.addItem(plan.query(qid).title if plan is not None else qid, qid)
        chooser.addWidget(self.choice, 1)
        layout.addLayout(chooser)
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.figure = Figure(figsize=(6.5, 3.6))
        self.canvas = FigureCanvasQTAgg(self.figure)
        self.canvas.setAccessibleName("Total variation distance of each marginal")
        layout.addWidget(self.canvas, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.workers = WorkerSlot()
        self.choice.currentIndexChanged.connect(lambda _i: self.compare())
        self.compare()

    def compare(self) -> None:
        """Compute in a worker (the table may be large); the chart follows its answer."""
        plan, table, qid = self.session.plan, self.session.table, self.choice.currentData()
        if plan is None or table is None or qid is None:
            self.status.setText("Open the table the release was made from to compare.")
            return
        self.status.setText(f"Comparing with {table.name}…")
        bundle = self.bundle
        worker = Worker(lambda _p, _c: compare_bundle_with_table(plan, table, bundle, qid))
        worker.signals.finished.connect(self.show_distances)
        worker.signals.failed.connect(self._failed)
        self.workers.start(worker)

    def _failed(self, exc: object) -> None:
        self.status.setText(str(exc) if isinstance(exc, PlannerError) else
                            f"The comparison could not be made ({type(exc).__name__}).")

    def show_distances(self, distances: object) -> None:
        assert isinstance(distances, list)
        self.distances = distances
        shown = sorted(distances, key=lambda d: d.tvd, reverse=True)[:MAX_BARS]
        ones = [d.tvd for d in distances if len(d.columns) == 1]
        twos = [d.tvd for d in distances if len(d.columns) == 2]
        mean = (f"Average: one-way {sum(ones) / len(ones):.3f}" if ones else "") + (
            f", two-way {sum(twos) / len(twos):.3f}" if twos else "") + "."
        more = (f" The {MAX_BARS} largest of {len(distances)} marginals are drawn."
                if len(distances) > MAX_BARS else "")
        self.status.setText(f"{mean}{more} Blue: measured (every column, and the pairs the "
                            "release chose); orange: a pair only inferred through the tree.")
        self.figure.clear()
        ax = self.figure.add_subplot(111)
        names = [" × ".join(d.columns) for d in shown][::-1]
        values = [d.tvd for d in shown][::-1]
        colours = [MEASURED if d.measured else INFERRED for d in shown][::-1]
        ax.barh(range(len(values)), values, color=colours)
        ax.set_yticks(range(len(values)), names, fontsize=8)
        ax.set_xlabel("total variation distance (0 = same as the real table)")
        top = max(values, default=0.0)
        ax.set_xlim(0, max(0.05, min(1.0, top * 1.25)))
        for y, v in enumerate(values):
            ax.text(v, y, f" {v:.3f}", va="center", fontsize=8)
        ax.grid(True, axis="x", alpha=0.3)
        self.figure.tight_layout()
        self.canvas.draw_idle()
