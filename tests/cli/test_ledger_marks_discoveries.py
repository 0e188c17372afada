"""``planner-app ledger show`` marks which releases were discoveries (disc25c): a discovery's
line says ``discovery (ID)`` and ``--json`` lists its ``discoveries``; the plan's own release
is not marked. Independent answer: each bundle's release id and statistics read from its
release.json."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from planner_app.cli import main
from tests.found_bundles import FoundBundles


def _record(bundle: Path) -> dict:
    with zipfile.ZipFile(bundle) as z:
        return json.loads(z.read("release.json"))


def test_ledger_show_marks_the_discoveries(found_privately: FoundBundles,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    b = found_privately  # made once per test process, in a home of its own
    found = {_record(p)["release_id"]: [q["id"] for q in _record(p)["queries"]]
             for p in (b.regions, b.employment)}
    plain = {_record(p)["release_id"] for p in (b.main, b.mismatched)}
    assert main(["--home", str(b.home), "ledger", "show", "demo-survey"]) == 0
    lines = capsys.readouterr().out.splitlines()
    marked = [line for line in lines if "discovery (" in line]
    assert len(marked) == 2, lines
    for ids in found.values():
        assert any(f"discovery ({', '.join(ids)})" in line for line in marked), (ids, marked)
    assert main(["--home", str(b.home), "ledger", "show", "demo-survey", "--json"]) == 0
    releases = json.loads(capsys.readouterr().out)["releases"]
    assert {r["id"]: r["discoveries"] for r in releases if r["discoveries"]} == found
    assert {r["id"] for r in releases if not r["discoveries"]} == plain
