"""The owner's comparison of a released synthetic table with the real one, on screen only:
the total variation distance of every one- and two-way marginal as a bar chart (core
release.synthetic_compare computes it, in a worker; nothing of it is ever written).

It opens from the release wizard's last page (the session's plan and table), and later from
the bundle viewer's "Synthetic tables" tab (the bundle's own plan, and the table open in the
app or a data file the owner chooses, read in place and never loaded into the session)."""

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
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...core.data.tables import Table, open_table
from ...core.model import Plan
from ...core.planning.charts import text_style
from ...core.release.synthetic_compare import MarginalDistance, compare_bundle_with_table
from ...core.support.errors import PlannerError
from ...core.support.fonts import chart_text
from ...core.support.words import SYNTH_COMPARE_INFERRED
from ..file_dialogs import ask_open_file
from ..session import Session
from ..widgets.screen_fit import fit_to_screen
from ..workers import Worker, WorkerSlot

MAX_BARS = 40  # the worst marginals when a table has many pairs
MEASURED, INFERRED = "#2471a3", "#b9770e"


class SyntheticCompareDialog(QDialog):
    def __init__(self, session: Session, bundle: Path, query_ids: list[str],
                 parent: QWidget | None = None, plan: Plan | None = None) -> None:
        """``plan``: the plan ``bundle`` was released from (the bundle's own, in the viewer);
        None is the session's (the wizard's last page, just after the release)."""
        super().__init__(parent)
        self.session = session
        self.bundle = bundle
        self.plan = plan
        self.data: Path | None = None  # a data file the owner chose here (else the session's)
        self.distances: list[MarginalDistance] | None = None
        self.setWindowTitle("Synthetic table against the real one (for you only)")
        fit_to_screen(self, 760, 560)
        layout = QVBoxLayout(self)
        about = QLabel("For you only: this reads your private table and is never saved, "
                       "exported or logged. Each bar is the total variation distance between "
                       "a marginal of the synthetic table and the same marginal of your real "
                       "data (0 is identical, 1 is all wrong) — not the bundle viewer's "
                       "distance, which is to the released noised counts.")
        about.setWordWrap(True)
        layout.addWidget(about)
        chooser = QHBoxLayout()
        chooser.addWidget(QLabel("Synthetic table:"))
        self.choice = QComboBox()
        self.choice.setAccessibleName("Synthetic table compared")
        plan = plan or session.plan
        for qid in query_ids:
            self.choice.addItem(plan.query(qid).title if plan is not None else qid, qid)
        chooser.addWidget(self.choice, 1)
        self.data_button = QPushButton("Choose the data file…")
        self.data_button.setToolTip("The table this release was made from; it is read here "
                                    "only, not opened in the app")
        self.data_button.setAccessibleName("Choose the data file to compare with")
        self.data_button.clicked.connect(lambda: self.choose_data())
        chooser.addWidget(self.data_button)
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

    def choose_data(self, path: str | Path | None = None) -> None:
        """Compare with a data file (asked for when ``path`` is None): read in the worker,
        never loaded into the app, and forgotten with this window."""
        if path is None:
            path = ask_open_file(self, "The data the release was made from",
                                 "Tables (*.csv *.tsv *.txt *.parquet *.xlsx);;All files (*)")
        if path:
            self.data = Path(path)
            self.compare()

    def method(self) -> str:
        """The chosen table's method in the plan it was released from (mst or aim)."""
        plan = self.plan or self.session.plan
        qid = self.choice.currentData()
        if plan is None or qid is None:
            return "mst"
        return str(plan.query(qid).mechanism)

    def compare(self) -> None:
        """Compute in a worker (the table may be large); the chart follows its answer."""
        plan = self.plan or self.session.plan
        table: Table | None = self.session.table
        data, qid = self.data, self.choice.currentData()
        if plan is None or (table is None and data is None) or qid is None:
            self.status.setText("Choose the data file the release was made from to compare "
                                "(it is read here only, for you).")
            return
        name = data.name if data is not None else table.name if table is not None else ""
        self.status.setText(f"Comparing with {name}…")
        self.distances = None  # the chart of another file or table is not this one's
        self.figure.clear()
        self.canvas.draw_idle()
        bundle = self.bundle

        def work(_p: object, _c: object) -> list[MarginalDistance]:
            real = open_table(data) if data is not None else table
            assert real is not None
            return compare_bundle_with_table(plan, real, bundle, qid)

        worker = Worker(work)  # type: ignore[arg-type]
        # only the latest request's answer is shown (an earlier one may still finish)
        worker.signals.finished.connect(
            lambda result: self.show_distances(result) if self.workers.current is worker
            else None)
        worker.signals.failed.connect(
            lambda exc: self._failed(exc) if self.workers.current is worker else None)
        self.workers.start(worker)

    def _failed(self, exc: object) -> None:
        text = str(exc)
        if isinstance(exc, PlannerError) and text.startswith("plan: "):  # the table's fit
            text = f"This is not the table the bundle was released from: {text[6:]}"
        self.status.setText(text if isinstance(exc, PlannerError) else
                            f"The comparison could not be made ({type(exc).__name__}).")

    def show_distances(self, distances: object) -> None:
        assert isinstance(distances, list)
        self.distances = distances
        shown = sorted(distances, key=lambda d: d.tvd, reverse=True)[:MAX_BARS]
        ones = [d.tvd for d in distances if len(d.columns) == 1]
        twos = [d.tvd for d in distances if len(d.columns) == 2]
        mean = (f"Average distance to your real data: one-way {sum(ones) / len(ones):.3f}"
                if ones else "") + (
            f", two-way {sum(twos) / len(twos):.3f}" if twos else "") + "."
        more = (f" The {MAX_BARS} largest of {len(distances)} marginals are drawn."
                if len(distances) > MAX_BARS else "")
        name = self.data.name if self.data is not None else \
            self.session.table.name if self.session.table is not None else ""
        inferred = SYNTH_COMPARE_INFERRED.get(self.method(), SYNTH_COMPARE_INFERRED["mst"])
        self.status.setText(f"Compared with {name}. {mean}{more} Blue: measured (every "
                            f"column, and the pairs the release chose); orange: {inferred}.")
        self.figure.clear()
        ax = self.figure.add_subplot(111)
        # column names as every chart draws them: CJK from a fallback font, else marked
        names = [chart_text(" × ".join(d.columns)) for d in shown][::-1]
        values = [d.tvd for d in shown][::-1]
        colours = [MEASURED if d.measured else INFERRED for d in shown][::-1]
        ax.barh(range(len(values)), values, color=colours)
        ax.set_yticks(range(len(values)), names, fontsize=8, **text_style())
        ax.set_xlabel("total variation distance to your real data (0 = the same)")
        top = max(values, default=0.0)
        ax.set_xlim(0, max(0.05, min(1.0, top * 1.25)))
        for y, v in enumerate(values):
            ax.text(v, y, f" {v:.3f}", va="center", fontsize=8)
        ax.grid(True, axis="x", alpha=0.3)
        self.figure.tight_layout()
        self.canvas.draw_idle()
