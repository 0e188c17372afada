"""A table far larger than the preview opens in place (issue 13): the window shows the engine's
row count, the first rows and the last ones when scrolled to the end, the columns' facts, and
the rows are never loaded into pandas; Cancel during the engine's pass keeps the open table."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import SHOTS

ROWS = 5_000_000


def write_big_csv(path: Path, rows: int) -> Path:
    """id, age (empty on every 10th row), smoker yes/no, region text; written by DuckDB."""
    con = duckdb.connect()
    con.execute(f"""COPY (SELECT i AS id,
                           CASE WHEN i % 10 = 0 THEN NULL ELSE 18 + i % 70 END AS age,
                           CASE WHEN i % 3 = 0 THEN 'yes' ELSE 'no' END AS smoker,
                           'region ' || (i % 7) AS region
                    FROM range({rows}) t(i)) TO '{path}' (HEADER)""")
    con.close()
    return path


@pytest.fixture(scope="module")
def big_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_big_csv(tmp_path_factory.mktemp("big") / "big.csv", ROWS)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def open_and_wait(window, qtbot, path: Path) -> None:  # type: ignore[no-untyped-def]
    window.files.load_table(path, ask=False)
    qtbot.waitUntil(lambda: window.session.table_path == path, timeout=120_000)


def wait_for_row(qtbot, model, row: int) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: model.data(model.index(row, 0)) != model.LOADING, timeout=60_000)


def test_a_multi_million_row_file_opens_without_loading(window, qtbot, big_csv: Path) -> None:  # type: ignore[no-untyped-def]
    # the libraries a first table brings (the window starts without them): loaded before the
    # measure, so it counts the table, not the imports (run alone, they were 340 MB of it)
    import pandas  # noqa: F401

    import planner_app.core.data.facts  # noqa: F401
    import planner_app.core.data.sql_plan  # noqa: F401

    duckdb.connect().execute("SELECT 1").close()
    before = rss_mb()
    open_and_wait(window, qtbot, big_csv)
    table = window.session.table
    assert table.loaded is False  # the rows were never read into pandas
    pane = window.data_pane
    assert f"{ROWS:,} rows, 4 columns" in pane.file_label.text()
    model = pane.preview_model
    assert model.rowCount() == ROWS and model.columnCount() == 4
    wait_for_row(qtbot, model, 0)
    assert [model.data(model.index(0, c)) for c in range(4)] == ["0", "", "yes", "region 0"]
    pane.preview.scrollToBottom()
    qtbot.waitUntil(lambda: model.is_fetched(ROWS - 1), timeout=60_000)
    last = ROWS - 1
    assert [model.data(model.index(last, c)) for c in range(4)] == \
        [str(last), str(18 + last % 70), "yes" if last % 3 == 0 else "no", f"region {last % 7}"]
    assert model.headerData(last, Qt.Orientation.Vertical) == f"{ROWS:,}"
    facts = {c.name: c for c in window.session.columns}
    assert facts["age"].missing == ROWS // 10 and facts["age"].detected_type == "number"
    assert facts["smoker"].detected_type == "yes/no" and facts["smoker"].missing == 0
    assert facts["region"].detected_type == "text"
    qtbot.wait(200)
    SHOTS.mkdir(parents=True, exist_ok=True)
    window.resize(1280, 820)
    pane.grab().save(str(SHOTS / "big-table-data-pane.png"))
    # the file in pandas takes ten times its size (object strings); opened in place, DuckDB's
    # buffers take a fraction of that
    grew = rss_mb() - before
    assert table.loaded is False
    assert grew < 1.5 * big_csv.stat().st_size / 2**20 + 150, grew


def test_cancel_while_the_engine_reads_keeps_the_open_table(window, qtbot, big_csv: Path,
                                                             tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    small = tmp_path / "small.csv"
    small.write_text("age\n30\n40\n")
    open_and_wait(window, qtbot, small)
    kept = window.session.table
    window.files.load_table(big_csv, ask=False)
    qtbot.waitUntil(lambda: window.progress.isVisible(), timeout=10_000)
    qtbot.wait(300)  # the engine's pass over the 5M rows is under way
    window.cancel_button.click()
    qtbot.waitUntil(lambda: not window.progress.isVisible(), timeout=20_000)
    from planner_app.gui.workers import wait_for_workers

    assert wait_for_workers(20_000)
    qtbot.wait(200)
    assert window.session.table is kept and window.session.table_path == small
    assert "cancelled" in window.statusBar().currentMessage().lower()


def test_beyond_what_a_view_can_scroll_the_preview_shows_both_ends(window, qtbot, big_csv: Path,
                                                                  monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Qt's views count pixels in ints (100M rows of 22 px overflow them): past MAX_ROWS the
    preview shows the first and the last half, numbered as in the file."""
    from planner_app.gui.models import SourcePreviewModel

    monkeypatch.setattr(SourcePreviewModel, "MAX_ROWS", 1_000_000)
    open_and_wait(window, qtbot, big_csv)
    pane = window.data_pane
    model = pane.preview_model
    assert model.rowCount() == 1_000_000 and model.clipped
    assert "the first and the last 500,000 rows" in pane.file_label.text()
    v = Qt.Orientation.Vertical
    assert model.headerData(499_999, v) == "500,000"
    assert model.headerData(500_000, v) == f"{ROWS - 500_000 + 1:,}"
    pane.preview.scrollToBottom()
    qtbot.waitUntil(lambda: model.is_fetched(999_999), timeout=60_000)
    assert model.headerData(999_999, v) == f"{ROWS:,}"
    assert model.data(model.index(999_999, 0)) == str(ROWS - 1)
    wait_for_row(qtbot, model, 500_000)
    assert model.data(model.index(500_000, 0)) == str(ROWS - 500_000)


def test_a_statistics_checks_reuse_the_opening_pass(window, qtbot, big_csv: Path,
                                                     monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Selecting a numeric statistic (its fit, its bounds-look-copied warning) reads nothing
    from the file again: the pass that opened it counted what they need."""
    from planner_app.core.data import facts_reader
    from planner_app.core.planfile import plan_from_dict
    from tests.conftest import plan_dict

    open_and_wait(window, qtbot, big_csv)
    scans: list[str] = []
    real = facts_reader.run
    monkeypatch.setattr(facts_reader, "run", lambda con, sql, *a, **k: (scans.append(sql),
                                                                  real(con, sql, *a, **k))[1])
    q = plan_from_dict(plan_dict(queries=[{"id": "m", "kind": "mean", "column": "age",
                                           "lower": 19, "upper": 87, "epsilon": 1.0}])).queries[0]
    problems, tally = window.session.query_fit(q)
    seen = window.session.column_facts("age")
    assert problems == [] and tally is None
    assert (seen.minimum, seen.maximum) == (19.0, 87.0)  # 18 + i % 70, empty where i % 10 == 0
    from planner_app.core.planning.check import copied_from_data

    assert "own minimum and maximum" in copied_from_data(q, window.session.column_facts)[0]
    assert scans == []
