"""A whole release through each engine: the same seeded source gives the same released values
from DuckDB (the file in place) as from pandas (loaded), and the bounding's salt is written
nowhere."""

from __future__ import annotations

import base64
from pathlib import Path

from planner_app.core.data.sql_plan import salt_from
from planner_app.core.data.tables import load_table, open_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.planfile import load_plan
from planner_app.core.release.bundle import read_bundle
from planner_app.core.release.publish import publish
from planner_app.core.support.home import app_home
from planner_app.core.support.resources import demo_plan_path
from tests.conftest import DEMO_TABLE


def values(result) -> dict[str, list[tuple[object, ...]]]:  # type: ignore[no-untyped-def]
    return {r.query_id: [(v.value, v.low, v.high) for v in r.values]
            for r in result.releases if r.noised_answers is None}


def test_duckdb_and_pandas_release_the_same_values(tmp_path: Path) -> None:
    plan = load_plan(demo_plan_path())
    out = {}
    for engine, table in (("duckdb", open_table(DEMO_TABLE)), ("pandas", load_table(DEMO_TABLE))):
        home = app_home(tmp_path / engine).ensure()
        out[engine] = publish(plan, table, tmp_path / f"{engine}.zip", home,
                              source=SeededRandomSource(11), engine=engine)
    assert values(out["duckdb"]) == values(out["pandas"])
    assert len(values(out["duckdb"])) >= 3
    # the answer files are noised from answers in another order: same length, same law
    rr = [{r.query_id: len(r.noised_answers) for r in res.releases
           if r.noised_answers is not None} for res in out.values()]
    assert rr[0] == rr[1]


def test_the_salt_is_written_nowhere(tmp_path: Path) -> None:
    plan = load_plan(demo_plan_path())
    home = app_home(tmp_path / "home").ensure()
    bundle = tmp_path / "b.zip"
    publish(plan, open_table(DEMO_TABLE), bundle, home, source=SeededRandomSource(5))
    salt = salt_from(SeededRandomSource(5))  # the release's first draw
    text = base64.urlsafe_b64encode(salt).rstrip(b"=")  # the salted keys' text form
    secrets = [salt.hex().encode(), salt.hex()[:16].encode(), salt, text, text[:16]]
    blobs = list(read_bundle(bundle).values()) + [bundle.read_bytes()]
    blobs += [p.read_bytes() for p in (tmp_path / "home").rglob("*") if p.is_file()]
    assert len(blobs) > 5
    for blob in blobs:
        for secret in secrets:
            assert secret not in blob


def test_a_release_and_a_check_never_load_the_table(tmp_path: Path) -> None:
    """The default engine reads the file in place: nothing on the release path (row counts,
    the answer count, the data-aware warnings) loads it into a frame."""
    from planner_app.core.planning.check import check_plan

    plan = load_plan(demo_plan_path())
    table = open_table(DEMO_TABLE)
    report = check_plan(plan, table)
    assert report.owner_facts  # the data was read (rows dropped by the bound, ...)
    publish(plan, table, tmp_path / "b.zip", app_home(tmp_path / "home").ensure(),
            source=SeededRandomSource(3))
    assert not table.loaded
