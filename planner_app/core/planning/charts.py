"""Drawing a preview.Chart with matplotlib (no GUI toolkit): the statistic pane draws on its
Qt canvas with the same ChartDrawing, the report renders PNG for HTML and PDF.

A ChartDrawing keeps its artists: when only the intervals move (a new ε), ``update`` moves the
bars, error bars and axis limits instead of building the axes again."""

from __future__ import annotations

import contextvars
import functools
import io
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..support.fonts import chart_fonts, chart_text, undrawable
from .preview import Chart

BAR = "#5d8aa8"
INTERVAL = "#c0392b"
SPAN = "#d5e8d4"
# labels and titles are text as written: "$x$" in a category or column name is no formula
# (matplotlib's mathtext read it as one, and refused "$\\foo$")
TEXT: dict[str, Any] = {"parse_math": False}


def text_style() -> dict[str, Any]:
    """How every text of a chart is drawn: as written (TEXT), in DejaVu Sans with the installed
    fonts that have the letters it lacks (CJK, say) after it (support/fonts.chart_fonts)."""
    return {**TEXT, "fontfamily": list(chart_fonts()[0])}


def _short(label: str, limit: int = 14) -> str:
    """A bar's label, shortened, with the letters no chart font has marked (chart_text)."""
    label = label if len(label) <= limit else label[:limit - 1] + "…"
    return chart_text(label)


def compact(value: float, _pos: object = None) -> str:
    """A tick label: 380M rather than 3.8 with an offset of 1e8."""
    size = abs(value)
    for limit, unit, suffix in ((1e12, 1e12, "T"), (1e9, 1e9, "bn"), (1e6, 1e6, "M"),
                                (1e4, 1e3, "k")):
        if size >= limit:
            return f"{value / unit:g}{suffix}"
    return f"{value:g}"


