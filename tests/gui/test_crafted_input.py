"""Crafted bundles and plans reach the user as a dialog or a "NOT valid" verdict, never as an
unhandled exception (issue 10 §8, "The GUI never dies on input")."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from planner_app.core.support.resources import demo_plan_path
from tests.corpus.crafted import CRAFTS, reseal, rezip, unzip

SOME = ["confidence-text", "queries-object", "total-list", "results-null",
        "audit-params-list", "encrypted-flag", "prepended-bytes", "extra-sealed-file"]


@pytest.fixture
def good_bundle(demo_bundle: Path) -> bytes:
    """The demo release's bytes (built once for the session, tests/conftest.py)."""
    return demo_bundle.read_bytes()


def _no_unhandled_exception(monkeypatch: pytest.MonkeyPatch) -> list[BaseException]:
    seen: list[BaseException] = []
    monkeypatch.setattr(sys, "excepthook", lambda t, e, tb: seen.append(e))
    return seen


@pytest.mark.parametrize("recipe", SOME)
def test_a_crafted_bundle_gets_a_verdict_or_a_dialog(window, qtbot, dialogs, good_bundle: bytes,  # type: ignore[no-untyped-def]
                                                     tmp_path: Path, recipe: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _no_unhandled_exception(monkeypatch)
    path = tmp_path / f"{recipe}.zip"
    path.write_bytes(CRAFTS[recipe](good_bundle))
    window.files.open_path(path)
    qtbot.waitUntil(lambda: window.launchers.bundle_dialog.opened is not None
                    or bool(dialogs.shown), timeout=30_000)  # verified in the worker
    assert not seen
    shown = window.launchers.bundle_dialog
    assert (shown is not None and "NOT valid" in shown.verdict.text()) or dialogs.shown


def test_a_record_whose_fields_are_all_wrong_still_opens(window, qtbot, dialogs, good_bundle: bytes,  # type: ignore[no-untyped-def]
                                                         tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The viewer shows every tab it can; a part that cannot be shown says so."""
    seen = _no_unhandled_exception(monkeypatch)
    files = unzip(good_bundle)
    record = json.loads(files["release.json"])
    record["queries"] = [{"label": {"a": 1}, "kind": [], "accuracy": None}]
    files["release.json"] = json.dumps(record).encode()
    files["results.csv"] = b"\xff\xfe<b>not csv</b>"
    files["audit.jsonl"] = b'[1, 2]\n"text"\n'
    path = tmp_path / "<b>wrong.zip"
    path.write_bytes(rezip(reseal_safe(files)))
    window.files.open_path(path)
    qtbot.waitUntil(lambda: window.launchers.bundle_dialog.opened is not None, timeout=30_000)
    assert not seen
    assert "NOT valid" in window.launchers.bundle_dialog.verdict.text()
    assert "<b>wrong" not in window.launchers.bundle_dialog.verdict.text()  # escaped, not markup


def reseal_safe(files: dict[str, bytes]) -> dict[str, bytes]:
    try:
        return reseal(files)
    except (ValueError, AttributeError):  # an audit log too broken to reseal: keep it
        return files


def test_a_plan_with_a_401_digit_row_count_gets_a_dialog(window, dialogs, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _no_unhandled_exception(monkeypatch)
    doc = json.loads(demo_plan_path().read_text())
    doc["dataset"]["expected_rows"] = 7777
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(doc).replace("7777", "1" + "0" * 400))
    window.files.open_path(path)
    assert not seen
    assert dialogs.shown and "expected_rows" in dialogs.shown[-1][2]
