"""The budget meter: the composed total against this release's budget and against what is
left of the dataset's lifetime budget, naming the accountant. Always visible."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from ..session import Session

OK_STYLE = ""
OVER_STYLE = "QProgressBar::chunk { background-color: #c0392b; }"


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
        self.text.setWordWrap(False)
        self.text.setMinimumHeight(self.text.fontMetrics().lineSpacing() * 2 + 6)
        layout.addWidget(self.bar)
        layout.addWidget(self.text, 1)
        self.over = False
        session.planChanged.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        plan = self.session.plan
        if plan is None:
            self.bar.setValue(0)
            self.bar.setFormat("no plan")
            self.text.setText("Open a table or a plan to see the privacy budget.")
            return
        total = self.session.total()
        budget = plan.budget.epsilon
        fraction = total.epsilon / budget if budget > 0 else 0.0
        self.over = total.epsilon > budget * (1 + 1e-12) or total.delta > plan.budget.delta
        self.bar.setValue(int(min(1.0, fraction) * 1000))
        self.bar.setFormat(f"ε {total.epsilon:.3g} of {budget:g}")
        self.bar.setStyleSheet(OVER_STYLE if self.over else OK_STYLE)
        parts = [f"This release: ε = {total.epsilon:.4g}, δ = {total.delta:.2g} "
                 f"({total.accountant} accountant) of ε = {budget:g}, δ = "
                 f"{plan.budget.delta:g}."]
        if self.over:
            parts.append("<b>Over budget</b>: lower some ε or raise the budget.")
        parts.append("<br>")
        state = self.session.lifetime()
        if state is None:
            parts.append("Dataset lifetime: the ledger cannot be read.")
        else:
            left = state.remaining_epsilon
            cap = state.cap
            after = left - total.epsilon
            default = " (default cap)" if cap.is_default else ""
            parts.append(f"Lifetime of dataset {plan.dataset.name!r}: ε = {left:.3g} of "
                         f"{cap.epsilon:g}"
                         f"{default} left; about {max(0.0, after):.3g} after this release"
                         + (" — <b>not enough</b>." if after < 0 else "."))
        self.text.setText(" ".join(parts))
        self.setToolTip("The composed total uses the tightest valid accountant; the lifetime "
                        "budget is what the ledger on this computer has recorded for the "
                        "dataset.")
