"""The statistic form's "Find the categories / group keys / bounds privately…" (issue 25,
gui25): a discovery of one column, planned here with its cost and what it publishes (the
core's preview, on public parameters only), released through the same path as any plan
(publish: the same ledger, approval, policy and signing as the release wizard), into a
signed bundle; the form then writes what was found as ``plan apply-discovery`` does."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from ...core.kinds.discover_bounds import DEFAULT_QUANTILES
from ...core.model import Plan
from ...core.planfile import load_plan, save_plan
from ...core.planning.changes import OpChanges
from ...core.records.ledger import BudgetExceeded
from ...core.records.policy import PolicyRefused
from ...core.records.review import ApprovalRequired
from ...core.release.discovery import DiscoveryBundle, read_discovery
from ...core.release.discovery_steps import (
    BOUNDS,
    FIND_APPROVAL_ADVICE,
    FIND_GRID_TIP,
    FIND_INTRO,
    FIND_NO_COLUMN,
    FIND_NO_TABLE,
    FIND_REPLACE,
    FIND_REPLACE_TITLE,
    FIND_WHAT,
    KEYS,
    FindRequest,
    approved_plan_problem,
    discovery_plan,
    find_preview,
    find_title,
)
from ...core.release.publish import PublishResult, ReleaseUnfinished, publish
from ...core.support.errors import InputError, PlannerError
from ...core.support.field_words import on_screen
from ...core.support.outputs import bundle_file_name, default_output_folder
from ..file_dialogs import ask_open_file, ask_save_bundle, ask_save_file
from ..operations import failure_text
from ..session import Session
from ..signing import ask_signing_key
from ..widgets.form_fields import RED, NoteArea, NumberField, typed_number
from ..widgets.screen_fit import fit_to_screen
from ..workers import WorkerSlot

#: the refusals a discovery may meet before its charge, with what to do (nothing charged)
REFUSED = {
    ApprovalRequired: ("Refused: approval needed", FIND_APPROVAL_ADVICE),
    BudgetExceeded: ("Refused: not enough budget", "Nothing was charged. Lower the ε of "
                     "the discovery; the message says whose lifetime cap it is."),
    PolicyRefused: ("Refused by the organisation's policy", "Nothing was charged. Change "
                    "the discovery as the message says."),
    ReleaseUnfinished: ("The bundle was not written", "Fix what the message names, then "
                        "open Release and choose “Complete the unfinished release”: it "
                        "writes the bundle with no new noise and no new charge."),
}


class FindDialog(QDialog):
    """One discovery for the statistic form: ``found`` holds (bundle path, the verified
    bundle, its statistic id) once it is released, and the dialog is accepted."""

    def __init__(self, session: Session, field: str, column: str,
                 bounds: tuple[Any, Any] = (None, None), parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.field = field
        self.finds = FIND_WHAT[field][1]
        self.column = column
        self.found: tuple[Path, DiscoveryBundle, str] | None = None
        self.approved: Plan | None = None  # an approved discovery plan the owner opened
        self.slot = WorkerSlot()
        self.running = False
        self.setWindowTitle(find_title(field, column))
        outer = QVBoxLayout(self)
        # disc25c: what is asked and the preview scroll, the bundle and the buttons stay: at
        # 200% on a 1400 × 1000 screen the preview's last lines were cut off
        self.body = QWidget()
        layout = QVBoxLayout(self.body)
        layout.setContentsMargins(0, 0, 0, 0)
        intro = QLabel(FIND_INTRO)
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        layout.addLayout(form)
        form.addRow("Column", QLabel(f"<b>{escape(column or '(none)')}</b>"))
        self.epsilon = NumberField(1.0)
        self.epsilon.setAccessibleName("Epsilon of the discovery")
        form.addRow("ε", self.epsilon)
        self.delta = QLineEdit("1e-7")
        self.delta.setAccessibleName("Delta of the discovery")
        self.delta.setToolTip("The chance that a value only one person holds is published")
        self.max_keys = NumberField(1)
        self.max_keys.setAccessibleName("Keys per person")
        self.max_keys.setToolTip("A person counts in at most this many values (each row "
                                 "holds one)")
        self.publish_counts = QCheckBox("Publish the noised count of each value found")
        self.search_low, self.search_high = NumberField(), NumberField()
        for box, value in zip((self.search_low, self.search_high), bounds, strict=True):
            if isinstance(value, (int, float)):
                box.setValue(value)
        self.search_low.setPlaceholderText("lowest value searched")
        self.search_high.setPlaceholderText("highest value searched")
        self.q_low, self.q_high = NumberField(DEFAULT_QUANTILES[0]), \
            NumberField(DEFAULT_QUANTILES[1])
        self.grid_reason = QLineEdit()
        self.grid_reason.setPlaceholderText("Why this range is known without the data, e.g. "
                                            "no weekly wage reaches 100,000")
        if self.finds == KEYS:
            form.addRow("δ", self.delta)
            form.addRow("Keys per person", self.max_keys)
            form.addRow("", self.publish_counts)
        else:
            form.addRow("Search between", _pair(self.search_low, "and", self.search_high,
                                                FIND_GRID_TIP))
            form.addRow("Quantiles", _pair(self.q_low, "and", self.q_high,
                                           "The levels of the lower and the upper bound"))
            form.addRow("Why this range", self.grid_reason)
        self.preview = QLabel()
        self.preview.setWordWrap(True)
        self.preview.setAccessibleName("What the discovery costs and publishes")
        layout.addWidget(self.preview)
        self.error = NoteArea(2, RED)
        self.error.setAccessibleName("Why the discovery cannot run")
        layout.addWidget(self.error)
        layout.addStretch(1)
        self.scroller = QScrollArea()
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        self.scroller.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroller.setWidget(self.body)
        outer.addWidget(self.scroller, 1)
        layout = outer
        where = QHBoxLayout()
        self.path = QLineEdit(str(self._default_path()))
        self.path.setAccessibleName("Where to write the discovery bundle")
        choose = QPushButton("Choose…")
        choose.clicked.connect(self._choose_path)
        where.addWidget(QLabel("Bundle:"))
        where.addWidget(self.path, 1)
        where.addWidget(choose)
        layout.addLayout(where)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setVisible(False)
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.bar)
        layout.addWidget(self.status)
        buttons = QHBoxLayout()
        self.save_button = QPushButton("Save the discovery plan…")
        self.save_button.setToolTip("For a privacy officer's review, when a release needs "
                                    "an approval")
        self.approved_button = QPushButton("Use an approved discovery plan…")
        self.cancel_button = QPushButton("Cancel")
        self.run_button = QPushButton("Spend ε and find")
        self.run_button.setDefault(True)
        for b in (self.save_button, self.approved_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.run_button)
        layout.addLayout(buttons)
        self.save_button.clicked.connect(lambda: self.save_plan())
        self.approved_button.clicked.connect(lambda: self.use_approved())
        self.cancel_button.clicked.connect(self.reject)
        self.run_button.clicked.connect(self.run)
        boxes: list[QLineEdit] = [self.epsilon, self.delta, self.max_keys, self.search_low,
                                  self.search_high, self.q_low, self.q_high, self.grid_reason,
                                  self.path]
        for edit in boxes:
            edit.textChanged.connect(self.update_preview)
        self.publish_counts.toggled.connect(self.update_preview)
        self.update_preview()
        fit_to_screen(self, 640, 560)

    # -- what is asked --------------------------------------------------------------------

    def request(self) -> FindRequest:
        """The owner's request as typed (the core's rules say what is wrong with it)."""
        if self.finds == KEYS:
            return FindRequest(KEYS, self.column, typed_number(self.epsilon.text()),
                               typed_number(self.delta.text()),
                               max_keys=typed_number(self.max_keys.text()),
                               publish_counts=self.publish_counts.isChecked())
        return FindRequest(BOUNDS, self.column, typed_number(self.epsilon.text()),
                           lower=self.search_low.value(), upper=self.search_high.value(),
                           quantiles=(self.q_low.value(), self.q_high.value()),
                           grid_reason=self.grid_reason.text())

    def plan(self) -> Plan:
        """The discovery plan to release: the approved one opened, or the request's."""
        main = self.session.plan
        assert main is not None
        return self.approved if self.approved is not None else discovery_plan(main,
                                                                               self.request())

    def problem(self) -> str | None:
        if self.session.table is None:
            return FIND_NO_TABLE
        if not self.column:
            return FIND_NO_COLUMN
        if not self.path.text().strip().endswith(".zip"):
            return "Bundle: give a file name ending in .zip"
        return None

    def update_preview(self, *_args: object) -> None:
        """The cost, what is published and what the threshold tends to keep, or the core's
        line saying why the discovery cannot run as typed."""
        main = self.session.plan
        problem = self.problem()
        text = ""
        if main is not None and self.approved is not None:
            text = (f"<p>Using the approved discovery plan: "
                    f"{escape(self.approved.queries[0].title)}.</p>")
        elif main is not None and self.column:
            try:
                p = find_preview(main, self.request(), self.session.confidence)
            except InputError as exc:
                problem = problem or on_screen(str(exc))
            else:
                text = "".join(f"<p>{escape(t)}</p>" for t in (p.cost, p.publishes,
                                                                 *p.chances))
                text += "".join(f"<p style='color:#b9770e'>⚠ {escape(w)}</p>"
                                for w in p.warnings)
        self.preview.setText(text)
        self.error.setText(problem or "")
        self.run_button.setEnabled(problem is None and main is not None)

    def _default_path(self) -> Path:
        s = self.session
        folder = default_output_folder(s.path, s.table_path, s.home)  # disc25c: the wizard's
        name = s.plan.dataset.name if s.plan is not None else "dataset"
        return folder / bundle_file_name([name, "discovery", self.column,
                                          FIND_WHAT[self.field][0]])

    def _choose_path(self) -> None:
        chosen = ask_save_bundle(self, "Write the discovery bundle", self.path.text())
        if chosen is not None:
            self.path.setText(chosen)

    # -- a plan for the officer, and the approved plan back ------------------------------

    def save_plan(self, path: Path | None = None) -> Path | None:
        """The discovery plan written for a privacy officer's review (and signature)."""
        try:
            plan = self.plan()
        except InputError as exc:
            QMessageBox.warning(self, "The discovery plan cannot be saved", on_screen(str(exc)))
            return None
        if path is None:
            path = ask_save_file(self, "Save the discovery plan",
                                 Path(self.path.text()).with_suffix(".json").name,
                                 "Plans (*.json)")
            if path is None:
                return None
        target = path
        done = self.session.op(self, lambda _progress, _cancel: save_plan(plan, target),
                               OpChanges(), "The discovery plan was not saved").run()
        if done is None and not target.exists():
            return None
        self.status.setText(f"Discovery plan saved to {target}.")
        return target

    def use_approved(self, path: Path | None = None) -> bool:
        """Release an approved discovery plan instead of the fields' (it must find the same
        thing of the same column, for the same dataset: checked before any charge)."""
        main = self.session.plan
        if main is None:
            return False
        if path is None:
            path = ask_open_file(self, "Open the approved discovery plan", "Plans (*.json)")
            if path is None:
                return False
        try:
            plan = load_plan(path)
            problem = approved_plan_problem(plan, self.request(), main)
        except InputError as exc:
            problem = str(exc)
        if problem:
            QMessageBox.warning(self, "This plan cannot be used here", on_screen(
                problem if problem.startswith(str(path)) else f"{path.name}: {problem}"))
            return False
        self.approved = plan
        self.update_preview()
        return True

    # -- the release ----------------------------------------------------------------------

    def run(self) -> None:
        """Release the discovery plan (the charge, the noise, the signed bundle) on a worker,
        as the release wizard releases a plan; its signing key is loaded first."""
        session = self.session
        try:
            plan = self.plan()
        except InputError as exc:
            self.error.setText(on_screen(str(exc)))
            return
        table, home = session.table, session.home
        assert table is not None
        out = Path(self.path.text().strip())
        # walk25: asked here, before the charge (the core's refusal names --force, a flag)
        overwrite = out.is_file() and QMessageBox.question(
            self, FIND_REPLACE_TITLE, FIND_REPLACE.format(name=out.name, folder=out.parent),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No
        ) == QMessageBox.StandardButton.Yes
        if out.is_file() and not overwrite:
            return
        sign = None
        if session.signing_key:
            sign = ask_signing_key(self, session, session.signing_key)
            if sign is None:
                return
        require, trusted = session.approval_required, session.trusted_keys
        confidence = session.confidence
        inputs = [session.table_path] if session.table_path is not None else []

        def work(progress, cancel):  # type: ignore[no-untyped-def]
            return publish(plan, table, out, home, require_approval=require, overwrite=overwrite,
                           confidence=confidence, progress=progress, inputs=inputs,
                           trusted=trusted, sign_with=sign)

        self.running = True  # no way back now: Cancel and Escape wait for the answer
        for button in (self.run_button, self.cancel_button, self.save_button,
                       self.approved_button):
            button.setEnabled(False)
        self.bar.setVisible(True)
        session.op(self, work, session.released, "The discovery did not happen") \
            .progress(self._progress).success(self._released).failure(self._failed) \
            .still_changed(lambda exc: OpChanges(ledger=isinstance(exc, ReleaseUnfinished))) \
            .run_in_background(self.slot)

    def reject(self) -> None:
        """Cancel or Escape, except while the discovery is being released (it may have been
        charged: its result is brought back into the form)."""
        if not self.running:
            super().reject()

    def _progress(self, fraction: float, message: str) -> None:
        self.bar.setValue(int(fraction * 1000))
        self.status.setText(message)

    def _released(self, result: PublishResult) -> None:
        self.running = False
        path = Path(result.bundle_path)
        try:
            bundle = read_discovery(path)  # verified, as apply-discovery reads it
        except PlannerError as exc:
            self._failed(exc)
            return
        statistic = next(iter(bundle.found))
        self.found = (path, bundle, statistic)
        self.status.setText(f"Released to {path}.")
        self.accept()

    def _failed(self, exc: BaseException) -> None:
        self.running = False
        for button in (self.cancel_button, self.save_button, self.approved_button):
            button.setEnabled(True)
        self.bar.setVisible(False)
        title, advice = next(((t, a) for cls, (t, a) in REFUSED.items()
                              if isinstance(exc, cls)),
                             ("The discovery did not happen", "Fix what the message names "
                              "and try again."))
        text = failure_text(exc)
        self.status.setText(f"{title}. {text}")
        QMessageBox.warning(self, title, f"{text}\n\n{advice}")
        self.update_preview()


