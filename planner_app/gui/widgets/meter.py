"""The budget meter: the composed total against this release's budget and against what is
left of the dataset's lifetime budget, naming the accountant. Always visible."""

from __future__ import annotations

from html import escape

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from ...core.planning.changes import OpChanges
from ..session import Session

# the text sits centred over the fill: a light fill keeps dark text readable on both parts
# (the platform's blue fill hid half of "ε 0.497 of 1")
OK_STYLE = ("QProgressBar { text-align: center; color: black; border: 1px solid #7f8c8d; "
            "border-radius: 3px; } QProgressBar::chunk { background-color: #aed6f1; }")
# over budget the bar is full: white, centred text on red (a style sheet on the chunk alone
# left the text dark and at the top left, where the style sheet's defaults put it)
OVER_STYLE = ("QProgressBar { text-align: center; color: white; font-weight: bold; "
              "border: 1px solid #922b21; border-radius: 3px; } "
              "QProgressBar::chunk { background-color: #c0392b; }")


class BudgetMeter(QWidget):
    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 8, 2)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(True)
        self.bar.setMinimumWidth(170)
        self.bar.setMaximumWidth(260)
        self.bar.setAccessibleName("Share of this release's privacy budget used")
        self.text = QLabel()
        self.text.setWordWrap(True)  # the over-budget advice wraps, never holds the window wide
        self.text.setMinimumHeight(self.text.fontMetrics().lineSpacing() * 2 + 6)
        layout.addWidget(self.bar)
        layout.addWidget(self.text, 1)
        self.over = False  # over this release's budget
        self.blocked = False  # over it, or the lifetime cap (or the ledger) cannot cover it
        session.changed.connect(self._changed)  # always shown: no need to wait for a show
        self.refresh()

    def _changed(self, changes: OpChanges) -> None:
        if changes.totals:
            self.refresh()

    def refresh(self) -> None:
        plan = self.session.plan
        if plan is None:
            self.bar.setValue(0)
            self.bar.setFormat("no plan")
            self.over = self.blocked = False
            self.bar.setStyleSheet(OK_STYLE)
            self.text.setText("Open a table or a plan to see the privacy budget.")
            return
        total = self.session.total()
        budget = plan.budget.epsilon
        fraction = total.epsilon / budget if budget > 0 else 0.0
        rules = self.session.release_rules()  # the core's release rules decide, not the meter
        budget_rule = rules.get("budget")
        self.over = budget_rule is not None and budget_rule.failed
        self.bar.setValue(int(min(1.0, fraction) * 1000))
        self.bar.setFormat(f"ε {total.epsilon:.3g} of {budget:g}")
        parts = [f"This release: ε = {total.epsilon:.4g}, δ = {total.delta:.2g} "
                 f"({total.accountant} accountant) of ε = {budget:g}, δ = "
                 f"{plan.budget.delta:g}."]
        if self.over and budget_rule is not None:
            parts.append(f"<b>Over budget</b>: {escape(budget_rule.action)}")
        parts.append("<br>")
        lifetime = rules.get("lifetime") or rules.get("ledger")
        # red whenever the release cannot go ahead for its ε (it stayed blue when the lifetime
        # cap could not cover it)
        self.blocked = self.over or (lifetime is not None and lifetime.failed)
        self.bar.setStyleSheet(OVER_STYLE if self.blocked else OK_STYLE)
        if lifetime is not None:
            text = escape(lifetime.message)
            parts.append(f"<b>{text}</b>" if lifetime.failed else text)
            parts.append(escape(self.session.charged_to(short=True)))
        refused = [r for r in rules.failures if r.rule.startswith("policy")]
        if refused:  # the organisation's policy (core/planning/policy_rules.py)
            parts.append(f"<b>Refused by the policy</b>: {escape(refused[0].message)}")
        self.text.setText(" ".join(parts))
        self.setToolTip("The composed total uses the tightest valid accountant; the lifetime "
                        "budget is what the budget ledger has recorded for the dataset. "
                        + self.session.charged_to())
