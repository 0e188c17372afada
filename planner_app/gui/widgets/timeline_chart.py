"""The timeline of a dataset's lifetime spending against its cap (cal26, issue 26): a core
forecast (core/planning/forecast.py) drawn with matplotlib; the widget computes nothing."""

from __future__ import annotations

import datetime as dt

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter, date2num
from matplotlib.figure import Figure

from ...core.planning.forecast import Forecast
from ...core.support.numbers import shown
from ...core.support.words import (
    TIMELINE_AXIS,
    TIMELINE_CAP,
    TIMELINE_EMPTY,
    TIMELINE_GAP,
    TIMELINE_PLANNED,
    TIMELINE_REFUSED,
    TIMELINE_RELEASED,
    TIMELINE_TODAY,
)


def _day(text: str) -> float:
    """A date as matplotlib's date axis holds it (days since its epoch)."""
    return float(date2num(dt.date.fromisoformat(text)))


class TimelineChart(FigureCanvasQTAgg):
    """Lifetime ε after each release: past releases solid, planned ones dashed, the cap a
    red line, a planned release over the cap a cross (the ledger would refuse it)."""

    def __init__(self) -> None:
        self.figure = Figure(figsize=(6.4, 3.4))
        super().__init__(self.figure)
        self.setAccessibleName("Chart of the dataset's lifetime privacy spending over time, "
                               "past and planned, against its cap")
        self.setMinimumHeight(220)
        self.axes = self.figure.add_subplot(111)

    def show_forecast(self, found: Forecast | None) -> None:
        ax = self.axes
        ax.clear()
        ax.xaxis_date()
        if found is None or not found.points:
            ax.text(0.5, 0.5, TIMELINE_EMPTY, ha="center", va="center",
                    transform=ax.transAxes, color="0.4")
            ax.set_xticks([])
            ax.set_yticks([])
            self.draw_idle()
            return
        cap = found.cap.epsilon
        past = [p for p in found.points if not p.planned]
        planned = [p for p in found.points if p.planned]
        fits = [p for p in planned if p.fits]
        over = [p for p in planned if not p.fits]
        if past:
            ax.step([_day(p.date) for p in past], [p.epsilon for p in past], where="post",
                    color="#2471a3", linewidth=2, marker="o", markersize=6, zorder=3,
                    label=TIMELINE_RELEASED)
        gap = found.gap  # planned releases left out: a dotted line, never a flat step
        stepped = fits if gap is None else [p for p in fits
                                            if p.date <= gap[0].date]
        if stepped:
            start = past[-1:] if past else []
            line = start + stepped
            ax.step([_day(p.date) for p in line], [p.epsilon for p in line], where="post",
                    color="#2471a3", linewidth=1.5, linestyle="--", marker="o",
                    markersize=3, markerfacecolor="white", label=TIMELINE_PLANNED)
        if gap is not None:
            ax.plot([_day(gap[0].date), _day(gap[1].date)],
                    [gap[0].epsilon, gap[1].epsilon], color="#2471a3", linewidth=1.2,
                    linestyle=":", label=TIMELINE_GAP.format(n=found.hidden))
            tail = [p for p in fits if p.date > gap[0].date]
            if tail:
                ax.plot([_day(p.date) for p in tail], [p.epsilon for p in tail], "o",
                        color="#2471a3", markersize=3, markerfacecolor="white")
        if over:
            ax.plot([_day(p.date) for p in over], [p.epsilon for p in over], "x",
                    color="#c0392b", markersize=9, markeredgewidth=2,
                    label=TIMELINE_REFUSED)
        ax.axhline(cap, color="#c0392b", linewidth=1.2,
                   label=TIMELINE_CAP.format(cap=shown(cap)))
        ax.axvline(_day(found.today), color="0.6", linewidth=0.8, linestyle=":")
        ax.annotate(TIMELINE_TODAY, (_day(found.today), 0), xytext=(3, 3),
                    textcoords="offset points", fontsize=8, color="0.4")
        top = max([cap, *(p.epsilon for p in found.points)])
        ax.set_ylim(0, top * 1.12)
        ax.set_ylabel(TIMELINE_AXIS)
        locator = AutoDateLocator(maxticks=8)
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))
        ax.grid(True, alpha=0.3)
        ax.legend(loc="lower right", fontsize=8, framealpha=0.95)
        self.figure.tight_layout()
        self.draw_idle()