def _pair(first: QWidget, words: str, second: QWidget, tip: str) -> QWidget:
    row = QWidget()
    box = QHBoxLayout(row)
    box.setContentsMargins(0, 0, 0, 0)
    box.addWidget(first)
    box.addWidget(QLabel(words))
    box.addWidget(second)
    row.setToolTip(tip)
    return row


def find_into_form(form: Any, field: str) -> FindDialog | None:
    """Open the discovery of ``field`` ("categories", "keys" or "bounds") for the statistic
    form ``form`` (a QueryDialog); when it is released, what it found is written into the
    form as ``plan apply-discovery`` writes it (the core's found_into_statistic)."""
    session: Session = form.session
    if session.plan is None:
        return None
    if field == "keys":
        column = form.group_column.currentText() if form.checks.has_groups() else ""
    else:
        column = form.checks.chosen_column() or ""
    if field != "bounds" and column and _use_keys_found_before(form, field, column):
        return None
    bounds = (typed_number(form.lower.text()), typed_number(form.upper.text()))
    dialog = FindDialog(session, field, column, bounds, form)
    dialog.accepted.connect(lambda: bring_back(form, dialog, field))
    dialog.open()
    return dialog


def _use_keys_found_before(form: Any, field: str, column: str) -> bool:
    """walk25: the keys of ``column`` found already for this plan (its kept bundles, or this
    form's) are offered again at no cost, rather than charged a second time; True when the
    owner took them (written into the form as a new discovery's would be)."""
    from ...core.release.discovery_steps import found_again_question, keys_found_before

    session: Session = form.session
    if session.plan is None:
        return False
    kept = [*session.discoveries, *(path for path, _release in form.finder.bundles)]
    earlier = keys_found_before(kept, session.plan.dataset.name, column)
    if earlier is None:
        return False
    title, text = found_again_question(earlier[1], earlier[2])
    answer = QMessageBox.question(form, title, text, QMessageBox.StandardButton.Yes
                                  | QMessageBox.StandardButton.No)
    if answer != QMessageBox.StandardButton.Yes:
        return False
    return write_found(form, field, *earlier)


