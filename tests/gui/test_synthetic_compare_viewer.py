"""The owner's comparison of a synthetic table with the real one, reached after the release
from the bundle viewer's "Synthetic tables" tab: with the bundle's own plan, against the table
open in the app or a data file the owner chooses; on screen only, nothing written."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from planner_app.core.planfile import plan_from_dict
from planner_app.core.support.resources import demo_table_path
from planner_app.gui.main_window import MainWindow
from tests.cli.test_synthetic_cli import PLAN

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One release of the synthetic plan over the demo table (the core's publish, as the
    wizard calls it), made in a home of its own."""
    pytest.importorskip("mbi")
    from planner_app.core.data.tables import load_table
    from planner_app.core.release.publish import publish
    from planner_app.core.support.home import app_home

    folder = tmp_path_factory.mktemp("released")
    out = folder / "synth.zip"
    publish(plan_from_dict(PLAN), load_table(demo_table_path()), out, app_home(folder / "home"))
    return out


def tvd(real: pd.Series, synthetic: pd.Series) -> float:
    """(1/2)·Σ|p − q| over the union of values: shares counted here with pandas."""
    p = real.value_counts(normalize=True)
    q = synthetic.value_counts(normalize=True)
    keys = p.index.union(q.index)
    return float(0.5 * (p.reindex(keys, fill_value=0) - q.reindex(keys, fill_value=0))
                 .abs().sum())


def expected(bundle: Path) -> dict[tuple[str, ...], float]:
    """The distances of the categorical marginals, from the two CSVs alone (the demo table
    has at most 3 rows a person and every value declared, so no row is left out)."""
    real = pd.read_csv(demo_table_path(), dtype=str)
    with zipfile.ZipFile(bundle) as z:
        synth = pd.read_csv(io.BytesIO(z.read("synthetic/survey_synth.csv")), dtype=str)
    return {("region",): tvd(real.region, synth.region),
            ("smoker",): tvd(real.smoker, synth.smoker),
            ("region", "smoker"): tvd(real.region + "|" + real.smoker,
                                      synth.region + "|" + synth.smoker)}


def files(*folders: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for f in folders for p in sorted(f.rglob("*")) if p.is_file()}


def open_viewer(window: MainWindow, qtbot, bundle: Path):  # type: ignore[no-untyped-def]
    window.files.open_path(bundle)
    viewer = window.launchers.bundle_dialog
    qtbot.addWidget(viewer)
    qtbot.waitUntil(lambda: viewer.opened is not None, timeout=60_000)
    titles = [viewer.tabs.tabText(i) for i in range(viewer.tabs.count())]
    viewer.tabs.setCurrentIndex(titles.index("Synthetic tables"))
    return viewer


def check(dialog, qtbot, bundle: Path) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: dialog.distances is not None, timeout=120_000)
    got = {d.columns: d.tvd for d in dialog.distances}
    assert list(got) == [("region",), ("age",), ("smoker",), ("region", "age"),
                         ("region", "smoker"), ("age", "smoker")]
    for columns, want in expected(bundle).items():
        assert got[columns] == pytest.approx(want, abs=1e-12), columns
    assert len(dialog.figure.axes[0].patches) == 6


def test_from_the_viewer_with_the_table_open_in_the_app(window, qtbot, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                        bundle: Path) -> None:
    window.files.load_table(demo_table_path(), synchronous=True)
    viewer = open_viewer(window, qtbot, bundle)
    assert viewer.compare_button is not None and viewer.compare_button.isVisibleTo(viewer)
    before = files(tmp_path, bundle.parent)
    viewer.compare_button.click()  # the table open in the app: no file to choose
    dialog = viewer.compare_dialog
    qtbot.addWidget(dialog)
    check(dialog, qtbot, bundle)
    assert dialog.status.text().startswith(f"Compared with {Path(demo_table_path()).name}.")
    assert files(tmp_path, bundle.parent) == before  # nothing written, nothing changed


def test_from_the_viewer_later_with_a_data_file_chosen(window, qtbot, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                       bundle: Path) -> None:
    # a later session: no plan, no table open; the bundle's own plan counts the real rows
    assert window.session.plan is None and window.session.table is None
    viewer = open_viewer(window, qtbot, bundle)
    before = files(tmp_path, bundle.parent)
    dialog = viewer.compare_synthetic(data=demo_table_path())
    qtbot.addWidget(dialog)
    check(dialog, qtbot, bundle)
    assert files(tmp_path, bundle.parent) == before
    # the chosen file was read for this window only: the app has still no table open
    assert window.session.table is None and window.session.plan is None
    assert dialog.choice.currentText() == plan_from_dict(PLAN).query("survey_synth").title


def test_a_reader_without_the_app_gets_no_comparison(qtbot, bundle: Path) -> None:  # type: ignore[no-untyped-def]
    from planner_app.gui.dialogs.review_bundle import BundleDialog

    viewer = BundleDialog(bundle)  # as signed_shots and a reader's viewer open it
    qtbot.addWidget(viewer)
    viewer.verify()
    qtbot.waitUntil(lambda: viewer.opened is not None, timeout=60_000)
    assert viewer.compare_synthetic() is None
    assert viewer.compare_button is None


def test_a_data_file_without_the_columns_gets_one_line(window, qtbot, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                       bundle: Path) -> None:
    wrong = tmp_path / "other.csv"
    wrong.write_text("person_id,region,age\nP1,North,30\n")
    viewer = open_viewer(window, qtbot, bundle)
    before = files(tmp_path, bundle.parent)
    dialog = viewer.compare_synthetic(data=demo_table_path())
    qtbot.addWidget(dialog)
    check(dialog, qtbot, bundle)
    dialog.choose_data(wrong)
    qtbot.waitUntil(lambda: "smoker" in dialog.status.text(), timeout=60_000)
    assert dialog.distances is None and "\n" not in dialog.status.text()
    assert dialog.figure.axes == []  # the first file's bars are not shown as this one's
    assert "Traceback" not in dialog.status.text()
    assert files(tmp_path, bundle.parent) == before
    # the right file then compares in the same window
    dialog.choose_data(demo_table_path())
    check(dialog, qtbot, bundle)
