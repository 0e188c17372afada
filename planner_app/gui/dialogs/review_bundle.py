"""The privacy officer's review of a plan (no data needed), and the bundle viewer for anyone
who receives a release: the verdict first, then results, parameters, audit trail and report."""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QImage, QTextDocument
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ...core.dp.accuracy import DEFAULT_CONFIDENCE
from ...core.dp.risk import explain
from ...core.kinds import kind_of, title_of
from ...core.kinds.params import counted_of, synth_columns_of
from ...core.model import Plan, PrivacyUnit, Query
from ...core.planfile import load_plan, plan_digest
from ...core.planfile.relations import relation_lines
from ...core.planning.changes import OpChanges
from ...core.planning.check import check_plan
from ...core.planning.parameters import MISSING_LABEL, parameter_lines
from ...core.planning.plan_diff import diff_keys, diff_plans
from ...core.planning.readiness import missing_reasons, people_unchecked
from ...core.records.audit import AuditLog
from ...core.records.keys import KeyStore, PublicKey, load_public_key
from ...core.records.review import record_review, review_status_words
from ...core.release.bundle import RESULTS, NotABundle
from ...core.release.opened_bundle import OpenedBundle, open_bundle
from ...core.release.report import cell_name, format_interval, format_value
from ...core.support.errors import InputError, PlannerError
from ...core.support.home import AppHome
from ...core.support.words import (
    REVIEW_NOT_RECORDED_TITLE,
    confidence_percent,
    format_number,
    plain_terms,
    relation_words,
    unit_of,
)
from ..file_dialogs import ask_open_file
from ..models import format_accuracy
from ..operations import OperationRunner
from ..session import Session
from ..widgets.canvases import RiskChart
from ..widgets.screen_fit import fit_to_screen
from ..workers import Worker, WorkerSlot
from .bundle_discoveries import BundleDiscoveries
from .plan_diff_view import PlanDiffDialog

#: The progress bar's steps (a fraction of 1 in thousandths).
PROGRESS_STEPS = 1000

#: Above this many rows a table's rows keep one line (measuring every row would be slow);
#: long cells are then elided, with the whole text in their tooltip.
WRAP_ROWS = 400


def _table(headers: list[str], rows: list[list[str]],
           wrap: tuple[str, ...] = ()) -> QTableWidget:
    """A read-only table: ``wrap`` names the columns of long text, which share the width left
    over and wrap; the others are as wide as their contents; rows as high as their text."""
    table = QTableWidget(len(rows), len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    for i, row in enumerate(rows):
        for j, text in enumerate(row):
            shown = plain_terms(text)  # a record's words (derivations, notes), plainly
            item = QTableWidgetItem(shown)
            item.setToolTip(shown)
            table.setItem(i, j, item)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    wrapped = [headers.index(h) for h in wrap if h in headers]
    for col in wrapped:
        header.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)
    header.setStretchLastSection(not wrapped)
    table.setWordWrap(bool(wrapped))
    if wrapped and len(rows) <= WRAP_ROWS:
        table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    return table


def _public_parameters(q: Query, unit: PrivacyUnit) -> tuple[str, str]:
    """The statistic's public parameters and its missing-values line, from the core's one
    describer (planning.parameters, as `planner-app check` and the report)."""
    lines = parameter_lines(q, unit)
    shown = [f"{name}: {value}" for name, value in lines[:-1]
             if name not in ("Kind", "Column", "ε")]  # their own columns
    return "\n".join(shown), lines[-1][1]


def shown_result(cells: dict[str, str]) -> list[str]:
    """One results.csv row as the report and the release wizard show it (rounded, a share in
    percent): [statistic, cell, value, " (95%)", interval, note]."""
    def number(key: str) -> float | None:
        try:
            return float(cells.get(key) or "")
        except ValueError:
            return None

    row = {"value": number("value"), "low": number("low"), "high": number("high"),
           "mechanism": cells.get("mechanism"), "group": cells.get("group") or None,
           "cell": cells.get("cell") or None}
    conf = number("confidence")
    level = f" ({confidence_percent(conf)})" if conf is not None else ""
    return [cells.get("label", ""), cell_name(row), format_value(row), level,
            format_interval(row), cells.get("note", "")]


