"""The session is the only thing that changes the app's state: views (panes, dialogs, models,
the window) read it through properties and change it through Session's methods. They never
reach into its document, assign its attributes, build plan edits themselves or use the
escape hatch ``apply`` (issue 11)."""

from __future__ import annotations

import ast
from pathlib import Path

import planner_app.gui as gui

GUI = Path(gui.__file__).parent
WINDOW = ("models.py", "main_window.py", "app.py")
VIEWS = sorted([*GUI.glob("widgets/*.py"), *GUI.glob("dialogs/*.py"), *GUI.glob("controllers/*.py"),
                *(GUI / name for name in WINDOW if (GUI / name).exists())])


def _is_session(node: ast.AST) -> bool:
    """`session` or `self.session` / `x.session`."""
    return (isinstance(node, ast.Name) and node.id == "session") or (
        isinstance(node, ast.Attribute) and node.attr == "session")


def violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        where = f"{path.relative_to(GUI)}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Attribute) and _is_session(node.value):
            if node.attr in ("doc", "_doc", "apply") or node.attr.startswith("_"):
                out.append(f"{where}: session.{node.attr}")
            # session.held.add(...) / session.column_types[...] = ...
        if isinstance(node, ast.Attribute) and node.attr in ("add", "discard", "clear") and \
                isinstance(node.value, ast.Attribute) and _is_session(node.value.value):
            out.append(f"{where}: session.{node.value.attr}.{node.attr}")
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
        for t in targets:
            if isinstance(t, ast.Attribute) and _is_session(t.value):
                out.append(f"{where}: assigns session.{t.attr}")
            # session.settings.x = ... (settings change through Session's methods too)
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Attribute) and \
                    t.value.attr == "settings" and _is_session(t.value.value):
                out.append(f"{where}: assigns session.settings.{t.attr}")
        # session.settings.add_recent(...) / any other method called on the settings object
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Attribute) and \
                node.func.value.attr == "settings" and _is_session(node.func.value.value):
            out.append(f"{where}: session.settings.{node.func.attr}()")
        # the settings object handed to a writer: s = session.settings; s.x = ...
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "save_settings":
            out.append(f"{where}: writes the settings itself")
        # a plan edit built in a view: replace(plan, ...) / replace(session.plan, ...)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") in (
                "replace", "with_budget") and node.args:
            first = node.args[0]
            if (isinstance(first, ast.Name) and first.id == "plan") or (
                    isinstance(first, ast.Attribute) and first.attr in ("plan", "dataset",
                                                                        "budget")):
                out.append(f"{where}: builds a plan edit with {node.func.id}()")
    return out


def test_views_change_state_only_through_the_session() -> None:
    assert len(VIEWS) >= 12
    found = [v for path in VIEWS for v in violations(path)]
    assert not found, "\n".join(found)