def bring_back(form: Any, dialog: FindDialog, field: str) -> bool:
    """What ``dialog`` found, written into the form's ``field`` with its reason "found
    privately in release …"; the bundle is kept for the plan's release. A result that
    cannot be used (no key cleared the threshold, no range) is said in a dialog."""
    assert dialog.found is not None
    return write_found(form, field, *dialog.found)


def write_found(form: Any, field: str, path: Path, bundle: DiscoveryBundle, statistic: str
                ) -> bool:
    """``bundle``'s ``statistic`` written into the form's ``field`` (see bring_back)."""
    from ...core.release.discovery_steps import found_into_statistic
    from ..widgets.form_fields import number_text

    assert form.session.plan is not None
    try:
        q = found_into_statistic(form.to_dict(), field, bundle, statistic, form.session.plan)
    except InputError as exc:
        QMessageBox.warning(form, "The discovery found nothing to use", on_screen(str(exc)))
        return False
    reason = bundle.reason(statistic)
    reasons = q.get("justification") or {}
    if field == "bounds":
        form.lower.setText(number_text(q["lower"]))
        form.upper.setText(number_text(q["upper"]))
        form.bounds_reason.setText(reasons.get("bounds", reason))
        form.bounds_reason.setCursorPosition(0)  # walk25: its start, "found privately in …"
    else:
        keys = q["categories"] if field == "categories" else q["group_by"]["keys"]
        box = form.categories if field == "categories" else form.group_keys
        box.setPlainText("\n".join(str(k) for k in keys))
        form.list_reason.setText(reasons.get(field, reason))
        form.list_reason.setCursorPosition(0)  # walk25: not the end of a manifest hash
        form.declare.setChecked(True)
    form.finder.reasons[field] = reasons.get(field, reason)
    if all(kept != path for kept, _release in form.finder.bundles):
        form.finder.bundles.append((path, bundle.release_id))
    form.checks.update_warning()
    return True
