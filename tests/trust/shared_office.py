"""An office for the shared-ledger tests (issue 26): an officer's key, a signed policy@2 naming
a real PostgreSQL database, and app homes that installed it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from planner_app.cli import main
from planner_app.core.records.keys import KeyStore
from planner_app.core.support.home import app_home
from tests.conftest import DEMO_TABLE, ROWS_ARE_PEOPLE, plan_dict, with_reasons

SECRET = "office-secret-for-tests-0123456789"


def office_policy(url: str, **fields: Any) -> dict[str, Any]:
    return {"format": "planner-app/policy@2", "version": 1, "name": "Office",
            "default_lifetime_cap": {"epsilon": 2.5, "delta": 1e-6},
            "ledger": {"url": url}, **fields}


class Office:
    def __init__(self, tmp: Path, url: str) -> None:
        self.tmp, self.url = tmp, url
        self.officer = tmp / "officer-home"
        store = KeyStore(app_home(self.officer))
        store.create("officer")
        self.officer_pub = store.export("officer", tmp / "officer.pub")
        (tmp / "out").mkdir(exist_ok=True)

    def run(self, home: Path, *args: str) -> tuple[int, str, str]:
        import contextlib
        import io

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["--home", str(home), *args])
        return code, out.getvalue(), err.getvalue()

    def signed_policy(self, doc: dict[str, Any], name: str = "policy.json") -> Path:
        path = self.tmp / name
        path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
        sig = KeyStore(app_home(self.officer)).secret("officer").sign(path.read_bytes(),
                                                                      "office policy")
        (self.tmp / f"{name}.minisig").write_text(sig, encoding="utf-8")
        return path

    def home(self, name: str, policy: Path) -> Path:
        home = self.tmp / name
        code, _, err = self.run(home, "policy", "install", str(policy), "--trust",
                                str(self.officer_pub))
        assert code == 0, err
        return home

    def plan(self, epsilon: float = 1.0, dataset: str = "test", name: str = "plan.json"
             ) -> Path:
        doc = with_reasons(plan_dict(dataset={"name": dataset}, privacy_unit=ROWS_ARE_PEOPLE,
                                     budget={"epsilon": epsilon, "delta": 0.0},
                                     queries=[{"id": "n", "kind": "count",
                                               "epsilon": epsilon}]))
        path = self.tmp / name
        path.write_text(json.dumps(doc), encoding="utf-8")
        return path

    def release(self, home: Path, plan: Path, out: str, data: Path = DEMO_TABLE
                ) -> tuple[int, str, str]:
        return self.run(home, "release", str(plan), "--data", str(data), "--out",
                        str(self.tmp / "out" / out))