class ChartDrawing:
    """The artists of one chart on ``figure``; rebuild with ``draw``, move with ``update``."""

    def __init__(self, figure: Any) -> None:
        self.figure = figure
        self.chart: Chart | None = None
        self.artists: dict[str, Any] = {}

    def show(self, chart: Chart) -> bool:
        """Draw ``chart``; True when only the existing artists were moved."""
        if self.chart is not None and self.chart.structure() == chart.structure():
            self.update(chart)
            return True
        self.draw(chart)
        return False

    def draw(self, chart: Chart) -> None:
        from matplotlib.collections import LineCollection

        self.figure.clear()
        ax = self.figure.add_subplot(111)
        self.artists = {"axes": ax}
        if chart.shape == "bars":
            x = list(range(len(chart.marks)))
            self.artists["bars"] = ax.bar(x, [m.centre for m in chart.marks], width=0.6,
                                          color=BAR, alpha=0.75, zorder=2)
            ax.set_xticks(x, [_short(m.label) for m in chart.marks],
                          rotation=30 if len(x) > 6 else 0,
                          ha="right" if len(x) > 6 else "center", fontsize=8, **text_style())
            ax.set_ylabel(chart_text(chart.value_label), fontsize=8, **text_style())
            ax.grid(True, axis="y", alpha=0.3)
            if chart.groups:
                self._group_labels(ax, chart)
            # above the axes, never over a bar
            self.artists["label"] = ax.set_title(" ", loc="left", fontsize=9, color=INTERVAL,
                                                 **text_style())
        else:
            ax.set_yticks([])
            ax.set_ylim(-1, 1)
            ax.set_xlabel(chart_text(chart.value_label), fontsize=8, **text_style())
            if chart.span is not None:
                self.artists["span"] = ax.axvspan(*chart.span, ymin=0.3, ymax=0.7, color=SPAN,
                                                  zorder=1, label="values it can take")
            ax.axhline(0, color="0.4", linewidth=1, zorder=1)
            (self.artists["point"],) = ax.plot([m.centre for m in chart.marks],
                                               [0] * len(chart.marks), "o", color=BAR,
                                               markersize=7, zorder=4)
            for side in ("left", "right", "top"):
                ax.spines[side].set_visible(False)
            self.artists["label"] = ax.text(0, 0.45, "", ha="center", va="bottom",
                                            fontsize=9, color=INTERVAL, zorder=5, **text_style())
        self.artists["whiskers"] = LineCollection([], colors=INTERVAL, linewidths=2, zorder=3)
        self.artists["caps"] = LineCollection([], colors=INTERVAL, linewidths=2, zorder=3)
        ax.add_collection(self.artists["whiskers"])
        ax.add_collection(self.artists["caps"])
        ax.tick_params(labelsize=8)
        from matplotlib.ticker import FuncFormatter

        (ax.yaxis if chart.shape == "bars" else ax.xaxis).set_major_formatter(
            FuncFormatter(compact))
        self.chart = chart
        self.update(chart)
        self.fit()

    @staticmethod
    def _group_labels(ax: Any, chart: Chart) -> None:
        """Each group's label centred under its bars' own labels, and a dotted line between
        groups (a synthetic table: the column's name under its values)."""
        rotated = len(chart.marks) > 6
        longest = max((len(_short(m.label)) for m in chart.marks), default=1)
        # the bars' labels take about this many points below the axis: 8 pt text (0.6 of
        # its size a character, 1.2 a line) turned 30°, after the ticks (3.5) and their pad
        high = 8 * (0.6 * longest * 0.5 + 1.2 * 0.87) if rotated else 8 * 1.2
        below = ax.secondary_xaxis("bottom")
        # bold when DejaVu Sans Bold draws every name: a fallback font (CJK) may have no bold
        # face, and matplotlib says so on stderr
        bold = all(not undrawable(name) for name, _, _ in chart.groups)
        below.set_xticks([(a + b) / 2 for _, a, b in chart.groups],
                         [chart_text(name) for name, _, _ in chart.groups], fontsize=8,
                         fontweight="bold" if bold else "normal", **text_style())
        below.tick_params(axis="x", length=0, pad=high + 3.5 + 3.5 + 3)
        below.spines["bottom"].set_visible(False)
        for _, _, last in chart.groups[:-1]:
            ax.axvline(last + 0.5, color="0.55", linewidth=0.8, linestyle=":", zorder=1)

    def fit(self) -> None:
        """Lay the axes out in the figure's current size (after a resize or a new chart)."""
        try:
            self.figure.tight_layout(pad=0.4)
        except (ValueError, np_error()):  # a figure too small to lay out: keep the old layout
            pass

    def update(self, chart: Chart) -> None:
        ax = self.artists["axes"]
        whiskers: list[list[tuple[float, float]]] = []
        caps: list[list[tuple[float, float]]] = []
        if chart.shape == "bars":
            for i, (rect, m) in enumerate(zip(self.artists["bars"], chart.marks, strict=True)):
                rect.set_height(m.centre)
                if m.low is not None and m.high is not None:
                    whiskers.append([(i, m.low), (i, m.high)])
                    caps += [[(i - 0.12, y), (i + 0.12, y)] for y in (m.low, m.high)]
            ax.set_ylim(*chart.limits)
            self.artists["label"].set_text(chart_text(chart.point_label) or " ")
        else:
            self.artists["point"].set_xdata([m.centre for m in chart.marks])
            for m in chart.marks:
                if m.low is not None and m.high is not None:
                    whiskers.append([(m.low, 0), (m.high, 0)])
                    caps += [[(x, -0.25), (x, 0.25)] for x in (m.low, m.high)]
            ax.set_xlim(*chart.limits)
            first = chart.marks[0] if chart.marks else None
            label = self.artists["label"]
            label.set_text(chart_text(chart.point_label))
            if first is not None:
                label.set_x(first.centre)
        self.artists["whiskers"].set_segments(whiskers)
        self.artists["caps"].set_segments(caps)
        self.chart = chart


def np_error() -> type[Exception]:
    import numpy as np

    return np.linalg.LinAlgError


@functools.lru_cache(maxsize=256)
def chart_png(chart: Chart, width: float = 6.0, height: float = 2.4, dpi: int = 110) -> bytes:
    """The chart as PNG (matplotlib's Agg canvas), for the report. Cached: the HTML and the PDF
    of one report draw the same charts."""
    return render_png(chart, width, height, dpi)


