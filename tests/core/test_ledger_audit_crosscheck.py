"""Issue 22 part 6: the lifetime cap cannot be evaded by editing the ledger alone. Every
charge and every cap is checked against its audit entry; an edited ledger refuses the next
release (exit 4, nothing charged or written) and `ledger show` says the figures cannot be
trusted. Real releases (the core's publish) on a real app home, real sqlite edits."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from planner_app.cli import main
from planner_app.core.data.tables import load_table
from planner_app.core.dp.accounting import Total
from planner_app.core.planfile import plan_from_dict
from planner_app.core.records.audit import AuditLog
from planner_app.core.records.crosscheck import UNTRUSTED_FIGURES
from planner_app.core.records.ledger import Ledger, LedgerError
from planner_app.core.release.publish import publish
from planner_app.core.support.home import AppHome, app_home
from tests.conftest import DEMO_TABLE, ROWS_ARE_PEOPLE, plan_dict, write_json

DATASET = "capped"
PLAN = plan_dict(dataset={"name": DATASET}, privacy_unit=ROWS_ARE_PEOPLE)  # one count, ε = 1, δ = 0


@pytest.fixture(scope="module")
def home_spent_twice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Cap ε = 2.5; two releases of ε = 1 spent: built once for this file (issue 23)."""
    where = tmp_path_factory.mktemp("spent-twice")
    home = app_home(where / "home").ensure()
    Ledger(home.ledger_path).set_cap(DATASET, 2.5, 1e-5)
    plan, table = plan_from_dict(PLAN), load_table(DEMO_TABLE)
    for name in ("a.zip", "b.zip"):
        publish(plan, table, where / name, home)
    return where / "home"


@pytest.fixture
def spent_twice(home_spent_twice: Path, tmp_path: Path) -> tuple[AppHome, Path]:
    """A copy of that home for one test to edit: a third release of ε = 1 must be refused."""
    home = app_home(Path(shutil.copytree(home_spent_twice, tmp_path / "home")))
    return home, write_json(tmp_path / "plan.json", PLAN)


def _release(home: AppHome, plan_path: Path, out: Path,
             capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["--home", str(home.data_dir.parent), "release", str(plan_path), "--data",
                 str(DEMO_TABLE), "--out", str(out)])
    return code, capsys.readouterr().err


def _edit(home: AppHome, *sql: str) -> None:
    con = sqlite3.connect(home.ledger_path)
    for statement in sql:
        con.execute(statement)
    con.commit()
    con.close()


FIRST = "(SELECT MIN(rowid) FROM releases)"
EDITS = {
    "zero a row": [f"UPDATE releases SET epsilon = 0, delta = 0, rho = NULL, "
                   f"measurements = '[]' WHERE rowid = {FIRST}"],
    "rename a row's dataset": [f"UPDATE releases SET dataset = 'elsewhere' WHERE rowid = {FIRST}"],
    "delete the cap": [f"DELETE FROM datasets WHERE name = '{DATASET}'"],
    "raise the cap": [f"UPDATE datasets SET cap_epsilon = 100 WHERE name = '{DATASET}'"],
    "zero a row and unlink it": [f"UPDATE releases SET epsilon = 0, delta = 0, audit_seq = NULL,"
                                 f" audit_hash = NULL, measurements = '[]' WHERE rowid = {FIRST}"],
}
SAYS = {
    "zero a row": "ε 0 in the ledger, 1 in the audit log",
    "rename a row's dataset": "dataset 'elsewhere' in the ledger, 'capped' in the audit log",
    "delete the cap": "none in the ledger (the default would apply), ε = 2.5 in the audit log",
    "raise the cap": "ε = 100, δ = 1e-05 in the ledger, ε = 2.5, δ = 1e-05 in the audit log",
    "zero a row and unlink it": "ε 0 in the ledger, 1 in the audit log",
}


def test_unedited_the_third_release_is_refused_by_the_cap(
        spent_twice: tuple[AppHome, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    home, plan_path = spent_twice
    code, err = _release(home, plan_path, tmp_path / "c.zip", capsys)
    assert code == 3, err
    assert "left of its lifetime cap ε = 2.5" in err
    assert Ledger(home.ledger_path).audit_problems() == []


@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edited_ledger_refuses_the_next_release(
        spent_twice: tuple[AppHome, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str], edit: str) -> None:
    home, plan_path = spent_twice
    _edit(home, *EDITS[edit])
    audit_before = home.audit_path.read_bytes()
    charged_before = Ledger(home.ledger_path).releases_charged()
    code, err = _release(home, plan_path, tmp_path / "c.zip", capsys)
    assert code == 4, err
    assert len(err.strip().splitlines()) == 1, err
    assert SAYS[edit] in err and "nothing was charged or written" in err, err
    assert not (tmp_path / "c.zip").exists()
    assert home.audit_path.read_bytes() == audit_before
    assert Ledger(home.ledger_path).releases_charged() == charged_before

    # ledger show never reports the edited spending as if it were fine
    code = main(["--home", str(home.data_dir.parent), "ledger", "show"])
    shown = capsys.readouterr()
    assert code == 4
    assert shown.out.startswith(UNTRUSTED_FIGURES)
    assert SAYS[edit] in shown.err


def test_the_charge_itself_checks_under_its_lock(spent_twice: tuple[AppHome, Path]) -> None:
    """A release that passed its early check while another process edited the ledger: the
    charge, under the ledger's lock, refuses it too."""
    home, _ = spent_twice
    _edit(home, *EDITS["zero a row"])
    ledger = Ledger(home.ledger_path)
    with pytest.raises(LedgerError, match="ε 0 in the ledger, 1 in the audit log.*nothing was "
                                          "charged"):
        ledger.charge(release_id="f" * 32, dataset=DATASET, file_name="x.csv",
                      file_sha256="0" * 64, plan_sha256="0" * 64,
                      total=Total(1.0, 0.0, "basic"), measurements=[])
    assert ledger.releases_charged() == 2


def test_set_cap_is_recorded_and_a_cap_never_recorded_is_refused(tmp_path: Path) -> None:
    home = app_home(tmp_path / "home").ensure()
    ledger = Ledger(home.ledger_path)
    ledger.set_cap(DATASET, 3.0, 1e-6)
    ledger.set_cap(DATASET, 2.0, 1e-6)  # the latest entry is what counts
    caps = [e["params"] for e in AuditLog(home.audit_path).read()
            if e["event"] == "ledger cap set"]
    assert caps == [{"dataset": DATASET, "epsilon": 3.0, "delta": 1e-6},
                    {"dataset": DATASET, "epsilon": 2.0, "delta": 1e-6}]
    assert ledger.audit_problems() == []
    _edit(home, "INSERT INTO datasets(name, cap_epsilon, cap_delta, updated) "
                "VALUES ('sneaky', 50, 1e-5, 'now')")
    assert ledger.audit_problems() == [
        "the budget ledger holds a cap for dataset 'sneaky' (ε = 50) that the audit log never "
        "recorded; set it again with planner-app ledger set-cap to record it"]
