"""The discovery kinds' own fields (gui25): a discovery of keys' keys per person and whether
the keys' noised counts are published (``max_keys``, ``publish_counts``), a discovery of
bounds' two quantile levels (``quantiles``); and the "Find … privately…" buttons beside the
categories, the group keys and the bounds of every other kind, with what they found."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QCheckBox, QFormLayout, QHBoxLayout, QLabel, QPushButton, QWidget

from ....core.kinds.discover_bounds import DEFAULT_QUANTILES, FoundBoundsParams
from ....core.kinds.discover_keys import KeysParams
from ....core.kinds.shared_form import MAX_KEYS, PUBLISH_COUNTS, QUANTILES
from ....core.model import Query
from ....core.release.discovery_steps import find_button_text
from ...widgets.form_fields import NumberField
from .common import name_controls


class DiscoveryPanel:
    def __init__(self) -> None:
        self.max_keys = NumberField(1)
        self.max_keys.setMaximumWidth(110)
        self.publish_counts = QCheckBox("Publish the noised count of each key found")
        self.quantile_low = NumberField(DEFAULT_QUANTILES[0])
        self.quantile_high = NumberField(DEFAULT_QUANTILES[1])
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.quantile_low)
        row.addWidget(QLabel("and"))
        row.addWidget(self.quantile_high)
        self.quantiles_row = QWidget()
        self.quantiles_row.setLayout(row)
        name_controls({
            self.max_keys: ("Keys per person", "A person counts in at most this many keys "
                                               "(each row holds one)"),
            self.publish_counts: ("Publish the counts", "Publish each found key's noised "
                                                        "count of people, not only the key"),
            self.quantile_low: ("Quantile of the lower bound", "e.g. 0.01, the 1st percentile"),
            self.quantile_high: ("Quantile of the upper bound", "e.g. 0.99, the 99th "
                                                                "percentile"),
        })

    def add_rows(self, form: QFormLayout) -> None:
        form.addRow("Keys per person", self.max_keys)
        form.addRow("", self.publish_counts)
        form.addRow("Quantiles of the bounds", self.quantiles_row)

    def rows(self, fields: frozenset[str]) -> list[tuple[QWidget, bool]]:
        """Each row of the panel, and whether the kind shows it."""
        return [(self.max_keys, MAX_KEYS in fields),
                (self.publish_counts, PUBLISH_COUNTS in fields),
                (self.quantiles_row, QUANTILES in fields)]

    def load(self, q: Query) -> None:
        p = q.params  # the kind's own fields, typed (core/kinds)
        if isinstance(p, KeysParams):
            self.max_keys.setValue(p.max_keys)
            self.publish_counts.setChecked(p.publish_counts)
        elif isinstance(p, FoundBoundsParams):
            low, high = p.quantiles
            self.quantile_low.setValue(low)
            self.quantile_high.setValue(high)

    def write(self, doc: dict[str, Any], fields: frozenset[str]) -> None:
        if MAX_KEYS in fields:
            doc["max_keys"] = self.max_keys.value()
        if PUBLISH_COUNTS in fields and self.publish_counts.isChecked():
            doc["publish_counts"] = True
        if QUANTILES in fields:
            doc["quantiles"] = [self.quantile_low.value(), self.quantile_high.value()]


class FindButtons:
    """"Find the categories / group keys / bounds privately…": ``ask(field)`` runs the
    form's discovery (find_privately.py); each button sits under its field."""

    def __init__(self, ask: Callable[[str], None]) -> None:
        self.buttons: dict[str, QPushButton] = {}
        for field in ("categories", "keys", "bounds"):
            button = QPushButton(find_button_text(field))
            button.setToolTip("Find them in the table privately: a release of its own, "
                              "charged to the dataset's budget, with a signed bundle")
            button.clicked.connect(lambda _checked=False, f=field: ask(f))
            self.buttons[field] = button
        #: field -> the reason "found privately in release …" of what was found and written
        self.reasons: dict[str, str] = {}
        #: the discovery bundles found here, and their release ids
        self.bundles: list[tuple[Any, str]] = []
        self.holders: dict[str, QWidget] = {}

    def add_row(self, form: QFormLayout, field: str) -> None:
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.buttons[field])
        row.addStretch(1)
        self.holders[field] = QWidget()
        self.holders[field].setLayout(row)
        form.addRow("", self.holders[field])

    def rows(self, bounded: bool, categories: bool, groups: bool,
             grouped: bool = True) -> list[tuple[QWidget, bool]]:
        """Each button's row, shown with the field it fills; the group keys' usable only once
        a group column is chosen (``grouped``)."""
        self.buttons["keys"].setEnabled(grouped)
        return [(self.holders["bounds"], bounded), (self.holders["categories"], categories),
                (self.holders["keys"], groups)]

    def kept_reasons(self, doc: dict[str, Any]) -> dict[str, str]:
        """The reasons of what was found here, for the fields the statistic still has (the
        one rule then checks, at release, that each still equals its discovery)."""
        has = {"categories": "categories" in doc, "keys": "group_by" in doc,
               "bounds": "lower" in doc}
        return {field: reason for field, reason in self.reasons.items() if has[field]}
