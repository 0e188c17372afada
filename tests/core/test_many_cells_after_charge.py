"""A release of many cells does no per-cell work twice after the charge (issue 22): the
report is made from the plan the release already holds, not from the record's plan read
again (a plan of 10^6 categories takes seconds to read, four times per bundle); its report
is the one the record alone gives, and the bundle verifies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import planner_app.core.planfile as planfile
from planner_app.core.data.tables import Table
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.bundle import read_bundle
from planner_app.core.release.publish import publish
from planner_app.core.release.report import report_html
from planner_app.core.release.verify_release import verify_bundle
from planner_app.core.support.home import app_home
from tests.conftest import plan_dict, with_reasons


def test_a_many_category_release_reads_its_plan_no_more(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    k = 5_000
    rng = np.random.default_rng(7)  # test data only
    frame = pd.DataFrame({"g": [f"c{c}" for c in rng.integers(0, k, 2000)]})
    plan = plan_from_dict(with_reasons(plan_dict(queries=[
        {"id": "h", "label": "Codes", "kind": "histogram", "column": "g",
         "categories": [f"c{i}" for i in range(k)], "epsilon": 1}])))
    reads: list[Any] = []
    real = planfile.plan_from_dict

    def counted(obj: Any, source: str = "plan") -> Any:
        reads.append(source)
        return real(obj, source)

    monkeypatch.setattr(planfile, "plan_from_dict", counted)
    out = tmp_path / "h.zip"
    publish(plan, Table(frame, "t.csv", "0" * 64, "csv"), out,
            app_home(tmp_path / "home").ensure())
    assert reads == []  # before: 8 (the trial report and the bundle's, HTML and PDF, twice each)
    monkeypatch.setattr(planfile, "plan_from_dict", real)
    verdict = verify_bundle(out)
    assert verdict.valid, verdict.problems
    files = read_bundle(out)
    import json

    record = json.loads(files["release.json"])
    assert files["report.html"].decode() == report_html(record)  # the record alone says it
