"""The Statistic tab of a Gaussian discovery of keys (core25): "How the noise is set" names
the Gaussian's σ and says the threshold draws no noise of its own (the core's words), rather
than a bare mechanism name."""

from __future__ import annotations

import json
from pathlib import Path

from planner_app.core.support.resources import demo_table_path

PLAN = {"format": "planner-app/plan@1", "dataset": {"name": "demo-survey"},
        "privacy_unit": {"kind": "person", "id_column": "person_id", "max_rows": 3},
        "neighbouring": "add-remove", "budget": {"epsilon": 2.0, "delta": 1e-6},
        "queries": [{"id": "regions", "kind": "discover_keys",
                     "mechanism": "gaussian_threshold", "column": "region", "epsilon": 1.0,
                     "delta": 1e-6}]}


def test_the_statistic_tab_names_the_gaussian_and_the_threshold(window, qtbot,  # type: ignore[no-untyped-def]
                                                                  tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(PLAN), encoding="utf-8")
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(path, confirmed=True)
    window.session.select("regions")
    window.tabs.setCurrentIndex(1)
    pane = window.statistic_pane
    qtbot.waitUntil(lambda: "threshold" in pane.derivation.text(), timeout=10_000)
    text = pane.derivation.text()
    assert "discrete Gaussian noise with noise scale (σ) = " in text  # plain_terms
    assert "the threshold: a key only one person holds" in text
    assert "no noise of its own: it adds to δ, not to ε." in text
    assert "; threshold." not in text
