"""Run by test_forms_hold_still.py in a process at $QT_SCALE_FACTOR (1 or 2): the statistic
editor's fields and OK, where they are before and after each hint, warning or refusal that
typing brings, and whether the editor fits a 950-pixel-high screen at this scale, as one JSON
line on stdout. With a second argument, screenshots of each kind of statistic go there
(editor-<kind>-<scale>x.png).

    QT_SCALE_FACTOR=2 python tests/gui/editor_still.py FOLDER [SHOTS]
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication, QDialog, QDialogButtonBox, QWidget  # noqa: E402

from planner_app.core.support.resources import demo_plan_path, demo_table_path  # noqa: E402
from planner_app.gui.app import build_window  # noqa: E402
from planner_app.gui.dialogs.query_dialog import QueryDialog  # noqa: E402

SCREEN_HEIGHT = 950  # device pixels, the user test's screen


def settle(app: QApplication) -> None:
    for _ in range(3):  # wrapped labels ask twice
        app.processEvents()


def where(dialog: QueryDialog) -> dict[str, int]:
    """The top of OK and of each field that could move, in the dialog's own pixels."""
    buttons = dialog.findChild(QDialogButtonBox)
    ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
    widgets: dict[str, QWidget] = {
        "ok": ok, "no values": dialog.no_values, "why this list": dialog.list_reason,
        "declare": dialog.declare, "quantile": dialog.quantile,
        "group column": dialog.group_column, "group keys": dialog.group_keys,
        "noise": dialog.mechanism, "epsilon": dialog.epsilon, "missing": dialog.missing}
    return {name: w.mapTo(dialog, w.rect().topLeft()).y() for name, w in widgets.items()
            if w.isVisibleTo(dialog)}


def typing_moves(app: QApplication, dialog: QueryDialog, steps: list[tuple[QWidget, str]]
                 ) -> list[dict[str, Any]]:
    """Type each step (``""`` clears the field) and report any field that moved."""
    moved = []
    before = where(dialog)
    for widget, text in steps:
        widget.setFocus()
        if text:
            for at, line in enumerate(text.split("\n")):
                if at:
                    QTest.keyClick(widget, Qt.Key.Key_Return)
                QTest.keyClicks(widget, line)
        else:
            widget.clear()  # type: ignore[attr-defined]
        settle(app)
        after = where(dialog)
        changed = {k: (before.get(k), after.get(k)) for k in before.keys() | after.keys()
                   if before.get(k) != after.get(k)}
        if changed:
            moved.append({"typed": text, "into": widget.accessibleName(), "moved": changed})
        before = after
    return moved


def main() -> None:
    app = QApplication([])
    folder = Path(sys.argv[1])
    shots = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    scale = float(os.environ.get("QT_SCALE_FACTOR", "1"))
    window = build_window(str(folder / "home"))
    window.resize(1280, 820)
    window.show()
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(demo_plan_path(), confirmed=True)
    session = window.session
    answer: dict[str, Any] = {"moved": {}}

    def editor(ident: str | None = None, kind: str | None = None) -> QueryDialog:
        dialog = QueryDialog(session, session.plan.query(ident) if ident else None)
        if kind:
            dialog.kind.setCurrentIndex(dialog.kind.findData(kind))
        dialog.show()
        settle(app)
        return dialog

    # a share of yes: the yes / no hint comes and goes as the lists are typed
    d = editor("smokers")
    answer["moved"]["yes/no lists"] = typing_moves(app, d, [
        (d.yes_values, ""), (d.no_values, ""), (d.yes_values, "yes"), (d.no_values, "no"),
        (d.no_values, "\nmaybe"), (d.yes_values, ""), (d.no_values, "")])
    d.done(QDialog.DialogCode.Rejected)  # unasked (a changed form asks on close)
    # a group-by: choosing the column, then typing the keys
    d = editor(kind="mean")
    d.column.setCurrentText("age")
    d.lower.setText("16")
    d.upper.setText("110")
    settle(app)
    before = where(d)
    d.group_column.setCurrentText("region")
    settle(app)
    after = where(d)
    answer["moved"]["group column chosen"] = [
        {k: (before[k], after[k]) for k in ("group keys", "noise", "ok") if before[k] != after[k]}]
    answer["moved"]["group keys"] = typing_moves(app, d, [
        (d.group_keys, "North\nSouth\nEast\nWest"), (d.group_keys, ""),
        (d.list_reason, "The official list of regions")])
    # an invalid number: warnings and the red message appear; OK stays
    answer["moved"]["bad numbers"] = typing_moves(app, d, [
        (d.lower, "abc"), (d.upper, ""), (d.upper, "5")])
    before = where(d)
    d.checks.accept()  # refused (lower "16abc"...): the red message shows
    settle(app)
    answer["refused"] = d.error.text()
    after = where(d)
    answer["moved"]["refusal"] = [{k: (before[k], after[k]) for k in before
                                   if before[k] != after[k]}]
    d.done(QDialog.DialogCode.Rejected)  # unasked (a changed form asks on close)
    # the largest form in a 950-pixel-high screen at this scale (OK in view, fields scroll)
    d = editor("satisfaction_by_region")
    d.resize(d.width(), int(SCREEN_HEIGHT / scale) - 40)
    settle(app)
    ok = d.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
    bottom = ok.mapTo(d, ok.rect().bottomLeft()).y()
    answer["fits"] = {"height": d.height(), "ok bottom": bottom,
                      "minimum": d.minimumSizeHint().height(),
                      "ok shown": ok.isVisible() and bottom <= d.height(),
                      "scrolls": hasattr(d, "field_scroll")
                      and d.field_scroll.verticalScrollBar().maximum() > 0}
    d.done(QDialog.DialogCode.Rejected)  # unasked (a changed form asks on close)
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
        tag = f"{scale:g}x"
        for name, ident, kind in (("count", "responses", None), ("mean", "hours_mean", None),
                                  ("histogram", "region_counts", None),
                                  ("bins", "age_bands", None),
                                  ("quantile", "income_median", None),
                                  ("group-by", "satisfaction_by_region", None),
                                  ("yes-no", "smokers", None), ("synthetic", None, "synthetic"),
                                  ("standard-deviation", None, "standard_deviation")):
            d = editor(ident, kind)
            if name == "standard-deviation":
                d.label.setText("Spread of age")
                d.column.setCurrentText("age")
                d.lower.setText("16")
                d.upper.setText("100")
                d.bounds_reason.setText("Respondents are 16 or older; 100 is a public cap")
            if name == "quantile":
                d.quantile.selectAll()
                QTest.keyClicks(d.quantile, "1.5")
                d.checks.accept()
            if name == "yes-no":
                d.yes_values.setPlainText("yes")
                d.no_values.clear()
            settle(app)
            d.grab().save(str(shots / f"editor-{name}-{tag}.png"))
            d.done(QDialog.DialogCode.Rejected)  # unasked (a changed form asks on close)
    window.close()
    print(json.dumps(answer))


if __name__ == "__main__":
    main()
