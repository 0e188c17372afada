"""cal26 (issue 26) on a real PostgreSQL server: a programme's releases from two homes of the
office (one per date, whichever home makes it), `ledger forecast` from either, and `ledger
import` of a home's history into a shared ledger that already holds the office's."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import psycopg
import pytest

from planner_app.core.records.audit import verify_chain
from planner_app.core.records.office_import import home_chain
from tests.conftest import ROWS_ARE_PEOPLE, plan_dict

from .shared_office import SECRET, Office, office_policy


@pytest.fixture
def office(tmp_path: Path, office_db: str, monkeypatch: pytest.MonkeyPatch) -> Office:
    monkeypatch.setenv("PLANNER_OFFICE_SECRET", SECRET)
    return Office(tmp_path, office_db)


def _chain(url: str) -> list[dict[str, Any]]:
    with psycopg.connect(url) as con:
        return [json.loads(t) for (t,) in con.execute(
            "SELECT entry FROM planner_audit ORDER BY seq")]


def _programme_plan(office: Office, epsilon: float = 0.5) -> Path:
    start = dt.datetime.now(dt.timezone.utc).date()
    doc = plan_dict(format="planner-app/plan@2", privacy_unit=ROWS_ARE_PEOPLE,
                    budget={"epsilon": epsilon, "delta": 0.0},
                    queries=[{"id": "n", "kind": "count", "epsilon": epsilon}],
                    programme={"name": "monthly", "start": start.isoformat(),
                               "every": "month",
                               "end": (start + dt.timedelta(days=31 * 12)).isoformat()})
    path = office.tmp / "programme.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_a_programme_date_is_released_once_by_the_whole_office(office: Office) -> None:
    policy = office.signed_policy(office_policy(office.url))  # cap ε = 2.5
    a, b = office.home("home-a", policy), office.home("home-b", policy)
    assert office.run(a, "ledger", "migrate")[0] == 0
    plan = _programme_plan(office)
    code, _, err = office.release(a, plan, "a.zip")
    assert code == 0, err
    code, _, err = office.release(b, plan, "b.zip")  # the other desktop, the same date
    assert code == 3, err
    assert "programme 'monthly' already has its release for" in err
    assert err.count("\n") == 1
    # either home forecasts the office's programme: ε = 0.5 a month against ε = 2.5
    code, out, err = office.run(b, "ledger", "forecast", "test", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["cap"]["epsilon"] == 2.5 and doc["programmes"] == ["monthly"]
    assert [p["epsilon"] for p in doc["points"]] == pytest.approx([0.5, 1.0, 1.5, 2.0, 2.5,
                                                                   3.0])
    assert [p["planned"] for p in doc["points"]] == [False] + [True] * 5
    assert doc["runs_out"] == doc["points"][-1]["date"]


def test_import_into_a_ledger_that_holds_history_appends_once(office: Office,
                                                              tmp_path: Path) -> None:
    policy = office.signed_policy(office_policy(office.url))  # cap ε = 2.5
    a = office.home("home-a", policy)
    assert office.run(a, "ledger", "migrate")[0] == 0
    assert office.release(a, office.plan(1.0), "a1.zip")[0] == 0  # the office: ε = 1
    # a home that released on its own ledger, with a cap of its own for the same dataset
    old = tmp_path / "old-home"
    assert office.release(old, office.plan(1.0), "old.zip")[0] == 0
    assert office.run(old, "ledger", "set-cap", "test", "--epsilon", "2.2")[0] == 0
    office.home("old-home", policy)
    local = [json.loads(x) for x in (old / "data" / "audit.jsonl").read_text().splitlines()]
    code, out, err = office.run(old, "ledger", "import")
    assert code == 0, err
    assert "Imported 1 release(s)" in out and "follow the office's own history" in out
    chain = _chain(office.url)
    assert verify_chain(chain) is None  # one chain, the office's, continued
    # the home's own chain is rebuilt link for link from the office's
    assert home_chain(chain) == local
    assert verify_chain(home_chain(chain)) is None
    # its bundle still verifies, and its charge counts: ε = 2 spent of the lower cap 2.2
    assert office.run(a, "verify", str(office.tmp / "out" / "old.zip"))[0] == 0
    code, out, _ = office.run(a, "ledger", "show", "test")
    assert code == 0 and "spent ε = 2," in out and "cap ε = 2.2" in out, out
    assert office.release(a, office.plan(0.5), "a2.zip")[0] == 3  # 2.5 > 2.2
    # a second import would count the home's release twice: refused, nothing changed
    code, _, err = office.run(old, "ledger", "import")
    assert code == 4 and "already in" in err and "twice" in err, err
    assert err.count("\n") == 1
    assert _chain(office.url) == chain
