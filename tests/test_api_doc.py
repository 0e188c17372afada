"""docs/api.md's examples are run as doctests (issue 27): each function's example gives the
output the page shows, in a folder holding the demo table and plan, with a temporary app
home (the conftest's ``app_home``), so the release example charges a fresh ledger."""

from __future__ import annotations

import doctest
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_api_page_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("survey.csv", "survey-plan.json"):
        shutil.copy(ROOT / "resources" / "demo" / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    # a code fence's closing line is no part of the output above it
    text = "\n".join("" if line.startswith("```") else line
                     for line in (ROOT / "docs" / "api.md").read_text("utf-8").splitlines())
    test = doctest.DocTestParser().get_doctest(text, {}, "api.md", "docs/api.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE
                                   | doctest.ELLIPSIS)
    result = runner.run(test)
    assert result.attempted >= 25  # every example ran, none was lost to a typo in a fence
    assert result.failed == 0
    assert (tmp_path / "small-release.zip").is_file()