def render_png(chart: Chart, width: float = 6.0, height: float = 2.4, dpi: int = 110) -> bytes:
    """``chart_png`` without its cache."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    bars = chart.shape == "bars"
    fig = Figure(figsize=(width, height if bars else min(height, 1.5)), dpi=dpi)
    FigureCanvasAgg(fig)
    ChartDrawing(fig).draw(chart)
    out = io.BytesIO()
    fig.savefig(out, format="png")
    return out.getvalue()


# ----------------------------------------------------------------------------- trial charts


def chart_texts(chart: Chart) -> list[str]:
    """Every text ChartDrawing.draw writes on the chart besides the value axis's numbers
    (``compact``): the bars' labels, the axis title and the label over a point. Kept beside
    ``draw`` (a test checks that a drawn chart holds no other text)."""
    labels = [_short(m.label) for m in chart.marks] if chart.shape == "bars" else []
    return [*labels, *(chart_text(name) for name, _, _ in chart.groups),
            chart_text(chart.value_label), chart_text(chart.point_label)]


def chart_branches(chart: Chart) -> tuple[Any, ...]:
    """What decides which code ``draw`` and ``update`` run and which artists the PNG holds,
    apart from the texts and the numbers: charts alike in these take the same path. (Bars
    draw no span, a number line no rotated labels.)"""
    with_interval = [m.low is not None and m.high is not None for m in chart.marks]
    if chart.shape == "bars":
        return ("bars", len(chart.marks) > 6, not chart.marks, any(with_interval),
                all(with_interval), bool(chart.groups))
    return (chart.shape, chart.span is None, not chart.marks, any(with_interval),
            all(with_interval))


class TrialCharts:
    """The report's charts as the release's check before the charge draws them: the report is
    built then from placeholder values (publish.preflight_bundle) and thrown away, so the
    pictures need not be the real ones, only fail where the real ones would.

    Each kind of chart (``chart_branches``) is drawn in full once, through the same code as
    ``chart_png``; its PNG stands in for every chart of that kind in the trial report (the
    same size, so the PDF lays out alike). The texts of every chart (``chart_texts``: labels
    from the plan, the axis title, the point's label) are drawn, all together, on one more
    figure by ``check_texts``. The trial's pictures never enter ``chart_png``'s cache."""

    def __init__(self) -> None:
        self.drawn: dict[tuple[Any, ...], bytes] = {}
        self.texts: dict[str, None] = {}  # in order, each once
        self.embedded = 0  # bytes of the PNGs handed out (a report's images, for its size)

    def png(self, chart: Chart) -> bytes:
        kind = chart_branches(chart)
        if kind not in self.drawn:
            self.drawn[kind] = render_png(chart)
        self.texts.update(dict.fromkeys(t for t in chart_texts(chart) if t.strip()))
        self.embedded += len(self.drawn[kind])
        return self.drawn[kind]

    def check_texts(self) -> None:
        """Draw every chart's texts (as draw does: 8 and 9 points, tick labels rotated) on
        one figure; a text matplotlib cannot draw raises here."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        if not self.texts:
            return
        fig = Figure(figsize=(6.0, 2.4), dpi=110)
        FigureCanvasAgg(fig)
        for i, text in enumerate(self.texts):
            fig.text(0.5, (i % 20) / 20, text, fontsize=8, rotation=30 if i % 2 else 0,
                     **text_style())
        fig.canvas.draw()


_TRIAL: contextvars.ContextVar[TrialCharts | None] = contextvars.ContextVar(
    "planner_app_trial_charts", default=None)


@contextmanager
def trial_charts() -> Iterator[TrialCharts]:
    """Within: ``report_chart_png`` draws trial charts (TrialCharts) instead of the real ones;
    on leaving without an error, every chart's texts are drawn (``check_texts``)."""
    trial = TrialCharts()
    token = _TRIAL.set(trial)
    try:
        yield trial
    finally:
        _TRIAL.reset(token)
    trial.check_texts()


def report_chart_png(chart: Chart) -> bytes:
    """The chart as the report embeds it: ``chart_png``, or within ``trial_charts`` its
    trial stand-in."""
    trial = _TRIAL.get()
    return chart_png(chart) if trial is None else trial.png(chart)
