"""A synthetic table's selection (the exact exponential mechanism) runs for a time that
depends on the data, and its synthesis too (JAX compiles for the chosen pairs): no time a
synthetic release publishes is finer than a whole second, and every time in the bundle is the
one taken before the noise (so none can measure how long the noise or the synthesis took)."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.planfile import plan_from_dict
from planner_app.core.records.audit import AuditLog
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.publish import publish
from planner_app.core.support.home import app_home
from tests.conftest import DEMO_TABLE, plan_dict

WHOLE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
FINE = re.compile(r"\d\d:\d\d:\d\d[.,]\d|D:\d{14}[.,]\d")  # 12:34:56.7; a PDF date's


def _plan() -> object:
    return plan_from_dict(plan_dict(
        dataset={"name": "demo-survey", "expected_rows": 3800},
        privacy_unit={"kind": "person", "id_column": "person_id", "max_rows": 3},
        budget={"epsilon": 2.0, "delta": 1e-5},
        queries=[{"id": "synth", "kind": "synthetic", "epsilon": 1.0, "delta": 1e-6,
                  "rows": 200,
                  "columns": [{"column": "region",
                               "categories": ["North", "South", "East", "West"]},
                              {"column": "age", "bins": [16, 25, 35, 45, 55, 65, 75, 100]},
                              {"column": "smoker", "categories": ["yes", "no"]}],
                  "justification": {"categories": "the form's answers",
                                    "bounds": "standard age bands"}}]))


def test_a_synthetic_release_publishes_only_whole_second_times(tmp_path: Path) -> None:
    pytest.importorskip("mbi")
    home = app_home(tmp_path / "home").ensure()
    out = tmp_path / "bundle.zip"
    publish(_plan(), load_table(DEMO_TABLE), out, home,  # type: ignore[arg-type]
            source=SeededRandomSource(2))
    zf = zipfile.ZipFile(out)
    files = {n: zf.read(n) for n in zf.namelist()}
    assert "synthetic/synth.csv" in files
    record = json.loads(files["release.json"])
    created = record["created_utc"]
    assert WHOLE.match(created), created
    # the bundle's audit segment: one time, the release's, for every entry
    times = [json.loads(line)["time"] for line in files["audit.jsonl"].decode().splitlines()]
    assert times and set(times) == {created}
    # no finer time in any member (the PDF's dates included, read as bytes)
    for name, data in files.items():
        assert not FINE.search(data.decode("latin-1")), name
    # the PDF's dates are the release's time, in whole seconds
    stamp = created[:19].replace("-", "").replace("T", "").replace(":", "")
    dates = re.findall(rb"D:(\d{14})", files["report.pdf"])
    assert dates and {d.decode() for d in dates} == {stamp}
    # the zip's own times are one fixed time, not the clock's
    assert {i.date_time for i in zf.infolist()} == {(2020, 1, 1, 0, 0, 0)}
    # the owner's audit log: whole seconds everywhere (entries after the synthesis too)
    entries = AuditLog(home.audit_path).read()
    assert entries and all(WHOLE.match(e["time"]) for e in entries), \
        [e["time"] for e in entries]
    # the ledger keeps a fine time of the charge (before any noise) for ordering; it is not
    # in the bundle
    # and JAX's compilations stay in the process: nothing of them in the app home
    assert not [f for f in (tmp_path / "home").rglob("*")
                if any(w in f.name.lower() for w in ("jax", "xla", "cache"))]
    ledger_times = [r.time for r in Ledger(home.ledger_path).state("demo-survey").releases]
    assert len(ledger_times) == 1
    for name, data in files.items():
        assert ledger_times[0].encode() not in data, name
