"""Every SQL text the engine hands its runner is DuckDB SQL that SQLGlot turns into Spark SQL
without loss: the Spark runner runs exactly these texts, transpiled."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import sqlglot
from sqlglot.errors import ErrorLevel

from planner_app.core.data.source import TableSource
from planner_app.core.data.sql_plan import SqlEngine
from planner_app.core.data.sql_runner import DuckDBRunner
from planner_app.core.data.tables import open_table
from tests.engine.helpers import SALT, plan_of, write_csv
from tests.engine.test_duckdb_equals_pandas import FRAME, QUERIES


class Recording(DuckDBRunner):
    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []

    def open(self, source: TableSource, columns: Sequence[str]) -> None:
        super().open(source, columns)

    def materialize(self, name: str, sql: str) -> None:
        self.texts.append(sql)
        super().materialize(name, sql)

    def query(self, sql: str) -> pd.DataFrame:
        self.texts.append(sql)
        return super().query(sql)


def test_every_text_transpiles_to_spark(tmp_path: Path) -> None:
    table = open_table(write_csv(FRAME, tmp_path / "t.csv"))
    assert table.source is not None
    runner = Recording()
    plan = plan_of(QUERIES, privacy_unit={"kind": "person", "id_column": "pid", "max_rows": 2})
    engine = SqlEngine(plan, table.source, runner, SALT)
    for q in plan.queries:
        engine.aggregate(q)
    engine.close()
    assert len(runner.texts) > len(QUERIES)
    for text in runner.texts:
        spark = sqlglot.transpile(text, read="duckdb", write="spark",
                                  unsupported_level=ErrorLevel.RAISE)[0]
        # functions Spark lacks never survive into the Spark text
        for absent in ("REGEXP_MATCHES", "REGEXP_FULL_MATCH", "ROUND_EVEN", "ISFINITE",
                       "HUGEINT", "INT128", "QUALIFY"):
            assert absent not in spark.upper(), (absent, spark)