class ReviewDialog(QDialog):
    """Read-only view of a plan for the privacy officer, with approve / reject."""

    def __init__(self, plan: Plan, path: Path, home: AppHome,
                 parent: QWidget | None = None,
                 confidence: float = DEFAULT_CONFIDENCE,
                 session: Session | None = None) -> None:
        """``session``: the app's, whose runner records the decision (and brings it into
        the open plan when this is its file); without one, a runner of its own."""
        super().__init__(parent)
        self.plan = plan
        self.path = path
        self.home = home
        self.session = session
        self.ops = session.ops if session is not None else OperationRunner(lambda _c: None)
        self.setWindowTitle(f"Review {path.name}")
        fit_to_screen(self, 1400, 900)
        layout = QVBoxLayout(self)
        unit = plan.privacy_unit
        who = html.escape(unit_of(unit))
        who += html.escape(f" ({people_unchecked(plan)})" if people_unchecked(plan) else "")
        # the core's pre-release report: totals, accuracy and risk exactly as a release has them
        self.report = report = check_plan(plan, confidence=confidence)
        total = report.total
        risk = explain(total.epsilon, total.delta, relation=plan.neighbouring)
        head = QLabel(
            f"<h2>{html.escape(plan.dataset.name)}</h2><p><b>Unit of privacy:</b> {who}. "
            f"<b>Protected:</b> {relation_words(plan.neighbouring)}. <b>Budget:</b> ε = "
            f"{plan.budget.epsilon:g}, δ = {plan.budget.delta:g}. <b>Composed total:</b> "
            f"ε = {format_number(total.epsilon)}, δ = {total.delta:.3g} ({total.accountant}).</p>"
            f"<p>{risk.sentence}</p><p><i>Reason for ε:</i> "
            f"{html.escape(plan.justification or 'none given')}</p>"
            # gui27: the relations and the headline values are part of what is approved
            + "".join(f"<p>{html.escape(line)}</p>" for line in relation_lines(plan))
            + f"<p>Plan SHA-256 {plan_digest(plan)}</p>")
        head.setWordWrap(True)
        layout.addWidget(head)
        rows = []
        for c in report.queries:
            q, acc = c.query, c.accuracy
            j = q.justification or {}
            lacking = [what for _, what in missing_reasons(q)]  # the core's reasons rule
            reasons = "; ".join(f"{k}: {v}" for k, v in j.items() if str(v).strip())
            if lacking:
                reasons = "; ".join(filter(None, [reasons, "NO REASON for the "
                                                  + " and ".join(lacking)]))
            rows.append([q.title, kind_of(q).describe(q.column, kind_of(q).title,
                                                  q.missing.policy == "impute", unit.id_column,
                                                  unit.rows_per_unit, counted_of(q) == "people"),
                         q.column or ", ".join(c.column for c in synth_columns_of(q)) or "—",
                         *_public_parameters(q, unit), reasons or "none needed",
                         f"{q.epsilon:g}",
                         format_accuracy(acc.half_width, acc.unit, acc.rows),
                         c.risk_sentence])
        # the table has the whole width: every column in view, long texts wrapped
        self.statistics = _table(["Statistic", "Kind", "Column", "Public parameters",
                                  "Missing values", "Reasons", "ε", "Accuracy", "Risk"], rows,
                                 wrap=("Kind", "Public parameters", "Missing values",
                                       "Reasons", "Risk"))  # (a count under an id unit
        # says it counts rows, not people: a long kind wraps rather than squeeze the rest)
        missing = self.statistics.horizontalHeaderItem(4)
        if missing is not None:  # made by _table
            missing.setToolTip(MISSING_LABEL + ": empty or unreadable cells, values outside "
                               "the bounds or lists, extra rows")
        self.statistics.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout.addWidget(self.statistics, 1)
        bottom = QHBoxLayout()
        decision = QVBoxLayout()
        bottom.addLayout(decision, 1)
        self.chart = RiskChart()
        self.chart.show_risk(risk)  # the bounds the sentence above states (δ > 0: ε + ln 2)
        self.chart.setFixedSize(self.fontMetrics().averageCharWidth() * 75,
                                self.fontMetrics().lineSpacing() * 20)
        self.chart.figure.subplots_adjust(left=0.14, bottom=0.18)  # room for the axis labels
        bottom.addWidget(self.chart)
        layout.addLayout(bottom)
        form = QFormLayout()
        self.reviewer = QLineEdit()
        self.reviewer.setAccessibleName("Reviewer name")
        self.comment = QLineEdit()
        self.comment.setAccessibleName("Review comment")
        # sign with one of your keys (File → Keys…), or leave the decision unsigned
        self.keys = KeyStore(home)
        self.sign_with = QComboBox()
        self.sign_with.setAccessibleName("Sign with")
        self.sign_with.setToolTip("A signed decision can be checked against your public key; "
                                  "a release that trusts your key accepts only signed ones")
        for info in self.keys.key_infos():
            self.sign_with.addItem(f"{info.name} (key {info.fingerprint}"
                                   f"{', passphrase' if info.protected else ''})", info.name)
        self.sign_with.addItem("Unsigned (no key)", "")
        form.addRow("Your name", self.reviewer)
        form.addRow("Comment", self.comment)
        form.addRow("Sign with", self.sign_with)
        decision.addLayout(form)
        #: asks a protected key's passphrase: (key name) -> passphrase, or None when cancelled
        self.ask_passphrase: Callable[[str], str | None] = self._ask_passphrase
        buttons = QHBoxLayout()
        self.approve = QPushButton("Approve this plan")
        self.reject_button = QPushButton("Reject")
        for button in (self.approve, self.reject_button):  # a decision is never the default
            button.setAutoDefault(False)
            button.setDefault(False)
        self.status = QLabel(self.status_text())
        self.status.setWordWrap(True)  # its own line under the buttons: the whole width
        # as wide as the form was beside it, so the window (sized from its content) and the
        # statistics table above keep their room
        self.status.setMinimumWidth(self.fontMetrics().averageCharWidth() * 95)
        buttons.addStretch(1)
        self.compare = QPushButton("Compare with an earlier version…")
        self.compare.setAutoDefault(False)
        self.compare.setToolTip("Pick an earlier version of this plan: see what changed, with "
                                "the change in the total ε and in each accuracy")
        self.compare.clicked.connect(self.compare_with_earlier)
        buttons.addWidget(self.compare)
        buttons.addSpacing(self.fontMetrics().averageCharWidth() * 3)  # apart from decisions
        buttons.addWidget(self.reject_button)
        buttons.addWidget(self.approve)
        decision.addLayout(buttons)
        decision.addWidget(self.status)
        decision.addStretch(1)
        self.approve.clicked.connect(lambda: self.decide("approved"))
        self.reject_button.clicked.connect(lambda: self.decide("rejected"))
        self.confidence = confidence

    def compare_with_earlier(self) -> PlanDiffDialog | None:
        chosen = ask_open_file(self, "Compare with an earlier version",
                               "Plans (*.json);;All files (*)", folder=self.path.parent)
        return self.show_diff_with(chosen) if chosen is not None else None

    def show_diff_with(self, earlier: Path) -> PlanDiffDialog | None:
        """The changes from the plan in ``earlier`` to the one under review (the core's
        diff_plans, as `planner-app diff`); a file that is no plan: a message, no view."""
        try:
            diff = diff_plans(load_plan(earlier), self.plan, self.confidence,
                              old_name=earlier.name, new_name=self.path.name,
                              trusted=diff_keys(self.home))  # the keys release requires
        except InputError as exc:
            QMessageBox.warning(self, "This plan cannot be compared", str(exc))
            return None
        dialog = PlanDiffDialog(diff, self)
        fit_to_screen(dialog, 1100, 760)
        self.diff_dialog = dialog
        dialog.show()
        return dialog

    def _trusted(self) -> list[PublicKey] | None:
        """The keys a release in this app home requires (plan_diff.diff_keys: the policy's
        officers, else the trusted keys), to say whether the decisions verify; None when
        there are none."""
        try:
            return diff_keys(self.home) or None
        except PlannerError:
            return None

    def status_text(self) -> str:
        """The rule a release in this app home applies first, then what the decisions say
        (the core's review_status_words)."""
        own = [self.keys.public(i.name) for i in self.keys.key_infos()]
        return review_status_words(self.plan, self._trusted(), own, self.path.name)

    def _ask_passphrase(self, name: str) -> str | None:
        text, ok = QInputDialog.getText(self, "Passphrase", f"The passphrase of key {name}:",
                                        QLineEdit.EchoMode.Password)
        return text if ok else None

    def decide(self, decision: str) -> bool:
        key_name = str(self.sign_with.currentData() or "")
        name = self.reviewer.text().strip() or key_name
        if not name:
            self.status.setText("Type your name first: the decision records who made it.")
            return False
        key = None
        if key_name:  # the key (and its passphrase) before anything is written
            cancelled = False

            def passphrase(n: str) -> str:
                nonlocal cancelled
                text = self.ask_passphrase(n)
                cancelled = text is None
                return text or ""

            try:
                key = self.keys.secret(key_name, passphrase, None)
            except PlannerError as exc:
                if not cancelled:
                    QMessageBox.warning(self, "The decision was not signed",
                                        f"{exc}. "
                                        "Nothing was written.")
                return False
        plan, path, comment, home = self.plan, self.path, self.comment.text(), self.home
        session = self.session
        recorded = self.ops.op(
            self, lambda _p, _c: record_review(path, plan, name, decision, comment,
                                               AuditLog(home.ensure().audit_path), key=key),
            (lambda new: session.reviewed(path, new)) if session is not None else OpChanges(),
            REVIEW_NOT_RECORDED_TITLE).run()
        if recorded is None:
            return False
        self.plan = recorded
        self.status.setText(self.status_text() + f" Saved in {self.path.name}.")
        return True


