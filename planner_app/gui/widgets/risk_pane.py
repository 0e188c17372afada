"""What ε means, for the selected statistic or the whole release: the plain sentences, the
group effect, δ, the posterior-against-prior chart and published deployments to compare."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

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
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.dp.risk import (
    Risk,
    explain,
    group_size_problem,
    group_words,
)
from ...core.planning.changes import OpChanges
from ...core.support.resources import resource_path
from ...core.support.words import plain_terms
from ..refresh import watch
from ..session import Session
from .form_fields import RED, NoteArea, NumberField, number_problem

if TYPE_CHECKING:  # matplotlib: imported with the first chart
    from .canvases import RiskChart

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
        self.group = NumberField(1)  # kept as typed: the core's rule refuses it (no clamping)
        self.group.setMaximumWidth(self.group.fontMetrics().horizontalAdvance("000") + 24)
        self.group.setAlignment(Qt.AlignmentFlag.AlignRight)
        self._group_size = 1  # the last size allowed: the sentences use it
        self.group.setToolTip("People who share data, such as a household: the guarantee for "
                              "a group is g × ε")
        self.group.setAccessibleName("Group size")
        controls.addWidget(self.group)
        layout.addLayout(controls)
        self.group_error = NoteArea(1, RED)  # its own line, reserved: it moves no field
        self.group_error.setAccessibleName("Why the group size was not changed")
        layout.addWidget(self.group_error)

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
        self._chart: RiskChart | None = None  # made when first shown: matplotlib is not
        self._split = split  # needed to show the window
        split.addWidget(QWidget())
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

        for control in (self.scope.currentIndexChanged, self.prior.valueChanged):
            control.connect(lambda *_: self.refresh())
        self.group.editingFinished.connect(self._group_edited)
        self._risk: Risk | None = None
        self.updates = watch(self, session, self.update_for, self.draw_for)
        self.refresh()

    @property
    def chart(self) -> RiskChart:
        """The chart, made on first use (showing the current risk)."""
        if self._chart is None:
            from .canvases import RiskChart

            self._chart = RiskChart()
            sizes = self._split.sizes()
            old = self._split.replaceWidget(1, self._chart)
            if old is not None:  # the placeholder
                old.deleteLater()
            self._split.setSizes(sizes)
            if self._risk is not None:
                self._chart.show_risk(self._risk)
        return self._chart

    def showEvent(self, event) -> None:  # type: ignore[no-untyped-def]  # noqa: N802
        self.chart  # noqa: B018 - made (and drawn) when the pane is first shown
        super().showEvent(event)

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

    def _group_edited(self) -> None:
        refused = number_problem("People in a group", self.group.text(), group_size_problem,
                                 "is required")
        self.group_error.setText(refused or "")
        self.group_error.setToolTip(refused or "")
        if refused:  # the field keeps what was typed; the sentences keep the last size
            return
        if int(self.group.value()) != self._group_size:
            self._group_size = int(self.group.value())
            self.refresh()

    def refresh(self, draw: bool = True) -> None:
        prior = self.prior.value() / 100
        self.prior_label.setText(f"{self.prior.value()}%")
        epsilon, delta, what = self.current()
        relation = self.session.plan.neighbouring if self.session.plan else "add-remove"
        risk = explain(epsilon, delta, prior, self._group_size, relation, what)
        self.sentence.setText(risk.sentence)
        self.lower_text.setText(risk.lower_sentence)
        self.frequency.setText(risk.frequency_sentence)
        self.group_text.setText(group_words(epsilon, delta, prior, self._group_size))
        self.delta_text.setText(plain_terms(risk.delta_sentence))  # e^ε after plain words
        self._risk = risk
        if draw and self._chart is not None:  # (a chart made later draws it then)
            self.chart.show_risk(risk)  # the chart draws the value the sentences came from
