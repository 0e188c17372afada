"""`ledger doctor`, `migrate` and `import` in a home whose policy names no shared ledger
(issue 26): doctor says which ledger is charged (exit 0); migrate and import refuse with one
line (exit 2) and write nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner_app.cli import main


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_doctor_in_a_home_of_its_own(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                     ) -> None:
    code, out, _ = _run(capsys, "--home", str(tmp_path / "h"), "ledger", "doctor")
    assert code == 0 and "charges its own ledger" in out and "names no shared ledger" in out


@pytest.mark.parametrize("action", ["migrate", "import"])
def test_migrate_and_import_need_an_office_policy(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], action: str) -> None:
    home = tmp_path / "h"
    code, out, err = _run(capsys, "--home", str(home), "ledger", action)
    assert code == 2 and out == ""
    assert err.strip().count("\n") == 0 and "policy names no shared ledger" in err
    assert not (home / "data" / "ledger.sqlite3").exists()
