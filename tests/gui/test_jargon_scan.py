"""Issue 22 §4: no jargon without plain words. The visible texts (labels, buttons, group
titles, tab titles, table cells and headers) of the main window on the demo, the release
wizard's pages and the bundle viewer on the demo bundle hold none of the user test's terms,
except in parentheses after plain words (the glossary and the tooltips explain them)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from .conftest import release_with_wizard

# the user test's list (issue 22): what a data owner or a privacy officer did not understand
TERMS = {
    "Hoeffding": r"\bhoeffding\b", "TVD": r"\btvd\b|\btotal variation\b",
    "marginal": r"\bmarginals?\b", "exponential mechanism": r"\bexponential mechanism\b",
    "L1": r"\bl1\b", "σ": r"σ", "e^ε": r"e\^ε|eᵋ|e\^\(ε\)", "2δ": r"2\s?δ|2\s?×\s?δ",
    "accountant": r"\b(pld|zcdp)\b[^.;()]{0,12}\baccountant\b|\baccountant\b",
    "add-remove": r"add-remove", "replace-one": r"replace-one",
    "local model": r"\blocal model\b", "formula-escaped": r"formula-escaped",
}


def jargon(text: str) -> list[str]:
    """The terms ``text`` shows outside parentheses that follow plain words."""
    plain = re.sub(r"<[^>]+>", " ", text)
    while True:  # a term explained in brackets after plain words is fine: drop the brackets
        shorter = re.sub(r"(?<=\w|[.,'’%])\s*\([^()]*\)", "", plain)
        if shorter == plain:
            break
        plain = shorter
    return [name for name, pattern in TERMS.items()
            if re.search(pattern, plain, re.IGNORECASE)]


def visible_texts(root: Any) -> list[tuple[str, str]]:
    """(where, text) of everything ``root`` shows as text in view (not its tooltips)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import (
        QAbstractButton,
        QAbstractItemView,
        QGroupBox,
        QHeaderView,
        QLabel,
        QTabBar,
        QWidget,
    )

    out: list[tuple[str, str]] = []
    for w in [root, *root.findChildren(QWidget)]:
        if not w.isVisibleTo(root) and w is not root:
            continue
        name = f"{type(w).__name__} {w.objectName() or w.accessibleName()}"
        if isinstance(w, QLabel | QAbstractButton):
            out.append((name, w.text()))
        elif isinstance(w, QGroupBox):
            out.append((name, w.title()))
        elif isinstance(w, QTabBar):
            out += [(name, w.tabText(i)) for i in range(w.count())]
        elif isinstance(w, QAbstractItemView) and not isinstance(w, QHeaderView) \
                and w.model() is not None:
            model = w.model()
            for orientation, count in ((Qt.Orientation.Horizontal, model.columnCount()),
                                       (Qt.Orientation.Vertical, 0)):
                out += [(name, str(model.headerData(i, orientation) or ""))
                        for i in range(count)]
            for r in range(min(model.rowCount(), 200)):
                for c in range(model.columnCount()):
                    value = model.data(model.index(r, c))
                    if value is not None:
                        out.append((f"{name} cell {r},{c}", str(value)))
    return out


def _found(root: Any) -> list[tuple[str, list[str], str]]:
    return [(where, jargon(text), text[:160]) for where, text in visible_texts(root)
            if jargon(text)]


def test_the_scan_finds_the_terms_and_passes_explained_ones() -> None:
    assert jargon("Hoeffding bound on the share") == ["Hoeffding"]
    assert jargon("σ = 3") == ["σ"]
    assert jargon("a bound that holds whatever the data (Hoeffding)") == []
    assert jargon("noise scale (σ) = 3") == []
    assert jargon("(add-remove)") == ["add-remove"]  # brackets alone explain nothing


def test_the_main_window_on_the_demo_speaks_plainly(  # type: ignore[no-untyped-def]
        demo, qtbot, tmp_path: Path) -> None:
    from .test_review_parameters import every_kind_plan

    # the demo plan with a synthetic table: every kind's pane, each statistic selected
    assert demo.files.open_plan(every_kind_plan(tmp_path), confirmed=True)
    found = []
    for tab in range(demo.tabs.count()):  # each pane in view in turn
        demo.tabs.setCurrentIndex(tab)
        qtbot.wait(30)
        found += [(f"tab {tab}: {where}", terms, text) for where, terms, text in _found(demo)]
    demo.tabs.setCurrentWidget(demo.statistic_pane)
    for q in demo.session.plan.queries:
        demo.session.select(q.id)
        qtbot.wait(30)
        found += [(f"{q.id}: {where}", terms, text) for where, terms, text in _found(demo)]
    assert found == [], "\n".join(map(str, found))


@pytest.fixture
def released(demo, qtbot, tmp_path: Path):  # type: ignore[no-untyped-def]
    return release_with_wizard(demo, qtbot, tmp_path / "demo.zip"), tmp_path / "demo.zip"


def test_the_wizard_and_the_viewer_speak_plainly(demo, qtbot, released) -> None:  # type: ignore[no-untyped-def]
    wizard, bundle = released
    found = _found(wizard)
    for page_id in wizard.pageIds():
        found += _found(wizard.page(page_id))
    wizard.close()
    demo.files.open_path(bundle)
    viewer = demo.launchers.bundle_dialog
    qtbot.addWidget(viewer)
    qtbot.waitUntil(lambda: viewer.opened is not None, timeout=60_000)
    for i in range(viewer.tabs.count()):
        viewer.tabs.setCurrentIndex(i)
        found += _found(viewer)
    assert found == [], "\n".join(map(str, found))


def test_the_viewer_of_a_synthetic_bundle_speaks_plainly(  # type: ignore[no-untyped-def]
        window, qtbot, tmp_path: Path) -> None:
    from planner_app.core.data.tables import load_table
    from planner_app.core.planfile import load_plan
    from planner_app.core.release.publish import publish
    from planner_app.core.support.home import app_home
    from planner_app.core.support.resources import demo_table_path

    from .test_review_parameters import every_kind_plan

    bundle = tmp_path / "synthetic.zip"
    publish(load_plan(every_kind_plan(tmp_path)), load_table(demo_table_path()), bundle,
            app_home(tmp_path / "home"))
    window.files.open_path(bundle)
    viewer = window.launchers.bundle_dialog
    qtbot.addWidget(viewer)
    qtbot.waitUntil(lambda: viewer.opened is not None, timeout=120_000)
    assert "Verified" in viewer.verdict.text()
    found = []
    for i in range(viewer.tabs.count()):
        viewer.tabs.setCurrentIndex(i)
        found += _found(viewer)
    assert found == [], "\n".join(map(str, found))
