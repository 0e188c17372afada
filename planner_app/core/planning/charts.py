"""Drawing a preview.Chart with matplotlib (no GUI toolkit): the statistic pane draws on its
Qt canvas with the same ChartDrawing, the report renders PNG for HTML and PDF.

A ChartDrawing keeps its artists: when only the intervals move (a new ε), ``update`` moves the
bars, error bars and axis limits instead of building the axes again."""

from __future__ import annotations

import functools
import io
from typing import Any

from .preview import Chart

BAR = "#5d8aa8"
INTERVAL = "#c0392b"
SPAN = "#d5e8d4"


def _short(label: str, limit: int = 14) -> str:
    return label if len(label) <= limit else label[:limit - 1] + "…"


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
                          ha="right" if len(x) > 6 else "center", fontsize=8)
            ax.set_ylabel(chart.value_label, fontsize=8)
            ax.grid(True, axis="y", alpha=0.3)
            # above the axes, never over a bar
            self.artists["label"] = ax.set_title(" ", loc="left", fontsize=9, color=INTERVAL)
        else:
            ax.set_yticks([])
            ax.set_ylim(-1, 1)
            ax.set_xlabel(chart.value_label, fontsize=8)
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
                                            fontsize=9, color=INTERVAL, zorder=5)
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
            self.artists["label"].set_text(chart.point_label or " ")
        else:
            self.artists["point"].set_xdata([m.centre for m in chart.marks])
            for m in chart.marks:
                if m.low is not None and m.high is not None:
                    whiskers.append([(m.low, 0), (m.high, 0)])
                    caps += [[(x, -0.25), (x, 0.25)] for x in (m.low, m.high)]
            ax.set_xlim(*chart.limits)
            first = chart.marks[0] if chart.marks else None
            label = self.artists["label"]
            label.set_text(chart.point_label)
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
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    bars = chart.shape == "bars"
    fig = Figure(figsize=(width, height if bars else min(height, 1.5)), dpi=dpi)
    FigureCanvasAgg(fig)
    ChartDrawing(fig).draw(chart)
    out = io.BytesIO()
    fig.savefig(out, format="png")
    return out.getvalue()
