"""The privacy officer's review of a plan (no data needed), and the bundle viewer for anyone
who receives a release: the verdict first, then results, parameters, audit trail and report."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QImage, QTextDocument
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ...core.dp.accounting import compose
from ...core.dp.accuracy import accuracy_for
from ...core.dp.measure import measurements_for
from ...core.dp.risk import explain
from ...core.model import Plan, plan_digest
from ...core.planning.readiness import missing_reasons
from ...core.records.audit import AuditLog
from ...core.records.review import approval_status, record_review
from ...core.release.bundle import AUDIT, RECORD, REPORT_HTML, RESULTS, Verdict, read_bundle
from ...core.support.home import AppHome
from ...core.support.words import format_number, relation_words, statistic_words, unit_of
from ..models import KIND_NAMES, format_accuracy
from ..widgets.risk_pane import RiskChart


def _table(headers: list[str], rows: list[list[str]]) -> QTableWidget:
    table = QTableWidget(len(rows), len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    for i, row in enumerate(rows):
        for j, text in enumerate(row):
            item = QTableWidgetItem(text)
            item.setToolTip(text)
            table.setItem(i, j, item)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    return table


def _public_parameters(q) -> str:  # type: ignore[no-untyped-def]
    parts = []
    if q.lower is not None:
        parts.append(f"bounds [{q.lower:g}, {q.upper:g}]")
    if q.categories is not None:
        parts.append(f"{len(q.categories)} categories: {', '.join(map(str, q.categories[:8]))}"
                     + ("…" if len(q.categories) > 8 else ""))
    if q.bins is not None:
        parts.append(f"bins {', '.join(f'{b:g}' for b in q.bins)}")
    if q.group_by is not None:
        parts.append(f"by {q.group_by.column} ({len(q.group_by.keys)} keys)")
    if q.yes is not None:
        parts.append(f"yes = {', '.join(map(str, q.yes))}; no = {', '.join(map(str, q.no))}")
    if q.where:
        parts.append("where " + ", ".join(f"{c.column} {c.op} {c.value}" for c in q.where))
    return "; ".join(parts) or "—"


class ReviewDialog(QDialog):
    """Read-only view of a plan for the privacy officer, with approve / reject."""

    def __init__(self, plan: Plan, path: Path, home: AppHome,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plan = plan
        self.path = path
        self.home = home
        self.setWindowTitle(f"Review {path.name}")
        self.resize(1100, 760)
        layout = QVBoxLayout(self)
        unit = plan.privacy_unit
        who = unit_of(unit)
        ms = [m for q in plan.queries for m in measurements_for(q, plan)]
        total = compose(ms, plan.budget.delta, plan.budget.accountant)
        risk = explain(total.epsilon, total.delta, relation=plan.neighbouring)
        head = QLabel(
            f"<h2>{plan.dataset.name}</h2><p><b>Unit of privacy:</b> {who}. "
            f"<b>Protected:</b> {relation_words(plan.neighbouring)}. <b>Budget:</b> ε = "
            f"{plan.budget.epsilon:g}, δ = {plan.budget.delta:g}. <b>Composed total:</b> "
            f"ε = {total.epsilon:.4g}, δ = {total.delta:.3g} ({total.accountant}).</p>"
            f"<p>{risk.sentence}</p><p><i>Reason for ε:</i> "
            f"{plan.justification or 'none given'}</p><p>Plan SHA-256 {plan_digest(plan)}</p>")
        head.setWordWrap(True)
        layout.addWidget(head)
        rows = []
        for q in plan.queries:
            acc = accuracy_for(q, plan)
            eps = sum(m.epsilon for m in measurements_for(q, plan))
            j = q.justification or {}
            lacking = [what for _, what in missing_reasons(q)]  # the core's reasons rule
            reasons = "; ".join(f"{k}: {v}" for k, v in j.items() if str(v).strip())
            if lacking:
                reasons = "; ".join(filter(None, [reasons, "NO REASON for the "
                                                  + " and ".join(lacking)]))
            rows.append([q.title, statistic_words(q.kind, q.column, KIND_NAMES.get(q.kind, q.kind),
                                                  q.missing.policy == "impute"), q.column or "—",
                         _public_parameters(q), reasons or "none needed",
                         f"{q.epsilon:g}", format_accuracy(acc.half_width, acc.unit, acc.rows),
                         explain(eps, q.delta, relation=plan.neighbouring,
                                 what="it").sentence])
        middle = QHBoxLayout()
        self.statistics = _table(["Statistic", "Kind", "Column", "Public parameters",
                                  "Reasons", "ε", "Accuracy", "Risk"], rows)
        middle.addWidget(self.statistics, 3)
        self.chart = RiskChart()
        self.chart.show_bounds(total.epsilon, 0.5)
        middle.addWidget(self.chart, 2)
        layout.addLayout(middle, 1)
        form = QFormLayout()
        self.reviewer = QLineEdit()
        self.reviewer.setAccessibleName("Reviewer name")
        self.comment = QLineEdit()
        self.comment.setAccessibleName("Review comment")
        form.addRow("Your name", self.reviewer)
        form.addRow("Comment", self.comment)
        layout.addLayout(form)
        buttons = QHBoxLayout()
        self.approve = QPushButton("Approve this plan")
        self.reject_button = QPushButton("Reject")
        self.status = QLabel(approval_status(plan).sentence)
        self.status.setWordWrap(True)
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.reject_button)
        buttons.addWidget(self.approve)
        layout.addLayout(buttons)
        self.approve.clicked.connect(lambda: self.decide("approved"))
        self.reject_button.clicked.connect(lambda: self.decide("rejected"))

    def decide(self, decision: str) -> bool:
        name = self.reviewer.text().strip()
        if not name:
            self.status.setText("Type your name first: the decision records who made it.")
            return False
        self.plan = record_review(self.path, self.plan, name, decision, self.comment.text(),
                                  AuditLog(self.home.ensure().audit_path))
        self.status.setText(approval_status(self.plan).sentence + f" Saved in {self.path.name}.")
        return True


class BundleDialog(QDialog):
    """A received bundle: the verdict, then what is in it."""

    def __init__(self, path: Path, verdict: Verdict, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Release bundle {path.name}")
        self.resize(1000, 720)
        layout = QVBoxLayout(self)
        name = html.escape(path.name)
        if verdict.valid:
            text = (f"<h2 style='color:#1e8449'>✓ Verified</h2><p>{name}: "
                    + "; ".join(html.escape(c) for c in verdict.checks) + ".</p>")
        else:  # problems quote names from the bundle: escaped, never read as markup
            text = (f"<h2 style='color:#c0392b'>✗ NOT valid</h2><p>{name} failed "
                    "verification; do not rely on its numbers.</p><ul>"
                    + "".join(f"<li>{html.escape(p)}</li>" for p in verdict.problems[:12])
                    + "</ul>")
        self.verdict = QLabel(text)
        self.verdict.setWordWrap(True)
        layout.addWidget(self.verdict)
        self.tabs = QTabWidget()
        layout.addWidget(self.tabs, 1)
        files = read_bundle(path)
        for build in (self._results_tab, self._parameters_tab, self._audit_tab,
                      self._report_tab):
            try:  # a crafted part is shown as such; the other tabs still open
                build(files)
            except Exception:
                self.tabs.addTab(QLabel("This part of the bundle cannot be shown."),
                                 build.__name__.strip("_").replace("_tab", "").title())

    def _results_tab(self, files: dict[str, bytes]) -> None:
        rows = list(csv.reader(io.StringIO(files.get(RESULTS, b"").decode("utf-8", "replace"))))
        if rows:
            self.tabs.addTab(_table(rows[0], rows[1:]), "Results")

    def _parameters_tab(self, files: dict[str, bytes]) -> None:
        try:
            record = json.loads(files[RECORD])
            params = [[q["label"], q["kind"], q["mechanism"], format_number(q['sensitivity']),
                       f"{q['epsilon_spent']:.4g}", f"{q['delta']:g}",
                       format_accuracy(q["accuracy"]["half_width"], q["accuracy"]["unit"],
                                       q["accuracy"].get("rows")),
                       q["derivation"]] for q in record["queries"]]
            self.tabs.addTab(_table(["Statistic", "Kind", "Mechanism", "Sensitivity", "ε", "δ",
                                     "Accuracy", "Derivation"], params), "Parameters")
        except (KeyError, ValueError, TypeError):
            pass

    def _audit_tab(self, files: dict[str, bytes]) -> None:
        entries = []
        for line in files.get(AUDIT, b"").decode("utf-8", "replace").splitlines():
            try:
                e = json.loads(line)
                entries.append([str(e.get("time", "")), str(e.get("user", "")),
                                str(e.get("event", "")), str(e.get("hash", ""))[:16] + "…"])
            except (ValueError, AttributeError):
                entries.append(["", "", "(damaged line)", ""])
        self.tabs.addTab(_table(["Time (UTC)", "User", "Event", "Hash"], entries),
                         "Audit trail")

    def _report_tab(self, files: dict[str, bytes]) -> None:
        browser = QTextBrowser()
        page = files.get(REPORT_HTML, b"").decode("utf-8", "replace")
        page = _embedded_images(browser, page)
        browser.setHtml(page or "<p>This bundle has no report.</p>")
        self.tabs.addTab(browser, "Report")


def _embedded_images(browser: QTextBrowser, page: str) -> str:
    """Every embedded PNG of the report (the result charts and the belief chart) becomes a
    resource of the browser's document, which shows no data: URLs; the page, pointing at
    them."""
    import base64

    def resource(match: re.Match[str]) -> str:
        name = f"chart-{match.start()}.png"
        image = QImage.fromData(base64.b64decode(match.group(1)))
        browser.document().addResource(QTextDocument.ResourceType.ImageResource, QUrl(name),
                                       image)
        return f"src='{name}'"

    return re.sub(r"src='data:image/png;base64,([A-Za-z0-9+/=]+)'", resource, page)
