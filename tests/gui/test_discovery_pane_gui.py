"""The list of statistics says what a discovery publishes (gui25), from its kind: the keys a
threshold tends to find, or a lower and an upper bound; never a ± (a discovery has no
interval). Independent answer: the threshold's own preview (dp/threshold.found_at)."""

from __future__ import annotations

import json
from pathlib import Path

from planner_app.core.dp.threshold import found_at
from planner_app.core.kinds.discover_keys import threshold_of
from planner_app.core.kinds.registry import kind_of


def test_the_list_says_what_a_discovery_finds(  # type: ignore[no-untyped-def]
        window, tmp_path: Path) -> None:
    doc = {"format": "planner-app/plan@1", "dataset": {"name": "census"},
           "privacy_unit": {"kind": "person", "id_column": "pid", "max_rows": 2},
           "budget": {"epsilon": 4.0, "delta": 1e-6},
           "queries": [
               {"id": "jobs", "kind": "discover_keys", "mechanism": "laplace_threshold",
                "column": "occupation", "epsilon": 1.0, "delta": 2e-7},
               {"id": "wages", "kind": "discover_bounds", "column": "wage", "lower": 0,
                "upper": 100000, "epsilon": 2.0,
                "justification": {"bounds": "no weekly wage reaches 100,000"}}]}
    path = tmp_path / "discovery.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert window.files.open_plan(path, confirmed=True)
    model = window.statistics.model
    texts = [model.data(model.index(row, 3)) for row in range(2)]
    plan = window.session.plan
    q = plan.query("jobs")
    m = kind_of(q).measurements(q, plan)[0]
    people = found_at(m.scale, threshold_of(m), window.session.confidence)
    assert texts == [f"keys of {people:,}+ people", "lower and upper bound"], texts
    assert not any("±" in t for t in texts)
    from PySide6.QtCore import Qt

    tip = model.data(model.index(0, 3), Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith(f"threshold {threshold_of(m):,} people") and "Half-width" not in tip
