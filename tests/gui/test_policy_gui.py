"""The organisation's policy in the app (issue 12): the approval tick locked on, the policy's
caps and violations on the Budget tab, the meter and the wizard's checklist, which refuses;
screenshots at 1x and 2x without clipped text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from planner_app.core.records.keys import KeyStore
from planner_app.core.records.policy import PolicyStore
from planner_app.core.support.home import app_home
from tests.gui.conftest import SHOTS, offscreen_screen

ROOT = Path(__file__).resolve().parents[2]


def install_policy(tmp: Path, home: Path, **fields: Any) -> None:
    """An officer (in their own app home) signs a policy; ``home`` installs it."""
    store = KeyStore(app_home(tmp / "officer-home"))
    if "officer" not in store.names():
        store.create("officer")
    officer = store.public("officer")
    approval = fields.pop("approval", False)
    doc = {"format": "planner-app/policy@1", "version": 1, "name": "Statistics office 2026",
           **fields}
    if "max_epsilon_per_release" in doc:
        doc.setdefault("max_delta_per_release", 1e-6)
    if approval:
        doc["require_approval_by"] = [{"name": "Ada Officer", "key": officer.line}]
    path = tmp / "policy.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    (tmp / "policy.json.minisig").write_text(
        store.secret("officer").sign(path.read_bytes(), "policy"), encoding="utf-8")
    PolicyStore(app_home(home)).install(path, officer)


def test_the_policy_locks_the_approval_tick(qtbot, tmp_path: Path, dialogs) -> None:  # type: ignore[no-untyped-def]
    from planner_app.core.support.resources import demo_plan_path, demo_table_path
    from planner_app.gui.app import build_window

    home = tmp_path / "home"
    install_policy(tmp_path, home, approval=True, max_epsilon_per_release=3)
    window = build_window(str(home))
    qtbot.addWidget(window)
    window.show()
    action = window.menus.require_action
    assert action.isChecked() and not action.isEnabled()
    assert "Statistics office 2026" in action.toolTip()
    action.trigger()  # even if a trigger got through, the policy decides
    assert action.isChecked() and window.session.approval_required
    assert window.session.settings.require_approval is False  # the owner's own setting
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(demo_plan_path(), confirmed=True)
    rules = window.session.release_rules()
    assert {r.rule for r in rules.failures} == {"approval", "policy-release"}
    assert "Refused by the policy" in window.meter.text.text()
    window.launchers.show_policy()
    kind, title, text = dialogs.shown[-1]
    assert kind == "information" and "At most ε = 3 per release." in text
    # an edited policy in the app home: every rule fails closed, the wizard says why
    path = app_home(home).data_dir / "policy" / "policy.json"
    path.write_bytes(path.read_bytes().replace(b"3", b"30"))
    wizard = window.launchers.release()
    qtbot.addWidget(wizard)
    wizard.checklist.confirm_unit.setChecked(True)
    assert "cannot be trusted" in wizard.checklist.items.text()
    assert not wizard.checklist.isComplete()


SCALED = r'''
import json, sys
from pathlib import Path
from PySide6.QtWidgets import QApplication
from planner_app.core.support.resources import demo_plan_path, demo_table_path
from planner_app.gui.app import build_window
from tests.gui.layout_check import clipped_texts

shots, scale, home = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
app = QApplication.instance() or QApplication([])
w = build_window(home)
w.resize(1280, 820)
w.show()
w.files.load_table(demo_table_path(), synchronous=True)
w.files.open_plan(demo_plan_path(), confirmed=True)
w.show_tab(2)
def settle():
    for _ in range(5):
        app.processEvents()
settle()
out = {"tick": [w.menus.require_action.isChecked(),
                w.menus.require_action.isEnabled(),
                w.menus.require_action.toolTip()],
       "budget_text": w.budget_pane.policy_text.text(), "meter": w.meter.text.text()}
w.grab().save(str(shots / f"90-policy-budget-{scale}x.png"))
out["clipped_window"] = clipped_texts(w, tables=False)
wizard = w.launchers.release()
wizard.resize(900, 640)
wizard.checklist.confirm_unit.setChecked(True)
settle()
wizard.grab().save(str(shots / f"91-policy-wizard-{scale}x.png"))
out["checklist"] = wizard.checklist.items.text()
out["complete"] = wizard.checklist.isComplete()
out["clipped_wizard"] = clipped_texts(wizard)
print(json.dumps(out))
'''


@pytest.mark.subprocess
@pytest.mark.parametrize("scale", ["1", "2"])
def test_policy_views_at_1x_and_2x(scale: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    install_policy(tmp_path, home, max_epsilon_per_release=3,
                   lifetime_caps={"demo-survey": {"epsilon": 8, "delta": 1e-5}},
                   default_lifetime_cap={"epsilon": 10, "delta": 1e-5},
                   forbidden_columns=["Smoker"], require_reasons=True)
    env = dict(os.environ, QT_QPA_PLATFORM=offscreen_screen(tmp_path, scale),  # windows fit it
               QT_SCALE_FACTOR=scale,
               PYTHONPATH=str(ROOT))
    SHOTS.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, "-c", SCALED, str(SHOTS), scale, str(home)],
                          capture_output=True, text=True, timeout=240, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["tick"][:2] == [False, True]  # this policy does not require approval
    assert "at most ε = 3, δ = 1e-06 per release" in found["budget_text"]
    assert "lifetime cap of 'demo-survey' ε = 8" in found["budget_text"]
    assert "Refused by the policy" in found["meter"]
    assert "allows at most ε = 3 per release" in found["checklist"]
    assert "forbids: smoker" in found["checklist"]
    assert found["complete"] is False
    assert found["clipped_window"] == [] and found["clipped_wizard"] == [], found


def test_the_review_window_counts_the_policys_officers_not_the_homes_trusted_keys(
        qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Under a policy that names its officers, the review window says whether an approval
    counts by the same core rule as the release (policy.approval_rule)."""
    from planner_app.core.planfile import load_plan
    from planner_app.core.records.audit import AuditLog
    from planner_app.core.records.review import approval_status, record_review
    from planner_app.core.support.resources import demo_plan_path
    from planner_app.gui.dialogs.review_bundle import ReviewDialog

    home = tmp_path / "home"
    install_policy(tmp_path, home, approval=True)
    owner_store = KeyStore(app_home(home))
    owner_store.create("owner")
    owner_store.trust(owner_store.export("owner", tmp_path / "owner.pub"))
    plan_path = tmp_path / "plan.json"
    plan_path.write_bytes(demo_plan_path().read_bytes())
    plan = record_review(plan_path, load_plan(plan_path), "owner", "approved", "mine",
                         AuditLog(app_home(home).ensure().audit_path),
                         key=owner_store.secret("owner"))
    dialog = ReviewDialog(plan, plan_path, app_home(home))
    qtbot.addWidget(dialog)
    officer = KeyStore(app_home(tmp_path / "officer-home")).public("officer")
    trusted = dialog._trusted()
    assert trusted is not None and [(k.key_id, k.key) for k in trusted] == \
        [(officer.key_id, officer.key)]
    # what the window says is what a release decides: not approved by the policy's officer
    assert approval_status(plan, trusted).state != "approved"
    assert approval_status(plan, trusted).sentence in dialog.status_text()
