"""One set of release rules: `planner-app check` / `release` and the wizard's checklist refuse
exactly the same plans (issue 10 §4).

Each case is the demo plan with one thing wrong (or nothing), in its own app home (its own
ledger and settings). Which cases must be refused is written down here from how each case is
built, not computed by the code under test. The CLI's main() runs in this process with the
case's app home (tests.conftest.run_in_process: its exit code, output and stderr are a
process's; a process of its own cost 1 to 2.3 s of CPU, twice per case, issue 23); the wizard
runs offscreen with the unit of privacy ticked, as a user would tick it.
"""

from __future__ import annotations

import copy
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from planner_app.core.planfile import plan_from_dict
from planner_app.core.planning.settings import Settings, save_settings
from planner_app.core.records.ledger import Ledger
from planner_app.core.records.review import review
from planner_app.core.support.field_words import on_screen
from planner_app.core.support.home import app_home
from tests.conftest import DEMO_PLAN, DEMO_TABLE, run_in_process
from tests.gui.conftest import SHOTS

DEMO: dict[str, Any] = json.loads(DEMO_PLAN.read_text(encoding="utf-8"))


def _query(doc: dict[str, Any], qid: str) -> dict[str, Any]:
    return next(q for q in doc["queries"] if q["id"] == qid)


def _drop_reason(qid: str, key: str) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        _query(doc, qid)["justification"].pop(key)
    return change


def _set_reason(qid: str, key: str, text: str) -> Callable[[dict[str, Any]], None]:
    def change(doc: dict[str, Any]) -> None:
        _query(doc, qid)["justification"][key] = text
    return change


def _approve(doc: dict[str, Any]) -> None:
    plan = review(plan_from_dict(doc), "Ada Officer", "approved")
    doc["approvals"] = [dict(a) for a in plan.approvals]


def _approve_then_change(doc: dict[str, Any]) -> None:
    _approve(doc)
    _query(doc, "responses")["epsilon"] = 0.25


# name, change to the plan, lifetime cap (ε, δ) or None, require approval, refused?
# The demo plan's total lies between the caps 3.0 and 3.5 used below, δ = 1e-6 (budget ε = 4,
# δ = 1e-6): test_the_caps_bracket_the_demo_total holds that.
CASES: list[tuple[str, Callable[[dict[str, Any]], None] | None, tuple[float, float] | None,
                  bool, bool]] = [
    ("ready", None, None, False, False),
    ("sum without a reason for its bounds", _drop_reason("income_2025", "bounds"), None,
     False, True),
    ("quantile without a reason", _drop_reason("income_median", "bounds"), None, False, True),
    ("binned histogram without a reason", _drop_reason("age_bands", "bounds"), None, False,
     True),
    ("categories without a reason", _drop_reason("region_counts", "categories"), None,
     False, True),
    ("group keys without a reason", _drop_reason("satisfaction_by_region", "keys"), None,
     False, True),
    ("a TODO placeholder is no reason",
     _set_reason("hours_mean", "bounds", "TODO: where the bounds come from"), None, False,
     True),
    ("over this release's ε", lambda d: d["budget"].update(epsilon=3.0), None, False, True),
    # a Gaussian statistic needs δ > 0: a budget (or a cap) of δ = 0 cannot hold it
    ("over this release's δ", lambda d: d["budget"].update(delta=0.0), None, False, True),
    ("over the lifetime ε", None, (3.0, 1e-5), False, True),
    ("over the lifetime δ", None, (10.0, 0.0), False, True),
    ("within a lifetime cap set by hand", None, (3.5, 1e-5), False, False),
    ("approval required, none", None, None, True, True),
    ("approval required and given", _approve, None, True, False),
    ("approval required, plan changed after it", _approve_then_change, None, True, True),
]
IDS = [c[0] for c in CASES]


def _prepare(tmp_path: Path, case: tuple[Any, ...]) -> tuple[Path, Path]:
    name, change, cap, require, _ = case
    doc = copy.deepcopy(DEMO)
    if change is not None:
        change(doc)
    tmp_path.mkdir(parents=True, exist_ok=True)
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(doc), encoding="utf-8")
    home_dir = tmp_path / "home"
    home = app_home(home_dir).ensure()
    if cap is not None:
        Ledger(home.ledger_path).set_cap("demo-survey", *cap)
    if require:  # the app setting "Require approval before release": both must honour it
        save_settings(Settings(require_approval=True), home.settings_path)
    return plan_file, home_dir


