"""Add or edit one statistic: kind, column, bounds, categories or bins, quantile, group-by,
conditions, missing values and mechanism, with guidance on where public parameters come from.
The form builds the plan's own JSON for the statistic and the core validates it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.kinds.synthetic import synthetic_to_dict
from ...core.model import (
    EXPECTED_COUNT_KINDS,
    FIXED_YES_NO,
    OPS,
    YES_NO_KINDS,
    Plan,
    Query,
    kind_takes,
)
from ...core.planfile import plan_from_dict, plan_to_dict
from ...core.support.errors import InputError
from ...core.support.field_words import on_screen
from ...core.support.words import (
    CENTRAL_SHARE_HINT,
    DISCARD_STATISTIC,
    DISCARD_STATISTIC_TITLE,
    EXPECTED_COUNT_GROUP_LABEL,
    EXPECTED_COUNT_HELP,
    EXPECTED_COUNT_LABEL,
    KIND_NAMES,
    count_words,
    people_option_words,
)
from ..session import Session
from ..widgets.form_fields import AMBER, RED, NoteArea, NumberField, column_box, typed_number
from ..widgets.screen_fit import fit_to_screen

KINDS = list(KIND_NAMES)
NONE = "(none)"
GUIDE = ("Bounds, categories and group keys must come from knowledge of the domain — a form's "
         "limits, an official list — never from this data: the data's own minimum, maximum or "
         "list of values would leak it. Values outside the bounds are clamped; values outside "
         "the list are left out.")

DECLARE_LIST = "I declare this list public: it comes from knowledge of the domain, not from " \
    "this data"
DECLARE_LISTS = "I declare these lists public: they come from knowing the domain, not from " \
    "this data"


_number = typed_number


def _lines(text: str) -> list[Any]:
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line:
            value = _number(line)
            out.append(value if not isinstance(value, float) or "." in line else line)
    return out


MST_CITATION = "MST: McKenna, Miklau, Sheldon (2021), Winning the NIST Contest: A scalable " \
    "and general approach to differentially private synthetic data. Noisy counts of each " \
    "column and of the pairs on a tree, from which the rows are generated."


def form_words(exc: InputError | str, columns: Sequence[str] = ()) -> str:
    """A plan error in the form's words: "Lower bound: must be a number" for
    "queries[y].lower: must be a number, not a string" (core.support.field_words names the
    control); a synthetic table's columns[i] is named by its column (``columns``, in the
    plan's order)."""
    text = str(exc).replace("this statistic: ", "")
    # the JSON type names mean nothing in a form
    text = re.sub(r", not an? (string|list|object|boolean|null)$", "", text)
    return on_screen(text, columns, in_editor=True)


