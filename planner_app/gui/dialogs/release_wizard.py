"""The release wizard: a checklist before anything is spent, a confirm step in plain words, the
release in a worker with progress, then the results with charts. It calls core.publish."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtWidgets import (QCheckBox, QFileDialog, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QMessageBox, QProgressBar, QPushButton, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget, QWizard, QWizardPage)

from ...core.errors import PlannerError
from ...core.ledger import BudgetExceeded, LedgerError
from ...core.pending import list_pending
from ...core.publish import PublishResult, ReleaseUnfinished, publish
from ...core.resume import resume_release
from ...core.report import cell_name, format_interval, format_number
from ...core.review import ApprovalRequired, approval_status
from ..session import Session
from ..workers import Worker, WorkerSlot


def checklist(session: Session) -> list[tuple[bool, str]]:
    """(ok, text) for every condition a release needs."""
    plan = session.plan
    items: list[tuple[bool, str]] = []
    if plan is None:
        return [(False, "Open or make a plan first.")]
    items.append((session.table is not None,
                  f"The table is loaded ({session.table.name})" if session.table is not None
                  else "Open the table to release (File → Open data…)."))
    items.append((bool(plan.queries), f"{len(plan.queries)} statistics to release"
                  if plan.queries else "Add at least one statistic."))
    missing = []
    for q in plan.queries:
        j = q.justification or {}
        if q.kind in ("sum", "mean", "variance", "quantile") and not j.get("bounds"):
            missing.append(f"{q.title} (bounds)")
        if (q.categories is not None or q.group_by is not None) and not (
                j.get("categories") or j.get("keys")):
            missing.append(f"{q.title} (list)")
    items.append((not missing, "Every bound and list is declared public with a reason"
                  if not missing else "Give a reason for: " + ", ".join(missing)))
    total = session.total()
    within = total.epsilon <= plan.budget.epsilon * (1 + 1e-12) and \
        total.delta <= plan.budget.delta
    items.append((within, f"The total ε = {total.epsilon:.4g} is within this release's budget "
                  f"ε = {plan.budget.epsilon:g}" if within else
                  f"Over budget: the total ε = {total.epsilon:.4g} exceeds ε = "
                  f"{plan.budget.epsilon:g}. Lower some ε or raise the budget."))
    state = session.lifetime()
    if state is None:
        items.append((False, "The budget ledger cannot be read."))
    else:
        left = state.remaining_epsilon
        items.append((total.epsilon <= left,
                      f"The dataset has ε = {left:.4g} left of its lifetime cap "
                      f"{state.cap.epsilon:g}" + ("" if total.epsilon <= left else
                                                  ": not enough for this release")))
    if session.settings.require_approval:
        status = approval_status(plan)
        items.append((status.state == "approved",
                      "Approval: " + status.sentence))
    return items


class ChecklistPage(QWizardPage):
    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.setTitle("Before anything is spent")
        self.setSubTitle("Every item must hold. Nothing has been charged yet.")
        layout = QVBoxLayout(self)
        self.items = QLabel()
        self.items.setWordWrap(True)
        layout.addWidget(self.items)
        self.confirm_unit = QCheckBox()
        self.confirm_unit.toggled.connect(self.completeChanged)
        layout.addWidget(self.confirm_unit)
        # a release that was charged but whose bundle was not written: offer to finish it
        self.unfinished = QLabel()
        self.unfinished.setWordWrap(True)
        self.resume_button = QPushButton("Complete the unfinished release")
        self.resume_button.setAccessibleName("Complete the unfinished release from its saved "
                                             "noised values")
        self.resume_button.clicked.connect(self._resume)
        layout.addWidget(self.unfinished)
        layout.addWidget(self.resume_button)
        self.pending: list = []
        layout.addStretch(1)

    def initializePage(self) -> None:  # noqa: N802
        plan = self.session.plan
        rows = checklist(self.session)
        self.ok = all(ok for ok, _ in rows)
        self.items.setText("<br>".join(("✓ " if ok else "✗ ") + text for ok, text in rows))
        if plan is not None:
            unit = plan.privacy_unit
            who = ("each row of the table is a different person" if unit.kind == "row" else
                   f"a person is {unit.id_column}, with at most {unit.max_rows} rows")
            self.confirm_unit.setText(f"I confirm the unit of privacy: {who}.")
        self.pending = list_pending(self.session.home, plan.dataset.name) if plan else []
        if self.pending:
            first = self.pending[0]
            self.unfinished.setText(
                f"<p><b>An earlier release of {plan.dataset.name} was charged but its bundle "
                f"was not written</b> (release {first.release_id[:12]}…, to "
                f"{first.out.name}). Its noised values are saved: completing it writes the "
                "bundle from them, with no new noise and no new charge.</p>")
        self.unfinished.setVisible(bool(self.pending))
        self.resume_button.setVisible(bool(self.pending))

    def _resume(self) -> None:
        wizard = self.wizard()
        if self.pending and isinstance(wizard, ReleaseWizard):
            wizard.resume_id = self.pending[0].release_id
            self.completeChanged.emit()
            wizard.next()

    def isComplete(self) -> bool:  # noqa: N802
        wizard = self.wizard()
        if isinstance(wizard, ReleaseWizard) and wizard.resume_id is not None:
            return True
        return getattr(self, "ok", False) and self.confirm_unit.isChecked()


class ConfirmPage(QWizardPage):
    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.setTitle("Confirm the release")
        layout = QVBoxLayout(self)
        self.text = QLabel()
        self.text.setWordWrap(True)
        layout.addWidget(self.text)
        row = QHBoxLayout()
        self.path = QLineEdit()
        self.path.setAccessibleName("Where to write the release bundle")
        browse = QPushButton("Choose…")
        row.addWidget(QLabel("Bundle:"))
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        layout.addLayout(row)
        layout.addStretch(1)
        browse.clicked.connect(self._browse)
        self.path.textChanged.connect(self.completeChanged)

    def _browse(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, "Write the release bundle", self.path.text(),
                                              "Release bundles (*.zip)")
        if name:
            self.path.setText(name if name.endswith(".zip") else name + ".zip")

    def initializePage(self) -> None:  # noqa: N802
        plan = self.session.plan
        assert plan is not None
        total = self.session.total()
        state = self.session.lifetime()
        left = (state.remaining_epsilon - total.epsilon) if state else float("nan")
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        folder = (self.session.doc.path.parent if self.session.doc.path else
                  self.session.table_path.parent if self.session.table_path else Path.home())
        if not self.path.text():
            self.path.setText(str(folder / f"{plan.dataset.name}-release-{stamp}.zip"))
        self.text.setText(
            f"<p>You are about to release <b>{len(plan.queries)} statistics</b> about the "
            f"dataset <b>{plan.dataset.name}</b>.</p>"
            f"<p>This spends <b>ε = {total.epsilon:.4g}</b> and δ = {total.delta:.3g} of its "
            f"privacy budget, for good: the noise is drawn once and cannot be taken back. "
            f"Afterwards <b>ε = {left:.4g}</b> will be left of the dataset's lifetime budget.</p>"
            "<p>The budget ledger is charged first; then the noise is added and the bundle is "
            "written.</p>")

    def isComplete(self) -> bool:  # noqa: N802
        return self.path.text().strip().endswith(".zip")


class ProgressPage(QWizardPage):
    def __init__(self, session: Session, wizard: ReleaseWizard) -> None:
        super().__init__()
        self.session = session
        self.wizard_ = wizard
        self.setTitle("Releasing")
        layout = QVBoxLayout(self)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.bar)
        layout.addWidget(self.status)
        layout.addStretch(1)
        self.done = False
        self.slot = WorkerSlot()

    def initializePage(self) -> None:  # noqa: N802
        self.done = False
        plan = self.session.plan
        table = self.session.table
        out = Path(self.wizard_.confirm.path.text().strip())
        require = self.session.settings.require_approval
        home = self.session.home
        resume_id = self.wizard_.resume_id
        # the work has started (and may have charged): there is no way back from here
        self.wizard_.button(QWizard.WizardButton.BackButton).setEnabled(False)

        def work(progress, cancel):  # type: ignore[no-untyped-def]
            if resume_id is not None:  # no new noise, no new charge
                return resume_release(home, resume_id, progress=progress)
            return publish(plan, table, out, home, require_approval=require,
                           progress=progress)

        worker = Worker(work)
        worker.signals.progress.connect(self._progress)
        worker.signals.finished.connect(self._finished)
        worker.signals.failed.connect(self._failed)
        self.slot.start(worker)

    def _progress(self, fraction: float, message: str) -> None:
        self.bar.setValue(int(fraction * 1000))
        self.status.setText(message)

    def _finished(self, result: PublishResult) -> None:
        self.done = True
        self.wizard_.result = result
        self.bar.setValue(1000)
        self.status.setText(f"Released to {result.bundle_path}.")
        self.session.refresh_lifetime()
        self.completeChanged.emit()
        self.wizard_.next()

    def _failed(self, exc: object) -> None:
        what = {
            BudgetExceeded: ("Refused: not enough budget", "Lower some statistics' ε, or ask "
                             "whoever manages the dataset's lifetime cap."),
            ApprovalRequired: ("Refused: approval needed", "Have a privacy officer review this "
                               "exact plan (Release → Review this plan…), then try again."),
            LedgerError: ("The budget ledger cannot be used", "Nothing was released. Check "
                          "that the app's folder is writable and no other release is "
                          "running, then try again."),
            ReleaseUnfinished: ("The bundle was not written", "Fix what the message names, "
                                "then open Release again and choose \u201cComplete the "
                                "unfinished release\u201d: it writes the bundle from the saved "
                                "values, with no new noise and no new charge."),
        }
        title, advice = next(((t, a) for cls, (t, a) in what.items() if isinstance(exc, cls)),
                             ("The release did not happen", "Fix what the message names and "
                              "try again."))
        text = str(exc) if isinstance(exc, PlannerError) else type(exc).__name__
        if isinstance(exc, ReleaseUnfinished):
            self.session.refresh_lifetime()  # the charge stands: the meter shows it
        self.status.setText(f"{title}. {text}")
        QMessageBox.warning(self, title, f"{text}\n\n{advice}")
        self.wizard_.reject()

    def isComplete(self) -> bool:  # noqa: N802
        return self.done


class ResultsPage(QWizardPage):
    def __init__(self, wizard: ReleaseWizard) -> None:
        super().__init__()
        self.wizard_ = wizard
        self.setTitle("Released")
        layout = QVBoxLayout(self)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["Statistic", "Cell", "Value", "Interval (95%)"])
        self.table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        layout.addWidget(self.table, 1)
        self.figure = Figure(figsize=(6, 2.6))
        self.canvas = FigureCanvasQTAgg(self.figure)
        self.canvas.setAccessibleName("Released estimates with their intervals")
        layout.addWidget(self.canvas, 1)

    def initializePage(self) -> None:  # noqa: N802
        result = self.wizard_.result
        if result is None:
            return
        rows = [v.to_dict() for r in result.releases for v in r.values]
        self.summary.setText(f"Bundle written to <b>{result.bundle_path}</b> (SHA-256 "
                             f"{result.bundle_sha256[:16]}…). Lifetime ε left for "
                             f"{result.ledger.dataset!r}: {result.ledger.remaining_epsilon:.4g}.")
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            for j, text in enumerate((r["label"], cell_name(r), format_number(r["value"]),
                                      format_interval(r))):
                self.table.setItem(i, j, QTableWidgetItem(text))
        draw_estimates(self.figure, result)
        self.canvas.draw_idle()


def draw_estimates(figure: Figure, result: PublishResult) -> None:
    """The largest histogram with error bars, or else each estimate with its interval."""
    figure.clear()
    ax = figure.add_subplot(111)
    hist = max((r for r in result.releases if len(r.values) > 1), key=lambda r: len(r.values),
               default=None)
    chosen = hist.values if hist is not None else [v for r in result.releases for v in r.values]
    chosen = [v for v in chosen if v.value is not None][:24]
    labels = [str(v.cell if v.cell is not None else v.group if v.group is not None
                  else v.label)[:14] for v in chosen]
    values = [float(v.value) for v in chosen]
    lows = [float(v.value) - float(v.low) if v.low is not None else 0 for v in chosen]
    highs = [float(v.high) - float(v.value) if v.high is not None else 0 for v in chosen]
    ax.bar(range(len(values)), values, color="#7fb3d5", yerr=[lows, highs], capsize=3)
    ax.set_xticks(range(len(values)), labels, rotation=30, ha="right", fontsize=8)
    ax.set_title((hist.values[0].label if hist is not None else "Estimates")
                 + " (bars: 95% intervals)", fontsize=9)
    figure.subplots_adjust(left=0.1, right=0.98, top=0.88, bottom=0.3)


class ReleaseWizard(QWizard):
    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.result: PublishResult | None = None
        self.resume_id: str | None = None  # set when completing an unfinished release
        self.setWindowTitle("Release")
        self.resize(760, 620)
        self.checklist = ChecklistPage(session)
        self.confirm = ConfirmPage(session)
        self.progress = ProgressPage(session, self)
        self.results = ResultsPage(self)
        for page in (self.checklist, self.confirm, self.progress, self.results):
            self.addPage(page)
        self.setButtonText(QWizard.WizardButton.CommitButton, "Spend the budget and release")
        self.confirm.setCommitPage(True)

    def nextId(self) -> int:  # noqa: N802
        """Completing an unfinished release skips the confirm step: nothing is spent."""
        if self.resume_id is not None and self.currentPage() is self.checklist:
            return self.pageIds()[2]
        return super().nextId()
