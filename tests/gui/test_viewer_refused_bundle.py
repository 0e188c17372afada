"""walk25c: the bundle viewer of a release whose lists were found privately, after the reader
gave a discovery bundle that is refused (another discovery, a bundle tampered with): the
viewer showed only the refusal, and the lines saying which lists are not checked yet went,
so a reader could take the release's lists as checked, or not know what is left to give.
The refusal is now said above the verdict on the bundles still given, as before it.

Independent answer: the command line's verify of the same bundle, without --discovery."""

from __future__ import annotations

import zipfile
from pathlib import Path

from planner_app.cli import main
from planner_app.core.data.tables import open_table
from planner_app.core.release.discovery_steps import FindRequest
from planner_app.core.release.publish import publish
from planner_app.core.support.resources import demo_table_path

from .discovery_helpers import demo_with_found_regions, discover


def _tampered(bundle: Path, out: Path) -> Path:
    with zipfile.ZipFile(bundle) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            dst.writestr(info, data.replace(b"North", b"Nord") if info.filename ==
                         "results.csv" else data + (b" " if info.filename == "README.txt"
                                                    else b""))
    return out


def test_a_refused_discovery_bundle_leaves_the_not_checked_lines(  # type: ignore[no-untyped-def]
        window, qtbot, tmp_path: Path, capsys) -> None:
    plan, bundle = demo_with_found_regions(window.session.home, tmp_path)
    out = tmp_path / "main.zip"
    publish(plan, open_table(demo_table_path()), out, window.session.home)
    other = discover(window.session.home, FindRequest("keys", "employment", 1.0, 1e-7),
                     tmp_path / "employment.zip")
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    unchecked = capsys.readouterr().out.split("not checked: ")[1].split(" (to check")[0]
    assert "found privately in release" in unchecked
    dialog = window.launchers.review_bundle(out)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.opened is not None, timeout=60_000)
    row = dialog.discoveries
    assert unchecked in row.line.text()
    for refused in (other, _tampered(bundle, tmp_path / "tampered.zip")):
        assert row.add(refused) is False
        text = row.line.text()
        assert f"✗ {refused}" in text, text
        assert unchecked in text, text  # still said: the release's list is not checked
    assert row.add(bundle) is True and unchecked not in row.line.text()
