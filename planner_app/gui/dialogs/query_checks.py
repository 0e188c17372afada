"""The statistic form's checks, an object the shell (query_dialog.QueryDialog) owns as
``dialog.checks``: which fields the kind shows as the form stands, the core's warnings while
typing, and OK — the plan's rules and the table's checks, their refusals in the form's words.
It reads the form through ``StatisticForm`` (the controls it needs, kind_panels hold them) and
never sees the rest of the dialog."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol

from PySide6.QtCore import QObject
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QScrollArea,
    QWidget,
)

from ...core.kinds import KINDS, StatisticKind
from ...core.kinds.params import answers_declared
from ...core.kinds.registry import make_query
from ...core.kinds.shared_form import BOUNDS, DOMAIN, GROUP_BY, SYNTH_COLUMNS, YES_NO
from ...core.model import Plan, Query
from ...core.planfile import plan_from_dict, plan_to_dict
from ...core.support.errors import InputError
from ...core.support.field_words import on_screen
from ...core.support.words import count_words
from ..session import Session
from ..widgets.form_fields import NoteArea
from .kind_panels.column import ColumnPanel
from .kind_panels.common import lines as typed_lines
from .kind_panels.common import number
from .kind_panels.discovery import FindButtons
from .kind_panels.rows import RowsPanel
from .kind_panels.synthetic import SyntheticPanel
from .kind_panels.yes_no import YesNoPanel


def form_words(exc: InputError | str, columns: Sequence[str] = ()) -> str:
    """A plan error in the form's words: "Lower bound: must be a number" for
    "queries[y].lower: must be a number, not a string" (core.support.field_words names the
    control); a synthetic table's columns[i] is named by its column (``columns``, in the
    plan's order)."""
    text = str(exc).replace("this statistic: ", "")
    # the JSON type names mean nothing in a form
    text = re.sub(r", not an? (string|list|object|boolean|null)$", "", text)
    return on_screen(text, columns, in_editor=True)


class StatisticForm(Protocol):
    """What the checks read and write of the form (QueryDialog is the one form)."""

    kind: QComboBox
    column: QComboBox
    count_people: QCheckBox
    count_words: QLabel
    categories: QPlainTextEdit
    use_bins: QCheckBox
    lower: QLineEdit
    upper: QLineEdit
    list_reason: QLineEdit
    bounds_reason: QLineEdit
    finder: FindButtons
    declare: QCheckBox
    missing: QComboBox
    fields: QWidget
    field_scroll: QScrollArea
    synth_list: QListWidget
    warning: NoteArea
    error: NoteArea
    column_panel: ColumnPanel
    rows_panel: RowsPanel
    synth_panel: SyntheticPanel
    yes_no_panel: YesNoPanel

    def to_dict(self) -> dict[str, Any]:
        """The statistic's plan JSON as the form stands."""
        ...

    def finish(self, plan: Plan, query_id: str) -> None:
        """OK passed every check: close the form with this plan."""
        ...


