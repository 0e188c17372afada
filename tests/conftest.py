"""Shared test set-up: Qt offscreen, a temporary app home for every test, plan helpers."""

from __future__ import annotations

import copy
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[1]
DEMO_PLAN = ROOT / "resources" / "demo" / "survey-plan.json"
DEMO_TABLE = ROOT / "resources" / "demo" / "survey.csv"


@pytest.fixture(autouse=True)
def app_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own app home, so none touches a real user's ledger or settings."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("PLANNER_APP_HOME", str(home))
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    return home


BASE_PLAN: dict[str, Any] = {
    "format": "planner-app/plan@1",
    "dataset": {"name": "test"},
    "privacy_unit": {"kind": "row"},
    "neighbouring": "add-remove",
    "budget": {"epsilon": 1.0, "delta": 0.0},
    "queries": [{"id": "n", "kind": "count", "epsilon": 1.0}],
}


#: The row unit with the owner's recorded decision, for tests that release a row-unit plan on
#: the demo table (whose person_id repeats: without it the release is refused, issue 22).
ROWS_ARE_PEOPLE: dict[str, Any] = {
    "kind": "row", "rows_are_people": {"reason": "a test of the ledger; the unit is not tested"}}


def plan_dict(**changes: Any) -> dict[str, Any]:
    doc = copy.deepcopy(BASE_PLAN)
    doc.update(copy.deepcopy(changes))
    return doc


def with_reasons(doc: dict[str, Any]) -> dict[str, Any]:
    """The plan with a reason for every bound, bin list, category list and group-key list
    that has none: a release refuses a plan without them (core/planning/readiness.py)."""
    doc = copy.deepcopy(doc)
    for q in doc.get("queries", []):
        j = q.setdefault("justification", {})
        if "lower" in q or "bins" in q:
            j.setdefault("bounds", "known from the domain (test)")
        if "categories" in q:
            j.setdefault("categories", "known from the domain (test)")
        if "group_by" in q:
            j.setdefault("keys", "known from the domain (test)")
    return doc


