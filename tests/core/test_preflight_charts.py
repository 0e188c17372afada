"""The check before the charge draws the report's charts as a trial (charts.TrialCharts):
each kind of chart once, every chart's texts on one figure. It must fail where the full
placeholder report failed, and the bundle must be the one the full placeholder build gave."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from planner_app.cli import main
from planner_app.core.data.tables import load_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.planfile import load_plan
from planner_app.core.planning import charts
from planner_app.core.planning.preview import Chart, Mark
from planner_app.core.release import publish as publish_module
from planner_app.core.release import report
from planner_app.core.release.bundle import read_bundle
from planner_app.core.release.publish import publish
from planner_app.core.support.home import app_home
from planner_app.core.support.resources import demo_plan_path
from tests.conftest import DEMO_TABLE


def _clear_chart_caches() -> None:
    charts.chart_png.cache_clear()
    report.chart_png.cache_clear()


@contextlib.contextmanager
def _full_placeholder_charts() -> Iterator[Any]:
    """The path before the trial: the placeholder report draws every chart in full."""

    class Full:
        embedded = 0

    yield Full()


def _release(folder: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> bytes:
    """A demo release with fixed noise, id, time and file commitment: its bundle's bytes."""
    monkeypatch.setattr(publish_module.uuid, "uuid4", lambda: type("U", (), {"hex": "ab" * 16}))
    monkeypatch.setattr(publish_module, "utc_now", lambda: "2026-01-02T03:04:05Z")
    monkeypatch.setattr(publish_module, "file_commitment",
                        lambda *a, **k: {"scheme": "fixed", "value": "cd" * 32})
    _clear_chart_caches()
    folder.mkdir()
    out = folder / "b.zip"
    publish(load_plan(demo_plan_path()), load_table(DEMO_TABLE), out,
            app_home(folder / "home"), source=SeededRandomSource(seed))
    return out.read_bytes()


