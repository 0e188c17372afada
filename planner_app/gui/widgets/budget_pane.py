"""The release budget: total ε and δ with harm-level presets, splitting what is left over the
statistics (evenly or by weights, held ones kept), and the goal: meet several accuracy targets
with the smallest total ε."""

from __future__ import annotations

import math
from html import escape

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.dp.accounting import within
from ...core.dp.accuracy import UNIT_WORDS, shown_unit
from ...core.model import delta_problem, epsilon_problem
from ...core.planning.changes import OpChanges
from ...core.planning.editing import HARM_PRESETS, GoalResult, solve_goal
from ...core.planning.plan_edits import preset_for
from ...core.support.words import confidence_percent
from ..models import format_accuracy
from ..refresh import watch
from ..session import Session
from .form_fields import RED, NoteArea, NumberField, number_problem

COL_NAME, COL_NOW, COL_WEIGHT, COL_TARGET, COL_NEEDS = range(5)


class BudgetPane(QWidget):
    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        layout = QVBoxLayout(self)

        total = QGroupBox("This release's budget")
        form = QFormLayout(total)
        self.preset = QComboBox()
        self.preset.addItem("Choose by how sensitive the data is…")
        for i, p in enumerate(HARM_PRESETS, start=1):
            self.preset.addItem(f"{p.name}: ε = {p.epsilon:g}, δ = {p.delta:g}")
            self.preset.setItemData(i, p.reason, Qt.ItemDataRole.ToolTipRole)
        self.preset.setToolTip("Suggested budgets by the harm a leak could do")
        self.preset.setAccessibleName("Budget preset")
        form.addRow("Preset", self.preset)
        # its space is kept when no preset names the budget: the fields below never move
        # under the mouse (after "Use these ε" a click meant for the reason landed elsewhere)
        self.preset_reason = NoteArea(3)
        form.addRow("", self.preset_reason)
        row = QHBoxLayout()
        self.epsilon = NumberField()  # kept as typed: the core's rule refuses, never clamps
        self.epsilon.setMaximumWidth(110)
        self.epsilon.setToolTip("The most ε this release may spend, all statistics together")
        self.epsilon.setAccessibleName("Budget epsilon")
        self.delta = QLineEdit()
        self.delta.setToolTip("δ: the chance the guarantee may fail. Keep it far below one "
                              "over the number of people (for example 1e-6)")
        self.delta.setAccessibleName("Budget delta")
        self.delta.setMaximumWidth(110)
        row.addWidget(QLabel("ε"))
        row.addWidget(self.epsilon)
        row.addSpacing(12)
        row.addWidget(QLabel("δ"))
        row.addWidget(self.delta)
        row.addSpacing(12)
        # a refused ε or δ is named on the budget's own row: the message moves no field
        self.budget_error = NoteArea(1, RED)
        self.budget_error.setAccessibleName("Why the budget was not changed")
        row.addWidget(self.budget_error, 1)
        form.addRow("Budget", row)
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("Why this ε? e.g. the preset for data whose leak "
                                       "would embarrass; agreed with the privacy officer")
        self.reason.setToolTip("The reason behind this release's ε, shown to the privacy "
                               "officer in the review and printed in the report")
        self.reason.setAccessibleName("Reason for epsilon")
        form.addRow("Reason for ε", self.reason)
        self.policy_text = QLabel()  # the organisation's policy, when one is installed
        self.policy_text.setWordWrap(True)
        self.policy_text.setAccessibleName("The organisation's policy")
        self.policy_label = QLabel("Policy")
        form.addRow(self.policy_label, self.policy_text)
        layout.addWidget(total)

        share = QGroupBox("Share the budget among the statistics")
        share_layout = QVBoxLayout(share)
        hint = QLabel("Held statistics keep their ε; the others share what is left, evenly or "
                      "by the weights below. Or type an accuracy target for some statistics "
                      "and let the app find the smallest total ε that meets them all.")
        hint.setWordWrap(True)
        share_layout.addWidget(hint)
        self.table = QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels(
            ["Statistic", "Now", "Weight", "Target ± (95%)", "Needs ε"])
        self.table.verticalHeader().setVisible(False)
        # columns as wide as their texts, measured here for the cells that change: Qt's
        # ResizeToContents measured all rows of every column after any change (at 1,000
        # statistics about 18 ms of each ε slider step, the pane shown or not)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.itemChanged.connect(lambda item: self._grow([item.row()], [item.column()]))
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setAccessibleName("Statistics with weights and accuracy targets")
        share_layout.addWidget(self.table)
        buttons = QHBoxLayout()
        self.split_even = QPushButton("Split evenly")
        self.split_even.setToolTip("Give every statistic that is not held the same ε")
        self.split_weights = QPushButton("Split by weights")
        self.split_weights.setToolTip("Share what is left in proportion to the weights")
        self.solve = QPushButton("Find the smallest ε for these targets")
        self.solve.setToolTip("Uses the core's inverse accuracy for each statistic with a "
                              "target, then composes the whole plan")
        self.use = QPushButton("Use these ε")
        self.use.setEnabled(False)
        for b in (self.split_even, self.split_weights, self.solve, self.use):
            buttons.addWidget(b)
        buttons.addStretch(1)
        share_layout.addLayout(buttons)
        self.goal_text = QLabel()
        self.goal_text.setWordWrap(True)
        share_layout.addWidget(self.goal_text)
        layout.addWidget(share, 1)

        self._goal: GoalResult | None = None
        self._needs_filled = False  # whether any "Needs" cell may hold text
        self.preset.activated.connect(self._preset_chosen)
        self.epsilon.editingFinished.connect(self._budget_changed)
        self.delta.editingFinished.connect(self._budget_changed)
        self.reason.editingFinished.connect(self._reason_changed)
        self.split_even.clicked.connect(lambda: self._split(False))
        self.split_weights.clicked.connect(lambda: self._split(True))
        self.solve.clicked.connect(self._solve)
        self.use.clicked.connect(self._use_goal)
        self.updates = watch(self, session, self.update_for)  # labels at once: never stale
        self.refresh()

    # -- edits --------------------------------------------------------------------------------

    def _preset_chosen(self, index: int) -> None:
        if index <= 0 or self.session.plan is None:
            return
        self.session.use_preset(HARM_PRESETS[index - 1])  # the label follows from the budget

    def _budget_changed(self, *_args: object) -> None:
        plan = self.session.plan
        if plan is None:
            return
        # the core's rules; a refused number stays as typed, the plan keeps its budget
        refused = [p for p in (
            number_problem("Budget ε", self.epsilon.text(), epsilon_problem, "is required"),
            number_problem("Budget δ", self.delta.text(), delta_problem, "is required"))
            if p]
        self.budget_error.setText("; ".join(refused))
        self.budget_error.setToolTip("; ".join(refused))
        if refused:
            return
        eps, delta = float(self.epsilon.value()), float(self.delta.text())
        self.delta.setModified(False)  # typed text is in the plan: an undo may replace it
        self.epsilon.setModified(False)
        if not math.isclose(eps, plan.budget.epsilon) or delta != plan.budget.delta:
            self.session.set_budget(eps, delta)

    def _reason_changed(self) -> None:
        if self.session.plan is not None:
            self.reason.setModified(False)  # typed text is in the plan: refresh may replace it
            self.session.set_reason(self.reason.text())

    def _weights(self) -> dict[str, float]:
        plan = self.session.plan
        out = {}
        assert plan is not None
        for row, q in enumerate(plan.queries):
            item = self.table.item(row, COL_WEIGHT)
            try:
                out[q.id] = float(item.text()) if item is not None else 1.0
            except ValueError:
                out[q.id] = 1.0
        return out

    def _split(self, weighted: bool) -> None:
        if self.session.plan is None or not self.session.plan.queries:
            return
        try:
            self.session.split(self._weights() if weighted else None)
        except ValueError as exc:
            QMessageBox.warning(self, "Cannot split the budget", f"{exc}.")

    def targets(self) -> dict[str, float]:
        plan = self.session.plan
        out = {}
        assert plan is not None
        for row, q in enumerate(plan.queries):
            item = self.table.item(row, COL_TARGET)
            text = item.text().strip() if item is not None else ""
            if text:
                try:
                    value = float(text.replace(",", ""))
                except ValueError:
                    continue
                if value > 0:
                    out[q.id] = value
        return out

    def _solve(self) -> None:
        plan = self.session.plan
        if plan is None:
            return
        targets = self.targets()
        if not targets:
            self.goal_text.setText("Type a target ± in at least one row first.")
            return
        result = solve_goal(plan, targets, self.session.confidence)
        self._goal = result
        for row, q in enumerate(plan.queries):
            eps = result.epsilons.get(q.id)
            text = "" if q.id not in targets else (
                "unreachable" if q.id in result.unreachable else f"{eps:.4g}")
            self.table.setItem(row, COL_NEEDS, QTableWidgetItem(text))
        self.table.resizeColumnToContents(COL_NEEDS)
        self._needs_filled = True
        self._show_goal()

    def _show_goal(self) -> None:
        """The goal's verdict against the budget as it is now."""
        plan, result = self.session.plan, self._goal
        if plan is None or result is None:
            self.goal_text.setText("")
            self.use.setEnabled(False)
            return
        if result.total is None:
            names = ", ".join(plan.query(q).title for q in result.unreachable)
            self.goal_text.setText(f"No ε up to 1000 reaches the target of {names}.")
            self.use.setEnabled(False)
            return
        t = result.total
        fits = within(t, plan.budget.epsilon, plan.budget.delta)
        self.goal_text.setText(
            f"Meeting every target needs a total of ε = {t.epsilon:.4g} ({t.accountant} "
            f"accountant); the budget is ε = {plan.budget.epsilon:g}"
            + (" — it fits." if fits else " — it does not fit: ‘Use these ε’ also raises the "
                                          "budget."))
        self.use.setEnabled(True)

    def _clear_goal(self) -> None:
        """The plan's statistics changed: the ε found no longer describe it."""
        self._goal = None
        self._show_goal()
        if not self._needs_filled:  # nothing to empty (a slider step at 1,000 rows)
            return
        for row in range(self.table.rowCount()):
            item = self.table.item(row, COL_NEEDS)
            if item is not None:
                item.setText("")
        self.table.resizeColumnToContents(COL_NEEDS)
        self._needs_filled = False

    def _use_goal(self) -> None:
        if self._goal is None or self.session.plan is None:
            return
        goal = self._goal
        self._goal = None
        self.session.use_goal(goal)

    # -- view ---------------------------------------------------------------------------------

    def update_for(self, changes: OpChanges) -> None:
        """Bring the pane up to date with what changed, and only that."""
        if changes.plan_replaced:
            self._goal = None
            with QSignalBlocker(self.table):
                self.table.setRowCount(0)  # another plan: its targets start empty
            self.refresh()
            return
        if changes.statistics or changes.statistic_list or changes.unit or changes.dataset \
                or changes.settings:
            self._clear_goal()
        if changes.statistic_list or changes.unit or changes.dataset or changes.settings \
                or changes.held:
            self.refresh()
        elif changes.ledger:
            self._show_policy()
        elif changes.statistics or changes.budget or changes.review:
            self._show_budget()  # the fields, and only the rows of the edited statistics
            self._show_goal()
            self._show_rows(changes.statistics)

    def _now_text(self, q) -> str:  # type: ignore[no-untyped-def]
        acc = self.session.accuracy(q)
        held = " (held)" if q.id in self.session.held else ""
        return (f"ε {q.epsilon:.4g}{held}, "
                f"{format_accuracy(acc.half_width, acc.unit, acc.rows)}")

    def _show_rows(self, ids: frozenset[str]) -> None:
        plan = self.session.plan
        if plan is None or not ids:
            return
        rows = []
        with QSignalBlocker(self.table):
            for row, q in enumerate(plan.queries):
                if q.id not in ids:  # only the edited rows' cells are looked up
                    continue
                name, now = self.table.item(row, COL_NAME), self.table.item(row, COL_NOW)
                if name is not None and now is not None:
                    name.setText(q.title)
                    now.setText(self._now_text(q))
                    rows.append(row)
        self._grow(rows, [COL_NAME, COL_NOW])

    def _grow(self, rows: list[int], columns: list[int]) -> None:
        """Widen a column to a wider text in ``rows``; never narrow it while editing (a slider
        drag does not make the table jump): ``refresh`` fits every column again."""
        grid = 1 if self.table.showGrid() else 0
        model = self.table.model()
        for column in columns:
            if not rows:
                return
            wanted = max(self.table.sizeHintForIndex(model.index(row, column)).width()
                         for row in rows) + grid
            if wanted > self.table.columnWidth(column):
                self.table.setColumnWidth(column, wanted)

    def _show_budget(self) -> None:
        plan = self.session.plan
        assert plan is not None
        typing = [w for w in (self.epsilon, self.delta) if w.hasFocus() and w.isModified()]
        if self.epsilon not in typing:
            self.epsilon.setValue(plan.budget.epsilon)
        if self.delta not in typing:
            self.delta.setText(f"{plan.budget.delta:g}")
        if not typing:  # the fields show the plan's budget again
            self.budget_error.setText("")
        preset = preset_for(plan.budget)  # the label names the budget, never an old choice
        with QSignalBlocker(self.preset):
            self.preset.setCurrentIndex(HARM_PRESETS.index(preset) + 1 if preset else 0)
        self.preset_reason.setText(preset.reason if preset else "")
        if not (self.reason.hasFocus() and self.reason.isModified()):  # not while typing
            self.reason.setText(plan.justification or "")
            self.reason.setCursorPosition(0)  # a long reason shows from its start
        self.reason.setToolTip(plan.justification or "Why the budget's ε is what it is: "
                               "the review window and the report print it")
        self._show_policy()

    def _show_policy(self) -> None:
        """The policy's limits for this plan's dataset, in words (the core's policy)."""
        from ...core.records.policy import Policy

        policy, plan = self.session.policy, self.session.plan
        shown = policy is not None and plan is not None
        self.policy_label.setVisible(shown)
        self.policy_text.setVisible(shown)
        if not shown or plan is None:
            return
        if not isinstance(policy, Policy):
            self.policy_text.setText(f"<b>The organisation's policy cannot be trusted</b>: "
                                     f"{escape(str(policy))}")
            return
        state = self.session.lifetime()
        parts = []
        limits = [f"{s} = {v:g}" for s, v in (("ε", policy.max_epsilon_per_release),
                                              ("δ", policy.max_delta_per_release))
                  if v is not None]
        if limits:
            parts.append(f"at most {', '.join(limits)} per release")
        cap = policy.cap_for(plan.dataset.name)
        if cap is not None:
            used = f" (in force: ε = {state.cap.epsilon:g})" if state is not None \
                and state.cap.epsilon != cap.epsilon else ""
            parts.append(f"lifetime cap of {plan.dataset.name!r} ε = {cap.epsilon:g}, "
                         f"δ = {cap.delta:g}{used}")
        if policy.require_reasons:
            parts.append("a written reason for every bound, list and this ε")
        text = "; ".join(parts) if parts else "no limit on ε or δ"
        title = policy.title[0].upper() + policy.title[1:]
        self.policy_text.setText(f"{escape(title, quote=False)}: "
                                 f"{escape(text, quote=False)}. Release → Organisation's "
                                 "policy… shows all of it.")
        self.policy_text.setToolTip("\n".join(policy.lines()))

    def refresh(self) -> None:
        plan = self.session.plan
        self.setEnabled(plan is not None)
        header = self.table.horizontalHeaderItem(COL_TARGET)
        if header is not None:  # made with the table
            header.setText(f"Target ± ({confidence_percent(self.session.confidence)})")
        if plan is None:
            self._goal = None
            self._show_goal()
            return
        self._show_budget()
        self._show_goal()
        old_targets: dict[str, str] = {}
        old_weights: dict[str, str] = {}
        old_needs: dict[str, str] = {}
        for row in range(self.table.rowCount()):
            name = self.table.item(row, COL_NAME)
            if name is None:
                continue
            qid = name.data(Qt.ItemDataRole.UserRole)
            for col, store in ((COL_TARGET, old_targets), (COL_WEIGHT, old_weights),
                               (COL_NEEDS, old_needs)):
                item = self.table.item(row, col)
                if item is not None:
                    store[qid] = item.text()
        self._needs_filled = any(old_needs.values())
        with QSignalBlocker(self.table):
            self.table.setRowCount(len(plan.queries))
            for row, q in enumerate(plan.queries):
                acc = self.session.accuracy(q)
                name = QTableWidgetItem(q.title)
                name.setData(Qt.ItemDataRole.UserRole, q.id)
                name.setFlags(name.flags() & ~Qt.ItemFlag.ItemIsEditable)
                now = QTableWidgetItem(self._now_text(q))
                now.setFlags(now.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self.table.setItem(row, COL_NAME, name)
                self.table.setItem(row, COL_NOW, now)
                self.table.setItem(row, COL_WEIGHT, QTableWidgetItem(old_weights.get(q.id, "1")))
                target = QTableWidgetItem(old_targets.get(q.id, ""))
                target.setToolTip("Type the ± you need, in the unit shown under Now: "
                                  + UNIT_WORDS.get(shown_unit(acc), shown_unit(acc)))
                self.table.setItem(row, COL_TARGET, target)
                needs = QTableWidgetItem(old_needs.get(q.id, ""))
                needs.setFlags(needs.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self.table.setItem(row, COL_NEEDS, needs)
        self.table.resizeColumnsToContents()