def write_json(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.fixture
def reference_values() -> dict[str, Any]:
    """The project's test vectors (a copy of ../shared/reference/reference-values.json)."""
    return json.loads((ROOT / "tests" / "data" / "reference-values.json").read_text())


def flip_zip_byte(src: Path, dst: Path, member: str, offset: int = 10) -> None:
    """Copy a zip, flipping one bit of one byte of one member (a tampered bundle)."""
    import zipfile

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = bytearray(zin.read(info))
            if info.filename == member:
                data[offset % len(data)] ^= 0x01
            zout.writestr(info, bytes(data))


# ----------------------------------------------------------------------------- the CLI in-process
# Issue 23: a test that only reads a command's exit code and output calls the CLI's main() in
# this process (Python's start and the imports, about a second each time, are paid once for the
# session). A handful of tests keep a real process (marked `subprocess`): the entry point,
# signals, kill -9 and resume, concurrent releases, startup imports, terminal encodings.


def run_in_process(args: list[str], home: Path | None = None, *, cwd: Path | None = None,
                   **extra: str) -> subprocess.CompletedProcess[str]:
    """``planner-app ARGS`` as a subprocess test sees it (exit code, stdout, stderr), run by
    the CLI's main() here: the app home is ``home``, PLANNER_APP_DEBUG is unset, ``extra``
    variables are set, the working folder is the repository's; all of it is put back after."""
    import contextlib
    import io

    from planner_app.cli import main

    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    try:
        os.environ.pop("PLANNER_APP_DEBUG", None)
        if home is not None:
            os.environ["PLANNER_APP_HOME"] = str(home)
        os.environ.update(extra)
        os.chdir(cwd or ROOT)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's usage errors and --help
                code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


# ----------------------------------------------------------------------------- markers by place
# Issue 23: the expensive families are marked where they live, so that a new test in such a
# file is marked without anyone remembering to. A test that starts Spark or fits a synthetic
# table somewhere else carries the marker itself (pytest.mark.spark / pytest.mark.synth).


def _marks_for(item: pytest.Item) -> list[str]:
    path = Path(str(item.fspath))
    parts, name = path.parts, path.name
    marks = []
    if "gui" in parts:
        marks.append("gui")
    if "audit" in parts:
        marks.append("audit")
    if "spark" in name or "spark" in item.name.lower():  # test_spark*.py, [spark] params
        marks.append("spark")
    if name.startswith("test_synthetic"):
        marks.append("synth")
    if name.startswith("test_shared_ledger"):  # pg26: a real PostgreSQL server
        marks.append("postgres")
    return marks


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for mark in _marks_for(item):
            item.add_marker(mark)
    if hasattr(config, "workerinput"):  # an xdist worker (its own "dist" option reads "no")
        _fast_units_first(items)


# ----------------------------------------------------------------------------- fast tests first
# Issue 23: .ci/run runs the whole suite in one run (a second stage cost a second collection
# of every test), and still runs the fast command's tests first, so a broken core shows in
# the first minutes. Under `--dist loadfile` the scheduler's units (a file; Spark's one unit,
# below) go out in collection order (pytest_xdist_make_scheduler turns xdist's reordering
# off): the units whose every test the fast command selects, then the others; within each,
# the units with more tests first, as xdist's own reordering had them.

#: the markers the README's fast command deselects
SLOW_MARKS = frozenset({"spark", "synth", "gui", "subprocess", "audit", "heavy", "postgres",
                        "slow"})


def _unit_of(nodeid: str) -> str:
    return "spark" if spark_by_id(nodeid) else nodeid.split("::", 1)[0]


def _fast_units_first(items: list[pytest.Item]) -> None:
    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        units.setdefault(_unit_of(item.nodeid), []).append(item)
    slow = {unit for unit, its in units.items()
            if any(SLOW_MARKS & {m.name for m in it.iter_markers()} for it in its)}
    order = sorted(units, key=lambda unit: (unit in slow, -len(units[unit])))  # stable
    items[:] = [item for unit in order for item in units[unit]]


# ----------------------------------------------------------------------------- one Spark worker
# Issue 23: with `--dist loadfile` (.ci/run) a file runs on one worker, but the Spark tests of
# six files went to both, and each worker started a JVM of its own (10 to 30 s; the session is
# shared within a process: spark_session below). This scheduler keeps loadfile's units and
# makes one unit of every test the `spark` marker selects (_marks_for's rule, read from the
# test's id, which is all a scheduler sees): one worker starts Spark, the other never does.


def spark_by_id(nodeid: str) -> bool:
    """``_marks_for``'s spark rule on a test id: the file's name or the test's name."""
    path, _, rest = nodeid.partition("::")
    return "spark" in Path(path).name or "spark" in rest.split("::")[-1].lower()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "loadfile":
        return None  # xdist's own
    from xdist.scheduler import LoadFileScheduling  # type: ignore[import-untyped]

    class OneSparkWorker(LoadFileScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return "spark" if spark_by_id(nodeid) else str(super()._split_scope(nodeid))

    config.option.loadscopereorder = False  # the collection's order: fast units first, above
    return OneSparkWorker(config, log)


# ----------------------------------------------------------------------------- shared bundles
# Issue 23: a release costs about 2 s of CPU in a warm process (the report's HTML and PDF are
# built twice: a rehearsal before the charge, then the real one), the first one in a process
# about 4 s. Tests that only read a bundle share one per
# configuration for the whole session; a test that changes one works on a copy in its tmp_path.


@pytest.fixture(scope="session")
def demo_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo plan released once on the demo table (its own app home). Read it, never
    change it: copy it to tmp_path first."""
    from planner_app.core.data.tables import load_table
    from planner_app.core.planfile import load_plan
    from planner_app.core.release.publish import publish
    from planner_app.core.support.home import app_home as home_at

    folder = tmp_path_factory.mktemp("demo-bundle")
    out = folder / "demo.zip"
    publish(load_plan(DEMO_PLAN), load_table(DEMO_TABLE), out, home_at(folder / "home"))
    return out


@pytest.fixture(scope="session")
def found_privately(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """tests/found_bundles.py's release bundles whose lists were found privately (three
    releases and two discoveries, about 10 CPU s), made once per test process in an app home
    of their own (``.home``: give it as ``--home`` to read its ledger). ci23: six test files
    each made them again. Read them and that home, never change them: a test that releases
    works in a home of its own."""
    from dataclasses import replace

    from planner_app.core.support.home import app_home as home_at
    from tests.found_bundles import found_bundles

    folder = tmp_path_factory.mktemp("found-privately")
    home = folder / "home"
    return replace(found_bundles(home_at(home).ensure(), folder), home=home)


@pytest.fixture(scope="session")
def synthetic_demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The demo table's synthetic table (300 rows, seed 8: tests.core.test_synthetic_tie's
    ``demo_bundle``) released once per test process (ci23: four modules each released the
    same one, a JAX fit of 5 to 10 s). Read it, never change it: a test writes new files
    under its ``folder`` only with names of its own, and copies ``record`` before a change."""
    pytest.importorskip("mbi")
    from tests.core.test_synthetic_tie import demo_bundle as synthetic_demo_bundle

    return synthetic_demo_bundle(tmp_path_factory.mktemp("synthetic-demo"))


@pytest.fixture(scope="session")
def spark_session() -> Any:
    """The test process's Spark session (one per xdist worker: a JVM start costs 10 to 30 s),
    started on first use and shared by every Spark test in the process (the engine's
    ``session()`` reuses it). Stopped when the test session ends; its private spill folder must
    then be gone (spark_session.stop_session)."""
    pytest.importorskip("pyspark")
    pytest.importorskip("sqlglot")
    from planner_app.core.data import spark_session

    yield spark_session.session()
    folder = spark_session._folder
    spark_session.stop_session()
    assert folder is None or not os.path.exists(folder), folder



# ----------------------------------------------------------------------------- PostgreSQL (pg26)
# Issue 26: the shared-ledger tests run against a real PostgreSQL server, never a mock. .ci/run
# starts one for the whole run (tests/pg_server.py) and exports PLANNER_TEST_PG_URL; without it
# the first test that needs one starts its own (the same code), so a plain `python -m pytest`
# runs them too. They skip only when told to: PLANNER_SKIP_POSTGRES=1.


@pytest.fixture(scope="session")
def pg_server_url() -> Any:
    if os.environ.get("PLANNER_SKIP_POSTGRES") == "1":
        pytest.skip("PLANNER_SKIP_POSTGRES=1: the shared-ledger tests are skipped")
    url = os.environ.get("PLANNER_TEST_PG_URL")
    if url:
        yield url
        return
    from tests import pg_server

    folder = pg_server.new_folder()
    try:
        yield pg_server.start(folder)
    finally:
        pg_server.stop(folder.parent)


@pytest.fixture
def office_db(pg_server_url: str) -> Any:
    """A new, empty database on the test server (its URL), dropped afterwards."""
    import uuid
    from urllib.parse import urlsplit, urlunsplit

    import psycopg

    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(pg_server_url, autocommit=True) as con:
        con.execute(f"CREATE DATABASE {name}")
    yield urlunsplit(urlsplit(pg_server_url)._replace(path=f"/{name}"))
    with psycopg.connect(pg_server_url, autocommit=True) as con:
        con.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
