"""The release wizard: a checklist before anything is spent, a confirm step in plain words, the
release in a worker with progress, then the results with charts. It calls core.publish."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from ...core.kinds.params import bounds_of
from ...core.model import Plan
from ...core.planning.changes import OpChanges
from ...core.planning.charts import ChartDrawing
from ...core.planning.preview import Chart
from ...core.planning.readiness import WARN, NotReady, unit_sentence
from ...core.records.crosscheck import DISAGREE_ADVICE, DISAGREE_TITLE
from ...core.records.headroom import headroom, headroom_sentence
from ...core.records.keys import SecretKey
from ...core.records.ledger import BudgetExceeded, LedgerDisagrees, LedgerError
from ...core.records.policy import PolicyError, PolicyRefused
from ...core.records.programme import ProgrammeRefused
from ...core.records.review import ApprovalRequired
from ...core.release.consistent import (
    consistent_cell_texts,
    consistent_summary,
    headline_chart,
)
from ...core.release.discovery import require_discoveries
from ...core.release.discovery_steps import discovery_item, in_app
from ...core.release.pending import list_pending
from ...core.release.publish import PublishResult, ReleaseUnfinished, publish
from ...core.release.report import cell_name, format_interval, format_value
from ...core.release.resume import pending_signer, resume_release
from ...core.support.errors import InputError, PlannerError
from ...core.support.field_words import on_screen
from ...core.support.numbers import shown
from ...core.support.outputs import bundle_file_name, default_output_folder
from ...core.support.words import (
    PROGRAMME_REFUSED_ADVICE,
    PROGRAMME_REFUSED_TITLE,
    confidence_percent,
)
from ..file_dialogs import ask_save_bundle
from ..session import Answered, Session
from ..signing import ask_signing_key
from ..table_link import problem_line
from ..widgets.screen_fit import fit_to_screen
from ..workers import WorkerSlot
from .discovery_bundles import DiscoveryBundlesRow


def checklist(session: Session) -> list[tuple[bool, str]]:
    """(ok, text) for every release rule of the core (core/planning/readiness.py) except the unit of
    privacy, which the page asks as a tick box; a warning is (True, "⚠ …")."""
    if session.plan is None:
        return [(False, "Open or make a plan first.")]
    items = [(not r.failed, ("⚠ " if r.status == WARN else "") + r.line)
             for r in session.release_rules().results if r.rule != "unit"]
    if session.table is not None:  # the plan against the table (core/data/fit.py)
        items.insert(1, fit_item(session))
    # gui25: the lists and bounds found privately, against the bundles given (--discovery)
    found = discovery_item(session.plan, session.discoveries, session.home)
    if found is not None:
        items.append(found)
    return items


def _mark(ok: bool, text: str) -> str:
    lines = text.split("\n")  # an item may list several problems, one per line
    body = escape(lines[0]) + "".join(f"<br>&nbsp;&nbsp;&nbsp;• {escape(line)}"
                                      for line in lines[1:])
    return ("" if text.startswith("⚠") else "✓ ") + body if ok else "✗ " + body


def fit_item(session: Session) -> tuple[bool, str]:
    """The plan against the loaded table (the core's one rule: columns, id column, types,
    yes/no values), checked before the confirmation page."""
    assert session.table is not None
    name = session.table.name
    problems = session.ask_fit_problems()  # on a worker for a large table
    if problems is None:  # not ready until the answer arrives (dataAnswered)
        return False, f"Checking the plan against {name}…"
    if not problems:
        return True, (f"The plan fits {name}: its columns, id column, column types and yes/no "
                      "values")
    lines = [problem_line(p, session.table.name) for p in problems[:5]]
    if len(problems) > 5:
        lines.append(f"… and {len(problems) - 5} more")
    return False, "\n".join([f"The plan does not fit {name}: edit the plan or open its own "
                              "table.", *lines])


def statistic_notes(session: Session) -> list[str]:
    """The core's plain-word warnings per statistic (useless ±, a quantile too costly)."""
    from ...core.planning.check import statistic_warnings

    plan = session.plan
    if plan is None:
        return []
    rows = plan.dataset.expected_rows  # public: the release's own rule reads this one
    return [f"{q.title}: {on_screen(w)}" for q in plan.queries
            for w in statistic_warnings(q, session.accuracy(q), rows)]


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
        self.notes = QLabel()  # statistics that will say almost nothing (not a refusal)
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #b9770e;")
        layout.addWidget(self.notes)
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
        # gui25: the discovery bundles the plan's lists and bounds were found in
        self.discovery = DiscoveryBundlesRow(session)
        self.discovery.changed.connect(self._discoveries_changed)
        layout.addWidget(self.discovery)
        self.pending: list = []
        layout.addStretch(1)
        session.dataAnswered.connect(self._data_answered)

    def _data_answered(self, answer: Answered) -> None:
        """A large table's fit arrived from its worker: the checklist as it now stands."""
        if answer in (Answered.FIT, Answered.FILE) and self.wizard() is not None and \
                self.wizard().currentPage() is self:
            self._show_items()
            self.completeChanged.emit()

    def _show_items(self) -> None:
        rows = checklist(self.session)
        self.ok = all(ok for ok, _ in rows)
        self.items.setText("<br>".join(_mark(ok, text) for ok, text in rows))
        self.discovery.refresh()

    def _discoveries_changed(self) -> None:
        self._show_items()
        self.completeChanged.emit()

    def initializePage(self) -> None:  # noqa: N802
        self.session.refresh_lifetime()  # a release from the command line may have spent some
        plan = self.session.plan
        self._show_items()
        self.notes.setText("\n".join(f"⚠ {w}" for w in statistic_notes(self.session)))
        if plan is not None:
            self.confirm_unit.setText(
                f"I confirm the unit of privacy: {unit_sentence(plan.privacy_unit)}.")
        self.pending = list_pending(self.session.home, plan.dataset.name) if plan else []
        if self.pending and plan is not None:
            first = self.pending[0]
            self.unfinished.setText(
                f"<p><b>An earlier release of {escape(plan.dataset.name)} was charged but its "
                f"bundle was not written</b> (release {first.release_id[:12]}…, to "
                f"{escape(first.out.name)}). Its noised values are saved: completing it writes the "
                "bundle from them, with no new noise and no new charge.</p>")
        self.unfinished.setVisible(bool(self.pending))
        self.resume_button.setVisible(bool(self.pending))

    def _resume(self) -> None:
        wizard = self.wizard()
        if self.pending and isinstance(wizard, ReleaseWizard):
            # a signed release is completed with the key it names: asked before anything
            signer = pending_signer(self.session.home, self.pending[0].release_id)
            wizard.resume_unsigned = False
            if signer is not None and signer not in {
                    k.name for k in self.session.signing_keys()}:  # the key was lost
                answer = QMessageBox.question(
                    self, "The signing key is missing", f"This release was to be signed with "
                    f"the key {signer}, which is no longer in this app's folder. Complete it "
                    "without a signature? No new noise is drawn and nothing more is charged; "
                    "the audit log records that it was completed unsigned.",
                    QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel)
                if answer != QMessageBox.StandardButton.Yes:
                    return
                wizard.resume_unsigned = True
            elif signer is not None:
                wizard.sign_key = ask_signing_key(self, self.session, signer)
                if wizard.sign_key is None:
                    return
            wizard.resume_id = self.pending[0].release_id
            self.completeChanged.emit()
            wizard.next()

    def isComplete(self) -> bool:  # noqa: N802
        wizard = self.wizard()
        if isinstance(wizard, ReleaseWizard) and wizard.resume_id is not None:
            return True
        # the core decides, the unit rule included (the tick box is its input)
        return self.session.plan is not None and getattr(self, "ok", False) and \
            self.session.release_rules(unit_confirmed=self.confirm_unit.isChecked()).ready


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
        self.signing = QLabel()  # which key signs the bundle (Release → Sign releases with key)
        self.signing.setWordWrap(True)
        layout.addWidget(self.signing)
        layout.addStretch(1)
        browse.clicked.connect(self._browse)
        self.path.textChanged.connect(self.completeChanged)

    def _browse(self) -> None:
        chosen = ask_save_bundle(self, "Write the release bundle", self.path.text())
        if chosen is not None:
            self.path.setText(chosen)

    def initializePage(self) -> None:  # noqa: N802
        plan = self.session.plan
        assert plan is not None
        total = self.session.total()
        state = self.session.lifetime()
        measurements = [m for q in plan.queries for m in self.session.measurements(q)]
        # what is left, in the cap's own accounting (the checklist's and `check`'s sentence)
        room = f"<p>{escape(headroom_sentence(headroom(state, measurements, total)))}. " \
            f"{escape(self.session.charged_to())}</p>" if state else ""
        folder = default_output_folder(self.session.path, self.session.table_path,
                                       self.session.home)  # disc25c: one rule, in the core
        if not self.path.text():
            self.path.setText(str(folder / bundle_file_name([plan.dataset.name, "release"])))
        self.text.setText(
            f"<p>You are about to release <b>{len(plan.queries)} statistics</b> about the "
            f"dataset <b>{escape(plan.dataset.name)}</b>.</p>"
            f"<p>This spends <b>ε = {shown(total.epsilon)}</b> and δ = {total.delta:.3g} of "
            f"its privacy budget, for good: the noise is drawn once and cannot be taken back.</p>"
            f"{room}"
            "<p>The budget ledger is charged first; then the noise is added and the bundle is "
            "written.</p>")
        key = self.session.signing_key
        self.signing.setText(
            f"The bundle will be signed with your key <b>{escape(key)}</b>"
            + (" (its passphrase is asked next, before anything is charged)."
               if self.session.key_is_protected(key) else ".")
            if key else "The bundle will not be signed (Release → Sign releases with key).")

    def validatePage(self) -> bool:  # noqa: N802
        """The signing key is loaded (its passphrase asked) before the charge: a wrong one
        costs nothing."""
        wizard = self.wizard()
        key = self.session.signing_key
        if not isinstance(wizard, ReleaseWizard) or key is None:
            return True
        wizard.sign_key = ask_signing_key(self, self.session, key)
        return wizard.sign_key is not None

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
        require = self.session.approval_required  # the setting, or the policy
        trusted = self.session.trusted_keys  # publish applies the policy's officers itself
        confidence = self.session.confidence  # the one every ± on screen was shown at
        home = self.session.home
        resume_id = self.wizard_.resume_id
        sign_key = self.wizard_.sign_key
        unsigned = self.wizard_.resume_unsigned
        inputs = [self.session.table_path] if self.session.table_path is not None else []
        discoveries = list(self.session.discoveries)  # gui25: as --discovery gives them
        # the work has started (and may have charged): there is no way back from here
        self.wizard_.button(QWizard.WizardButton.BackButton).setEnabled(False)

        def work(progress, cancel):  # type: ignore[no-untyped-def]
            if resume_id is not None:  # no new noise, no new charge
                try:  # the discovery rule again, as release --resume --discovery (core25)
                    return resume_release(home, resume_id, progress=progress,
                                          sign_with=sign_key, unsigned=unsigned,
                                          discoveries=discoveries)
                except InputError as exc:
                    raise InputError(exc.source, exc.where, in_app(exc.problem)) from None
            # the checklist lets a release start only with a plan and a table (core/readiness)
            assert plan is not None and table is not None
            # a list found privately needs its discovery bundle, given in the checklist: the
            # one rule of release --discovery, before the charge (fixdisc, gui25)
            try:
                require_discoveries(plan, discoveries, "plan", home)
            except InputError as exc:
                raise InputError(exc.source, exc.where, in_app(exc.problem)) from None
            return publish(plan, table, out, home, require_approval=require,
                           confidence=confidence, progress=progress, inputs=inputs,
                           trusted=trusted, sign_with=sign_key)

        # the runner (operations.py) emits what a release changed: the ledger, and the
        # bundle this session wrote; a failure after the charge still changed the ledger
        self.session.op(self, work, self.session.released, "The release did not happen") \
            .progress(self._progress).success(self._finished).failure(self._failed) \
            .still_changed(lambda exc: OpChanges(ledger=isinstance(exc, ReleaseUnfinished))) \
            .run_in_background(self.slot)

    def _progress(self, fraction: float, message: str) -> None:
        self.bar.setValue(int(fraction * 1000))
        self.status.setText(message)

    def _finished(self, result: PublishResult) -> None:
        self.done = True
        self.wizard_.result = result
        self.bar.setValue(1000)
        self.status.setText(f"Released to {result.bundle_path}.")
        self.completeChanged.emit()
        self.wizard_.next()

    def _failed(self, exc: object) -> None:
        what = {
            BudgetExceeded: ("Refused: not enough budget", "Lower some statistics' ε; the "
                             "message says whose lifetime cap it is."),
            ProgrammeRefused: (PROGRAMME_REFUSED_TITLE, PROGRAMME_REFUSED_ADVICE),  # cal26
            PolicyRefused: ("Refused by the organisation's policy", "Nothing was charged. "
                            "Change the plan as the message says (Release → Organisation's "
                            "policy… shows the whole policy)."),
            PolicyError: ("The organisation's policy cannot be trusted", "Nothing was "
                          "released. Install the officer's signed policy file again "
                          "(planner-app policy install POLICY.json --trust OFFICER.pub); if "
                          "you no longer have it, ask the privacy officer for it."),
            ApprovalRequired: ("Refused: approval needed", "Nothing was charged. Send this "
                               "exact plan file to your privacy officer to review and sign, "
                               "then open the plan they send back and try again."),
            LedgerDisagrees: (DISAGREE_TITLE, DISAGREE_ADVICE),  # before LedgerError
            LedgerError: ("The budget ledger cannot be used", "Nothing was released. Check "
                          "that the app's folder is writable and no other release is "
                          "running, then try again."),
            NotReady: ("Refused: the plan is not ready", "Nothing was charged. Complete what "
                       "the message names and try again."),
            ReleaseUnfinished: ("The bundle was not written", "Fix what the message names, "
                                "then open Release again and choose \u201cComplete the "
                                "unfinished release\u201d: it writes the bundle from the saved "
                                "values, with no new noise and no new charge."),
        }
        title, advice = next(((t, a) for cls, (t, a) in what.items() if isinstance(exc, cls)),
                             ("The release did not happen", "Fix what the message names and "
                              "try again."))
        text = on_screen(str(exc)) if isinstance(exc, PlannerError) else type(exc).__name__
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
        self.table.setHorizontalHeaderLabels(["Statistic", "Cell", "Value", "Interval"])
        self.table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        layout.addWidget(self.table, 1)
        chooser = QHBoxLayout()
        chooser.addWidget(QLabel("Chart of:"))
        self.chart_choice = QComboBox()
        self.chart_choice.setAccessibleName("Statistic drawn in the chart")
        self.chart_choice.currentIndexChanged.connect(self._draw_choice)
        chooser.addWidget(self.chart_choice, 1)
        layout.addLayout(chooser)
        self.figure = Figure(figsize=(6, 2.6))
        self.canvas = FigureCanvasQTAgg(self.figure)
        self.canvas.setAccessibleName("Released estimates with their intervals")
        layout.addWidget(self.canvas, 1)
        self.canvas.mpl_connect("resize_event", self._refit)
        self.chart_caption = QLabel()
        self.chart_caption.setWordWrap(True)
        layout.addWidget(self.chart_caption)
        # a synthetic table: the owner's comparison with the real one, on screen only
        self.compare_button = QPushButton("Compare the synthetic table with the real one…")
        self.compare_button.setToolTip("For you only: the total variation distance of each "
                                       "marginal against your table; never saved")
        self.compare_button.clicked.connect(self.compare_synthetic)
        self.compare_button.setVisible(False)
        layout.addWidget(self.compare_button)
        self.compare_dialog: QWidget | None = None
        self._charts: list[tuple[str, Chart]] = []

    def initializePage(self) -> None:  # noqa: N802
        # the budget is spent: no way back to the release page, nothing left to cancel
        self.wizard_.setButtonLayout([QWizard.WizardButton.Stretch,
                                      QWizard.WizardButton.FinishButton])
        result = self.wizard_.result
        if result is None:
            return
        rows = [v.to_dict() for r in result.releases for v in r.values]
        level = rows[0]["confidence"] if rows else self.wizard_.session.confidence
        header = self.table.horizontalHeaderItem(3)
        if header is not None:  # made with the table
            header.setText(f"Interval ({confidence_percent(level)})")
        self.summary.setText(f"Bundle written to <b>{escape(str(result.bundle_path))}</b> (SHA-256 "
                             f"{result.bundle_sha256[:16]}…). Lifetime ε left for "
                             f"{result.ledger.dataset!r}: {shown(result.ledger.remaining_epsilon)}."
                             + (f" Signed by {escape(result.signed_by['name'])} (key "
                                f"{escape(result.signed_by['fingerprint'])})."
                                if result.signed_by else " Not signed."))
        self.table.setRowCount(len(rows))
        consistent = consistent_cell_texts(result.consistency)  # issue 27: beside the raw
        self._consistent_columns(result.consistency, level)
        at: dict[str, int] = {}
        for i, r in enumerate(rows):
            k = at[r["query_id"]] = at.get(r["query_id"], -1) + 1
            pair = consistent[r["query_id"]][k] if r["query_id"] in consistent else ("", "")
            for j, text in enumerate((r["label"], cell_name(r), format_value(r),
                                      format_interval(r), *pair)):
                if j < self.table.columnCount():
                    self.table.setItem(i, j, QTableWidgetItem(text))
        plan = self.wizard_.session.plan
        self.compare_button.setVisible(bool(self._synthetic_ids()))
        self._charts = released_charts(result, plan, result.consistency) \
            if plan is not None else []
        with QSignalBlocker(self.chart_choice):
            self.chart_choice.clear()
            self.chart_choice.addItems([title for title, _ in self._charts])
        # the largest histogram first, as the one a reader looks at first
        widest = max(range(len(self._charts)), key=lambda i: len(self._charts[i][1].marks),
                     default=0)
        self.chart_choice.setCurrentIndex(widest)
        self._draw_choice(widest)

    def _consistent_columns(self, section: dict[str, Any] | None, level: float) -> None:
        """Two more columns when the release has consistent values; the headline's header
        says so, and the summary says what they are."""
        if not section:
            self.table.setColumnCount(4)
            return
        self.table.setColumnCount(6)
        headline = section["headline"]
        self.table.setHorizontalHeaderLabels([
            "Statistic", "Cell", "Raw value" + (" (headline)" if headline == "raw" else ""),
            f"Interval ({confidence_percent(level)})",
            "Consistent value" + (" (headline)" if headline == "consistent" else ""),
            f"Consistent interval ({confidence_percent(level)})"])
        self.summary.setText(self.summary.text() + " " + consistent_summary(section))

    def _synthetic_ids(self) -> list[str]:
        result, plan = self.wizard_.result, self.wizard_.session.plan
        if result is None or plan is None:
            return []
        return [r.query_id for r in result.releases if r.synthetic is not None]

    def compare_synthetic(self) -> QWidget:
        """The owner's comparison of each synthetic table with the real one (on screen)."""
        from .synthetic_compare import SyntheticCompareDialog

        result = self.wizard_.result
        assert result is not None
        dialog = SyntheticCompareDialog(self.wizard_.session, Path(result.bundle_path),
                                        self._synthetic_ids(), self)
        self.compare_dialog = dialog
        dialog.show()
        return dialog

    def _draw_choice(self, index: int) -> None:
        if not 0 <= index < len(self._charts):
            return
        chart = self._charts[index][1]
        self.chart_caption.setText(" ".join(t for t in (chart.caption, chart.more) if t))
        self._drawing = ChartDrawing(self.figure)
        self._drawing.draw(chart)  # the report's chart of this statistic
        self.canvas.draw_idle()

    def _refit(self, _event: object) -> None:
        """Lay the chart out again in the canvas's new size (a longer caption, a resize):
        its rotated labels stay inside the figure."""
        if getattr(self, "_drawing", None) is not None:
            self._drawing.fit()


def released_charts(result: PublishResult, plan: Plan,
                    consistency: dict[str, Any] | None = None) -> list[tuple[str, Chart]]:
    """Each released statistic as the report draws it (core release_chart): its headline
    values with their intervals (the consistent ones when the plan made them the headline:
    core headline_chart), on an axis of its own (a count and a mean never share one)."""
    charts = []
    for r in result.releases:
        q = plan.query(r.query_id)
        chart = headline_chart({"id": q.id, "kind": q.kind, "column": q.column},
                               [v.to_dict() for v in r.values], bounds_of(q), consistency)
        if chart is not None:
            charts.append((q.title, chart))
    return charts


class ReleaseWizard(QWizard):
    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        # shadows QDialog.result() (the exec code), which nothing here calls; a rename waits
        # for the wizard's rework (the tests read wizard.result)
        self.result: PublishResult | None = None  # type: ignore[assignment]
        self.resume_id: str | None = None  # set when completing an unfinished release
        self.sign_key: SecretKey | None = None  # loaded before the charge (gui/signing.py)
        self.resume_unsigned = False  # complete a signed release whose key was lost
        self.setWindowTitle("Release")
        fit_to_screen(self, 760, 620)
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
