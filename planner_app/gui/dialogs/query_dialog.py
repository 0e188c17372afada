"""Add or edit one statistic: the shell of the statistic form. The kind's registry entry says
which panels (kind_panels/: column, bounds, domain, quantile, yes/no, expected count, rows
read, synthetic table) and mechanisms the form shows (``kind_of(q).form_fields()``); the shell
lays them out with the label, id, kind, reasons and noise, builds the plan's own JSON for the
statistic from them, and the core validates it."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from ...core.kinds import KINDS, StatisticKind, kind_of
from ...core.kinds.params import synth_workload_of
from ...core.kinds.shared_form import (
    BOUNDS,
    COUNT_OF,
    DELTA,
    DOMAIN,
    EXPECTED_COUNT,
    GROUP_BY,
    MISSING,
    QUANTILE,
    SHARE_HINT,
    SYNTH_COLUMNS,
    SYNTH_ROWS,
    WHERE,
    YES_NO,
)
from ...core.kinds.synthetic_workload import kept_workload
from ...core.model import Plan, Query
from ...core.planfile import plan_to_dict
from ...core.support.words import (
    DISCARD_STATISTIC,
    DISCARD_STATISTIC_TITLE,
    STATISTIC_FORM_GUIDE,
)
from ..session import Session
from ..widgets.form_fields import AMBER, RED, NoteArea, NumberField
from ..widgets.screen_fit import fit_to_screen
from .kind_panels.column import ColumnPanel
from .kind_panels.common import name_controls, number, show_row
from .kind_panels.discovery import DiscoveryPanel, FindButtons
from .kind_panels.domain import DomainPanel
from .kind_panels.expected import ExpectedCountPanel
from .kind_panels.quantile import QuantilePanel
from .kind_panels.reasons import ReasonsPanel
from .kind_panels.rows import RowsPanel
from .kind_panels.scalar import BoundsPanel
from .kind_panels.synthetic import SyntheticPanel
from .kind_panels.yes_no import YesNoPanel
from .query_checks import FormChecks


class QueryDialog(QDialog):
    """The statistic form: the panels its kind shows, and its checks (``checks``, a
    FormChecks it owns: warnings while typing, and what OK refuses)."""

    # the lower-bound field shadows QWidget.lower() (the stacking order), which nothing here
    # calls; declared so mypy types it as the field (tests and scripts drive it by this name)
    lower: QLineEdit  # type: ignore[assignment]

    def __init__(self, session: Session, query: Query | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.original = query
        self.result_plan: Plan | None = None
        self.result_id: str | None = None
        self.checks = FormChecks(self, session, query, parent=self)
        self._mechanism_wanted: str | None = None  # the loaded statistic's mechanism
        session.dataAnswered.connect(self.checks.data_answered)  # ends with the dialog
        self.setWindowTitle("Edit statistic" if query else "Add a statistic")
        self.setMinimumWidth(700)
        outer = QVBoxLayout(self)
        # the fields scroll (at a large scale they need more height than a screen has); the
        # notes, the red message and OK / Cancel stay in view below them
        self.field_scroll = QScrollArea()
        self.field_scroll.setWidgetResizable(True)
        self.field_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.field_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.fields = QWidget()
        layout = QVBoxLayout(self.fields)
        layout.setContentsMargins(0, 0, 0, 0)
        self.field_scroll.setWidget(self.fields)
        outer.addWidget(self.field_scroll, 1)
        form = QFormLayout()
        layout.addLayout(form)
        self._form = form

        # the panels, one per family of fields (the kind says which it shows)
        self.column_panel = ColumnPanel()
        self.bounds_panel = BoundsPanel()
        self.domain_panel = DomainPanel()
        self.yes_no_panel = YesNoPanel()
        self.quantile_panel = QuantilePanel()
        self.expected_panel = ExpectedCountPanel()
        self.rows_panel = RowsPanel(lambda: [c.name for c in self.session.columns],
                                    self._refusal_stale)
        self.synth_panel = SyntheticPanel(self.domain_panel, self.column_panel.column)
        self.reasons_panel = ReasonsPanel()
        self.discovery_panel = DiscoveryPanel()  # gui25: the discovery kinds' own fields
        self.finder = FindButtons(self.find_privately)  # gui25: "Find … privately…"
        self.find_dialog: QDialog | None = None
        c, y, r, sp = self.column_panel, self.yes_no_panel, self.rows_panel, self.synth_panel
        # the form's controls, by their names (tests, scripts and _show_refused find them so)
        self.column, self.column_row, self.count_present, self.count_people = (
            c.column, c.column_row, c.count_present, c.count_people)
        self.count_present_tail, self.count_words = c.count_present_tail, c.count_words
        self.lower, self.upper = self.bounds_panel.lower, self.bounds_panel.upper
        self.bounds_row = self.bounds_panel.bounds_row
        self.use_bins, self.categories, self.bins = (
            self.domain_panel.use_bins, self.domain_panel.categories, self.domain_panel.bins)
        self.kind_help, self.yes_values, self.no_values, self.suggest = (
            y.kind_help, y.yes_values, y.no_values, y.suggest)
        self.yes_no_row, self.yes_no_hint = y.yes_no_row, y.yes_no_hint
        self.quantile = self.quantile_panel.quantile
        self.expected_count, self.expected_count_row, self.expected_count_help = (
            self.expected_panel.expected_count, self.expected_panel.expected_count_row,
            self.expected_panel.expected_count_help)
        self.group_column, self.group_keys, self.conditions, self.missing, self.impute = (
            r.group_column, r.group_keys, r.conditions, r.missing, r.impute)
        self.synth_list, self.synth_add, self.synth_remove = (
            sp.synth_list, sp.synth_add, sp.synth_remove)
        self.synth_row, self.synth_rows = sp.synth_row, sp.synth_rows
        self.bounds_reason, self.list_reason, self.declare = (
            self.reasons_panel.bounds_reason, self.reasons_panel.list_reason,
            self.reasons_panel.declare)

        self.label = QLineEdit()
        self.label.setPlaceholderText("What readers will see, e.g. Mean hours worked")
        form.addRow("Label", self.label)
        self.ident = QLineEdit()
        self.ident.setPlaceholderText("made from the label")
        self.ident.setToolTip("A short unique name: letters, digits, _ . -")
        form.addRow("Id", self.ident)
        self.kind = QComboBox()
        for name in KINDS:
            self.kind.addItem(KINDS[name].title, name)
        form.addRow("Kind", self.kind)
        self.yes_no_panel.add_help_row(form)  # the central-share hint, under the kind
        self.synth_panel.add_rows(form)
        self.column_panel.add_rows(form)
        self.bounds_panel.add_rows(form)
        self.finder.add_row(form, "bounds")
        self.domain_panel.add_rows(form)
        self.finder.add_row(form, "categories")
        self.reasons_panel.add_bounds_row(form)
        self.yes_no_panel.add_rows(form)
        self.reasons_panel.add_list_rows(form)
        self.quantile_panel.add_rows(form)
        self.discovery_panel.add_rows(form)
        self.rows_panel.add_group_rows(form)
        self.finder.add_row(form, "keys")
        self.expected_panel.add_rows(form)
        layout.addWidget(self.rows_panel.conditions_box)
        self._conditions_box = self.rows_panel.conditions_box

        more = QFormLayout()
        layout.addLayout(more)
        self._more = more
        self.rows_panel.add_missing_rows(more)
        self.synth_panel.add_more_rows(more)
        mech = QHBoxLayout()
        self.mechanism = QComboBox()
        self.epsilon = NumberField(0.1)  # kept as typed: the plan's rule refuses it
        self.epsilon.setMaximumWidth(110)
        self.delta = QLineEdit("1e-7")
        self.delta.setMaximumWidth(90)
        mech.addWidget(self.mechanism)
        mech.addWidget(QLabel("ε"))
        mech.addWidget(self.epsilon)
        self.delta_label = QLabel("δ")
        mech.addWidget(self.delta_label)
        mech.addWidget(self.delta)
        mech.addStretch(1)  # ε and δ beside their boxes
        more.addRow("Noise", mech)

        self.guide = QLabel(STATISTIC_FORM_GUIDE)
        self.guide.setWordWrap(True)
        layout.addWidget(self.guide)
        layout.addStretch(1)
        # warnings and the red message in spaces of their own, outside the scrolled fields:
        # what they say while typing never moves a field or OK
        self.warning = NoteArea(2, AMBER)
        self.warning.setAccessibleName("Warnings about this statistic")
        outer.addWidget(self.warning)
        self.error = NoteArea(2, RED)
        self.error.setAccessibleName("Why OK was refused")
        outer.addWidget(self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        self.buttons = buttons
        outer.addWidget(buttons)

        self._name_fields()
        self.column.addItems([c.name for c in session.columns])
        self._column_chosen = query is not None  # a new statistic's column follows its kind
        self._defaulting = False  # the kind's default column is being put in the field
        # the person's pick or typing (any change the default rule did not make) is a choice a
        # later change of kind, bins or groups must keep
        self.column.activated.connect(self._column_picked)
        self.column.currentTextChanged.connect(self._column_picked)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.count_present.toggled.connect(self._kind_changed)
        self.count_people.toggled.connect(self._kind_changed)
        self.missing.currentIndexChanged.connect(self.checks.update_warning)
        self.use_bins.toggled.connect(self._kind_changed)
        self.group_column.currentTextChanged.connect(self._kind_changed)
        self.mechanism.currentIndexChanged.connect(self._kind_changed)
        for w in (self.lower, self.upper, self.bins):
            w.textChanged.connect(self.checks.update_warning)
        for box in (self.categories, self.group_keys, self.yes_values, self.no_values):
            box.textChanged.connect(self.checks.update_warning)
        self.suggest.clicked.connect(self.checks.suggest_yes_no)
        self.column.currentTextChanged.connect(self.checks.update_warning)
        self.synth_list.currentRowChanged.connect(self._synth_selected)
        self.synth_add.clicked.connect(self.add_synth_column)
        self.synth_remove.clicked.connect(self.synth_panel.remove_column)
        buttons.accepted.connect(self.checks.accept)
        buttons.rejected.connect(self.reject)
        if query is not None:
            self._load(query)
        self._kind_changed()
        # the red line speaks of the form as it was when OK was pressed: any edit clears it
        # ("Lower bound: is required" stayed while the field held 0)
        self._clear_refusal_on_edit()
        self._as_opened = self._form_state()  # what Escape compares with before it asks
        # one size for every kind, or less on a small screen: the fields scroll inside it and
        # OK / Cancel stay where they are (it grew with the kind and pushed them off-screen)
        fit_to_screen(self, 720, 860)

    def _form_state(self) -> object:
        self.checks.store_synth()  # a synthetic table's fields, into its selected column
        return (self.to_dict(), self.label.text(), self.ident.text(), *self.reasons_panel.state(),
                self.impute.text(), self.delta.text())

    def reject(self) -> None:
        """Escape, Cancel or the close button: a changed form is never thrown away unasked."""
        if self.result_plan is None and self._form_state() != self._as_opened:
            answer = QMessageBox.question(
                self, DISCARD_STATISTIC_TITLE, DISCARD_STATISTIC,
                QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Cancel)
            if answer != QMessageBox.StandardButton.Discard:
                return
        super().reject()

    def _clear_refusal_on_edit(self) -> None:
        for line in self.findChildren(QLineEdit):
            line.textEdited.connect(self._refusal_stale)
        for box in self.findChildren(QPlainTextEdit):
            box.textChanged.connect(self._refusal_stale)
        for combo in self.findChildren(QComboBox):
            combo.activated.connect(self._refusal_stale)
        for tick in self.findChildren(QCheckBox):
            tick.clicked.connect(self._refusal_stale)
        self.conditions.cellChanged.connect(self._refusal_stale)

    def finish(self, plan: Plan, query_id: str) -> None:
        """OK passed the checks: the plan with this statistic, for the window to apply."""
        self.result_plan = plan
        self.result_id = query_id
        self.accept()

    def _refusal_stale(self, *_args: object) -> None:
        if not self.checks.accepting:  # "Checking against the table…" waits for its answer
            self.error.setText("")

    def _name_fields(self) -> None:
        """Accessible names and tooltips of the shell's own fields (each panel names its)."""
        name_controls({
            self.label: ("Label", "What readers of the release will see"),
            self.ident: ("Id", "A short unique name: letters, digits, _ . -"),
            self.kind: ("Kind of statistic", "Count, sum, mean, variance, histogram, quantile or "
                                             "share of yes"),
            self.mechanism: ("Noise mechanism", "Discrete Laplace (pure ε) or Gaussian "
                                                "(needs δ)"),
            self.epsilon: ("Epsilon", "This statistic's share of the privacy budget"),
            self.delta: ("Delta", "The Gaussian mechanism's δ, far below 1 / number of "
                                  "people"),
        })

    # -- form <-> plan JSON ---------------------------------------------------------------------

    def _load(self, q: Query) -> None:
        doc = next(d for d in plan_to_dict(self.session.plan)["queries"]  # type: ignore[arg-type]
                   if d["id"] == q.id)
        fields = kind_of(q).form_fields()
        self.synth_panel.loading = True  # the fields below are the plan's, not a column's edits
        self.label.setText(doc.get("label", ""))
        self.ident.setText(q.id)
        self.kind.setCurrentIndex(self.kind.findData(q.kind))
        self.column_panel.load(q, fields)
        self.bounds_panel.load(q)
        self.domain_panel.load(q)
        self.quantile_panel.load(q)
        self.discovery_panel.load(q)
        self.expected_panel.load(q)
        self.rows_panel.load(q)
        self.yes_no_panel.load(q)
        self.epsilon.setValue(q.epsilon)
        if q.delta:
            self.delta.setText(f"{q.delta:g}")
        self.reasons_panel.load(q)
        self._mechanism_wanted = q.mechanism
        self.synth_panel.loading = False
        if SYNTH_COLUMNS in fields:
            self.synth_panel.load(q)

    def _show_mechanisms(self, kind: StatisticKind) -> None:
        """The kind's mechanisms in the noise list, keeping the one chosen where offered."""
        wanted = self._mechanism_wanted or self.mechanism.currentData()
        options = kind.form_mechanisms()
        if [self.mechanism.itemData(i) for i in range(self.mechanism.count())] != \
                [o.value for o in options]:
            self.mechanism.blockSignals(True)
            self.mechanism.clear()
            for option in options:
                self.mechanism.addItem(option.label, option.value)
                if option.tip:  # in full, where the item has no room for it
                    self.mechanism.setItemData(self.mechanism.count() - 1, option.tip,
                                               Qt.ItemDataRole.ToolTipRole)
            self.mechanism.blockSignals(False)
        self.mechanism.setToolTip(kind.form_noise_tip())
        index = self.mechanism.findData(wanted)
        if index >= 0:
            self.mechanism.setCurrentIndex(index)
        self._mechanism_wanted = None

    def _kind_changed(self, *_args: object) -> None:
        kind = self.checks.kind_now()
        fields = kind.form_fields()
        words = kind.form_words()
        self._show_mechanisms(kind)
        synth = SYNTH_COLUMNS in fields
        self._defaulting = True
        try:
            self._offer_columns(synth)
            if not self._column_chosen and not synth:  # never the person id (starters' rule)
                self.column.setCurrentText(self.session.default_column(kind.name) or "")
        finally:
            self._defaulting = False
        if synth and not self.checks.synth_columns:  # a first column: the one in the fields
            self.synth_panel.columns = [self.synth_panel.entry()]
            self.synth_panel.refresh(0)
        gaussian = self.mechanism.currentData() == "gaussian" or DELTA in fields
        self.delta.setVisible(gaussian)
        self.delta_label.setVisible(gaussian)
        bounded = BOUNDS in fields
        groups = GROUP_BY in fields
        domain = DOMAIN in fields
        bins = domain and self.use_bins.isChecked()
        self.reasons_panel.show_words(self._form, words, bins)
        forms = (self._form, self._more)
        for widget, show in ((self.bounds_row, bounded),
                             # a synthetic table's reasons are the whole table's, shown
                             # with the selected column's bins or list
                             (self.bounds_reason, bounded or bins),
                             (self.synth_row, synth), (self.synth_rows, SYNTH_ROWS in fields),
                             (self.group_column, groups), (self.group_keys, groups),
                             (self.missing, MISSING in fields), (self.impute, MISSING in fields),
                             (self.use_bins, domain), (self.categories, domain and not bins),
                             (self.bins, bins), (self.quantile, QUANTILE in fields),
                             (self.expected_count_row, EXPECTED_COUNT in fields),
                             (self.yes_no_row, YES_NO in fields),
                             (self.yes_no_hint, YES_NO in fields),
                             (self.kind_help, SHARE_HINT in fields),
                             # a statistic's list rows stay in place, usable only with a
                             # list: choosing a group column moves no field below
                             (self.list_reason, not bins if synth else True),
                             (self.declare, not bins if synth else True)):
            show_row(forms, widget, show)
        for widget, show in [*self.discovery_panel.rows(fields), *self.finder.rows(
                bounded and not kind.is_discovery, domain and not bins, groups,
                self.checks.has_groups())]:
            show_row(forms, widget, show)
        for form, row, show in ((self._form, self.rows_panel.group_layout, groups),
                                (self._more, self.rows_panel.missing_layout,
                                 MISSING in fields)):
            label = form.labelForField(row)
            if label is not None:
                label.setVisible(show)
        self._conditions_box.setVisible(WHERE in fields)
        has_list = not bins if synth else self.checks.has_list()
        self.reasons_panel.enable_list(has_list)
        self.expected_panel.show_label(self._form, self.checks.has_groups())
        self.column_panel.show(self._form, fields, self.checks.id_column(), words.column_label)
        self.checks.update_warning()

    # -- a synthetic table's columns ------------------------------------------------------------

    def find_privately(self, field: str) -> None:
        """"Find … privately…" (find_privately.py): its dialog, then what it found here."""
        from .find_privately import find_into_form

        self.find_dialog = find_into_form(self, field)

    def _synth_selected(self, row: int) -> None:
        self.synth_panel.selected(row)
        self._kind_changed()

    def add_synth_column(self) -> None:
        """A new column of the synthetic table: the first column of the table not yet in it
        (never the person id), with an empty list of categories to declare."""
        self.synth_panel.add_column(lambda taken: [
            c.name for c in self.session.columns
            if c.name not in taken and c.name != self.checks.id_column()])

    def remove_synth_column(self) -> None:
        self.synth_panel.remove_column()

    def _column_picked(self, *_args: object) -> None:
        if not self._defaulting:
            self._column_chosen = True

    def _offer_columns(self, synth: bool) -> None:
        """The table's columns in the column field; a synthetic table's leave out the privacy
        unit's id column (an identifier is not a column of a released table)."""
        wanted = [c.name for c in self.session.columns
                  if not (synth and c.name == self.checks.id_column())]
        if [self.column.itemText(i) for i in range(self.column.count())] == wanted:
            return
        text = self.column.currentText()
        self.column.blockSignals(True)
        self.column.clear()
        self.column.addItems(wanted)
        self.column.setCurrentText(wanted[0] if synth and text == self.checks.id_column()
                                   and wanted else text)
        self.column.blockSignals(False)

    def to_dict(self) -> dict[str, Any]:
        kind = self.checks.kind_now()
        fields = kind.form_fields()
        label = self.label.text().strip()
        ident = self.ident.text().strip() or self.checks.made_id(label, kind.name)
        if SYNTH_COLUMNS in fields:
            return self._synthetic_dict(ident, label)
        doc: dict[str, Any] = {"id": ident, "kind": kind.name, "epsilon": self.epsilon.value(),
                               "mechanism": self.mechanism.currentData()}
        if label:
            doc["label"] = label
        column = self.checks.chosen_column()
        if column is not None:
            doc["column"] = column
        if BOUNDS in fields:
            self.bounds_panel.write(doc)
        if DOMAIN in fields:
            self.domain_panel.write(doc)
        if COUNT_OF in fields and self.checks.counts_people():
            doc["of"] = "people"
        if QUANTILE in fields:
            self.quantile_panel.write(doc)
        self.discovery_panel.write(doc, fields)
        if EXPECTED_COUNT in fields:
            self.expected_panel.write(doc)
        if YES_NO in fields:
            self.yes_no_panel.write(doc)
        if self.checks.has_groups():
            self.rows_panel.write_groups(doc)
        where = self.rows_panel.where()
        if where and WHERE in fields:
            doc["where"] = where
        self.rows_panel.write_missing(doc)
        if doc["mechanism"] == "gaussian":
            doc["delta"] = number(self.delta.text())
        justification = self.checks.kept_justification(("bounds", "categories", "keys", "values"))
        if self.checks.needs_bounds_reason() and self.reasons_panel.bounds():
            justification["bounds"] = self.reasons_panel.bounds()
        reason = self.reasons_panel.declared_list()
        if reason:
            if self.checks.has_categories():
                justification["categories"] = reason
            if self.checks.has_groups():
                justification["keys"] = reason
            if self.checks.reads_yes_no() and "yes" in doc:
                justification["values"] = reason
        justification.update(self.finder.kept_reasons(doc))  # found privately here
        if justification:
            doc["justification"] = justification
        return doc

    def _synthetic_dict(self, ident: str, label: str) -> dict[str, Any]:
        """The plan JSON of a synthetic table as the form stands (the core validates it)."""
        self.checks.store_synth()
        doc: dict[str, Any] = {"id": ident, "kind": self.checks.kind_now().name,
                               "method": self.mechanism.currentData() or "mst"}
        self.synth_panel.write(doc)
        if self.original is not None:  # AIM's workload, kept where its columns still are
            pairs, triples = synth_workload_of(self.original)
            doc.update(kept_workload(pairs, triples, doc["method"],
                                     [c.get("column") for c in doc.get("columns", [])]))
        doc.update({"epsilon": self.epsilon.value(), "delta": number(self.delta.text())})
        if label:
            doc["label"] = label
        self.synth_panel.write_rows(doc)
        justification = self.checks.kept_justification(("bounds", "categories"))
        if self.checks.synth_has("bins") and self.reasons_panel.bounds():
            justification["bounds"] = self.reasons_panel.bounds()
        reason = self.reasons_panel.declared_list()
        if self.checks.synth_has("categories") and reason:
            justification["categories"] = reason
        if justification:
            doc["justification"] = justification
        return doc
