"""The app's matplotlib canvases, in a module of their own: matplotlib is imported when the
first chart is made (a statistic selected, the risk tab or a bundle shown), not to show the
window."""

from __future__ import annotations

import math

import numpy as np
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure

from ...core.dp.risk import (
    Risk,
    belief_curves,
    lower_percent,
    posterior_max,
    posterior_min,
    prior_percent,
    upper_percent,
)
from ...core.planning.charts import ChartDrawing
from ...core.planning.preview import Chart

PRIORS = np.linspace(0.0, 1.0, 201)


class RiskChart(FigureCanvasQTAgg):
    """Posterior against prior: the diagonal (nothing learned), the upper and lower bounds for
    the current ε, and the point for the chosen prior.

    The axes, labels and legend are drawn once; an update redraws only the curves, the band,
    the points and the note over a cached background (blitting), so moving a slider stays
    fast."""

    def __init__(self) -> None:
        self.figure = Figure(figsize=(5.2, 3.6))
        super().__init__(self.figure)
        self.figure.subplots_adjust(left=0.12, right=0.97, top=0.97, bottom=0.14)
        self.setAccessibleName("Chart of the attacker's belief after the release against "
                               "before it")
        ax = self.axes = self.figure.add_subplot(111)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel("Attacker's belief before the release (prior)")
        ax.set_ylabel("At most / at least after it")
        ax.plot([0, 1], [0, 1], linestyle="--", color="0.5", linewidth=1,
                label="nothing learned")
        ax.grid(True, alpha=0.3)
        (self.band,) = ax.fill(np.r_[PRIORS, PRIORS[::-1]], np.r_[PRIORS, PRIORS[::-1]],
                               color="#f5b7b1", alpha=0.35, linewidth=0)
        (self.upper,) = ax.plot(PRIORS, PRIORS, color="#c0392b", linewidth=2,
                                label="highest belief after")
        (self.lower,) = ax.plot(PRIORS, PRIORS, color="#2471a3", linewidth=2,
                                label="lowest belief after")
        (self.point_hi,) = ax.plot([0.5], [0.5], "o", color="#c0392b", markersize=7)
        (self.point_lo,) = ax.plot([0.5], [0.5], "o", color="#2471a3", markersize=7)
        self.guide = ax.axvline(0.5, color="0.6", linewidth=0.8)
        self.legend = ax.legend(loc="lower right", fontsize=8, framealpha=1.0)
        # on a box of its own: at a large ε the highest-belief curve and the prior's guide ran
        # behind its words
        self.note = ax.text(0.02, 0.96, "", transform=ax.transAxes, va="top", fontsize=9,
                            bbox={"boxstyle": "round,pad=0.3", "facecolor": "white",
                                  "edgecolor": "0.8", "alpha": 0.92})
        # the legend is drawn last, over the curves: at a large ε the lowest-belief curve ran
        # through it and cut its words ("lowest belief afte")
        self.moving = (self.band, self.upper, self.lower, self.point_hi, self.point_lo,
                       self.guide, self.note, self.legend)
        for artist in self.moving:
            artist.set_animated(True)
        self._background = None
        self._legend_pixels = None  # the opaque legend as drawn, put back at each step
        self.mpl_connect("draw_event", self._on_draw)

    def _on_draw(self, _event: object) -> None:
        self._background = self.copy_from_bbox(self.figure.bbox)
        self._legend_pixels = None
        self._draw_moving()

    def _draw_moving(self) -> None:
        """Draw what moves. The legend's words never change and its frame is opaque: after
        its first drawing its frame is drawn again (over the curves) and the pixels inside
        the frame's rounded corners and above its padding are put back, rather than its text
        laid out again (about a third of the chart's time at each slider step)."""
        for artist in self.moving[:-1]:
            self.axes.draw_artist(artist)
        if self._legend_pixels is None:
            self.axes.draw_artist(self.legend)
            # inside the frame by more than its corners' rounding (0.2 font sizes) and less
            # than the padding before any word or line (0.4): only the legend's own pixels
            inset = 0.3 * self.legend.prop.get_size_in_points() * self.figure.dpi / 72
            inner = self.legend.legendPatch.get_window_extent().padded(-inset)
            self._legend_pixels = self.copy_from_bbox(inner)
        else:
            self.axes.draw_artist(self.legend.legendPatch)
            self.restore_region(self._legend_pixels)

    def show_risk(self, risk: Risk) -> None:
        """Draw the one value the sentences come from: its ε (a group's, if any), its prior
        and its bounds, with the core's formulas and the core's rounding (with δ > 0, the
        bounds of ε + ln 2 that the sentences state)."""
        self.show_bounds(risk.bound_epsilon, risk.prior, risk.bound_label)

    def show_bounds(self, epsilon: float, prior: float, label: str | None = None) -> None:
        if not math.isfinite(epsilon):
            epsilon = 1000.0  # the bounds are 0 and 1 long before
        up, lo = belief_curves(PRIORS, epsilon)  # the core's bounds, all priors at once
        self.upper.set_ydata(up)
        self.lower.set_ydata(lo)
        self.band.set_xy(np.column_stack([np.r_[PRIORS, PRIORS[::-1]], np.r_[up, lo[::-1]]]))
        hi_p, lo_p = posterior_max(prior, epsilon), posterior_min(prior, epsilon)
        self.point_hi.set_data([prior], [hi_p])
        self.point_lo.set_data([prior], [lo_p])
        self.guide.set_xdata([prior, prior])
        # two lines: one ran past the chart's right edge at large ε
        label = label or f"ε = {epsilon:.3g}"
        self.note.set_text(f"{label}: from {prior_percent(prior)} to between\n"
                           f"{lower_percent(prior, epsilon)} and {upper_percent(prior, epsilon)}")
        if self._background is None:
            self.draw_idle()
            return
        self.restore_region(self._background)
        self._draw_moving()
        self.blit(self.figure.bbox)


class PreviewCanvas(FigureCanvasQTAgg):
    """The release's look before it exists (a core preview.Chart, drawn by core ChartDrawing).
    A new ε moves the existing artists; only a new statistic builds the axes again."""

    def __init__(self) -> None:
        self.figure = Figure(figsize=(5.2, 2.1))
        super().__init__(self.figure)
        self.setAccessibleName("Picture of the planned release: its values with their "
                               "intervals")
        self.drawing = ChartDrawing(self.figure)
        self.setMinimumHeight(150)

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]  # noqa: N802
        super().resizeEvent(event)
        if self.drawing.chart is not None:
            self.drawing.fit()

    def show_chart(self, chart: Chart, now: bool = False) -> None:
        self.drawing.show(chart)
        if now:
            self.draw()
        elif self.isVisible():
            self.draw_idle()  # a slider drag coalesces into one paint per event-loop turn
        # hidden (another tab): the artists are current; showEvent paints them

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]  # noqa: N802
        super().showEvent(event)
        self.draw_idle()
