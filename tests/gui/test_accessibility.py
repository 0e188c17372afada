"""The first hour: every control explains itself (tooltip, accessible name or visible text),
keyboard focus reaches every pane, and the app reads on a dark palette."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QHeaderView,
    QLineEdit,
    QPlainTextEdit,
    QSlider,
    QWidget,
)

from planner_app.gui.dialogs.query_dialog import QueryDialog
from tests.gui.conftest import SHOTS

CONTROLS = (QAbstractButton, QComboBox, QAbstractSpinBox, QLineEdit, QSlider, QAbstractItemView,
            QPlainTextEdit)


def ours(widget: QWidget) -> bool:
    """Leave out Qt's own sub-widgets (corner buttons, spin-box editors, headers, pop-ups)."""
    if widget.objectName().startswith("qt_") or isinstance(widget, QHeaderView):
        return False
    parent = widget.parent()
    return not (parent is not None and (isinstance(parent, QComboBox) or type(
        parent).__name__ in ("QFrame", "QComboBoxPrivateContainer")))


def unexplained(root: QWidget) -> list[str]:
    out = []
    for cls in CONTROLS:
        for w in root.findChildren(cls):
            if not ours(w):
                continue
            text = w.text() if isinstance(w, QAbstractButton) else ""
            if not (w.toolTip() or w.accessibleName() or text):
                out.append(f"{type(w).__name__} in {type(w.parent()).__name__}")
    return out


def test_every_control_explains_itself(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    assert unexplained(demo) == []
    dialog = QueryDialog(demo.session)
    qtbot.addWidget(dialog)
    assert unexplained(dialog) == []


def test_keyboard_focus_reaches_every_pane(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    for i in range(demo.tabs.count()):
        demo.show_tab(i)
        pane = demo.tabs.widget(i)
        focusable = [w for w in pane.findChildren(QWidget)
                     if isinstance(w, CONTROLS) and ours(w) and w.isEnabled()
                     and w.focusPolicy() & Qt.FocusPolicy.TabFocus]
        assert focusable, f"no keyboard-focusable control in {demo.tabs.tabText(i)}"
    shortcuts = {a.shortcut().toString() for a in demo.findChildren(type(demo.menus.undo_action))}
    assert {"Ctrl+1", "Ctrl+2", "Ctrl+3", "Ctrl+4", "Ctrl+Z", "Ctrl+S", "Ctrl+O"} <= shortcuts


def test_the_app_follows_a_dark_palette(demo) -> None:  # type: ignore[no-untyped-def]
    """No pane forces light colours: under a dark palette its background is dark."""
    app = QApplication.instance()
    old_palette, old_style = app.palette(), app.style().name()
    dark = QPalette()
    for role, colour in ((QPalette.ColorRole.Window, "#2b2b2b"),
                         (QPalette.ColorRole.WindowText, "#e0e0e0"),
                         (QPalette.ColorRole.Base, "#1e1e1e"), (QPalette.ColorRole.Text, "#e0e0e0"),
                         (QPalette.ColorRole.Button, "#3a3a3a"),
                         (QPalette.ColorRole.ButtonText, "#e0e0e0")):
        dark.setColor(role, QColor(colour))
    app.setStyle("Fusion")
    app.setPalette(dark)
    try:
        for i, name in enumerate(("data", "statistic", "budget")):
            demo.show_tab(i)
            app.processEvents()
            image = demo.grab().toImage()
            pane = demo.tabs.widget(i)
            corner = pane.mapTo(demo, pane.rect().bottomRight())
            colour = image.pixelColor(corner.x() - 6, corner.y() - 6)
            assert colour.lightness() < 110, (name, colour.name())
            SHOTS.mkdir(parents=True, exist_ok=True)
            image.save(str(SHOTS / f"40-dark-{name}.png"))
    finally:
        app.setPalette(old_palette)
        app.setStyle(old_style)