def _cli(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    return run_in_process(args, home)


def _wizard_refuses(qtbot: Any, plan_file: Path, home: Path, shot: str | None) -> bool:
    from planner_app.gui.app import build_window

    window = build_window(str(home))
    qtbot.addWidget(window)
    window.files.load_table(DEMO_TABLE, synchronous=True)
    assert window.files.open_plan(plan_file, confirmed=True)
    wizard = window.launchers.release()
    assert wizard is not None
    qtbot.addWidget(wizard)
    page = wizard.checklist
    assert not page.isComplete()  # never before the unit of privacy is confirmed
    page.confirm_unit.setChecked(True)
    if shot:
        SHOTS.mkdir(parents=True, exist_ok=True)
        wizard.grab().save(str(SHOTS / shot))
    refused = not page.isComplete()
    wizard.close()
    return refused


def test_the_caps_bracket_the_demo_total() -> None:
    """The lifetime cases refuse at a cap of 3.0 and accept at 3.5: the demo's total must lie
    between them for those expectations to hold (so a change of the total fails here, by
    name, rather than as a puzzling case below)."""
    from planner_app.core.planning.check import check_plan

    total = check_plan(plan_from_dict(copy.deepcopy(DEMO))).total
    assert 3.0 < total.epsilon < 3.5 and total.delta <= 1e-5, total


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_cli_and_wizard_refuse_the_same_plans(case: tuple[Any, ...], qtbot: Any,
                                              tmp_path: Path) -> None:
    name, _, _, _, refused = case
    plan_file, home = _prepare(tmp_path, case)
    # check: reports readiness (its exit code stays 0 for a plan it can read)
    checked = _cli(["check", str(plan_file), "--json"], home)
    assert checked.returncode == 0, checked.stderr
    report = json.loads(checked.stdout)
    assert report["ready"] is (not refused), report["rules"]
    failed = [r for r in report["rules"] if r["status"] == "fail"]
    assert bool(failed) is refused and all(r["message"] and r["action"] for r in failed)
    # release: refuses with a one-line message and its exit code, and writes nothing
    out = tmp_path / "bundle.zip"
    released = _cli(["release", str(plan_file), "--data", str(DEMO_TABLE), "--out", str(out)],
                    home)
    if refused:
        assert released.returncode in (2, 3), released.stderr
        assert len(released.stderr.strip().splitlines()) == 1, released.stderr
        assert "Nothing was charged or written" in released.stderr
        assert not out.exists()
        state = Ledger(app_home(home).ledger_path).state("demo-survey")
        assert state.releases == []
    else:
        assert released.returncode == 0, released.stderr
        assert out.exists()
    # the wizard's checklist, in a fresh home prepared the same way
    plan_file, home = _prepare(tmp_path / "gui", case)
    shot = {"binned histogram without a reason": "13-release-checklist-refused.png"}.get(name)
    assert _wizard_refuses(qtbot, plan_file, home, shot) is refused


def test_a_missing_reason_exits_2_naming_the_plan_file_and_field(tmp_path: Path) -> None:
    plan_file, home = _prepare(tmp_path, CASES[3])  # the binned histogram
    done = _cli(["release", str(plan_file), "--data", str(DEMO_TABLE), "--out",
                 str(tmp_path / "b.zip")], home)
    assert done.returncode == 2
    assert done.stderr.startswith("planner-app: error: plan.json: "
                                  "queries[age_bands].justification.bounds: ")
    assert "bin edges" in done.stderr


def test_the_form_asks_and_keeps_a_reason_for_bin_edges(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    """A binned histogram needs a reason for its edges; the form showed no field for it and
    dropped the plan's reason when the statistic was edited."""
    from planner_app.gui.dialogs.query_dialog import QueryDialog

    original = demo.session.plan.query("age_bands")
    dialog = QueryDialog(demo.session, original)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.bounds_reason.isVisible()
    assert dialog.bounds_reason.text() == original.justification["bounds"]
    assert dialog._form.labelForField(dialog.bounds_reason).text() == "Why these bin edges"
    dialog.checks.accept()
    assert dialog.result_plan is not None, dialog.error.text()
    assert dialog.result_plan.query("age_bands") == original


def test_the_statistic_pane_names_the_reasons_the_core_misses(demo) -> None:  # type: ignore[no-untyped-def]
    """The pane took any reason (one for ε included) as a reason for the bounds."""
    from dataclasses import replace

    from planner_app.core.planning.editing import replace_query

    session = demo.session
    q = session.plan.query("income_2025")
    session.apply("only a reason for ε", replace_query(
        session.plan, replace(q, justification={"epsilon": "agreed with the board"})))
    session.select("income_2025")
    demo.statistic_pane.refresh()
    assert "No reason is recorded for the bounds" in demo.statistic_pane.warnings.text()
    session.select("age_bands")
    demo.statistic_pane.refresh()
    assert "No reason" not in demo.statistic_pane.warnings.text()


def test_a_plan_the_core_finds_not_ready_is_explained(demo, qtbot, dialogs) -> None:  # type: ignore[no-untyped-def]
    from planner_app.core.planning.readiness import NotReady

    wizard = demo.launchers.release()
    qtbot.addWidget(wizard)
    exc = NotReady("plan", "queries[age_bands].justification.bounds", "no reason is recorded")
    wizard.progress._failed(exc)
    kind, title, text = dialogs.shown[-1]
    assert kind == "warning" and "not ready" in title
    # the control the plan path names (the command line keeps the path)
    assert on_screen(str(exc)) in text and "queries[" not in text and "Nothing was charged" in text


def test_the_officer_sees_which_reasons_are_missing(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The review listed any recorded text (a reason for ε included) as the reasons."""
    doc = copy.deepcopy(DEMO)
    _query(doc, "income_2025")["justification"] = {"epsilon": "agreed with the board"}
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(doc), encoding="utf-8")
    dialog = window.launchers.review_plan_file(plan_file)
    qtbot.addWidget(dialog)
    table = dialog.statistics
    reasons = [table.horizontalHeaderItem(c).text()
               for c in range(table.columnCount())].index("Reasons")
    rows = {table.item(r, 0).text(): table.item(r, reasons).text()
            for r in range(table.rowCount())}
    assert rows["Total income reported in 2025"] == \
        "epsilon: agreed with the board; NO REASON for the bounds"
    assert rows["Responses by age band"] == "bounds: Standard reporting age bands."
    assert rows["Number of survey responses"] == "none needed"
