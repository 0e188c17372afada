"""Table models pass Qt's model tester and never build strings for all rows."""

from __future__ import annotations

import numpy as np
import pandas as pd

from planner_app.gui.models import ColumnsModel, DataFrameModel, StatisticsModel


def test_dataframe_model(qtmodeltester) -> None:  # type: ignore[no-untyped-def]
    frame = pd.DataFrame({"a": [1.0, np.nan, 3.5], "b": ["x", None, "z"], "c": [1, 2, 3]})
    model = DataFrameModel(frame)
    qtmodeltester.check(model)
    assert model.rowCount() == 3 and model.columnCount() == 3
    assert model.data(model.index(1, 0)) == ""
    assert model.data(model.index(0, 0)) == "1"  # an integral float shows as a whole number
    assert model.data(model.index(0, 1)) == "x"
    assert model.headerData(2, __import__("PySide6.QtCore").QtCore.Qt.Orientation.Horizontal) == "c"


def test_a_million_rows_are_formatted_on_demand(qtmodeltester) -> None:  # type: ignore[no-untyped-def]
    frame = pd.DataFrame({"v": np.arange(1_000_000)})
    model = DataFrameModel(frame)
    assert model.rowCount() == 1_000_000
    assert model.data(model.index(999_999, 0)) == "999999"


def test_columns_and_statistics_models(qtmodeltester, demo) -> None:  # type: ignore[no-untyped-def]
    session = demo.session
    columns = ColumnsModel(session)
    columns.refresh()
    qtmodeltester.check(columns)
    assert columns.rowCount() == len(session.columns)
    row = [c.name for c in session.columns].index("satisfaction")
    assert columns.setData(columns.index(row, 1), "text")
    assert session.column_types["satisfaction"] == "text"
    stats = StatisticsModel(session)
    qtmodeltester.check(stats)
    assert stats.rowCount() == len(session.plan.queries)
    assert stats.data(stats.index(0, 3)).startswith("± ")
