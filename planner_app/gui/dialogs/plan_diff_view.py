"""The officer's view of what changed between an earlier version of a plan and the one under
review: the core's PlanDiff (core/planning/plan_diff.py, the same as `planner-app diff`) as a
readable page, each changed line marked with a sign and a colour, each accuracy change in
words. It decides nothing of its own."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTextBrowser, QVBoxLayout, QWidget

from ...core.planning.plan_diff import ADDED, CHANGED, REMOVED, PlanDiff, StatisticChange
from ...core.support.words import confidence_percent

#: A sign and a background for each kind of change; the sign says it without the colour.
MARKS = {REMOVED: ("−", "removed", "#fde2e1"), ADDED: ("+", "added", "#e3f4e1"),
         CHANGED: ("~", "changed", "#fff4d6")}
PLAN_MARK = ("~", "changed", "#fff4d6")


def _e(text: object) -> str:
    return html.escape(str(text))


def _row(mark: tuple[str, str, str], cells: list[str]) -> str:
    sign, word, colour = mark
    tds = "".join(f"<td>{c}</td>" for c in cells)
    return (f'<tr style="background-color:{colour}"><td><b>{sign}</b> {_e(word)}</td>'
            f"{tds}</tr>")


def _statistic_cells(s: StatisticChange) -> list[str]:
    if s.status == CHANGED:
        what = "<br>".join(_e(f.line) for f in s.fields) or _e(
            "none of its own fields changed; the plan-wide changes above change it")
    elif s.status == ADDED:
        what = _e(f"new statistic, ε {s.new_epsilon:.4g}" if s.new_epsilon is not None
                  else "new statistic")
    else:
        what = _e(f"no longer released (it spent ε {s.old_epsilon:.4g})"
                  if s.old_epsilon is not None else "no longer released")
    return [f"<b>{_e(s.heading)}</b>", what, _e(s.accuracy.words)]


def diff_html(diff: PlanDiff) -> str:
    """The diff as HTML for a QTextBrowser; every text from a plan is escaped."""
    head = (f"<h2>Changes from {_e(diff.old_name)} to {_e(diff.new_name)}</h2>"
            f"<p>Accuracy is the ± at {confidence_percent(diff.confidence)} confidence, as "
            "the review and <tt>planner-app check</tt> compute it for each plan.</p>")
    if diff.identical:
        body = "<p><b>No change:</b> the two plans are the same (approvals aside).</p>"
    else:
        parts = [f"<p><b>{_e(diff.total_line[0].upper() + diff.total_line[1:])}.</b></p>"]
        if diff.plan_fields:
            parts.append("<h3>The plan</h3><table cellpadding='4' cellspacing='0'><tr>"
                         "<th align='left'></th><th align='left'>Field</th>"
                         "<th align='left'>Before</th><th align='left'>After</th></tr>")
            parts += [_row(PLAN_MARK, [_e(f.name), _e(f.old), _e(f.new)])
                      for f in diff.plan_fields]
            parts.append("</table>")
        parts.append("<h3>Statistics</h3>")
        if diff.statistics:
            parts.append("<table cellpadding='4' cellspacing='0'><tr>"
                         "<th align='left'></th><th align='left'>Statistic</th>"
                         "<th align='left'>What changed</th>"
                         "<th align='left'>Accuracy</th></tr>")
            for status in (REMOVED, ADDED, CHANGED):
                parts += [_row(MARKS[status], _statistic_cells(s))
                          for s in diff.of_status(status)]
            parts.append("</table>")
        if diff.unchanged:
            parts.append(f"<p>Unchanged ({len(diff.unchanged)}): "
                         f"{_e(', '.join(diff.unchanged))}.</p>")
        body = "".join(parts)
    approval = (f"<h3>Approval</h3><p>{_e(diff.old_name)}: {_e(diff.old_approval)}<br>"
                f"{_e(diff.new_name)}: {_e(diff.new_approval)}</p>")
    return head + body + approval


class PlanDiffDialog(QDialog):
    """What changed since an earlier version, read-only."""

    def __init__(self, diff: PlanDiff, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.diff = diff
        self.setWindowTitle(f"Changes from {diff.old_name} to {diff.new_name}")
        layout = QVBoxLayout(self)
        summary = ("No change (approvals aside)." if diff.identical else
                   f"{len(diff.of_status(REMOVED))} removed, {len(diff.of_status(ADDED))} "
                   f"added, {len(diff.of_status(CHANGED))} changed, "
                   f"{len(diff.unchanged)} unchanged statistics; "
                   f"{len(diff.plan_fields)} plan-wide changes.")
        self.summary = QLabel(summary)
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.view = QTextBrowser()
        self.view.setAccessibleName("Changes between the two plans")
        self.view.setOpenLinks(False)
        self.view.setHtml(diff_html(diff))
        layout.addWidget(self.view, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
