"""What ε means, for the selected statistic or the whole release: the plain sentences, the
group effect, δ, the posterior-against-prior chart and published deployments to compare."""

from __future__ import annotations

import json
import math

import numpy as np
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSlider,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.dp.risk import (
    Risk,
    belief_curves,
    explain,
    group_words,
    lower_percent,
    posterior_max,
    posterior_min,
    prior_percent,
    upper_percent,
)
from ...core.planning.changes import OpChanges
from ...core.support.resources import resource_path
from ..refresh import watch
from ..session import Session

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
        ax.legend(loc="lower right", fontsize=8, framealpha=0.9)
        self.note = ax.text(0.02, 0.96, "", transform=ax.transAxes, va="top", fontsize=9)
        self.moving = (self.band, self.upper, self.lower, self.point_hi, self.point_lo,
                       self.guide, self.note)
        for artist in self.moving:
            artist.set_animated(True)
        self._background = None
        self.mpl_connect("draw_event", self._on_draw)

    def _on_draw(self, _event: object) -> None:
        self._background = self.copy_from_bbox(self.figure.bbox)
        self._draw_moving()

    def _draw_moving(self) -> None:
        for artist in self.moving:
            self.axes.draw_artist(artist)

    def show_risk(self, risk: Risk) -> None:
        """Draw the one value the sentences come from: its ε (a group's, if any), its prior
        and its bounds, with the core's formulas and the core's rounding."""
        self.show_bounds(risk.group_epsilon, risk.prior)

    def show_bounds(self, epsilon: float, prior: float) -> None:
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
        self.note.set_text(f"ε = {epsilon:.3g}: from {prior_percent(prior)} to between\n"
                           f"{lower_percent(prior, epsilon)} and {upper_percent(prior, epsilon)}")
        if self._background is None:
            self.draw_idle()
            return
        self.restore_region(self._background)
        self._draw_moving()
        self.blit(self.figure.bbox)


def load_deployments() -> list[dict]:
    return json.loads(resource_path("deployments.json").read_text(encoding="utf-8"))[
        "deployments"]


class RiskPane(QWidget):
    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        layout = QVBoxLayout(self)

        controls = QHBoxLayout()
        self.scope = QComboBox()
        self.scope.addItems(["The whole release", "The selected statistic"])
        self.scope.setToolTip("Explain the composed total of all statistics, or one of them")
        self.scope.setAccessibleName("What to explain")
        controls.addWidget(QLabel("Explain:"))
        controls.addWidget(self.scope)
        controls.addSpacing(16)
        controls.addWidget(QLabel("Attacker's belief before:"))
        self.prior = QSlider(Qt.Orientation.Horizontal)
        self.prior.setRange(1, 99)
        self.prior.setValue(50)
        self.prior.setToolTip("How sure an attacker is, before the release, that a person is "
                              "in the data")
        self.prior.setAccessibleName("Attacker's prior belief in percent")
        self.prior_label = QLabel("50%")
        controls.addWidget(self.prior, 1)
        controls.addWidget(self.prior_label)
        controls.addSpacing(16)
        controls.addWidget(QLabel("People in a group:"))
        self.group = QSpinBox()
        self.group.setRange(1, 50)
        self.group.setToolTip("People who share data, such as a household: the guarantee for "
                              "a group is g × ε")
        self.group.setAccessibleName("Group size")
        controls.addWidget(self.group)
        layout.addLayout(controls)

        split = QSplitter(Qt.Orientation.Horizontal)
        words = QGroupBox("In plain words")
        form = QFormLayout(words)
        self.sentence = QLabel()
        self.lower_text = QLabel()
        self.frequency = QLabel()
        self.group_text = QLabel()
        self.delta_text = QLabel()
        for label, name in ((self.sentence, "Highest belief"), (self.lower_text, "Lowest belief"),
                            (self.frequency, "Right guesses"), (self.group_text, "Groups"),
                            (self.delta_text, "δ")):
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            form.addRow(f"<b>{name}</b>", label)
        # the sentences are never cut off: they scroll when the window is short
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(words)
        scroll.setMinimumWidth(self.fontMetrics().averageCharWidth() * 40)
        split.addWidget(scroll)
        self.chart = RiskChart()
        split.addWidget(self.chart)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        split.setSizes([1000, 1000])  # half each: the sentences read as sentences
        layout.addWidget(split, 3)

        box = QGroupBox("Published deployments, for comparison")
        box_layout = QVBoxLayout(box)
        self.deployments = QTableWidget(0, 6)
        self.deployments.setHorizontalHeaderLabels(
            ["Organisation", "Product", "ε", "δ", "Unit of privacy", "Model"])
        self.deployments.verticalHeader().setVisible(False)
        self.deployments.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.deployments.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.deployments.horizontalHeader().setStretchLastSection(True)
        self.deployments.setAccessibleName("Published deployments of differential privacy")
        for row, d in enumerate(load_deployments()):
            self.deployments.insertRow(row)
            cells = (d["organisation"], d["product"], f"{d['epsilon']:g}",
                     f"{d['delta']:g}" if d["delta"] else "0", d["unit"], d["model"])
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(f"{d['source']}" + (f" — {d['note']}" if d["note"] else ""))
                self.deployments.setItem(row, col, item)
        box_layout.addWidget(self.deployments)
        self.caveat = QLabel("Epsilons with different units or periods do not compare "
                             "directly: a per-day ε is spent again every day.")
        self.caveat.setWordWrap(True)
        box_layout.addWidget(self.caveat)
        layout.addWidget(box, 1)

        for control in (self.scope.currentIndexChanged, self.prior.valueChanged,
                        self.group.valueChanged):
            control.connect(lambda *_: self.refresh())
        self._risk: Risk | None = None
        self.updates = watch(self, session, self.update_for, self.draw_for)
        self.refresh()

    def _affected(self, changes: OpChanges) -> bool:
        return changes.plan or changes.settings or (
            changes.selection and self.scope.currentIndex() == 1)

    def update_for(self, changes: OpChanges) -> None:
        """The sentences, at once; the chart when the pane is shown (``draw_for``)."""
        if self._affected(changes):
            self.refresh(draw=False)

    def draw_for(self, changes: OpChanges) -> None:
        if self._affected(changes) and self._risk is not None:
            self.chart.show_risk(self._risk)

    def current(self) -> tuple[float, float, str]:
        """(ε, δ, what) for the chosen scope."""
        plan = self.session.plan
        if plan is None:
            return 0.0, 0.0, "this release"
        q = self.session.selected_query
        if self.scope.currentIndex() == 1 and q is not None:
            return self.session.query_epsilon(q), q.delta, f"the release of {q.title!r}"
        total = self.session.total()
        return total.epsilon, total.delta, "this release"

    def refresh(self, draw: bool = True) -> None:
        prior = self.prior.value() / 100
        self.prior_label.setText(f"{self.prior.value()}%")
        epsilon, delta, what = self.current()
        relation = self.session.plan.neighbouring if self.session.plan else "add-remove"
        risk = explain(epsilon, delta, prior, self.group.value(), relation, what)
        self.sentence.setText(risk.sentence)
        self.lower_text.setText(risk.lower_sentence)
        self.frequency.setText(risk.frequency_sentence)
        self.group_text.setText(group_words(epsilon, delta, prior, self.group.value()))
        self.delta_text.setText(risk.delta_sentence)
        self._risk = risk
        if draw:
            self.chart.show_risk(risk)  # the chart draws the value the sentences came from
