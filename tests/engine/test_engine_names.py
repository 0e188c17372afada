"""Every engine name is turned into an engine in one place (data/engines.py): an unknown
name, or an engine whose optional extra is missing, is one line saying what to do."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from planner_app.core.data.engines import ENGINES, make_engine
from planner_app.core.data.tables import open_table
from planner_app.core.support.errors import InputError
from tests.engine.helpers import SALT, plan_of


def _source(tmp_path: Path):  # type: ignore[no-untyped-def]
    path = tmp_path / "t.csv"
    path.write_text("x\n1\n2\n", encoding="utf-8")
    source = open_table(path).source
    assert source is not None
    return source


PLAN = [{"id": "n", "kind": "count", "epsilon": 1}]


def test_an_unknown_engine_names_the_engines(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        make_engine("polars", plan_of(PLAN), _source(tmp_path), SALT)
    assert str(caught.value) == ("engine: 'polars' is not an engine: choose one of "
                                 "duckdb, pandas, spark")


def test_a_missing_extra_names_the_engine_and_what_to_install(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspark", None)  # as if the extra were not installed
    with pytest.raises(InputError) as caught:
        make_engine("spark", plan_of(PLAN), _source(tmp_path), SALT)
    message = str(caught.value)
    assert "\n" not in message and "Spark" in message
    assert "pip install 'planner-app[spark]'" in message


@pytest.mark.parametrize("name", [n for n in ENGINES if n != "spark"])
def test_every_engine_name_makes_an_engine(tmp_path: Path, name: str) -> None:
    engine = make_engine(name, plan_of(PLAN), _source(tmp_path), SALT)
    try:
        assert engine.aggregate(engine.plan.queries[0]).parts["count"].tolist() == [2]
    finally:
        engine.close()