class QueryDialog(QDialog):
    # the lower-bound field shadows QWidget.lower() (the stacking order), which nothing here
    # calls; declared so mypy types it as the field (a rename waits for the form's rework)
    lower: QLineEdit  # type: ignore[assignment]

    def __init__(self, session: Session, query: Query | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.original = query
        self.result_plan: Plan | None = None
        self.result_id: str | None = None
        # a large table's answers come from a worker: what waits for one
        self._suggesting: str | None = None  # the column whose values were asked for
        self._accepting = False  # OK was pressed while the statistic was being checked
        session.dataAnswered.connect(self._data_answered)
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

        self.label = QLineEdit()
        self.label.setPlaceholderText("What readers will see, e.g. Mean hours worked")
        form.addRow("Label", self.label)
        self.ident = QLineEdit()
        self.ident.setPlaceholderText("made from the label")
        self.ident.setToolTip("A short unique name: letters, digits, _ . -")
        form.addRow("Id", self.ident)
        self.kind = QComboBox()
        for k in KINDS:
            self.kind.addItem(KIND_NAMES[k], k)
        form.addRow("Kind", self.kind)
        self.kind_help = QLabel(CENTRAL_SHARE_HINT)  # shown for the Yes/no share only
        self.kind_help.setWordWrap(True)
        form.addRow("", self.kind_help)
        self.column = column_box()
        # a count counts all rows unless the owner wants the rows where a column is present
        self.count_present = QCheckBox("Only rows where")
        self.count_present_tail = QLabel("is present")
        self.count_words = QLabel()
        column_row = QHBoxLayout()
        column_row.setContentsMargins(0, 0, 0, 0)
        column_row.addWidget(self.count_present)
        column_row.addWidget(self.column, 1)
        column_row.addWidget(self.count_present_tail)
        self.column_row = QWidget()
        self.column_row.setLayout(column_row)
        # one line high: spare height goes to the lists below, never around the column's name
        self.column_row.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        # a synthetic table: its columns, each one's domain edited in the histogram's own
        # fields below (the selected column's)
        synth = QHBoxLayout()
        synth.setContentsMargins(0, 0, 0, 0)
        self.synth_list = QListWidget()
        self.synth_list.setMaximumHeight(110)
        synth_buttons = QVBoxLayout()
        self.synth_add = QPushButton("Add a column")
        self.synth_remove = QPushButton("Remove the column")
        synth_buttons.addWidget(self.synth_add)
        synth_buttons.addWidget(self.synth_remove)
        synth_buttons.addStretch(1)
        synth.addWidget(self.synth_list, 1)
        synth.addLayout(synth_buttons)
        self.synth_row = QWidget()
        self.synth_row.setLayout(synth)
        self.synth_row.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        form.addRow("Columns of the table", self.synth_row)
        self._synth: list[dict[str, Any]] = []  # the plan JSON of each column, as typed
        self._synth_at = -1  # the column shown in the fields below
        self._synth_loading = False  # the fields are being filled from a column
        form.addRow("Column", self.column_row)
        form.addRow("", self.count_words)
        # under an id unit: count people (distinct ids) instead of rows (core: Query.of)
        self.count_people = QCheckBox()
        form.addRow("", self.count_people)
        bounds = QHBoxLayout()
        bounds.setContentsMargins(0, 0, 0, 0)  # the row's own margins squeezed the fields
        self.lower = QLineEdit()
        self.upper = QLineEdit()
        self.lower.setPlaceholderText("lowest possible value")
        self.upper.setPlaceholderText("highest possible value")
        bounds.addWidget(self.lower)
        bounds.addWidget(QLabel("to"))
        bounds.addWidget(self.upper)
        self.bounds_row = QWidget()
        self.bounds_row.setLayout(bounds)
        form.addRow("Bounds", self.bounds_row)
        self.bounds_reason = QLineEdit()
        self.bounds_reason.setPlaceholderText("Where do the bounds come from? e.g. the form "
                                              "accepts 0 to 80")
        self.use_bins = QCheckBox("Numeric bins instead of categories")
        form.addRow("", self.use_bins)
        self.categories = QPlainTextEdit()
        self.categories.setPlaceholderText("One category per line, the full public list")
        self.categories.setMaximumHeight(90)
        form.addRow("Categories", self.categories)
        self.bins = QLineEdit()
        self.bins.setPlaceholderText("Bin edges, e.g. 0, 18, 30, 65, 120")
        form.addRow("Bins", self.bins)
        # the reason sits under what it explains: the bounds (the rows between are hidden
        # then) or the bin edges
        form.addRow("Why these bounds", self.bounds_reason)
        self.synth_rows = QLineEdit()
        self.synth_rows.setPlaceholderText("empty: as many as the noised counts say (no extra "
                                     "budget)")
        yes_no = QHBoxLayout()
        yes_no.setContentsMargins(0, 0, 0, 0)
        self.yes_values = QPlainTextEdit()
        self.yes_values.setPlaceholderText("Values that mean yes, one per line")
        self.no_values = QPlainTextEdit()
        self.no_values.setPlaceholderText("Values that mean no, one per line")
        for box in (self.yes_values, self.no_values):
            box.setMaximumHeight(70)
            yes_no.addWidget(box, 1)
        self.suggest = QPushButton("Suggest from the data")
        yes_no.addWidget(self.suggest, 0, Qt.AlignmentFlag.AlignTop)
        self.yes_no_row = QWidget()
        self.yes_no_row.setLayout(yes_no)
        form.addRow("Yes / no values", self.yes_no_row)
        # the hint comes and goes as the lists are typed: its space is kept (the fields
        # below never move under the cursor)
        self.yes_no_hint = NoteArea(3)
        form.addRow("", self.yes_no_hint)
        self.list_reason = QLineEdit()
        self.list_reason.setPlaceholderText("Where does the list come from? e.g. the official "
                                            "list of regions")
        self.declare = QCheckBox(DECLARE_LIST)
        form.addRow("Why this list", self.list_reason)
        form.addRow("", self.declare)
        # kept as typed: the plan's rule refuses a level outside [0, 1] (a spin box clamped
        # 1.5 to 1, the median silently became the maximum)
        self.quantile = NumberField(0.5)
        self.quantile.setPlaceholderText("from 0 to 1: 0.5 is the median, 0.9 the 90th "
                                         "percentile")
        form.addRow("Quantile level", self.quantile)
        group = QHBoxLayout()
        self.group_column = QComboBox()
        self.group_keys = QPlainTextEdit()
        self.group_keys.setPlaceholderText("One group key per line, the full public list")
        self.group_keys.setMaximumHeight(90)
        self.group_keys.setMinimumHeight(self.fontMetrics().lineSpacing() * 3 + 14)
        group.addWidget(self.group_column, 0, Qt.AlignmentFlag.AlignTop)
        group.addWidget(self.group_keys, 1)
        form.addRow("Group by", group)
        self._group_layout = group
        # riskwords: the rows a mean's, variance's, quantile's or share's ± is computed from
        # (the plan's expected_count): a public guess, kept as typed; the core's rule
        # (model.expected_count_problem) refuses it at OK, named by this label
        self.expected_count_row = QWidget()
        counted = QVBoxLayout(self.expected_count_row)
        counted.setContentsMargins(0, 0, 0, 0)
        self.expected_count = NumberField()
        self.expected_count.setPlaceholderText("not stated: the table's rows (Data tab)")
        self.expected_count.setMaximumWidth(self.fontMetrics().averageCharWidth() * 42)
        self.expected_count.setAccessibleName(EXPECTED_COUNT_LABEL)
        self.expected_count.setToolTip(EXPECTED_COUNT_HELP)
        self.expected_count_help = QLabel(EXPECTED_COUNT_HELP)
        self.expected_count_help.setWordWrap(True)
        # wraps to the form's width: never widens the fields past the dialog's edge
        self.expected_count_help.setMinimumWidth(self.fontMetrics().averageCharWidth() * 20)
        counted.addWidget(self.expected_count)
        counted.addWidget(self.expected_count_help)
        form.addRow(EXPECTED_COUNT_LABEL, self.expected_count_row)

        conditions = QGroupBox("Only rows where… (all must hold)")
        cond_layout = QVBoxLayout(conditions)
        self.conditions = QTableWidget(0, 3)
        self.conditions.setHorizontalHeaderLabels(["Column", "Operator", "Value"])
        self.conditions.setMaximumHeight(110)
        self.conditions.horizontalHeader().setStretchLastSection(True)
        cond_buttons = QHBoxLayout()
        add_cond = QPushButton("Add condition")
        remove_cond = QPushButton("Remove condition")
        cond_buttons.addWidget(add_cond)
        cond_buttons.addWidget(remove_cond)
        cond_buttons.addStretch(1)
        cond_layout.addWidget(self.conditions)
        cond_layout.addLayout(cond_buttons)
        layout.addWidget(conditions)
        self._conditions_box = conditions

        more = QFormLayout()
        layout.addLayout(more)
        missing = QHBoxLayout()
        self.missing = QComboBox()
        self.missing.addItems(["Leave the row out", "Use this value:"])
        self.impute = QLineEdit()
        missing.addWidget(self.missing)
        missing.addWidget(self.impute, 1)
        self.impute.setEnabled(False)  # only with "Use this value:"
        self.missing.currentIndexChanged.connect(
            lambda i: self.impute.setEnabled(i == 1))
        more.addRow("Missing or unreadable cells", missing)
        # a synthetic table's own settings sit with its noise, below the columns' lists
        more.addRow("Rows to generate", self.synth_rows)
        self._missing_layout = missing
        self._more = more
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

        guide = QLabel(GUIDE)
        guide.setWordWrap(True)
        layout.addWidget(guide)
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
        columns = [c.name for c in session.columns]
        self.column.addItems(columns)
        self.group_column.addItems([NONE, *columns])
        self._form = form
        self._column_chosen = query is not None  # a new statistic's column follows its kind
        self._defaulting = False  # the kind's default column is being put in the field
        # the person's pick or typing (any change the default rule did not make) is a choice a
        # later change of kind, bins or groups must keep
        self.column.activated.connect(self._column_picked)
        self.column.currentTextChanged.connect(self._column_picked)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.count_present.toggled.connect(self._kind_changed)
        self.count_people.toggled.connect(self._kind_changed)
        self.missing.currentIndexChanged.connect(self._update_warning)
        self.use_bins.toggled.connect(self._kind_changed)
        self.group_column.currentTextChanged.connect(self._kind_changed)
        self.mechanism.currentIndexChanged.connect(self._kind_changed)
        for w in (self.lower, self.upper, self.bins):
            w.textChanged.connect(self._update_warning)
        self.categories.textChanged.connect(self._update_warning)
        self.group_keys.textChanged.connect(self._update_warning)
        self.yes_values.textChanged.connect(self._update_warning)
        self.no_values.textChanged.connect(self._update_warning)
        self.suggest.clicked.connect(self.suggest_yes_no)
        self._other_values: list[str] = []
        self.column.currentTextChanged.connect(self._update_warning)
        # clicked passes its checked flag: never let it stand for the column's name
        add_cond.clicked.connect(lambda: self._add_condition())
        remove_cond.clicked.connect(lambda: self.conditions.removeRow(
            self.conditions.currentRow()))
        self.synth_list.currentRowChanged.connect(self._synth_selected)
        self.synth_add.clicked.connect(self.add_synth_column)
        self.synth_remove.clicked.connect(self.remove_synth_column)
        buttons.accepted.connect(self._accept)
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
        self._store_synth()  # a synthetic table's fields, into its selected column
        return (self.to_dict(), self.label.text(), self.ident.text(), self.bounds_reason.text(),
                self.list_reason.text(), self.declare.isChecked(), self.impute.text(),
                self.delta.text())

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

    def _refusal_stale(self, *_args: object) -> None:
        if not self._accepting:  # "Checking against the table…" waits for its answer
            self.error.setText("")

    def _name_fields(self) -> None:
        """Accessible names and tooltips for screen readers and for the curious."""
        names: dict[QWidget, tuple[str, str]] = {
            self.label: ("Label", "What readers of the release will see"),
            self.ident: ("Id", "A short unique name: letters, digits, _ . -"),
            self.kind: ("Kind of statistic", "Count, sum, mean, variance, histogram, quantile or "
                                             "share of yes"),
            self.column: ("Column", "The column the statistic is about"),
            self.count_present: ("Count only rows where a column is present",
                                 "Unticked, the count is of all rows (that meet the conditions "
                                 "below). Ticked, only rows where the column has a value."),
            self.lower: ("Lower bound", "The lowest value possible, from knowledge of the data"),
            self.upper: ("Upper bound", "The highest value possible, from knowledge of the "
                                        "data"),
            self.bounds_reason: ("Reason for the bounds", "Where the bounds come from"),
            self.use_bins: ("Use numeric bins", "Count values in numeric bins instead of "
                                                "categories"),
            self.categories: ("Categories", "The full public list, one per line"),
            self.bins: ("Bin edges", "Increasing numbers separated by commas"),
            self.yes_values: ("Values that mean yes", "The cell values read as yes, one per "
                                                      "line (exact text)"),
            self.no_values: ("Values that mean no", "The cell values read as no, one per line "
                                                    "(exact text)"),
            self.suggest: ("Suggest yes and no values", "Fill the lists from the column's "
                                                        "values; you confirm them"),
            self.list_reason: ("Reason for the list", "Where the list comes from"),
            self.declare: ("Declare the list public", "Confirm the list comes from knowledge "
                                                      "of the domain, not from this data"),
            self.quantile: ("Quantile level", "From 0 to 1: 0.5 is the median"),
            self.synth_list: ("Columns of the synthetic table", "Each column with its declared "
                                                                "categories or bins; select one "
                                                                "to edit it below"),
            self.synth_add: ("Add a column", "Add a column of the table to the synthetic table"),
            self.synth_remove: ("Remove the column", "Leave the selected column out of the "
                                                     "synthetic table"),
            self.synth_rows: ("Rows to generate", "The rows of the synthetic table; empty: as "
                                                  "many as the noised counts say"),
            self.group_column: ("Group by column", "Publish the statistic for each group"),
            self.group_keys: ("Group keys", "The full public list of groups, one per line"),
            self.conditions: ("Conditions", "Only rows where all conditions hold"),
            self.missing: ("Missing values", "Leave rows with a missing value out, or use a "
                                             "value"),
            self.impute: ("Value for missing cells", "Used when the cell is missing"),
            self.mechanism: ("Noise mechanism", "Discrete Laplace (pure ε) or Gaussian "
                                                "(needs δ)"),
            self.epsilon: ("Epsilon", "This statistic's share of the privacy budget"),
            self.delta: ("Delta", "The Gaussian mechanism's δ, far below 1 / number of "
                                  "people"),
        }
        for widget, (name, tip) in names.items():
            widget.setAccessibleName(name)
            if not widget.toolTip():
                widget.setToolTip(tip)

    # -- form <-> plan JSON ---------------------------------------------------------------------

    def _add_condition(self, column: str = "", op: str = "==", value: str = "") -> None:
        row = self.conditions.rowCount()
        self.conditions.insertRow(row)
        col = column_box([c.name for c in self.session.columns])
        if column:
            col.setCurrentText(column)
        ops = QComboBox()
        ops.addItems(OPS)
        ops.setCurrentText(op)
        for box in (col, ops):
            box.activated.connect(self._refusal_stale)
            box.editTextChanged.connect(self._refusal_stale)
        self.conditions.setCellWidget(row, 0, col)
        self.conditions.setCellWidget(row, 1, ops)
        self.conditions.setItem(row, 2, QTableWidgetItem(value))

    def _load(self, q: Query) -> None:
        doc = next(d for d in plan_to_dict(self.session.plan)["queries"]  # type: ignore[arg-type]
                   if d["id"] == q.id)
        self._synth_loading = True  # the fields below are the plan's, not a column's edits
        self.label.setText(doc.get("label", ""))
        self.ident.setText(q.id)
        self.kind.setCurrentIndex(self.kind.findData(q.kind))
        self.column.setCurrentText(q.column or "")
        self.count_present.setChecked(q.kind == "count" and q.column is not None)
        self.count_people.setChecked(q.kind == "count" and q.of == "people")
        if q.lower is not None:
            self.lower.setText(f"{q.lower:g}")
            self.upper.setText(f"{q.upper:g}")
        if q.bins is not None:
            self.use_bins.setChecked(True)
            self.bins.setText(", ".join(f"{b:g}" for b in q.bins))
        if q.categories is not None:
            self.categories.setPlainText("\n".join(str(c) for c in q.categories))
        if q.quantile is not None:
            self.quantile.setValue(q.quantile)
        if q.expected_count is not None:
            self.expected_count.setValue(q.expected_count)
        if q.group_by is not None:
            self.group_column.setCurrentText(q.group_by.column)
            self.group_keys.setPlainText("\n".join(str(k) for k in q.group_by.keys))
        for c in q.where:
            value = ", ".join(str(v) for v in c.value) if c.op == "in" else str(c.value)
            self._add_condition(c.column, c.op, value)
        if q.yes is not None:
            self.yes_values.setPlainText("\n".join(str(v) for v in q.yes))
            self.no_values.setPlainText("\n".join(str(v) for v in q.no or ()))
        if q.missing.policy == "impute":
            self.missing.setCurrentIndex(1)
            self.impute.setText(str(q.missing.value))
        self.epsilon.setValue(q.epsilon)
        if q.delta:
            self.delta.setText(f"{q.delta:g}")
        j = q.justification or {}
        self.bounds_reason.setText(j.get("bounds", ""))
        self.list_reason.setText(j.get("categories", "") or j.get("keys", "")
                                 or j.get("values", ""))
        self.declare.setChecked(bool(j.get("categories") or j.get("keys") or j.get("values")
                                     or q.yes is not None))
        self._mechanism_wanted: str | None = q.mechanism
        self._synth_loading = False
        if q.kind == "synthetic":
            columns: Any = synthetic_to_dict(q)["columns"]
            self._synth = [dict(c) for c in columns]
            if q.rows is not None:
                self.synth_rows.setText(str(q.rows))
            self._synth_at = -1
            self._refresh_synth_list(0)

    def _kind_changed(self, *_args: object) -> None:
        kind = self.kind.currentData()
        wanted = getattr(self, "_mechanism_wanted", None) or self.mechanism.currentData()
        options = {"quantile": [("Exponential mechanism", "exponential")],
                   "randomized_response": [("Randomized response (local)",
                                            "randomized_response")],
                   "synthetic": [("MST (noisy marginals)", "mst")]}.get(
            kind, [("Discrete Laplace (pure ε)", "laplace"),
                   ("Discrete Gaussian (needs δ)", "gaussian")])
        if [self.mechanism.itemData(i) for i in range(self.mechanism.count())] != \
                [v for _, v in options]:
            self.mechanism.blockSignals(True)
            self.mechanism.clear()
            for text, value in options:
                self.mechanism.addItem(text, value)
                if value == "mst":  # the citation, in full, where the item has no room for it
                    self.mechanism.setItemData(self.mechanism.count() - 1, MST_CITATION,
                                               Qt.ItemDataRole.ToolTipRole)
            self.mechanism.blockSignals(False)
        self.mechanism.setToolTip(MST_CITATION if kind == "synthetic" else
                                  "Discrete Laplace (pure ε) or Gaussian (needs δ)")
        index = self.mechanism.findData(wanted)
        if index >= 0:
            self.mechanism.setCurrentIndex(index)
        self._mechanism_wanted = None
        synth = kind == "synthetic"
        self._defaulting = True
        try:
            self._offer_columns(synth)
            if not self._column_chosen and not synth:  # never the person id (starters' rule)
                self.column.setCurrentText(self.session.default_column(kind) or "")
        finally:
            self._defaulting = False
        if synth and not self._synth:  # a first column: the one in the fields
            self._synth = [self._synth_entry()]
            self._refresh_synth_list(0)
        gaussian = self.mechanism.currentData() == "gaussian" or synth
        self.delta.setVisible(gaussian)
        self.delta_label.setVisible(gaussian)
        bounded = self._bounded()
        groups = kind_takes(kind, "group_by")
        hist = kind in ("histogram", "synthetic")
        bins = hist and self.use_bins.isChecked()
        reason_label = self._form.labelForField(self.bounds_reason)
        if isinstance(reason_label, QLabel):  # bin edges need a reason too (core.readiness)
            reason_label.setText("Why the bin edges" if synth else "Why these bin edges" if bins
                                 else "Why these bounds")
        self.bounds_reason.setPlaceholderText(
            "Where do the bin edges come from? e.g. the standard reporting age bands"
            if bins or synth else "Where do the bounds come from? e.g. the form accepts 0 to 80")
        list_label = self._form.labelForField(self.list_reason)
        if isinstance(list_label, QLabel):  # one reason for the lists of every column of the table
            list_label.setText("Why the lists" if synth else "Why this list")
        self.declare.setText(DECLARE_LISTS if synth else DECLARE_LIST)
        self.list_reason.setToolTip("One reason for the categories of every column of the "
                                    "table" if synth else "Where the list comes from")
        self.bounds_reason.setToolTip("One reason for the bin edges of every column of the "
                                      "table" if synth else "Where the bounds come from")
        for widget, show in ((self.bounds_row, bounded),
                             # a synthetic table's reasons are the whole table's, shown
                             # with the selected column's bins or list
                             (self.bounds_reason, bounded or bins),
                             (self.synth_row, synth), (self.synth_rows, synth),
                             # the core says which fields a kind takes (model.kind_takes)
                             (self.group_column, groups), (self.group_keys, groups),
                             (self.missing, not synth), (self.impute, not synth),
                             (self.use_bins, hist), (self.categories, hist and not bins),
                             (self.bins, bins), (self.quantile, kind == "quantile"),
                             (self.expected_count_row, kind in EXPECTED_COUNT_KINDS),
                             (self.yes_no_row, self._reads_yes_no()),
                             (self.yes_no_hint, self._reads_yes_no()),
                             (self.kind_help, kind == "randomized_response"),
                             # a statistic's list rows stay in place, usable only with a
                             # list: choosing a group column moves no field below
                             (self.list_reason, not bins if synth else True),
                             (self.declare, not bins if synth else True)):
            widget.setVisible(show)
            label = self._form.labelForField(widget) or self._more.labelForField(widget)
            if label is not None:
                label.setVisible(show)
        for form, row, show in ((self._form, self._group_layout, groups),
                                (self._more, self._missing_layout, not synth)):
            label = form.labelForField(row)
            if label is not None:
                label.setVisible(show)
        self._conditions_box.setVisible(kind_takes(kind, "where"))
        has_list = not bins if synth else self._has_list()
        self.list_reason.setEnabled(has_list)
        self.declare.setEnabled(has_list)
        if not has_list:
            self.list_reason.setPlaceholderText("Only for a list: categories, group keys or "
                                                "yes / no values")
        else:
            self.list_reason.setPlaceholderText("Where does the list come from? e.g. the "
                                                "official list of regions")
        counted_label = self._form.labelForField(self.expected_count_row)
        if isinstance(counted_label, QLabel):  # a group-by's ± is for its smallest group
            counted_label.setText(EXPECTED_COUNT_GROUP_LABEL if self._has_groups()
                                  else EXPECTED_COUNT_LABEL)
        count = kind == "count"
        for widget in (self.count_present, self.count_present_tail, self.count_words):
            widget.setVisible(count)
        id_column = self._id_column()
        self.count_people.setVisible(count and id_column is not None)
        if id_column is not None:
            self.count_people.setText(people_option_words(id_column))
        self.column.setEnabled(not count or self.count_present.isChecked())
        label = self._form.labelForField(self.column_row)
        if isinstance(label, QLabel):
            label.setText("Rows counted" if count else "Selected column" if synth
                          else "Column")
        self._update_warning()

    def _chosen_column(self) -> str | None:
        """The column of the statistic: none for a count of all rows."""
        column = self.column.currentText().strip()
        if not column or column == NONE or (self.kind.currentData() == "count"
                                             and not self.count_present.isChecked()):
            return None
        return column

    def _bounded(self) -> bool:
        return self.kind.currentData() in ("sum", "mean", "variance", "quantile")

    def _needs_bounds_reason(self) -> bool:
        """Bounds and bin edges both need a reason (core.readiness.missing_reasons)."""
        return self._bounded() or (self.kind.currentData() == "histogram"
                                    and self.use_bins.isChecked()) or self._synth_has("bins")

    def _has_categories(self) -> bool:
        return self.kind.currentData() == "histogram" and not self.use_bins.isChecked() \
            or self._synth_has("categories")

    # -- a synthetic table's columns ------------------------------------------------------------

    def _synth_has(self, key: str) -> bool:
        """Some column of the synthetic table declares ``key`` (categories or bins)."""
        return self.kind.currentData() == "synthetic" and any(key in c for c in self._synth)

    def _synth_entry(self) -> dict[str, Any]:
        """The selected column's plan JSON as the histogram fields show it."""
        entry: dict[str, Any] = {"column": self.column.currentText().strip()}
        if self.use_bins.isChecked():
            entry["bins"] = [_number(x) for x in self.bins.text().split(",") if x.strip()]
        else:
            entry["categories"] = _lines(self.categories.toPlainText())
        return entry

    @staticmethod
    def _synth_words(entry: dict[str, Any]) -> str:
        if "bins" in entry:
            n = max(len(entry["bins"]) - 1, 0)
            return f"{entry['column'] or '(no column)'} — {n} bin{'s' * (n != 1)}"
        n = len(entry.get("categories") or ())
        return f"{entry['column'] or '(no column)'} — {n} categor{'ies' if n != 1 else 'y'}"

    def _store_synth(self) -> None:
        """Keep the fields' edits in the selected column."""
        if self._synth_loading or self.kind.currentData() != "synthetic" \
                or not 0 <= self._synth_at < len(self._synth):
            return
        entry = self._synth_entry()
        self._synth[self._synth_at] = entry
        item = self.synth_list.item(self._synth_at)
        if item is not None:
            item.setText(self._synth_words(entry))

    def _show_synth(self, index: int) -> None:
        """Fill the histogram fields with column ``index``'s domain."""
        self._synth_loading = True
        try:
            entry = self._synth[index]
            self.column.setCurrentText(entry["column"])
            self.use_bins.setChecked("bins" in entry)
            self.bins.setText(", ".join(
                str(int(b)) if isinstance(b, float) and b.is_integer() else str(b)
                for b in entry.get("bins") or ()))
            self.categories.setPlainText("\n".join(str(c) for c in entry.get("categories")
                                                   or ()))
        finally:
            self._synth_loading = False

    def _refresh_synth_list(self, select: int) -> None:
        self.synth_list.blockSignals(True)
        self.synth_list.clear()
        for entry in self._synth:
            self.synth_list.addItem(self._synth_words(entry))
        self.synth_list.blockSignals(False)
        self._synth_at = -1
        if self._synth:
            self.synth_list.setCurrentRow(min(max(select, 0), len(self._synth) - 1))
        self.synth_remove.setEnabled(len(self._synth) > 1)

    def _synth_selected(self, row: int) -> None:
        self._store_synth()
        self._synth_at = row
        if 0 <= row < len(self._synth):
            self._show_synth(row)
        self._kind_changed()

    def _column_picked(self, *_args: object) -> None:
        if not self._defaulting:
            self._column_chosen = True

    def _id_column(self) -> str | None:
        plan = self.session.plan
        return plan.privacy_unit.id_column if plan is not None else None

    def _offer_columns(self, synth: bool) -> None:
        """The table's columns in the column field; a synthetic table's leave out the privacy
        unit's id column (an identifier is not a column of a released table)."""
        wanted = [c.name for c in self.session.columns
                  if not (synth and c.name == self._id_column())]
        if [self.column.itemText(i) for i in range(self.column.count())] == wanted:
            return
        text = self.column.currentText()
        self.column.blockSignals(True)
        self.column.clear()
        self.column.addItems(wanted)
        self.column.setCurrentText(wanted[0] if synth and text == self._id_column()
                                   and wanted else text)
        self.column.blockSignals(False)

    def add_synth_column(self) -> None:
        """A new column of the synthetic table: the first column of the table not yet in it,
        with an empty list of categories to declare."""
        self._store_synth()
        taken = {c["column"] for c in self._synth}
        free = [c.name for c in self.session.columns
                if c.name not in taken and c.name != self._id_column()]
        self._synth.append({"column": free[0] if free else "", "categories": []})
        self._refresh_synth_list(len(self._synth) - 1)

    def remove_synth_column(self) -> None:
        at = self.synth_list.currentRow()
        if len(self._synth) > 1 and 0 <= at < len(self._synth):
            del self._synth[at]
            self._refresh_synth_list(at)

    def _counts_people(self) -> bool:
        return self._id_column() is not None and self.count_people.isChecked()

    def _has_groups(self) -> bool:
        return kind_takes(self.kind.currentData() or "count", "group_by") \
            and self.group_column.currentText() not in ("", NONE)

    def _reads_yes_no(self) -> bool:
        return self.kind.currentData() in YES_NO_KINDS

    def _has_list(self) -> bool:
        """A declared public list (categories, group keys, yes/no values) needs a reason."""
        return self._has_categories() or self._has_groups() or self._reads_yes_no()

    def _made_id(self, label: str, kind: str) -> str:
        """An id made from the label, unique in the plan (a second "Mean income" gets
        mean_income_2: the person never typed an id, so a clash is not theirs to fix)."""
        base = re.sub(r"[^A-Za-z0-9_.-]+", "_", label.lower()).strip("_")[:60] or kind
        plan = self.session.plan
        taken = {q.id for q in plan.queries} if plan is not None else set()
        if self.original is not None:
            taken.discard(self.original.id)
        ident, n = base, 1
        while ident in taken:
            n += 1
            ident = f"{base}_{n}"
        return ident

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.currentData()
        label = self.label.text().strip()
        ident = self.ident.text().strip() or self._made_id(label, kind)
        if kind == "synthetic":
            return self._synthetic_dict(ident, label)
        doc: dict[str, Any] = {"id": ident, "kind": kind, "epsilon": self.epsilon.value(),
                               "mechanism": self.mechanism.currentData()}
        if label:
            doc["label"] = label
        column = self._chosen_column()
        if column is not None:
            doc["column"] = column
        if kind in ("sum", "mean", "variance", "quantile"):
            doc["lower"] = _number(self.lower.text())
            doc["upper"] = _number(self.upper.text())
        if kind == "histogram":
            if self.use_bins.isChecked():
                doc["bins"] = [_number(x) for x in self.bins.text().split(",") if x.strip()]
            else:
                doc["categories"] = _lines(self.categories.toPlainText())
        if kind == "count" and self._counts_people():
            doc["of"] = "people"
        if kind == "quantile":
            doc["quantile"] = self.quantile.value()
        if kind in EXPECTED_COUNT_KINDS and self.expected_count.value() is not None:
            doc["expected_count"] = self.expected_count.value()
        if self._reads_yes_no():
            for key, box in (("yes", self.yes_values), ("no", self.no_values)):
                values = _lines(box.toPlainText())
                if values:
                    doc[key] = values
        if self._has_groups():
            doc["group_by"] = {"column": self.group_column.currentText(),
                               "keys": _lines(self.group_keys.toPlainText())}
        where = []
        for row in range(self.conditions.rowCount()):
            col_box = self.conditions.cellWidget(row, 0)
            op_box = self.conditions.cellWidget(row, 1)
            if not isinstance(col_box, QComboBox) or not isinstance(op_box, QComboBox):
                continue  # a row without its choices holds no condition
            col, op = col_box.currentText(), op_box.currentText()
            item = self.conditions.item(row, 2)
            text = item.text() if item is not None else ""
            value: Any = [_number(v) for v in text.split(",") if v.strip()] if op == "in" \
                else _number(text)
            where.append({"column": col, "op": op, "value": value})
        if where and kind_takes(kind, "where"):
            doc["where"] = where
        if self.missing.currentIndex() == 1:
            doc["missing"] = {"impute": _number(self.impute.text())}
        if doc["mechanism"] == "gaussian":
            doc["delta"] = _number(self.delta.text())
        # keep the reasons this form does not edit (such as one for ε)
        justification = {k: v for k, v in dict(
            (self.original.justification or {}) if self.original else {}).items()
            if k not in ("bounds", "categories", "keys", "values")}
        if self._needs_bounds_reason() and self.bounds_reason.text().strip():
            justification["bounds"] = self.bounds_reason.text().strip()
        reason = self.list_reason.text().strip()
        if self.declare.isChecked() and reason:
            if self._has_categories():
                justification["categories"] = reason
            if self._has_groups():
                justification["keys"] = reason
            if self._reads_yes_no() and "yes" in doc:
                justification["values"] = reason
        if justification:
            doc["justification"] = justification
        return doc

    def _synthetic_dict(self, ident: str, label: str) -> dict[str, Any]:
        """The plan JSON of a synthetic table as the form stands (the core validates it)."""
        self._store_synth()
        doc: dict[str, Any] = {"id": ident, "kind": "synthetic",
                               "method": self.mechanism.currentData() or "mst",
                               "columns": [dict(c) for c in self._synth],
                               "epsilon": self.epsilon.value(),
                               "delta": _number(self.delta.text())}
        if label:
            doc["label"] = label
        rows = _number(self.synth_rows.text())
        if rows is not None:
            doc["rows"] = rows
        justification = {k: v for k, v in dict(
            (self.original.justification or {}) if self.original else {}).items()
            if k not in ("bounds", "categories")}
        if self._synth_has("bins") and self.bounds_reason.text().strip():
            justification["bounds"] = self.bounds_reason.text().strip()
        reason = self.list_reason.text().strip()
        if self._synth_has("categories") and self.declare.isChecked() and reason:
            justification["categories"] = reason
        if justification:
            doc["justification"] = justification
        return doc

    def _synth_draft(self) -> Query:
        """The synthetic table as typed (its complete columns), checked by the core's rules
        as check and the release check it: copied_from_data and the table rule."""
        from ...core.model import SynthColumn

        columns = []
        for c in self._synth:
            bins: list[Any] = c.get("bins") or []
            if not c.get("column"):
                continue
            if "categories" in c:
                columns.append(SynthColumn(c["column"], categories=tuple(c["categories"])))
            elif len(bins) > 1 and all(isinstance(b, (int, float)) for b in bins):
                columns.append(SynthColumn(c["column"], bins=tuple(float(b) for b in bins)))
        return Query(id="draft", kind="synthetic", epsilon=1.0, delta=1e-6,
                     synth_columns=tuple(columns))

    def _update_synth_warning(self) -> None:
        checks = self.session.ask_query_checks(self._synth_draft())
        if checks is None:
            self.warning.setText("Checking against the table…")
            return
        lines = [f"⚠ {n[0].upper()}{n[1:]}." for n in checks.notes]
        lines += [f"✗ {p.problem[0].upper()}{p.problem[1:]}." for p in checks.problems
                  if not p.problem.startswith("no column")]
        self.warning.setText("\n".join(dict.fromkeys(lines)))

    def _update_warning(self, *_args: object) -> None:
        """The core's check for parameters read off the data, on the form as it stands."""
        from ...core.model import GroupBy

        if self.kind.currentData() == "synthetic":
            self._store_synth()
            self._update_synth_warning()
            return
        lo, hi = _number(self.lower.text()), _number(self.upper.text())
        numeric = isinstance(lo, (int, float)) and isinstance(hi, (int, float))
        draft = Query(
            id="draft", kind=self.kind.currentData() or "count", epsilon=1.0,
            column=self._chosen_column(),
            lower=float(lo) if self._bounded() and numeric else None,
            upper=float(hi) if self._bounded() and numeric else None,
            categories=tuple(_lines(self.categories.toPlainText()))
            if self._has_categories() else None,
            group_by=GroupBy(self.group_column.currentText(),
                             tuple(_lines(self.group_keys.toPlainText())))
            if self._has_groups() else None,
            yes=tuple(_lines(self.yes_values.toPlainText())) or None
            if self._reads_yes_no() else None,
            no=tuple(_lines(self.no_values.toPlainText())) or None
            if self._reads_yes_no() else None)
        # the core's rules, on a worker for a large table (None until the answer arrives)
        checks = self.session.ask_query_checks(draft)
        problems: list[InputError]
        if checks is None:
            lines, problems, tally = ["Checking against the table…"], [], None
        else:
            lines = [f"⚠ {n[0].upper()}{n[1:]}." for n in checks.notes]
            problems, tally = (checks.problems, checks.tally) if draft.column else ([], None)
        lines += [f"✗ {p.problem[0].upper()}{p.problem[1:]}." for p in problems
                  if not p.problem.startswith("no column")]
        self.warning.setText("\n".join(lines))
        unit = self.session.plan.privacy_unit if self.session.plan is not None else None
        self.count_words.setText(count_words(draft.column, self.missing.currentIndex() == 1,
                                             unit.id_column if unit else None,
                                             unit.rows_per_unit if unit else 1,
                                             self._counts_people()) + ".")
        self._update_yes_no_hint(tally)

    def _update_yes_no_hint(self, tally: Any) -> None:
        """How the column reads with the lists as typed (owner-only, never exported)."""
        if not self._reads_yes_no():
            return
        parts = []
        typed = {str(v) for box in (self.yes_values, self.no_values)
                 for v in _lines(box.toPlainText())}
        pending = [v for v in self._other_values if v not in typed]
        if pending:
            parts.append(f"Also in {self.column.currentText()}: {', '.join(pending)}. Put each "
                         "under yes or no, or leave it out (it then counts as missing); then "
                         "confirm the lists below.")
        elif not self.yes_values.toPlainText().strip():
            parts.append(f"Without lists the column may hold only {FIXED_YES_NO}. Declare the "
                         "values if it uses other codes (such as M and F).")
        if tally is not None and tally.neither and self.yes_values.toPlainText().strip():
            parts.append(f"For you only (never exported): {tally.neither:,} cells are in "
                         "neither list; they count as missing.")
        self.yes_no_hint.setText(" ".join(parts))

    def suggest_yes_no(self) -> None:
        """Fill the lists from the column's distinct values: the fixed vocabulary goes to its
        list, every other value is named for the owner to place. The owner must confirm."""
        from ...core.model import yes_no

        column = self.column.currentText()
        table = self.session.table
        if table is None or column not in table.columns:
            self.yes_no_hint.setText("Open the table to see the values of this column.")
            return
        values = self.session.ask_column_values(column)
        if values is None:  # a large table: read on a worker, filled in when it answers
            self._suggesting = column
            self.yes_no_hint.setText(f"Reading the values of {column}…")
            return
        self._suggesting = None
        self.yes_values.setPlainText("\n".join(v for v in values if yes_no(v) is True))
        self.no_values.setPlainText("\n".join(v for v in values if yes_no(v) is False))
        self._other_values = [v for v in values if yes_no(v) is None]
        self.declare.setChecked(False)
        self._update_warning()

    def _unconfirmed_list_reason(self) -> str:
        """The line refusing a list's reason typed without the declaration ticked (the plan
        keeps the reason only with the tick), or "" when there is none."""
        synth = self.kind.currentData() == "synthetic"
        if self.declare.isChecked() or not self.list_reason.text().strip():
            return ""
        # only where the tick would keep it (to_dict): a share of yes with no yes list typed
        # has no list the reason could belong to
        lists = self._synth_has("categories") if synth else (
            self._has_categories() or self._has_groups()
            or (self._reads_yes_no() and "yes" in self.to_dict()))
        if not lists:
            return ""
        lists_words, label = ("the lists", "Why the lists") if synth \
            else ("the list", "Why this list")
        declare = "these lists" if synth else "this list"
        return (f"Confirm {lists_words}: tick “I declare {declare} public” to keep the reason "
                f"typed in “{label}”, or clear it.")

    def _data_answered(self, kind: str) -> None:
        if kind == "values" and self._suggesting is not None:
            if self._suggesting == self.column.currentText():
                self.suggest_yes_no()
            else:
                self._suggesting = None
        elif kind == "query":
            self._update_warning()
            if self._accepting:
                self._accept()

    # the plan's field names whose control has another name in the form
    _CONTROLS = {"id": "ident", "group_by": "group_column", "keys": "group_keys"}

    def _show_refused(self, where: str | None) -> None:
        """Scroll the refused field (``where``: the plan's "queries[x].field") into view: the
        fields scroll at a large scale or on a short screen, and the red line names it."""
        name = re.sub(r"\[.*?\]", "", (where or "").rsplit(".", 1)[-1])
        control = getattr(self, self._CONTROLS.get(name, name), None)
        if isinstance(control, QWidget) and self.fields.isAncestorOf(control) \
                and control.isVisible():
            self.field_scroll.ensureWidgetVisible(control)

    def _accept(self) -> None:
        plan = self.session.plan
        assert plan is not None
        refused = self._unconfirmed_list_reason()
        if refused:  # never drop what was typed: the reason is kept only with the tick
            if not self.declare.isVisible() and self.kind.currentData() == "synthetic":
                self.synth_list.setCurrentRow(next(  # show a column whose list it is for
                    i for i, c in enumerate(self._synth) if "categories" in c))
            self.error.setText(refused)
            return
        doc = plan_to_dict(plan)
        mine = self.to_dict()
        if self.original is not None:
            doc["queries"] = [mine if q["id"] == self.original.id else q
                              for q in doc["queries"]]
        else:
            doc["queries"].append(mine)
        try:
            new_plan = plan_from_dict(doc, "this statistic", draft=True)
        except InputError as exc:
            self.error.setText(form_words(exc, [str(c.get("column") or "")
                                                for c in mine.get("columns") or ()]))
            self._show_refused(exc.where)
            return
        query = new_plan.query(mine["id"])
        if query.yes is not None and not self.declare.isChecked():
            self.error.setText("Confirm the yes and no values: tick “I declare this list "
                               "public” (they should come from the column's code book).")
            return
        # the core's rule, on the statistic as the plan has it (a synthetic table's problems
        # name its own columns[i] fields)
        answers = [self.session.ask_query_checks(query)]
        if any(checks is None for checks in answers):  # a large table: OK again later
            self._accepting = True
            self.error.setText("Checking this statistic against the table…")
            return
        self._accepting = False
        problems: list[Any] = [p for checks in answers if checks is not None
                               for p in checks.problems]
        if problems:
            names = [str(c.get("column") or "") for c in mine.get("columns") or ()]
            self.error.setText("\n".join(form_words(f"{p.where}: {p.problem}", names)
                                         for p in problems))
            self._show_refused(problems[0].where)
            return
        self.result_plan = new_plan
        self.result_id = mine["id"]
        self.accept()
