"""The selected statistic: ε as a log-scale slider and a spin box, and its accuracy as an
editable field. Editing either updates the other through the core."""

from __future__ import annotations

import math
from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtGui import QDoubleValidator
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from ...core.dp.accuracy import UNIT_WORDS, shown_half_width, shown_unit
from ...core.dp.risk import explain
from ...core.kinds import kind_of
from ...core.kinds.shared_dp import central_share_hint, epsilon_for_shown_target, useless_warning
from ...core.model import epsilon_problem
from ...core.planning.changes import OpChanges
from ...core.planning.preview import preview_for
from ...core.support.field_words import on_screen
from ...core.support.words import (
    confidence_percent,
    noise_words,
    plain_terms,
    squared_unit_words,
)
from ..refresh import watch
from ..session import Session
from .form_fields import RED, NoteArea, NumberField, number_problem

if TYPE_CHECKING:  # matplotlib: imported with the first chart
    from .canvases import PreviewCanvas

SLIDER_STEPS = 1000
LOG_MIN, LOG_MAX = -3.0, 1.0  # ε from 0.001 to 10 on the slider; the spin box goes further


def slider_to_epsilon(value: int) -> float:
    return float(f"{10 ** (LOG_MIN + (LOG_MAX - LOG_MIN) * value / SLIDER_STEPS):.3g}")


def epsilon_to_slider(epsilon: float) -> int:
    if epsilon <= 0:
        return 0
    pos = (math.log10(epsilon) - LOG_MIN) / (LOG_MAX - LOG_MIN) * SLIDER_STEPS
    return int(round(min(max(pos, 0), SLIDER_STEPS)))


