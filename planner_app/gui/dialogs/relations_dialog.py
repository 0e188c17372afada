"""Edit → Relations between statistics…: the plan's relations (which statistics add up to
which), how their consistent values are made, and which values are the headline (issue 27).

A thin view: the choices come from the core (planning/relation_edits.py), every change is
one undoable session edit checked by the plan reader's own rule, and a refused relation is
shown with the core's one-line message. The dialog keeps no state: it reads the plan again
whenever the session says the plan changed (an undo in the main window included)."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHeaderView,
    QLabel,
    QListWidget,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.model import Plan
from ...core.model.plan import HEADLINES, Scalar
from ...core.planning.changes import OpChanges
from ...core.planning.relation_edits import (
    HEADLINE_WORDS,
    needs_within,
    parts_choices,
    relation_sentence,
    total_choices,
)
from ...core.support.errors import InputError
from ...core.support.field_words import on_screen
from ...core.support.words import (
    RELATION_REFUSED_TITLE,
    RELATIONS_HEADLINE,
    RELATIONS_INTEGER,
    RELATIONS_INTRO,
    RELATIONS_NEED_TWO,
    RELATIONS_NON_NEGATIVE,
    RELATIONS_NONE,
    RELATIONS_TITLE,
    RELATIONS_WITHIN_HELP,
)
from ..session import Session
from ..widgets.screen_fit import fit_to_screen

CHOOSE = "(choose)"


class RelationsDialog(QDialog):
    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self._within_wanted = False
        self.setWindowTitle(RELATIONS_TITLE)
        fit_to_screen(self, 760, 700)
        layout = QVBoxLayout(self)
        intro = QLabel(RELATIONS_INTRO)
        intro.setWordWrap(True)
        layout.addWidget(intro)

        declared = QGroupBox("Declared relations")
        box = QVBoxLayout(declared)
        self.relations = QListWidget()
        self.relations.setAccessibleName("The plan's relations")
        self.relations.setMaximumHeight(self.fontMetrics().height() * 8)  # the table below
        self.relations.currentRowChanged.connect(lambda _row: self._enable())
        box.addWidget(self.relations)
        self.empty = QLabel(RELATIONS_NONE)
        self.empty.setWordWrap(True)
        box.addWidget(self.empty)
        self.remove_button = QPushButton("Remove the selected relation")
        self.remove_button.clicked.connect(self.remove_selected)
        box.addWidget(self.remove_button)
        layout.addWidget(declared)

        adding = QGroupBox("Add a relation")
        form = QFormLayout(adding)
        self.parts = QComboBox()
        self.parts.setAccessibleName("The statistic whose cells add up")
        self.total = QComboBox()
        self.total.setAccessibleName("The statistic they add up to")
        form.addRow("The cells of", self.parts)
        form.addRow("add up to", self.total)
        self.within_help = QLabel()
        self.within_help.setWordWrap(True)
        form.addRow(self.within_help)
        self.within = QTableWidget(0, 2)
        self.within.setAccessibleName("Which total each part lies within")
        self.within.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.Stretch)
        form.addRow(self.within)
        self.add_button = QPushButton("Add this relation")
        self.add_button.clicked.connect(self.add)
        form.addRow(self.add_button)
        self.need_two = QLabel(RELATIONS_NEED_TWO)
        self.need_two.setWordWrap(True)
        form.addRow(self.need_two)
        layout.addWidget(adding)
        self._layout, self._adding = layout, adding
        self.total.currentIndexChanged.connect(lambda _i: self._fill_parts())
        self.parts.currentIndexChanged.connect(lambda _i: self._fill_within())

        made = QGroupBox("The consistent values")
        options = QFormLayout(made)
        self.non_negative = QCheckBox(RELATIONS_NON_NEGATIVE)
        self.integer = QCheckBox(RELATIONS_INTEGER)
        self.headline = QComboBox()
        self.headline.setAccessibleName("Which values are the headline values")
        for key in HEADLINES:
            self.headline.addItem(HEADLINE_WORDS[key], key)
        options.addRow(self.non_negative)
        options.addRow(self.integer)
        options.addRow(RELATIONS_HEADLINE, self.headline)
        layout.addWidget(made)
        self.non_negative.toggled.connect(
            lambda on: self._option(lambda: session.set_consistency_options(non_negative=on)))
        self.integer.toggled.connect(
            lambda on: self._option(lambda: session.set_consistency_options(integer=on)))
        self.headline.currentIndexChanged.connect(
            lambda i: self._option(lambda: session.set_consistency_options(
                headline=str(self.headline.itemData(i)))))

        layout.addStretch(1)  # the room the within table takes when it is shown
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        session.changed.connect(self._changed)
        self.refresh()

    # -- reading the plan -----------------------------------------------------------------------

    def _changed(self, changes: OpChanges) -> None:
        if changes.plan:
            self.refresh()

    def refresh(self) -> None:
        """Everything shown, from the plan as it stands."""
        plan = self.session.plan
        c = plan.consistency if plan is not None else None
        with QSignalBlocker(self.relations):
            self.relations.clear()
            if plan is not None and c is not None:
                self.relations.addItems([relation_sentence(plan, r) for r in c.relations])
        self.empty.setVisible(c is None)
        blockers = [QSignalBlocker(w) for w in (self.non_negative, self.integer, self.headline)]
        self.non_negative.setChecked(c is not None and c.non_negative)
        self.integer.setChecked(c is not None and c.integer)
        self.headline.setCurrentIndex(HEADLINES.index(c.headline) if c is not None else 0)
        del blockers
        for w in (self.non_negative, self.integer, self.headline):
            w.setEnabled(c is not None)
        self._fill_totals(plan)
        self._enable()

    def _fill_totals(self, plan: Plan | None) -> None:
        kept = self.total.currentData()
        with QSignalBlocker(self.total):
            self.total.clear()
            for q in total_choices(plan) if plan is not None else []:
                self.total.addItem(q.title, q.id)
            at = self.total.findData(kept)
            self.total.setCurrentIndex(at if at >= 0 else 0)
        self._fill_parts()

    def _fill_parts(self) -> None:
        plan, total = self.session.plan, self.total.currentData()
        kept = self.parts.currentData()
        with QSignalBlocker(self.parts):
            self.parts.clear()
            if plan is not None and total is not None:
                for q in parts_choices(plan, str(total)):
                    self.parts.addItem(q.title, q.id)
            at = self.parts.findData(kept)
            self.parts.setCurrentIndex(at if at >= 0 else 0)
        self._fill_within()

    def _fill_within(self) -> None:
        """For a two-level hierarchy: one row per part key, with the total key it lies
        within (chosen by the owner; the core refuses a part placed nowhere or twice)."""
        plan, total_id, parts_id = self.session.plan, self.total.currentData(), \
            self.parts.currentData()
        wanted = plan is not None and total_id is not None and parts_id is not None and \
            needs_within(plan, str(total_id), str(parts_id))
        self._within_wanted = wanted
        if hasattr(self, "_layout"):  # the table takes the spare room, else the stretch
            self._layout.setStretchFactor(self._adding, 1 if wanted else 0)
            self._layout.setStretch(self._layout.count() - 2, 0 if wanted else 1)
        self.within.setVisible(wanted)
        self.within_help.setVisible(wanted)
        self._enable()
        if not wanted:
            self.within.setRowCount(0)
            return
        assert plan is not None
        total, parts = plan.query(str(total_id)), plan.query(str(parts_id))
        assert total.group_by is not None and parts.group_by is not None
        self.within_help.setText(RELATIONS_WITHIN_HELP.format(total=total.group_by.column,
                                                              parts=parts.group_by.column))
        self.within.setHorizontalHeaderLabels([parts.group_by.column,
                                               f"lies within ({total.group_by.column})"])
        self.within.setRowCount(len(parts.group_by.keys))
        for i, key in enumerate(parts.group_by.keys):
            item = QTableWidgetItem(str(key))
            item.setData(256, key)  # Qt.UserRole: the key as the plan holds it
            self.within.setItem(i, 0, item)
            choice = QComboBox()
            choice.addItem(CHOOSE, None)
            for k in total.group_by.keys:
                choice.addItem(str(k), k)
            self.within.setCellWidget(i, 1, choice)

    def _enable(self) -> None:
        can_add = self.total.count() > 0 and self.parts.count() > 0
        self.add_button.setEnabled(can_add)
        self.need_two.setVisible(not can_add)
        self.remove_button.setEnabled(self.relations.currentRow() >= 0)

    # -- editing ---------------------------------------------------------------------------------

    def within_choices(self) -> list[tuple[Scalar, list[Scalar]]]:
        """The table's choices as the plan's ``within``: each total key with its parts."""
        out: dict[str, tuple[Scalar, list[Scalar]]] = {}
        for i in range(self.within.rowCount()):
            widget = self.within.cellWidget(i, 1)
            item = self.within.item(i, 0)
            if not isinstance(widget, QComboBox) or item is None:
                continue
            total_key = widget.currentData()
            if total_key is None:
                continue
            out.setdefault(repr(total_key), (total_key, []))[1].append(item.data(256))
        return list(out.values())

    def add(self) -> bool:
        """Add the chosen relation (True), or say why the plan cannot have it."""
        total, parts = self.total.currentData(), self.parts.currentData()
        if total is None or parts is None:
            return False
        within = self.within_choices() if self._within_wanted else []
        return self._edit(lambda: self.session.add_relation(str(total), str(parts), within))

    def remove_selected(self) -> None:
        row = self.relations.currentRow()
        if row >= 0:
            self._edit(lambda: self.session.remove_relation(row))

    def _option(self, edit: object) -> None:
        if not self._edit(edit):
            self.refresh()  # the box shows what the plan holds

    def _edit(self, edit: object) -> bool:
        try:
            edit()  # type: ignore[operator]
        except InputError as exc:
            QMessageBox.warning(self, RELATION_REFUSED_TITLE, on_screen(str(exc)))
            return False
        return True