class _WordsOverRows(QSplitter):
    """A synthetic table's words over its rows: the words take the height they need, up to
    a third of the splitter (they scroll beyond it); the rows take the rest."""

    def __init__(self, about: QLabel) -> None:
        super().__init__(Qt.Orientation.Vertical)
        self.about = about
        self.setChildrenCollapsible(False)

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]  # noqa: N802
        super().resizeEvent(event)
        if self.count() == 2:
            need = self.about.heightForWidth(max(self.width() - 24, 50)) + 6
            first = self.widget(0)
            least = first.minimumHeight() if first is not None else 0
            words = max(min(need, self.height() // 3), least)
            self.setSizes([words, max(self.height() - words - self.handleWidth(), 0)])


class BundleDialog(QDialog):
    """A received bundle: "Verifying…" at once, then the verdict and what is in it. The core's
    ``open_bundle`` verifies and reads the bundle in a worker, never on the GUI thread;
    ``unusable(title, text)`` is emitted (and the dialog closes) when the file is not a bundle
    or cannot be read at all."""

    unusable = Signal(str, str)

    def __init__(self, path: Path, parent: QWidget | None = None,
                 session: Session | None = None) -> None:
        """``session``: the app's, for the owner's comparison of a synthetic table with the
        real one (None: a reader's viewer, no comparison)."""
        super().__init__(parent)
        self.path = path
        self.session = session
        self.opened: OpenedBundle | None = None
        self.compare_button: QPushButton | None = None  # on the Synthetic tables tab
        self.synthetic_splits: list[QSplitter] = []  # each table's words over its rows
        self.compare_dialog: QWidget | None = None
        self.setWindowTitle(f"Release bundle {path.name}")
        fit_to_screen(self, 1200, 820)
        layout = QVBoxLayout(self)
        self.verdict = QLabel(f"<h2>Verifying…</h2><p>{html.escape(path.name)}: checking its "
                              "hashes, audit trail and every number against its plan.</p>")
        self.verdict.setWordWrap(True)
        layout.addWidget(self.verdict)
        # while verifying: how far, and which check is running (the core's progress messages)
        self.checking = QWidget()
        checking = QVBoxLayout(self.checking)
        checking.setContentsMargins(0, 0, 0, 0)
        self.progress = QProgressBar()
        self.progress.setRange(0, PROGRESS_STEPS)
        self.progress.setAccessibleName("Verification progress")
        self.step = QLabel("Starting…")
        self.step.setTextFormat(Qt.TextFormat.PlainText)  # names come from the bundle
        self.step.setWordWrap(True)
        checking.addWidget(self.progress)
        checking.addWidget(self.step)
        checking.addStretch(1)
        # who signed and who approved, and a check against a public key the reader trusts
        origin_row = QHBoxLayout()
        self.origin = QLabel()
        self.origin.setWordWrap(True)
        self.origin.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        origin_row.addWidget(self.origin, 1)
        self.trust_button = QPushButton("Check who signed it…")
        self.trust_button.setToolTip("Choose the owner's public key (.pub): the bundle's "
                                     "signature must verify against it")
        self.trust_button.setAccessibleName("Verify the bundle's signature against a public "
                                            "key file")
        # clicked passes its checked flag: never let it stand for the key file
        self.trust_button.clicked.connect(lambda: self.choose_trusted_key())
        self.trust_button.setEnabled(False)
        origin_row.addWidget(self.trust_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(origin_row)
        self.discoveries = BundleDiscoveries(path)  # gui25: as verify --discovery
        self.discoveries.checked.connect(self._headline)
        layout.addWidget(self.discoveries)
        self.trusted: list[PublicKey] = []
        self.tabs = QTabWidget()
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.checking, 1)  # in the tabs' place while verifying
        self.workers = WorkerSlot()
        self._show_checking(True)

    def verify(self) -> None:
        """Start verifying in the worker; the result arrives through its signals."""
        path, trusted = self.path, list(self.trusted)
        self.trust_button.setEnabled(False)
        self.progress.setValue(0)
        self.step.setText("Starting…")
        self._show_checking(True)
        worker = Worker(lambda progress, _cancel: open_bundle(path, trusted, progress))
        worker.signals.progress.connect(self._progress)
        worker.signals.finished.connect(self.show_opened)
        worker.signals.failed.connect(self._failed)
        self.workers.start(worker)

    def _show_checking(self, running: bool) -> None:
        """The progress bar and the running check in place of the tabs while verifying."""
        self.checking.setVisible(running)
        self.tabs.setVisible(not running)

    def _progress(self, fraction: float, message: str) -> None:
        self.progress.setValue(round(fraction * PROGRESS_STEPS))
        self.step.setText(message)

    def choose_trusted_key(self, path: str | None = None) -> None:
        """Verify again, against the public key file the reader chooses (minisign format)."""
        if path is None:
            chosen = ask_open_file(self, "The owner's public key",
                                   "Public keys (*.pub);;All files (*)")
            path = str(chosen) if chosen is not None else None
        if not path:
            return
        try:
            self.trusted = [load_public_key(path)]
        except PlannerError as exc:
            QMessageBox.warning(self, "Not a public key", str(exc))
            return
        self.verdict.setText(f"<h2>Verifying…</h2><p>{html.escape(self.path.name)}: checking "
                             f"its signature against {html.escape(Path(path).name)}.</p>")
        self.verify()

    def _failed(self, exc: object) -> None:
        self._show_checking(False)
        if isinstance(exc, NotABundle):
            self.unusable.emit("Not a release bundle", str(exc))
        else:  # a crafted bundle gets a dialog, never a crash
            self.unusable.emit("Cannot show this bundle",
                               f"{self.path.name} cannot be shown ({type(exc).__name__}); "
                               "treat it as not valid.")
        self.close()

    def show_opened(self, opened: object) -> None:
        assert isinstance(opened, OpenedBundle)
        self.opened = opened
        self._show_checking(False)
        self._headline([])
        self.discoveries.show_for(opened.verdict.valid)
        self.origin.setText(origin_html(opened))
        self.trust_button.setEnabled(opened.provenance is not None)
        self.tabs.clear()
        for title, build in (("Results", self._results_tab),
                             ("Parameters", self._parameters_tab),
                             ("Audit trail", self._audit_tab), ("Report", self._report_tab),
                             ("Synthetic tables", self._synthetic_tab)):
            if title == "Synthetic tables" and not opened.synthetic:
                continue
            try:  # a crafted part is shown as such; the other tabs still open
                widget = build(opened)
            except Exception:
                widget = None
            self.tabs.addTab(widget or QLabel("This part of the bundle cannot be shown."),
                             title)

    def _headline(self, discovery_problems: list[str]) -> None:
        """The verdict at the top: the bundle's own, and the problems its discovery bundles
        given showed (disc25c: a list found privately that differs makes it NOT valid, as
        verify --discovery says)."""
        assert self.opened is not None
        verdict = self.opened.verdict
        name = html.escape(self.path.name)
        proven = verdict.origin.get("origin_proven")
        problems = list(verdict.problems) + discovery_problems
        if not problems:
            text = ("<h2 style='color:#1e8449'>✓ Verified"
                    + (" — origin proven" if proven else " (integrity only, not origin)")
                    # what was checked, in plain words: the detail under the headline
                    + f"</h2><p style='font-size:small'>{name}: "
                    + "; ".join(html.escape(plain_terms(c)) for c in verdict.checks) + ".</p>")
        else:  # problems quote names from the bundle: escaped, never read as markup
            text = (f"<h2 style='color:#c0392b'>✗ NOT valid</h2><p>{name} failed "
                    "verification; do not rely on its numbers.</p><ul>"
                    + "".join(f"<li>{html.escape(plain_terms(p))}</li>"
                              for p in problems[:12])
                    + "</ul>")
        self.verdict.setText(text)

    def _results_tab(self, opened: OpenedBundle) -> QWidget | None:
        if opened.results is None:
            return None
        rows = [shown_result(dict(zip(opened.results.columns, r, strict=False)))
                for r in opened.results.rows]
        level = next((r[3] for r in rows if r[3]), "")
        table = _table(["Statistic", "Cell", "Value", f"Interval{level}", "Note"],
                       [r[:3] + [r[4], r[5]] for r in rows], wrap=("Statistic", "Note"))
        table.setToolTip(f"Rounded for reading; {RESULTS} in the bundle holds every digit.")
        return table

    def _parameters_tab(self, opened: OpenedBundle) -> QWidget | None:
        if opened.release is None:
            return None
        # the kind's name as the planner shows it, not the plan's key ("randomized_response")
        params = [[s.label, title_of(s.kind), s.mechanism,
                   format_number(s.sensitivity), f"{s.epsilon:.4g}", f"{s.delta:g}",
                   format_accuracy(s.half_width, s.unit, s.rows), s.derivation]
                  for s in opened.release.statistics]
        return _table(["Statistic", "Kind", "Mechanism", "Sensitivity", "ε", "δ", "Accuracy",
                       "Derivation"], params, wrap=("Statistic", "Derivation"))

    def _synthetic_tab(self, opened: OpenedBundle) -> QWidget | None:
        """Each synthetic table's first rows: made-up rows, not people."""
        self.synthetic_splits = []
        page = QWidget()
        page_layout = QVBoxLayout(page)
        if self.session is not None and self._synthetic_ids():
            row = QHBoxLayout()
            row.addWidget(QLabel("For you only: compare each synthetic table with your "
                                 "real data, on screen; nothing is saved."), 1)
            button = QPushButton("Compare with my data…")
            button.setToolTip("The total variation distance of each one- and two-way "
                              "marginal against the table the release was made from; never "
                              "saved, exported or logged")
            button.clicked.connect(lambda: self.compare_synthetic())
            row.addWidget(button)
            self.compare_button = button
            page_layout.addLayout(row)
        titles = {f"synthetic/{q.id}.csv": q.title for q in opened.plan.queries} \
            if opened.plan is not None else {}
        for t in opened.synthetic:
            shown = len(t.rows)
            about = QLabel(f"Synthetic table “{titles.get(t.name, Path(t.name).stem)}” "
                           f"({t.name}): {t.total_rows:,} made-up rows"
                           + (f" (the first {shown:,} shown)" if shown < t.total_rows else "")
                           + ". Its rows are not people; only its measured marginals (in "
                             "Results) were noised from the data."
                           + "".join(f"\n{line[0].upper()}{line[1:]}."
                                     for line in map(plain_terms, t.fit)))
            about.setText(plain_terms(about.text()))  # "marginals": plain words first
            about.setWordWrap(True)
            about.setAlignment(Qt.AlignmentFlag.AlignTop)
            # the words scroll in a small window; the rows keep most of the height
            words = QScrollArea()
            words.setWidget(about)
            words.setWidgetResizable(True)
            words.setFrameShape(QFrame.Shape.NoFrame)
            words.setMinimumHeight(about.fontMetrics().lineSpacing() * 2 + 4)  # two lines
            split = _WordsOverRows(about)
            split.addWidget(words)
            split.addWidget(_table(list(t.columns), [list(r) for r in t.rows]))
            page_layout.addWidget(split, 1)
            self.synthetic_splits.append(split)
        return page

    def _synthetic_ids(self) -> list[str]:
        """The synthetic tables of the bundle's own plan that the bundle holds."""
        opened = self.opened
        if opened is None or opened.plan is None:
            return []
        present = {t.name for t in opened.synthetic}
        return [q.id for q in opened.plan.queries
                if kind_of(q).releases_table() and f"synthetic/{q.id}.csv" in present]

    def compare_synthetic(self, data: str | Path | None = None) -> QWidget | None:
        """The owner's comparison (core release.synthetic_compare, on screen only) with the
        bundle's own plan, against the table open in the app or, when none is, the data
        file ``data`` (asked for when None)."""
        from .synthetic_compare import SyntheticCompareDialog

        ids = self._synthetic_ids()
        if self.session is None or self.opened is None or not ids:
            return None
        dialog = SyntheticCompareDialog(self.session, self.path, ids, self,
                                        plan=self.opened.plan)
        self.compare_dialog = dialog
        dialog.show()
        if data is not None or self.session.table is None:
            dialog.choose_data(data)
        return dialog

    def _audit_tab(self, opened: OpenedBundle) -> QWidget | None:
        if opened.audit is None:
            return None
        return _table(["Time (UTC)", "User", "Event", "Hash"],
                      [[a.time, a.user, a.event, a.hash[:16] + "…" if a.hash else ""]
                       for a in opened.audit])

    def _report_tab(self, opened: OpenedBundle) -> QWidget | None:
        browser = QTextBrowser()
        if opened.report is None:
            browser.setHtml("<p>This bundle has no report.</p>")
            return browser
        for name, data in opened.report.images.items():
            browser.document().addResource(QTextDocument.ResourceType.ImageResource,
                                           QUrl(name), QImage.fromData(data))
        note = opened.report.note  # another report format: its words were not checked
        browser.setHtml((f"<p style='background:#fdebd0; padding:6px'><b>Not rebuilt:</b> "
                         f"{html.escape(note)}</p>" if note else "") + opened.report.html)
        return browser


def origin_html(opened: OpenedBundle) -> str:
    """Signed or not, by which key, proven or only claimed, and who approved (the core's
    words: opened_bundle.Provenance)."""
    p = opened.provenance
    if p is None:
        return "<p>Who signed and who approved cannot be read from this bundle.</p>"
    e = html.escape
    if p.origin_proven:
        signed = (f"<b style='color:#1e8449'>✓ Signed by {e(p.trusted_signer or '?')}</b>, "
                  "a key you chose to trust.")
    elif p.signed:
        signed = (f"<b>Signed</b> by key <code>{e(p.fingerprint or '?')}</code>, which claims "
                  f"to be <b>{e(p.signer or '?')}</b>"
                  + (" — <b style='color:#c0392b'>not</b> by the key you chose."
                     if p.checked_against else
                     " — not yet checked against a key you trust: choose the owner's "
                     "public key."))
    else:
        signed = ("<b>Not signed</b>: nothing in the bundle shows who released it"
                  + (" (you asked for a signature by a key you trust)." if p.checked_against
                     else "."))
    return f"<p>{signed}<br>Review: {e(p.approval)}.</p>"
