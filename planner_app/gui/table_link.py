"""The table and the plan belong together. Opening a table while a plan is open asks whether
to start a new plan or attach the open one; a saved plan's table is found next to it, or the
owner is told it is missing and may locate it; and every way the plan does not fit the table
is shown. The rule itself is the core's (``core.fit.plan_problems``); this module only asks
and shows."""

from __future__ import annotations

import html
import os
from pathlib import Path

from PySide6.QtWidgets import QMessageBox, QWidget

from ..core.model import Plan
from ..core.support.errors import InputError
from ..core.support.field_words import field_name, on_screen

NEW, ATTACH = "new", "attach"


def new_or_attach_box(parent: QWidget | None, table_name: str, plan: Plan) -> QMessageBox:
    """The question asked when a table is opened while a plan is open."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("A plan is open")
    box.setText(f"Start a new plan for <b>{html.escape(table_name)}</b>, or use the open plan "
                f"(<b>{html.escape(plan.dataset.name)}</b>) with it?")
    box.setInformativeText("A plan describes one table: its columns, its person id column and "
                           "its budget. If you use the open plan, it is checked against the new "
                           "table and every column that does not fit is named.")
    new = box.addButton("Start a new plan", QMessageBox.ButtonRole.AcceptRole)
    box.addButton("Use the open plan", QMessageBox.ButtonRole.ActionRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(new)
    return box


def ask_new_or_attach(parent: QWidget | None, table_name: str, plan: Plan) -> str | None:
    """NEW, ATTACH, or None when the owner cancels (the table is then not opened)."""
    box = new_or_attach_box(parent, table_name, plan)
    box.exec()
    role = box.buttonRole(box.clickedButton())
    return {QMessageBox.ButtonRole.AcceptRole: NEW,
            QMessageBox.ButtonRole.ActionRole: ATTACH}.get(role)


def table_path_text(table_path: Path, plan_path: Path | None) -> str:
    """What the plan records as its table: a path relative to the plan file when the table
    is in its folder or below, else the file name (a plan never holds an absolute path)."""
    if plan_path is not None:
        try:
            rel = Path(os.path.relpath(table_path.resolve(), plan_path.resolve().parent))
        except ValueError:  # another drive
            return table_path.name
        if not rel.parts or rel.parts[0] != "..":
            return rel.as_posix()
    return table_path.name


def plans_table(plan: Plan, plan_path: Path) -> Path | None:
    """Where a saved plan says its table is (relative to the plan file), if it says."""
    if not plan.dataset.path:
        return None
    return plan_path.parent / plan.dataset.path


def problem_line(problem: InputError, table_name: str) -> str:
    """One problem in a list about one table: what is wrong, then the plan field it names."""
    text = on_screen(problem.problem.replace(f" in {table_name}", ""))
    return f"{text} ({field_name(problem.where)})" if problem.where else text


def problems_text(table_name: str, problems: list[InputError], limit: int = 12) -> str:
    lines = [f"The plan does not fit {table_name}:"]
    lines += [f"• {problem_line(p, table_name)}" for p in problems[:limit]]
    if len(problems) > limit:
        lines.append(f"• … and {len(problems) - limit} more")
    lines.append("")
    lines.append("Edit the plan (or open its own table) before releasing: the release refuses "
                 "a plan that does not fit, before anything is charged.")
    return "\n".join(lines)