def test_the_bundle_is_byte_for_byte_the_one_the_full_placeholder_build_gave(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as full:
        full.setattr(publish_module, "trial_charts", _full_placeholder_charts)
        old = _release(tmp_path / "full", monkeypatch, seed=7)
    new = _release(tmp_path / "trial", monkeypatch, seed=7)
    assert new == old
    other = _release(tmp_path / "other", monkeypatch, seed=8)
    assert other != old  # the comparison sees the noise


def test_the_trial_draws_each_kind_once_and_keeps_nothing(demo_bundle: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    record = json.loads(read_bundle(demo_bundle)["release.json"])  # the session's release
    drawn: list[Chart] = []
    real = charts.render_png
    monkeypatch.setattr(charts, "render_png", lambda c, *a: drawn.append(c) or real(c, *a))
    _clear_chart_caches()
    with charts.trial_charts() as trial:
        page = report.report_html(record)
        report.report_pdf(record)
    kinds = {charts.chart_branches(c) for c in drawn}
    assert len(drawn) == len(kinds) == len(trial.drawn) < len(record["queries"])
    assert charts.chart_png.cache_info().currsize == 0  # the trial's pictures are not cached
    assert page.count("<div class='chart'>") == len(record["queries"])
    # outside the trial the report draws the real charts again
    assert report.report_html(record) == report.report_html(record)
    assert charts.chart_png.cache_info().currsize == len(record["queries"])


COMPACT = re.compile(r"^[−-]?[0-9.]+(e[+-]?[0-9]+)?(T|bn|M|k)?$")


@pytest.mark.parametrize("chart", [
    Chart("bars", tuple(Mark(f"category number {i}", i, i - 0.5, i + 0.5) for i in range(9)),
          "people or rows", None, (0.0, 10.0), "c", point_label="a title"),
    Chart("bars", (Mark("a", 1.0, None, None), Mark("b", 2.0, 1.0, 3.0)), "count", None,
          (0.0, 4.0), "c"),
    Chart("line", (Mark("all", 40.0, 30.0, 50.0),), "mean of age", (16.0, 100.0),
          (10.0, 110.0), "c", point_label="40 (30 to 50)"),
    Chart("line", (Mark("all", 4e6, None, None),), "quantile of income", None, (0.0, 1e7), "c",
          point_label="4M"),
])
def test_chart_texts_names_every_text_a_drawn_chart_holds(chart: Chart) -> None:
    """The trial draws chart_texts for every chart: a text draw writes must be among them (or
    be a number of the value axis)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    fig = Figure(figsize=(6, 2.4), dpi=110)
    FigureCanvasAgg(fig)
    charts.ChartDrawing(fig).draw(chart)
    fig.canvas.draw()
    texts = {t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()}
    listed = set(charts.chart_texts(chart))
    assert texts - listed and all(COMPACT.match(t) for t in texts - listed)
    assert {t for t in listed if t.strip()} <= texts


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    table = tmp_path / "t.csv"
    table.write_text("id,g,h\n" + "".join(f"{i},{'ab'[i % 2]},{'ab'[i % 3 % 2]}\n"
                                           for i in range(300)))
    return {"home": tmp_path / "home", "table": table, "dir": tmp_path}


def _two_histograms(world: dict[str, Path], second: list[str]) -> Path:
    """Two histograms of the same kind of chart: the trial draws only the first in full."""
    plan = {"format": "planner-app/plan@1", "dataset": {"name": "t"},
            "privacy_unit": {"kind": "row"}, "neighbouring": "add-remove",
            "budget": {"epsilon": 2, "delta": 0},
            "queries": [{"id": "g", "kind": "histogram", "column": "g", "categories": ["a", "b"],
                         "epsilon": 1, "justification": {"categories": "p"}},
                        {"id": "h", "kind": "histogram", "column": "h", "categories": second,
                         "epsilon": 1, "justification": {"categories": "p"}}]}
    path = world["dir"] / "plan.json"
    path.write_text(json.dumps(plan))
    return path


def test_a_text_only_a_later_chart_holds_fails_before_the_charge(
        world: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A label matplotlib cannot draw, on a chart whose kind the trial drew already with
    another chart: still refused before the charge (the trial draws every chart's texts)."""
    from matplotlib.backends.backend_agg import RendererAgg

    draw_text = RendererAgg.draw_text

    def fussy(self: Any, gc: Any, x: float, y: float, s: str, *args: Any, **kw: Any) -> Any:
        if s == "b\u2009b":
            raise RuntimeError("this text cannot be drawn")
        return draw_text(self, gc, x, y, s, *args, **kw)

    monkeypatch.setattr(RendererAgg, "draw_text", fussy)
    _clear_chart_caches()
    plan = _two_histograms(world, ["a", "b\u2009b"])
    out = world["dir"] / "b.zip"
    code = main(["--home", str(world["home"]), "release", str(plan), "--data",
                 str(world["table"]), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "cannot be drawn" in err and "nothing was charged" in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()
    _nothing_charged(world)


def _nothing_charged(world: dict[str, Path]) -> None:
    from planner_app.core.records.ledger import Ledger

    ledger = app_home(world["home"]).ledger_path
    assert not ledger.exists() or Ledger(ledger).state("t").releases == []


def test_a_kind_of_chart_that_cannot_be_drawn_fails_before_the_charge(
        world: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    def broken(self: Any, chart: Chart) -> None:
        raise ValueError("no bars today")

    monkeypatch.setattr(charts.ChartDrawing, "draw", broken)
    _clear_chart_caches()
    plan = _two_histograms(world, ["a", "b"])
    out = world["dir"] / "b.zip"
    code = main(["--home", str(world["home"]), "release", str(plan), "--data",
                 str(world["table"]), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "no bars today" in err and "nothing was charged" in err
    assert not out.exists()
    _nothing_charged(world)


def test_a_label_with_dollar_signs_is_drawn_as_written(world: dict[str, Path],
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """A declared category like "$\\foo$" is text, not a formula: matplotlib read it as
    mathtext and could not draw it, so a plan naming it could never be released."""
    world["table"].write_text("id,g,h\n" + "".join(
        f"{i},{'ab'[i % 2]},{['$x$ or $y$', chr(36) + chr(92) + 'foo$'][i % 2]}\n"
        for i in range(300)))
    plan = _two_histograms(world, ["$x$ or $y$", "$\\foo$"])
    out = world["dir"] / "b.zip"
    code = main(["--home", str(world["home"]), "release", str(plan), "--data",
                 str(world["table"]), "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    chart = Chart("bars", (Mark("$\\foo$", 1.0, 0.0, 2.0), Mark("$x$", 1.0, 0.0, 2.0)),
                  "sum of $a$", None, (0.0, 3.0), "c", point_label="")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    fig = Figure()
    FigureCanvasAgg(fig)
    charts.ChartDrawing(fig).draw(chart)
    fig.canvas.draw()
    shown = [t for t in fig.findobj(Text) if t.get_text() in ("$\\foo$", "$x$", "sum of $a$")]
    assert {t.get_text() for t in shown} == {"$\\foo$", "$x$", "sum of $a$"}
    assert not any(t._preprocess_math(t.get_text())[1] for t in shown)  # drawn as written


def test_a_report_error_of_several_lines_is_told_on_one(world: dict[str, Path],
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    """matplotlib's errors come in several lines (mathtext quoted the formula, a caret under
    it); the refusal before the charge is one line."""
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("\n\\foo\n^\nParseFatalException: Unknown symbol")

    monkeypatch.setattr(publish_module, "_report_files", broken)
    plan = _two_histograms(world, ["a", "b"])
    code = main(["--home", str(world["home"]), "release", str(plan), "--data",
                 str(world["table"]), "--out", str(world["dir"] / "b.zip")])
    err = capsys.readouterr().err
    assert code == 2 and "Unknown symbol" in err and "nothing was charged" in err
    assert len(err.strip().splitlines()) == 1, err
    _nothing_charged(world)
