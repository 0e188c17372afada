"""The table: a virtual preview, the columns with their detected (overridable) types and
missing cells, and who one person is (the privacy unit) and what is protected (the
neighbouring relation), each in one plain sentence."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QSplitter,
    QStyledItemDelegate,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ...core.data.repeats import (
    OWNER_ONLY,
    ROWS_REASON_ASK,
    WHY_IT_MATTERS,
    max_rows_hint,
    repeat_note,
)
from ...core.model import PrivacyUnit, expected_rows_problem, max_rows_problem
from ...core.model.rules import MAX_ROWS_ASK
from ...core.planning.changes import OpChanges
from ...core.support.errors import InputError
from ...core.support.field_words import on_screen
from ...core.support.words import (
    RELATION_HELP,
    UNIT_PERSON_HELP,
    UNIT_ROW_HELP,
    UNIT_UNANSWERED_HELP,
)
from ..models import TYPES, ColumnsModel, SourcePreviewModel
from ..refresh import watch
from ..session import Session
from .form_fields import RED, NoteArea, NumberField, number_problem, number_text, typed_number

UNIT_ROW = UNIT_ROW_HELP
UNIT_PERSON = UNIT_PERSON_HELP
UNIT_UNANSWERED = UNIT_UNANSWERED_HELP
ROWS_PER_PERSON = "Rows per person"  # the field's name in its messages
REL_ADD = RELATION_HELP["add-remove"]
REL_REPLACE = RELATION_HELP["replace-one"]


class TypeDelegate(QStyledItemDelegate):
    def createEditor(self, parent, option, index):  # type: ignore[no-untyped-def]
        box = QComboBox(parent)
        box.addItems(TYPES)
        return box

    def setEditorData(self, editor, index):  # type: ignore[no-untyped-def]
        editor.setCurrentText(str(index.data(Qt.ItemDataRole.EditRole)))

    def setModelData(self, editor, model, index):  # type: ignore[no-untyped-def]
        model.setData(index, editor.currentText(), Qt.ItemDataRole.EditRole)


class DataPane(QWidget):
    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        layout = QVBoxLayout(self)
        self.file_label = QLabel("No table open. File → Open data… (CSV, Excel, Parquet)")
        self.file_label.setWordWrap(True)
        layout.addWidget(self.file_label)

        split = QSplitter(Qt.Orientation.Horizontal)
        self.preview_model = SourcePreviewModel()
        self.preview = QTableView()
        self.preview.setModel(self.preview_model)
        self.preview.setAccessibleName("Preview of the table")
        self.preview.setToolTip("The table, read from the file as you scroll; it stays on "
                                "this computer")
        self.preview.verticalHeader().setDefaultSectionSize(22)
        self.preview_model.modelReset.connect(self._fit_preview_headers)
        split.addWidget(self.preview)
        self.columns_model = ColumnsModel(session)
        self.columns = QTableView()
        self.columns.setModel(self.columns_model)
        self.columns.setItemDelegateForColumn(1, TypeDelegate(self.columns))
        self.columns.verticalHeader().setVisible(False)
        self.columns.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.columns.setAccessibleName("Columns with their types and missing cells")
        split.addWidget(self.columns)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([600, 330])
        layout.addWidget(split, 1)

        dataset = QGroupBox("The dataset")
        dataset_layout = QHBoxLayout(dataset)
        self.dataset_name = QLineEdit()
        self.dataset_name.setToolTip("The budget ledger keeps this dataset's lifetime budget "
                                     "under this name: use the same name for every release "
                                     "about the same people")
        self.dataset_name.setAccessibleName("Dataset name")
        self.expected_rows = NumberField()  # kept as typed: the core's rule refuses it
        self.expected_rows.setPlaceholderText("not stated")
        self.expected_rows.setMaximumWidth(140)
        self.expected_rows.setToolTip("A public, approximate number of rows (say, from a "
                                      "published report). Only used to show the accuracy of "
                                      "means, variances, quantiles and yes/no shares, and to "
                                      "warn when bounds found privately may land far from "
                                      "the data; never read from the data")
        self.expected_rows.setAccessibleName("Approximate public number of rows")
        dataset_layout.addWidget(QLabel("Name"))
        dataset_layout.addWidget(self.dataset_name, 1)
        dataset_layout.addWidget(QLabel("About how many rows (public)"))
        dataset_layout.addWidget(self.expected_rows)
        self.rows_error = NoteArea(1, RED)  # on the row itself: it moves no field
        self.rows_error.setAccessibleName("Why the number of rows was not changed")
        dataset_layout.addWidget(self.rows_error, 1)
        layout.addWidget(dataset)

        who = QGroupBox("Who is one person?")
        who_layout = QVBoxLayout(who)
        # the owner-only note on a column that repeats like an id, and its one-click answer
        self.repeat_note = QLabel()
        self.repeat_note.setWordWrap(True)
        self.repeat_note.setAccessibleName("A column repeats like a person's id")
        self.use_id = QPushButton()
        self.use_id.setToolTip("One person is this column's value: every statistic then "
                               "protects all of a person's rows together")
        note_row = QHBoxLayout()
        note_row.addWidget(self.repeat_note, 1)
        note_row.addWidget(self.use_id)
        who_layout.addLayout(note_row)
        self.unit_row = QRadioButton("Each row is a person")
        self.unit_person = QRadioButton("A person has up to")
        self.unit_group = QButtonGroup(self)
        self.unit_group.addButton(self.unit_row)
        self.unit_group.addButton(self.unit_person)
        person_row = QHBoxLayout()
        self.max_rows = NumberField()  # kept as typed: the core's rule refuses it (no clamping)
        self.max_rows.setPlaceholderText("?")  # the owner's number: never a default
        self.max_rows.setMaximumWidth(self.max_rows.fontMetrics().horizontalAdvance("0000000")
                                      + 24)
        self.max_rows.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.max_rows.setToolTip("The most rows one person may have; state it from how the "
                                 "data was collected")
        self.max_rows.setAccessibleName("Rows per person")
        self.max_rows_unit = QLabel("rows")  # "1 row", "3 rows"
        self.id_column = QComboBox()
        self.id_column.setToolTip("The column that identifies a person")
        person_row.addWidget(self.unit_person)
        person_row.addWidget(self.max_rows)
        person_row.addWidget(self.max_rows_unit)
        person_row.addWidget(QLabel("identified by"))
        person_row.addWidget(self.id_column, 1)
        who_layout.addWidget(self.unit_row)
        self.reason_label = QLabel(ROWS_REASON_ASK)
        self.reason_label.setWordWrap(True)
        self.rows_reason = QLineEdit()
        self.rows_reason.setPlaceholderText("Why each row is a different person")
        self.rows_reason.setAccessibleName("Why each row is a different person")
        self.record_reason = QPushButton("Record the reason")
        reason_row = QHBoxLayout()
        reason_row.addSpacing(24)
        reason_row.addWidget(self.rows_reason, 1)
        reason_row.addWidget(self.record_reason)
        who_layout.addWidget(self.reason_label)
        who_layout.addLayout(reason_row)
        who_layout.addLayout(person_row)
        self.max_rows_error = NoteArea(1, RED)  # its own line, reserved: it moves no field
        self.max_rows_error.setAccessibleName("Why the rows per person were not changed")
        who_layout.addWidget(self.max_rows_error)
        self.max_rows_hint = QLabel()
        self.max_rows_hint.setWordWrap(True)
        who_layout.addWidget(self.max_rows_hint)
        self.unit_text = QLabel()
        self.unit_text.setWordWrap(True)
        who_layout.addWidget(self.unit_text)
        layout.addWidget(who)

        what = QGroupBox("What is protected?")
        what_layout = QVBoxLayout(what)
        self.rel_add = QRadioButton("Whether a person is in the data (add-remove)")
        self.rel_replace = QRadioButton("What a person's data says (replace-one)")
        self.rel_group = QButtonGroup(self)
        self.rel_group.addButton(self.rel_add)
        self.rel_group.addButton(self.rel_replace)
        what_layout.addWidget(self.rel_add)
        what_layout.addWidget(self.rel_replace)
        self.rel_text = QLabel()
        self.rel_text.setWordWrap(True)
        what_layout.addWidget(self.rel_text)
        layout.addWidget(what)

        self.unit_group.buttonToggled.connect(self._unit_edited)
        self.unit_row.clicked.connect(self._rows_chosen)
        self.max_rows.editingFinished.connect(self._unit_edited)
        self.max_rows.textChanged.connect(self._show_rows_unit)
        self.id_column.currentTextChanged.connect(self._unit_edited)
        self.rel_group.buttonToggled.connect(self._relation_edited)
        self.use_id.clicked.connect(self._use_id)
        self.record_reason.clicked.connect(self._reason_edited)
        self.rows_reason.returnPressed.connect(self._reason_edited)
        self.dataset_name.editingFinished.connect(self._dataset_edited)
        self.expected_rows.editingFinished.connect(self._dataset_edited)
        self.updates = watch(self, session, self.update_for)  # labels at once: never stale
        self.refresh()

    def update_for(self, changes: OpChanges) -> None:
        """Bring the pane up to date with what changed, and only that."""
        if changes.table:
            self._table_changed()
        elif changes.plan_replaced or changes.dataset or changes.unit:
            self.refresh()

    def _fit_preview_headers(self) -> None:
        """Each preview column at least as wide as its name (the cells may scroll sideways)."""
        header = self.preview.horizontalHeader()
        for col in range(self.preview_model.columnCount()):
            header.resizeSection(col, max(header.sectionSize(col),
                                          header.sectionSizeFromContents(col).width()))

    def _table_changed(self) -> None:
        table = self.session.table
        if table is None:
            self.preview_model.set_source(None)
            self.file_label.setText("No table open. File → Open data… (CSV, Excel, Parquet)")
            self.refresh()
            return
        # the engine's rows, a page at a time: the table itself is never loaded here
        self.preview_model.set_source(self.session.table_source(), table.n_rows)
        half = self.preview_model.rowCount() // 2
        shown = (f" The preview shows the first and the last {half:,} rows."
                 if self.preview_model.clipped else "")
        self.file_label.setText(
            f"<b>{table.name}</b>: {table.n_rows:,} rows, {len(table.columns)} columns "
            f"({table.format}{', ' + table.encoding if table.encoding else ''}). The table "
            f"stays on this computer; only noised results are ever released.{shown}")
        self.refresh()

    def _unit_edited(self, *_args: object) -> None:
        plan = self.session.plan
        if plan is None:
            return
        typed = self.max_rows.text()
        # empty is no number yet: the plan holds it unstated (the core's ``rows`` rule asks)
        refused = number_problem(ROWS_PER_PERSON, typed, max_rows_problem) \
            if typed.strip() else None
        self._show_rows_error(refused)
        self.max_rows.setModified(bool(refused))
        if refused:  # the field keeps what was typed; the plan keeps its unit
            return
        if self.unit_person.isChecked() and self.id_column.currentText():
            rows = self.max_rows.value()
            unit = PrivacyUnit("person", self.id_column.currentText(),
                               None if rows is None else int(rows))
        elif self.unit_row.isChecked():
            unit = PrivacyUnit()
        else:
            return
        if unit.kind == plan.privacy_unit.kind == "row":
            return  # the row unit as it is (with its recorded reason, if any)
        if unit != plan.privacy_unit:
            try:
                self.session.set_privacy_unit(unit)
            except InputError as exc:  # the plan keeps its unit; the pane shows it again
                QMessageBox.warning(self, "Cannot use this id column", on_screen(str(exc)))
                self.refresh()

    def ask_who(self) -> None:
        """Focus what the question still needs: the rows per person of a chosen id, else the
        one-click id (or the reason, when no column is offered)."""
        plan = self.session.plan
        if plan is not None and plan.privacy_unit.kind == "person":
            self.max_rows.setFocus()
        elif self.use_id.isVisible():
            self.use_id.setFocus()
        else:
            self.rows_reason.setFocus()

    def _show_rows_error(self, refused: str | None) -> None:
        """The red line under the rows per person: a refused number, or the number a person
        unit still needs (the core's rule, said where the field is)."""
        plan = self.session.plan
        if refused is None and plan is not None and plan.privacy_unit.kind == "person":
            unstated = max_rows_problem(plan.privacy_unit.max_rows) is not None  # (None)
            refused = f"{ROWS_PER_PERSON}: {MAX_ROWS_ASK}" if unstated else None
        self.max_rows_error.setText(refused or "")
        self.max_rows_error.setToolTip(refused or "")

    def _rows_chosen(self) -> None:
        """"Each row is a person" clicked while a column repeats like an id: the answer is the
        reason (the plan records it), so the choice shows and the reason is asked for."""
        if self.session.people_question() is not None:
            with QSignalBlocker(self.unit_group), QSignalBlocker(self.unit_row):
                self.unit_row.setChecked(True)
            self.rows_reason.setFocus()

    def _use_id(self) -> None:
        question = self.session.people_question()
        if question is None or self.session.plan is None:
            return
        try:
            self.session.use_person_id(question.column)
        except InputError as exc:  # a synthetic table's column: the plan keeps its unit
            QMessageBox.warning(self, "Cannot use this id column", str(exc))
            return
        self.max_rows.setFocus()  # the number is the owner's to state (it is published)
        self.max_rows.selectAll()

    def _reason_edited(self) -> None:
        if self.session.plan is None:
            return
        reason = self.rows_reason.text()
        if not reason.strip():
            QMessageBox.warning(self, "Say why the rows are different people",
                                "Write the reason first: it is saved in the plan and shown "
                                "to your privacy officer.")
            return
        self.rows_reason.setModified(False)
        if " ".join(reason.split()) != self.session.plan.privacy_unit.rows_reason:
            self.session.set_rows_are_people(reason)

    def _dataset_edited(self) -> None:
        plan = self.session.plan
        name = self.dataset_name.text().strip()
        if plan is None or not name:
            return
        self.dataset_name.setModified(False)
        typed = self.expected_rows.text().replace(",", "").strip()  # 3,800 is 3800
        refused = number_problem("About how many rows", typed, expected_rows_problem)
        self.rows_error.setText(refused or "")
        self.rows_error.setToolTip(refused or "")
        rows = plan.dataset.expected_rows if refused else typed_number(typed)
        self.expected_rows.setModified(bool(refused))
        try:
            self.session.set_dataset(name, rows)
        except InputError as exc:  # the plan keeps its name; the pane shows it again
            QMessageBox.warning(self, "Cannot use this dataset name", str(exc))
            self.refresh()

    def _relation_edited(self, *_args: object) -> None:
        plan = self.session.plan
        if plan is None:
            return
        relation = "replace-one" if self.rel_replace.isChecked() else "add-remove"
        if relation != plan.neighbouring:
            self.session.set_relation(relation)

    def refresh(self) -> None:
        plan = self.session.plan
        widgets = (self.unit_row, self.unit_person, self.max_rows, self.id_column,
                   self.rel_add, self.rel_replace, self.dataset_name, self.expected_rows)
        blockers = [QSignalBlocker(w) for w in (*widgets, self.unit_group, self.rel_group)]
        columns = [c.name for c in self.session.columns]
        if plan is not None and plan.privacy_unit.id_column and \
                plan.privacy_unit.id_column not in columns:
            columns.append(plan.privacy_unit.id_column)
        if [self.id_column.itemText(i) for i in range(self.id_column.count())] != columns:
            self.id_column.clear()
            self.id_column.addItems(columns)
        for w in widgets:
            w.setEnabled(plan is not None)
        if plan is not None:
            # a focused field keeps what the person is typing, but not a value already in the
            # plan (an undo from the toolbar must show, or leaving the field re-applies it)
            if not (self.dataset_name.hasFocus() and self.dataset_name.isModified()):
                self.dataset_name.setText(plan.dataset.name)
            rows = plan.dataset.expected_rows
            if not self.expected_rows.isModified():  # a refused number stays as typed
                self.expected_rows.setText("" if rows is None else number_text(rows))
                self.rows_error.setText("")
            person = plan.privacy_unit.kind == "person"
            # a row unit over a column that repeats like an id, with no reason recorded, is
            # no answer yet: neither choice shows as made (the plan's own state)
            answered = person or self.session.people_question() is None
            self.unit_group.setExclusive(answered)
            self.unit_person.setChecked(person)
            self.unit_row.setChecked(answered and not person)
            self.unit_group.setExclusive(True)
            if not self.max_rows.isModified():  # a refused number stays as typed
                rows = plan.privacy_unit.max_rows if person else None
                self.max_rows.setText("" if rows is None else number_text(rows))
                self._show_rows_error(None)
            self._show_rows_unit()
            if person:
                self.id_column.setCurrentText(plan.privacy_unit.id_column or "")
            self.unit_text.setText(UNIT_PERSON if person else UNIT_ROW if answered
                                   else UNIT_UNANSWERED)
            replace_one = plan.neighbouring == "replace-one"
            self.rel_replace.setChecked(replace_one)
            self.rel_add.setChecked(not replace_one)
            self.rel_text.setText(REL_REPLACE if replace_one else REL_ADD)
        self._show_people()
        del blockers

    def _show_rows_unit(self, *_args: object) -> None:
        self.max_rows_unit.setText("row" if self.max_rows.value() == 1 else "rows")

    def _show_people(self) -> None:
        """The owner-only note on a column that repeats like an id, its one-click answer, the
        reason for rows that are different people, and what the rows per person mean."""
        question = self.session.people_question()
        self.repeat_note.setVisible(question is not None)
        self.use_id.setVisible(question is not None)
        if question is not None:
            others = "".join(f" {repeat_note(r)}" for r in self.session.repeating[1:3])
            self.repeat_note.setText(f"⚠ <b>{escape(repeat_note(question))}</b>"
                                     f"{escape(others)} {escape(WHY_IT_MATTERS)} "
                                     f"<i>{escape(OWNER_ONLY)}</i>")
            self.use_id.setText(f"Use {question.column} as the person id")
        repeating = {r.column: r for r in self.session.repeating}
        unit = self.session.plan.privacy_unit if self.session.plan is not None else None
        asks = unit is not None and unit.kind == "row" and bool(repeating)
        for w in (self.reason_label, self.rows_reason, self.record_reason):
            w.setVisible(asks)
        if unit is not None and not (self.rows_reason.hasFocus()
                                     and self.rows_reason.isModified()):
            self.rows_reason.setText(unit.rows_reason or "")
        shown = unit is not None and unit.kind == "person" and unit.id_column in repeating
        self.max_rows_hint.setVisible(shown)
        if shown and unit is not None and unit.id_column is not None:
            self.max_rows_hint.setText(max_rows_hint(repeating[unit.id_column],
                                                     unit.max_rows))
