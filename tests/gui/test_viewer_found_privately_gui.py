"""The app's bundle viewer gives the verdict ``planner-app verify`` gives (disc25c) on the
same bundles: a release whose list was found privately is verified, with the core's
"not checked" line (the app's words: no command-line flag); its discovery bundle checks it;
a list that differs from the discovery's output turns the verdict to NOT valid, as verify's
exit 1; a discovery bundle the plan does not name is refused, as verify's exit 2."""

from __future__ import annotations

from pathlib import Path

from planner_app.cli import main


def _viewer(window, qtbot, bundle: Path):  # type: ignore[no-untyped-def]
    dialog = window.launchers.review_bundle(bundle)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.opened is not None, timeout=60_000)
    return dialog


def test_the_viewer_and_verify_give_one_verdict(  # type: ignore[no-untyped-def]
        window, qtbot, found_privately, capsys) -> None:
    b = found_privately  # made once per test process (tests/conftest.py)
    dialog = _viewer(window, qtbot, b.main)
    row = dialog.discoveries
    assert "✓ Verified" in dialog.verdict.text()
    text = row.line.text()
    assert row.isVisibleTo(dialog) and "not checked" in text and b.release in text, text
    assert "Check its discoveries" in text and "--discovery" not in text
    assert main(["verify", str(b.main)]) == 0  # the command line: valid too
    assert "not checked" in capsys.readouterr().out
    # a discovery bundle not named: refused, the verdict unchanged
    assert row.add(b.employment) is False and "not needed" in row.line.text()
    assert "--discovery" not in row.line.text() and "✓ Verified" in dialog.verdict.text()
    assert main(["verify", str(b.main), "--discovery", str(b.employment)]) == 2
    assert row.add(b.regions) is True and "✓" in row.line.text()
    assert "not checked" not in row.line.text()
    assert main(["verify", str(b.main), "--discovery", str(b.regions)]) == 0
    capsys.readouterr()

    mismatched = _viewer(window, qtbot, b.mismatched)
    assert "✓ Verified" in mismatched.verdict.text()
    assert "not checked" in mismatched.discoveries.line.text()
    assert mismatched.discoveries.add(b.regions) is False
    assert "are not the keys" in mismatched.discoveries.line.text()
    assert "NOT valid" in mismatched.verdict.text()
    assert "are not the keys" in mismatched.verdict.text()
    assert main(["verify", str(b.mismatched), "--discovery", str(b.regions)]) == 1