class FormChecks(QObject):
    """The form's rules, asked of the core as the form stands (a large table's answers come
    from a worker: ``data_answered`` takes them). A child of the dialog (``parent``): it is
    deleted with it, and so is its connection to the session's answers."""

    def __init__(self, form: StatisticForm, session: Session, original: Query | None,
                 parent: QObject) -> None:
        super().__init__(parent)
        self.form = form
        self.session = session
        self.original = original
        # a large table's answers come from a worker: what waits for one
        self._suggesting: str | None = None  # the column whose values were asked for
        self._accepting = False  # OK was pressed while the statistic was being checked

    @property
    def accepting(self) -> bool:
        """OK was pressed and waits for the table's answer ("Checking against the table…")."""
        return self._accepting

    def made_id(self, label: str, kind: str) -> str:
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

    def kept_justification(self, edited: tuple[str, ...]) -> dict[str, Any]:
        """The reasons this form does not edit (such as one for ε), kept as they were."""
        return {k: v for k, v in dict(
            (self.original.justification or {}) if self.original else {}).items()
            if k not in edited}

    @property
    def synth_columns(self) -> list[dict[str, Any]]:
        """A synthetic table's columns, as typed (the plan JSON of each)."""
        return self.form.synth_panel.columns

    def kind_now(self) -> StatisticKind:
        return KINDS[self.form.kind.currentData() or next(iter(KINDS))]

    def fields_now(self) -> frozenset[str]:
        return self.kind_now().form_fields()

    def chosen_column(self) -> str | None:
        """The column of the statistic: none for a count of all rows."""
        return self.form.column_panel.chosen(self.fields_now())

    def _bounded(self) -> bool:
        return BOUNDS in self.fields_now()

    def _one_domain(self) -> bool:
        """A single declared domain (a histogram's; a table's are its columns')."""
        fields = self.fields_now()
        return DOMAIN in fields and SYNTH_COLUMNS not in fields

    def needs_bounds_reason(self) -> bool:
        """Bounds and bin edges both need a reason (core.readiness.missing_reasons)."""
        return self._bounded() or (self._one_domain() and self.form.use_bins.isChecked()) \
            or self.synth_has("bins")

    def has_categories(self) -> bool:
        return self._one_domain() and not self.form.use_bins.isChecked() \
            or self.synth_has("categories")

    def synth_has(self, key: str) -> bool:
        """Some column of the synthetic table declares ``key`` (categories or bins)."""
        return SYNTH_COLUMNS in self.fields_now() and self.form.synth_panel.has(key)

    def store_synth(self) -> None:
        """Keep the fields' edits in the selected column."""
        if SYNTH_COLUMNS in self.fields_now():
            self.form.synth_panel.store()

    def counts_people(self) -> bool:
        return self.id_column() is not None and self.form.count_people.isChecked()

    def has_groups(self) -> bool:
        return GROUP_BY in self.fields_now() and self.form.rows_panel.grouped()

    def reads_yes_no(self) -> bool:
        return YES_NO in self.fields_now()

    def has_list(self) -> bool:
        """A declared public list (categories, group keys, yes/no values) needs a reason."""
        return self.has_categories() or self.has_groups() or self.reads_yes_no()

    def id_column(self) -> str | None:
        plan = self.session.plan
        return plan.privacy_unit.id_column if plan is not None else None

    def _update_synth_warning(self) -> None:
        checks = self.session.ask_query_checks(self.form.synth_panel.draft())
        if checks is None:
            self.form.warning.setText("Checking against the table…")
            return
        lines = [f"⚠ {n[0].upper()}{n[1:]}." for n in checks.notes]
        lines += [f"✗ {p.problem[0].upper()}{p.problem[1:]}." for p in checks.problems
                  if not p.problem.startswith("no column")]
        self.form.warning.setText("\n".join(dict.fromkeys(lines)))

    def _found_reasons(self) -> dict[str, str]:
        """walk25: the reasons of the lists and bounds found privately here, while the form's
        reason fields still say so (the core then does not call them copied from the data)."""
        shown = {"categories": self.form.list_reason.text(), "keys": self.form.list_reason.text(),
                 "bounds": self.form.bounds_reason.text()}
        return {field: reason for field, reason in self.form.finder.reasons.items()
                if shown[field] == reason}

    def update_warning(self, *_args: object) -> None:
        """The core's check for parameters read off the data, on the form as it stands."""
        if SYNTH_COLUMNS in self.fields_now():
            self.store_synth()
            self._update_synth_warning()
            return
        lo, hi = number(self.form.lower.text()), number(self.form.upper.text())
        numeric = isinstance(lo, (int, float)) and isinstance(hi, (int, float))
        draft = make_query(
            self.kind_now().name, id="draft", epsilon=1.0,
            column=self.chosen_column(),
            lower=float(lo) if self._bounded() and numeric else None,
            upper=float(hi) if self._bounded() and numeric else None,
            categories=tuple(typed_lines(self.form.categories.toPlainText()))
            if self.has_categories() else None,
            group_by=self.form.rows_panel.group_by() if self.has_groups() else None,
            yes=self.form.yes_no_panel.typed("yes") if self.reads_yes_no() else None,
            no=self.form.yes_no_panel.typed("no") if self.reads_yes_no() else None,
            justification=self._found_reasons() or None)
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
        self.form.warning.setText("\n".join(lines))
        unit = self.session.plan.privacy_unit if self.session.plan is not None else None
        missing_dropped = self.form.missing.currentIndex() == 1
        self.form.count_words.setText(count_words(draft.column, missing_dropped,
                                                  unit.id_column if unit else None,
                                                  unit.rows_per_unit if unit else 1,
                                                  self.counts_people()) + ".")
        if self.reads_yes_no():
            self.form.yes_no_panel.update_hint(self.form.column.currentText(), tally)

    def suggest_yes_no(self) -> None:
        """Fill the yes and no lists from the column's values (kind_panels.yes_no); the owner
        confirms them (the declaration is unticked)."""
        column = self.form.column.currentText()
        answer = self.form.yes_no_panel.suggest_from(self.session, column)
        if answer == "waiting":  # a large table: filled in when the worker answers
            self._suggesting = column
        elif answer == "filled":
            self._suggesting = None
            self.form.declare.setChecked(False)
            self.update_warning()

    def _unconfirmed_list_reason(self) -> str:
        """The line refusing a list's reason typed without the declaration ticked (the plan
        keeps the reason only with the tick), or "" when there is none."""
        synth = SYNTH_COLUMNS in self.fields_now()
        if self.form.declare.isChecked() or not self.form.list_reason.text().strip():
            return ""
        # only where the tick would keep it (to_dict): a share of yes with no yes list typed
        # has no list the reason could belong to
        lists = self.synth_has("categories") if synth else (
            self.has_categories() or self.has_groups()
            or (self.reads_yes_no() and "yes" in self.form.to_dict()))
        if not lists:
            return ""
        words = self.kind_now().form_words()
        return (f"Confirm {words.declare_list_words}: tick “I declare {words.declare_words} "
                f"public” to keep the reason typed in “{words.list_reason_label}”, or clear "
                "it.")

    def data_answered(self, kind: str) -> None:
        if kind == "values" and self._suggesting is not None:
            if self._suggesting == self.form.column.currentText():
                self.suggest_yes_no()
            else:
                self._suggesting = None
        elif kind == "query":
            self.update_warning()
            if self._accepting:
                self.accept()

    # the plan's field names whose control has another name in the form
    _CONTROLS = {"id": "ident", "group_by": "group_column", "keys": "group_keys"}

    def _show_refused(self, where: str | None) -> None:
        """Scroll the refused field (``where``: the plan's "queries[x].field") into view: the
        fields scroll at a large scale or on a short screen, and the red line names it."""
        name = re.sub(r"\[.*?\]", "", (where or "").rsplit(".", 1)[-1])
        control = getattr(self.form, self._CONTROLS.get(name, name), None)
        if isinstance(control, QWidget) and self.form.fields.isAncestorOf(control) \
                and control.isVisible():
            self.form.field_scroll.ensureWidgetVisible(control)

    def accept(self) -> None:
        plan = self.session.plan
        assert plan is not None
        refused = self._unconfirmed_list_reason()
        if refused:  # never drop what was typed: the reason is kept only with the tick
            if not self.form.declare.isVisible() and SYNTH_COLUMNS in self.fields_now():
                self.form.synth_list.setCurrentRow(next(  # show a column whose list it is for
                    i for i, c in enumerate(self.synth_columns) if "categories" in c))
            self.form.error.setText(refused)
            return
        doc = plan_to_dict(plan)
        mine = self.form.to_dict()
        if self.original is not None:
            doc["queries"] = [mine if q["id"] == self.original.id else q
                              for q in doc["queries"]]
        else:
            doc["queries"].append(mine)
        try:
            new_plan = plan_from_dict(doc, "this statistic", draft=True)
        except InputError as exc:
            self.form.error.setText(form_words(exc, [str(c.get("column") or "")
                                                for c in mine.get("columns") or ()]))
            self._show_refused(exc.where)
            return
        query = new_plan.query(mine["id"])
        if answers_declared(query) and not self.form.declare.isChecked():
            self.form.error.setText("Confirm the yes and no values: tick “I declare this list "
                               "public” (they should come from the column's code book).")
            return
        # the core's rule, on the statistic as the plan has it (a synthetic table's problems
        # name its own columns[i] fields)
        answers = [self.session.ask_query_checks(query)]
        if any(checks is None for checks in answers):  # a large table: OK again later
            self._accepting = True
            self.form.error.setText("Checking this statistic against the table…")
            return
        self._accepting = False
        problems: list[Any] = [p for checks in answers if checks is not None
                               for p in checks.problems]
        if problems:
            names = [str(c.get("column") or "") for c in mine.get("columns") or ()]
            self.form.error.setText("\n".join(form_words(f"{p.where}: {p.problem}", names)
                                         for p in problems))
            self._show_refused(problems[0].where)
            return
        self.form.finish(new_plan, mine["id"])