class StatisticPane(QWidget):
    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        # the pane scrolls when the window is too short for it (at 200% scaling, say) rather
        # than squeezing the picture under its caption
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        content = QWidget()
        scroll.setWidget(content)
        layout = QVBoxLayout(content)
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        layout.addWidget(self.title)

        budget = QGroupBox("Privacy and accuracy — change either one")
        form = QFormLayout(budget)
        row = QHBoxLayout()
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, SLIDER_STEPS)
        self.slider.setToolTip("ε on a log scale: left is more private and noisier, right is "
                               "more accurate and less private")
        self.slider.setAccessibleName("Epsilon slider")
        self.spin = NumberField()  # kept as typed: the core's rule refuses it (no clamping)
        self.spin.setMaximumWidth(self.spin.fontMetrics().horizontalAdvance("0.000000") + 24)
        self.spin.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.spin.setToolTip("This statistic's share of the privacy budget (ε)")
        self.spin.setAccessibleName("Epsilon")
        row.addWidget(QLabel("more private"))
        row.addWidget(self.slider, 1)
        row.addWidget(QLabel("more accurate"))
        row.addWidget(self.spin)
        form.addRow("ε", row)
        self.epsilon_error = NoteArea(1, RED)  # its own line, reserved: it moves no field
        self.epsilon_error.setAccessibleName("Why ε was not changed")
        form.addRow("", self.epsilon_error)
        acc_row = QHBoxLayout()
        self.accuracy = QLineEdit()
        self.accuracy.setValidator(QDoubleValidator(0.0, 1e18, 6))
        self.accuracy.setToolTip("Type the accuracy you need (the ± half-width at the confidence "
                                 "shown) and press Enter: the app finds the ε for it")
        self.accuracy.setAccessibleName("Accuracy plus or minus")
        self.accuracy_unit = QLabel()
        acc_row.addWidget(QLabel("±"))
        acc_row.addWidget(self.accuracy, 1)
        acc_row.addWidget(self.accuracy_unit)
        self.accuracy_label = QLabel()
        form.addRow(self.accuracy_label, acc_row)
        self.hold = QCheckBox("Hold this ε when the budget is split among the others")
        self.hold.setToolTip("A held statistic keeps its ε when you split the budget")
        form.addRow("", self.hold)
        self.accuracy_note = QLabel()
        self.accuracy_note.setWordWrap(True)
        form.addRow("", self.accuracy_note)
        layout.addWidget(budget)

        picture = QGroupBox("What the release will look like")
        picture_layout = QVBoxLayout(picture)
        self._preview: PreviewCanvas | None = None  # made for the first statistic shown
        self._picture_layout = picture_layout  # (matplotlib is not needed to show the window)
        self.preview_caption = QLabel()
        self.preview_caption.setWordWrap(True)
        self.preview_caption.setStyleSheet("color: #555;")
        picture_layout.addWidget(self.preview_caption)
        self.preview_box = picture
        layout.addWidget(picture, 3)

        # a synthetic table: what its budget buys (core.dp.synthetic.preview, public only)
        self.synthetic_box = QGroupBox("What this synthetic table's budget buys")
        synth_layout = QVBoxLayout(self.synthetic_box)
        self.synthetic = QLabel()
        self.synthetic.setWordWrap(True)
        self.synthetic.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        synth_layout.addWidget(self.synthetic)
        self.synthetic_box.setVisible(False)
        layout.addWidget(self.synthetic_box)

        about = QGroupBox("How the noise is set")
        about_layout = QVBoxLayout(about)
        self.derivation = QLabel()
        self.derivation.setWordWrap(True)
        self.derivation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        about_layout.addWidget(self.derivation)
        layout.addWidget(about)

        means = QGroupBox("What this ε means")
        means_layout = QVBoxLayout(means)
        self.sentence = QLabel()
        self.sentence.setWordWrap(True)
        means_layout.addWidget(self.sentence)
        layout.addWidget(means)

        self.warnings = QLabel()
        self.warnings.setWordWrap(True)
        self.warnings.setStyleSheet("color: #b9770e;")
        layout.addWidget(self.warnings)
        self.edit_button = QPushButton("Edit the definition…")
        self.edit_button.setToolTip("Change the column, bounds, categories, conditions or "
                                    "mechanism of this statistic")
        layout.addWidget(self.edit_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addStretch(1)

        self.slider.valueChanged.connect(self._slider_moved)
        self.slider.sliderReleased.connect(self.session.end_merge)
        self.spin.editingFinished.connect(self._spin_changed)
        self.accuracy.editingFinished.connect(self._accuracy_entered)
        self.hold.toggled.connect(self._hold_toggled)
        self.updates = watch(self, session, self.update_for)  # labels at once: never stale
        # a large table's checks arrive from a worker (the window never waits for a scan)
        session.dataAnswered.connect(self._data_answered)
        self.refresh()

    # -- edits --------------------------------------------------------------------------------

    def _query(self):  # type: ignore[no-untyped-def]
        return self.session.selected_query

    def _unit_rows(self) -> tuple[str | None, int]:
        """The unit's id column and rows a person, for a count's words."""
        plan = self.session.plan
        if plan is None:
            return None, 1
        return plan.privacy_unit.id_column, plan.privacy_unit.rows_per_unit

    def _slider_moved(self, value: int) -> None:
        q = self._query()
        if q is not None:
            self.session.set_epsilon(q.id, slider_to_epsilon(value),
                                     dragging=self.slider.isSliderDown())

    def _spin_changed(self) -> None:
        q = self._query()
        if q is None or not self.spin.isModified():
            return
        refused = number_problem("ε", self.spin.text(), epsilon_problem, "is required")
        self.epsilon_error.setText(refused or "")
        self.epsilon_error.setToolTip(refused or "")
        if refused:  # the field keeps what was typed; the plan keeps its ε
            return
        self.spin.setModified(False)
        value = float(self.spin.value())
        if not math.isclose(value, q.epsilon, rel_tol=1e-9):
            self.session.set_epsilon(q.id, value)

    def _accuracy_entered(self) -> None:
        q = self._query()
        plan = self.session.plan
        if q is None or plan is None or not self.accuracy.isModified():
            return
        self.accuracy.setModified(False)
        try:
            target = float(self.accuracy.text().replace(",", ""))
        except ValueError:
            return
        eps = epsilon_for_shown_target(q, plan, target, self.session.confidence)
        if eps is None:
            self.accuracy_note.setText(f"No ε up to 1000 reaches ± {target:g}; the current ε "
                                       "is kept.")
            self.refresh()
            return
        self.session.set_epsilon(q.id, eps)

    def _hold_toggled(self, on: bool) -> None:
        q = self._query()
        if q is not None:
            self.session.set_held(q.id, on)

    # -- view ---------------------------------------------------------------------------------

    def update_for(self, changes: OpChanges) -> None:
        """Bring the pane up to date with what changed, and only that."""
        if changes.selection or changes.touches(self.session.selected) or changes.table \
                or changes.column_types or changes.review or changes.relations \
                or self._related_changed(changes):
            self.refresh()
        elif changes.held:
            q = self._query()
            with QSignalBlocker(self.hold):
                self.hold.setChecked(q is not None and q.id in self.session.held)

    def _related_changed(self, changes: OpChanges) -> bool:
        """gui27: another statistic in the same relations changed (its ε moves the selected
        one's consistent ±)."""
        from ...core.planfile.relations import related_ids

        plan, selected = self.session.plan, self.session.selected
        if not changes.statistics or plan is None or plan.consistency is None:
            return False
        related = set(related_ids(plan.consistency.relations))
        return selected in related and bool(related & changes.statistics)

    def refresh(self) -> None:
        self.accuracy_label.setText(f"Accuracy ({confidence_percent(self.session.confidence)})")
        q = self._query()
        enabled = q is not None
        for w in (self.slider, self.spin, self.accuracy, self.hold, self.edit_button):
            w.setEnabled(enabled)
        if q is None:
            self.title.setText("<i>No statistic selected. Add one with Edit → Add statistic… "
                               "(or the toolbar).</i>")
            # nothing of the plan shown before stays: its ε, its ± and what they mean
            with QSignalBlocker(self.slider), QSignalBlocker(self.spin):
                self.slider.setValue(0)
                self.spin.setText("")  # the box shows no ε at all
                self.spin.setModified(False)
                self.epsilon_error.setText("")
            self.accuracy.setText("")
            self.accuracy.setModified(False)
            for label in (self.derivation, self.sentence, self.warnings, self.accuracy_note,
                          self.accuracy_unit):
                label.setText("")
            self.refresh_preview(None)
            self.refresh_synthetic(None)
            return
        blockers = [QSignalBlocker(w) for w in (self.slider, self.spin, self.hold)]
        self.slider.setValue(epsilon_to_slider(q.epsilon))
        if not self.spin.isModified():  # a refused ε stays as typed, with its red line
            self.spin.setText(f"{q.epsilon:.6g}")
            self.epsilon_error.setText("")
        self.hold.setChecked(q.id in self.session.held)
        del blockers
        acc = self.session.accuracy(q)
        shown = shown_half_width(acc)
        # the plan's ± unless a person is typing a target (not yet entered); after Enter, or
        # when ε changed any other way, the box shows the ± of the ε the plan holds now
        if not (self.accuracy.hasFocus() and self.accuracy.isModified()):
            self.accuracy.setText("" if shown is None or not math.isfinite(shown)
                                  else f"{shown:.6g}")
        unit = shown_unit(acc)
        self.accuracy_unit.setText(squared_unit_words(q.column) if unit == "squared"
                                   else UNIT_WORDS.get(unit, unit))
        if kind_of(q).releases_table():  # which count the ± is of (one-way; pairs beside it)
            self.accuracy_unit.setText(plain_terms(self._synth_accuracy_words(q, shown)))
        notes = [kind_of(q).pane_accuracy_note(q, acc)]
        useless = useless_warning(q, acc)
        if useless is not None:
            notes.append(f"⚠ {useless[0].upper()}{useless[1:]}")
        central = central_share_hint(q, acc)
        if central is not None:
            notes.append(central)
        self.accuracy_note.setText(on_screen(plain_terms("\n".join(n for n in notes if n))))
        self.refresh_preview(q, acc)
        # the plan is text from other people: escaped, never read as markup
        heading, column = kind_of(q).pane_heading(q, *self._unit_rows())
        self.title.setText(f"<h3>{escape(q.title)}</h3>" + escape(heading)
                           + (f"<b>{escape(column)}</b>" if column else "")
                           + (f", grouped by {escape(q.group_by.column)}" if q.group_by
                              else ""))
        ms = self.session.measurements(q)
        lines = []
        for m in ms:
            noise = noise_words(m.mechanism, m.scale_value, m.sigma_value)
            lines.append(f"• {m.component.derivation}; {noise}.")
        self.derivation.setText(plain_terms("\n".join(lines)))  # the record's words, plainly
        eps = self.session.query_epsilon(q)
        plan = self.session.plan
        assert plan is not None
        self.sentence.setText(explain(eps, q.delta, relation=plan.neighbouring,
                                      what="this statistic alone").sentence)
        self.warnings.setText("\n".join(self._warnings(q)))
        self.refresh_synthetic(q)

    def _synth_accuracy_words(self, q, shown: float | None) -> str:  # type: ignore[no-untyped-def]
        from ...core.kinds.synthetic import table_preview
        from ...core.support.words import synth_accuracy_words

        plan = self.session.plan
        if plan is None:
            return ""
        sigmas = {m.name.split(":")[0]: m.sigma for m in table_preview(q, plan).measurements
                  if m.sigma is not None}
        return synth_accuracy_words(shown, sigmas.get("oneway"), sigmas.get("twoway"))

    def refresh_synthetic(self, q) -> None:  # type: ignore[no-untyped-def]
        """A synthetic table's preview from the core: each measurement with its noise at the
        planned ε, and the expected error of its marginals (public parameters only)."""
        plan = self.session.plan
        if q is None or plan is None or not kind_of(q).releases_table():
            self.synthetic_box.setVisible(False)
            return
        from ...core.dp.synthetic import measured_lines, preview_lines
        from ...core.kinds.synthetic import table_preview

        p = table_preview(q, plan)
        lines = [f"• {line}" for line in measured_lines(p)]
        said = [f"{t[0].upper()}{t[1:]}." for t in preview_lines(p)]
        said_text = "\n".join([*said, "", "Measured:", *lines, "",
                               f"{p.note[0].upper()}{p.note[1:]}."])
        self.synthetic.setText(on_screen(plain_terms(said_text)))
        self.synthetic_box.setVisible(True)

    @property
    def preview(self) -> PreviewCanvas:
        if self._preview is None:
            from .canvases import PreviewCanvas

            self._preview = PreviewCanvas()
            self._picture_layout.insertWidget(0, self._preview)
        return self._preview

    def refresh_preview(self, q, acc=None) -> None:  # type: ignore[no-untyped-def]
        """Redraw the picture of the release for ``q`` (None: no statistic) from the plan and
        the accuracy the text shows (``acc``; the session's when None) — never from the
        table."""
        plan = self.session.plan
        if q is None or plan is None or kind_of(q).releases_table():  # its own preview, below
            self.preview_box.setVisible(False)
            return
        self.preview_box.setVisible(True)
        acc = acc if acc is not None else self.session.accuracy(q)
        chart = self._headline_preview(q, plan, acc)
        self.preview.show_chart(chart)
        self.preview_caption.setText(" ".join(t for t in (chart.caption, chart.more,
                                                          self._consistent_words(q, acc))
                                              if t))

    def _headline_preview(self, q, plan, acc):  # type: ignore[no-untyped-def]
        """The core's preview; its error bars the consistent values' ± when those are the
        headline values (release/consistent.headline_preview)."""
        from ...core.planfile.relations import related_ids
        from ...core.release.consistent import headline_preview
        from ...core.support.errors import InputError

        if plan.consistency is None or q.id not in related_ids(plan.consistency.relations):
            return preview_for(q, plan, acc)
        try:
            ms = {qid: self.session.measurements(plan.query(qid))
                  for qid in related_ids(plan.consistency.relations)}
        except (InputError, KeyError):  # a relation an edit left stale: the reader names it
            return preview_for(q, plan, acc)
        return headline_preview(q, plan, acc, ms, self.session.confidence)

    def _consistent_words(self, q, acc) -> str:  # type: ignore[no-untyped-def]
        """gui27: a statistic in the plan's relations: its consistent values' planned ±
        beside the raw ones', and which are the headline values (the core's words)."""
        from ...core.planfile.relations import related_ids
        from ...core.release.consistent import planned_consistent_words
        from ...core.support.errors import InputError

        plan = self.session.plan
        if plan is None or plan.consistency is None or \
                q.id not in related_ids(plan.consistency.relations):
            return ""
        try:
            ms = {qid: self.session.measurements(plan.query(qid))
                  for qid in related_ids(plan.consistency.relations)}
            return planned_consistent_words(plan, ms, q.id, acc.half_width,
                                            self.session.confidence)
        except (InputError, KeyError):  # a relation an edit left stale: the reader names it
            return ""

    def _data_answered(self, kind: str) -> None:
        q = self._query()
        if kind == "query" and q is not None:
            self.warnings.setText(on_screen("\n".join(self._warnings(q))))

    def _warnings(self, q) -> list[str]:  # type: ignore[no-untyped-def]
        from ...core.planning.readiness import missing_reasons

        # the core's plan/table rule and its copied-from-data warnings: on a worker for a
        # large table (None until they arrive)
        checks = self.session.ask_query_checks(q)
        if checks is None:
            table = self.session.table  # None only while a table is read: there is one
            out = [f"Checking this statistic against {table.name if table else 'the table'}…"]
            problems, tally = [], None
        else:
            out = [f"⚠ {w[0].upper()}{w[1:]}." for w in checks.notes]
            problems, tally = checks.problems, checks.tally
        out += [f"✗ {p.problem[0].upper()}{p.problem[1:]}." for p in problems]
        if tally is not None and tally.neither:
            out.append(f"For you only (never exported): {tally.neither:,} cells of {q.column} "
                       "are neither a yes nor a no value; they count as missing.")
        missing = [what for _, what in missing_reasons(q)]  # the core's reasons rule
        if missing:
            out.append(f"No reason is recorded for the {' and '.join(missing)} yet (Edit the "
                       "definition…); a release needs one.")
        return out
