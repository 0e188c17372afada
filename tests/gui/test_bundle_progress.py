"""Issue 22 §4: verifying a bundle in the viewer shows a progress bar and the check that is
running (the core's progress(fraction, message), delivered through the worker's signal),
not "Verifying…" over an empty pane."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner_app.core.planfile import load_plan
from planner_app.core.release.opened_bundle import open_bundle
from planner_app.core.support.resources import demo_plan_path


@pytest.fixture
def bundle(demo_bundle: Path) -> Path:
    """The demo release, built once for the session (tests/conftest.py)."""
    return demo_bundle


def test_the_core_says_which_check_runs_with_increasing_fractions(bundle: Path) -> None:
    steps: list[tuple[float, str]] = []
    opened = open_bundle(bundle, (), lambda f, m: steps.append((f, m)))
    assert opened.verdict.valid
    fractions = [f for f, _ in steps]
    assert fractions == sorted(fractions) and 0 <= fractions[0] and fractions[-1] <= 1
    n = len(load_plan(demo_plan_path()).queries)
    messages = [m for _, m in steps]
    for expected in ("Checking the signature…", f"Checking the results of statistic 3 of {n}…",
                     "Checking the audit trail…",
                     "Building report.pdf again from release.json to compare it…"):
        assert expected in messages, messages


def test_the_viewer_shows_a_progress_bar_and_the_running_check(  # type: ignore[no-untyped-def]
        window, qtbot, bundle: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from planner_app.gui.workers import Worker

    # every step delivered (the worker keeps at most one a 50 ms; a fast machine would see
    # only the first and the last)
    monkeypatch.setattr(Worker, "THROTTLE_S", 0.0)
    window.files.open_path(bundle)
    viewer = window.launchers.bundle_dialog
    qtbot.addWidget(viewer)
    seen: list[tuple[float, str, bool, bool, int]] = []
    worker = viewer.workers.current
    assert worker is not None

    def record(fraction: float, message: str) -> None:  # after the dialog's own slot
        seen.append((fraction, message, viewer.progress.isVisible(), viewer.tabs.isVisible(),
                     viewer.progress.value()))

    worker.signals.progress.connect(record)
    assert viewer.progress.isVisible() and not viewer.tabs.isVisible()
    qtbot.waitUntil(lambda: viewer.opened is not None, timeout=60_000)
    assert len(seen) >= 3, seen
    fractions = [s[0] for s in seen]
    assert fractions == sorted(fractions) and fractions[-1] > fractions[0]
    assert len({s[1] for s in seen}) >= 3
    # while running: the bar in view at the fraction the core gave, the running check named
    assert all(bar and not tabs for _, _, bar, tabs, _ in seen)
    assert all(value == round(f * 1000) for f, _, _, _, value in seen)
    assert viewer.step.text() == seen[-1][1] or viewer.opened is not None
    # done: the verdict and the tabs replace the bar
    assert "Verified" in viewer.verdict.text()
    assert not viewer.progress.isVisible() and viewer.tabs.isVisible()
