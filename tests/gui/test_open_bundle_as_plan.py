"""A bundle opened as a plan (File → Open plan): the dialog says it is a zip, not a plan, and
asks for the plan file; it never speaks of a byte or of a field to fix."""

from __future__ import annotations

import shutil
from pathlib import Path


def test_a_bundle_opened_as_a_plan_is_named_as_one(window, dialogs, demo_bundle: Path,
                                                   tmp_path: Path) -> None:
    bundle = tmp_path / "d.zip"
    shutil.copy(demo_bundle, bundle)
    assert not window.files.open_plan(bundle, confirmed=True)
    kind, title, text = dialogs.shown[-1]
    assert (kind, title) == ("warning", "This plan cannot be opened")
    assert text == ("d.zip: is a zip file (a release bundle?), not a plan file (a plan file "
                    "is JSON text)\n\nChoose the plan file (JSON, usually .json) and open it.")
    assert window.session.plan is None
