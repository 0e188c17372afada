"""The review window's "Compare with an earlier version…": the core's diff (the one
`planner-app diff` prints) in a readable view, at 1x and 200%."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from planner_app.core.planfile import load_plan
from planner_app.core.planning.plan_diff import diff_plans
from tests.conftest import DEMO_PLAN, ROOT
from tests.gui.conftest import SHOTS


def changed_demo(path: Path) -> Path:
    """The demo plan, edited the way a data owner revises one: a bound, an ε, a list, a
    statistic removed and one added, a larger budget."""
    doc: dict[str, Any] = json.loads(DEMO_PLAN.read_text(encoding="utf-8"))
    queries = {q["id"]: q for q in doc["queries"]}
    queries["hours_mean"]["upper"] = 100
    queries["hours_mean"]["epsilon"] = 0.6
    queries["region_counts"]["categories"] = ["North", "South", "East", "Central"]
    del queries["smokers"]
    queries["age_mean"] = {"id": "age_mean", "label": "Mean age", "kind": "mean",
                           "column": "age", "lower": 16, "upper": 100, "epsilon": 0.2,
                           "justification": {"bounds": "Respondents are 16 to 100."}}
    doc["queries"] = list(queries.values())
    doc["budget"]["epsilon"] = 5.0
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


def test_compare_shows_the_cores_diff(window, qtbot, tmp_path: Path,  # type: ignore[no-untyped-def]
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QFileDialog

    new_file = changed_demo(tmp_path / "plan-v2.json")
    window.session.set_confidence(0.9)
    review = window.launchers.review_plan_file(new_file)
    qtbot.addWidget(review)
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(DEMO_PLAN), "")))
    review.compare.click()
    view = review.diff_dialog
    qtbot.addWidget(view)
    expected = diff_plans(load_plan(DEMO_PLAN), load_plan(new_file), 0.9,
                          old_name=DEMO_PLAN.name, new_name=new_file.name)
    assert view.diff == expected  # the same core function, at the window's confidence
    text = view.view.toPlainText()
    for s in expected.statistics:
        assert s.heading in text, s.id
        assert s.accuracy.words in text, s.id
        for f in s.fields:
            assert f.line in text, (s.id, f.line)
    for f in expected.plan_fields:
        assert f.name in text and f.new in text
    assert "more accurate" in text  # hours_mean: more ε
    assert "1 removed, 1 added" in view.summary.text()


def test_a_file_that_is_no_plan_gets_a_message(window, qtbot, dialogs,  # type: ignore[no-untyped-def]
                                               tmp_path: Path) -> None:
    new_file = changed_demo(tmp_path / "plan-v2.json")
    review = window.launchers.review_plan_file(new_file)
    qtbot.addWidget(review)
    bad = tmp_path / "notes.json"
    bad.write_text("{", encoding="utf-8")
    assert review.show_diff_with(bad) is None
    kind, _title, text = dialogs.shown[-1]
    assert kind == "warning" and "notes.json" in text


SHOT = r'''
import json, sys
from pathlib import Path
from PySide6.QtWidgets import QApplication
from planner_app.gui.app import build_window
from tests.gui.layout_check import clipped_texts
from tests.gui.test_plan_diff_view import changed_demo
from tests.conftest import DEMO_PLAN

shots, scale, home = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
app = QApplication.instance() or QApplication([])
w = build_window(str(home))
new_file = changed_demo(home.parent / "plan-v2.json")
review = w.launchers.review_plan_file(new_file)
review.resize(1280, 820)
review.show()
view = review.show_diff_with(DEMO_PLAN)
view.resize(1280, 820)
for _ in range(5):
    app.processEvents()
review.grab().save(str(shots / f"diff-review-{scale}x.png"))
view.grab().save(str(shots / f"diff-view-{scale}x.png"))
print(json.dumps({"review": clipped_texts(review), "view": clipped_texts(view)}))
'''


@pytest.mark.subprocess
@pytest.mark.parametrize("scale", ["1", "2"])
def test_compare_unclipped_at_1x_and_2x(scale: str, tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_SCALE_FACTOR=scale,
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    SHOTS.mkdir(parents=True, exist_ok=True)
    (tmp_path / "home").mkdir()
    done = subprocess.run([sys.executable, "-c", SHOT, str(SHOTS), scale,
                           str(tmp_path / "home")], capture_output=True, text=True,
                          timeout=240, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {"review": [], "view": []}, found


def test_plan_text_in_the_view_is_text_not_markup(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from planner_app.core.planfile import plan_from_dict
    from planner_app.gui.dialogs.plan_diff_view import PlanDiffDialog
    from tests.conftest import plan_dict

    old = plan_dict(justification="<b>old</b>")
    new = plan_dict(justification="<i>new</i> & more",
                    queries=[{"id": "n", "label": "<u>Rows</u>", "kind": "count",
                              "epsilon": 0.5}])
    dialog = PlanDiffDialog(diff_plans(plan_from_dict(old), plan_from_dict(new)))
    qtbot.addWidget(dialog)
    text = dialog.view.toPlainText()
    assert "'<i>new</i> & more'" in text and "'<b>old</b>'" in text
    assert "<u>Rows</u>" in text
