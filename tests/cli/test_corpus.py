"""The bad-input corpus (tests/corpus, made by make_corpus.py): every input gets its clear
one-line message and exit code, writes nothing, and leaves the ledger and audit log intact."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from planner_app.cli import main
from planner_app.core.data.tables import MAX_LINE_BYTES, load_table
from planner_app.core.planfile import plan_from_dict
from planner_app.core.records.audit import AuditLog
from planner_app.core.release.publish import publish
from planner_app.core.support.home import app_home

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
SPEC = json.loads((CORPUS / "cases.json").read_text())
CASES = SPEC["cases"]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An app home with one release already charged, a good plan and a good table."""
    folder = tmp_path_factory.mktemp("corpus")
    good_table = folder / "good.csv"
    good_table.write_text(SPEC["good_table"])
    good_plan = folder / "good-plan.json"
    good_plan.write_text(json.dumps(SPEC["plan"]))
    synthetic_plan = folder / "synthetic-plan.json"  # the plan of the cases marked "synthetic"
    synthetic_plan.write_text(json.dumps(SPEC["synthetic_plan"]))
    home = folder / "home"
    publish(plan_from_dict(SPEC["plan"]), load_table(good_table), folder / "first.zip",
            app_home(home))
    return {"folder": folder, "table": good_table, "plan": good_plan, "home": home,
            "synthetic": synthetic_plan}


def fingerprint(home: Path) -> dict[str, str]:
    h = app_home(home)
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in (h.ledger_path, h.audit_path) if p.exists()}


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_corpus_is_big_enough() -> None:
    kinds = {c["file"].split("/")[0] for c in CASES}
    assert len(CASES) >= 120 and kinds == {"tables", "plans", "bundles", "crafted", "special",
                                           "outputs"}


def _make_input(case: dict[str, Any], world: dict[str, Path], tmp_path: Path,
                monkeypatch: pytest.MonkeyPatch) -> Path:
    """The input of a case the test builds itself (see make_corpus.py: special, outputs,
    crafted); a committed file otherwise."""
    kind, _, rest = case["file"].partition("/")
    if kind == "crafted":
        from tests.corpus.crafted import CRAFTS

        path = tmp_path / rest
        path.write_bytes(CRAFTS[Path(rest).stem]((world["folder"] / "first.zip").read_bytes()))
        return path
    if kind == "special":
        if rest == "dev-zero":
            return Path("/dev/zero")
        path = tmp_path / rest
        if case["command"] == "policy-install":  # pg26: signed by the key the test trusts
            from planner_app.core.records.keys import KeyStore

            path.write_text(json.dumps(case["doc"]), encoding="utf-8")
            store = KeyStore(app_home(world["folder"] / "officer-home"))
            if "officer" not in store.names():
                store.create("officer")
            sig = store.secret("officer").sign(path.read_bytes(), "corpus policy")
            path.with_name(path.name + ".minisig").write_text(sig, encoding="utf-8")
            store.export("officer", tmp_path / "officer.pub")
            return path
        if "fifo" in rest:
            os.mkfifo(path)
        elif rest == "review-link.json":  # a link to a good plan (review: controllers)
            shutil.copy(world["plan"], tmp_path / "linked-plan.json")
            path.symlink_to(tmp_path / "linked-plan.json")
        elif rest == "long-line.csv":  # one line past the loader's limit, not a 2 GB file
            with open(path, "wb") as fh:
                fh.write(b"x,g\n1,")
                fh.write(b"a" * (MAX_LINE_BYTES + 10))
                fh.write(b"\n")
        elif rest == "long-header.csv":
            path.write_bytes(b"x" * (MAX_LINE_BYTES + 10))
        return path
    if kind == "outputs":
        from planner_app.core.support import files

        if rest == "dev-full":
            if not Path("/dev/full").exists():
                pytest.skip("no /dev/full here")
            return Path("/dev/full")
        path = tmp_path / "outputs" / rest
        if rest.startswith("home-a-file"):  # --home a file, or a path under one
            (tmp_path / "outputs").mkdir()
            (tmp_path / "outputs" / "home-a-file").write_text("a file, not a folder")
            return path
        if rest != "no-folder/bundle.zip":
            path.parent.mkdir(parents=True, exist_ok=True)
        if rest == "existing-folder.zip":
            path.mkdir()
        elif rest.startswith("read-only/"):
            path.parent.chmod(0o555)
            if os.access(path.parent, os.W_OK):  # root writes anywhere: make the folder refuse
                def refuse(*args: Any, **kwargs: Any) -> Any:
                    raise PermissionError(13, "Permission denied")

                monkeypatch.setattr(files.tempfile, "mkstemp", refuse)
        elif rest.startswith("full-disk/"):
            usage = shutil.disk_usage(path.parent)
            monkeypatch.setattr(files.shutil, "disk_usage",
                                lambda p: usage._replace(free=4096))
        return path
    return CORPUS / case["file"]


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_bad_input(case: dict[str, Any], world: dict[str, Path], capsys,  # type: ignore[no-untyped-def]
                   monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PLANNER_APP_HOME", str(world["home"]))
    path = _make_input(case, world, tmp_path, monkeypatch)
    before = fingerprint(world["home"])
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    plan = world[case.get("plan", "plan")]
    if case["command"] == "check-data":
        args = ["check", str(plan), "--data", str(path)]
    elif case["command"] == "check":
        args = ["check", str(path)]
    elif case["command"] in ("gui", "gui-data"):  # refused before any window (firststart)
        args = ["gui", str(path)] if case["command"] == "gui" else \
            ["gui", str(plan), "--data", str(path)]
    elif case["command"] == "release-out":
        listing = sorted(p.name for p in path.parent.iterdir()) if path.parent.is_dir() else []
        typed = "/" if case["file"].endswith("/") else ""  # a final '/' Path() drops
        args = ["release", str(world["plan"]), "--data", str(world["table"]), "--out",
                str(path) + typed]
    elif case["command"] == "release":  # the plan file released on the good table
        args = ["release", str(path), "--data", str(world["table"]), "--out",
                str(out_dir / "never.zip")]
    elif case["command"] == "discover":  # disc25: refused before the table is read
        args = ["discover", str(path), "--data", str(world["table"]), "--out",
                str(out_dir / "never.zip")]
    elif case["command"] == "apply-discovery":  # disc25: the case file is the bundle
        args = ["plan", "apply-discovery", str(world["plan"]), "--bundle", str(path), "--out",
                str(out_dir / "never.json")]
    elif case["command"] == "review":  # a decision written into the plan file
        args = ["review", str(path), "--approve", "--reviewer", "Ada"]
    elif case["command"] == "policy-install":  # pg26
        args = ["policy", "install", str(path), "--trust", str(tmp_path / "officer.pub")]
    elif case["command"] == "release-home":
        args = ["--home", str(path), "release", str(world["plan"]), "--data",
                str(world["table"]), "--out", str(out_dir / "bundle.zip")]
    elif case["command"] == "export-notebook":  # api27: the plan file made a notebook
        args = ["export-notebook", str(path), "--out", str(out_dir / "plan.ipynb")]
    elif case["command"] == "export-notebook-out":  # api27: a plan's notebook written there
        typed = "/" if case["file"].endswith("/") else ""
        args = ["export-notebook", str(world["plan"]), "--out", str(path) + typed]
    elif case["command"] == "report-notebook":  # api27: the bundle's notebook
        args = ["report", str(path), "--notebook", str(out_dir / "results.ipynb")]
    elif case["command"] == "report-notebook-out":  # api27: a bundle's notebook written there
        args = ["report", str(world["folder"] / "first.zip"), "--notebook", str(path)]
    elif case["command"] == "forecast":  # cal26: a programme plan's forecast
        args = ["ledger", "forecast", "corpus", "--plan", str(path)]
    else:
        args = ["verify", str(path)]
    code, out, err = run(args, capsys)
    assert code == case["exit"], (case, err)
    assert "Traceback" not in err + out
    if case["exit"] == 0:
        assert case["message"] in out + err
        assert AuditLog(app_home(world["home"]).audit_path).verify() is None
        return
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert case["message"] in lines[0], (case["message"], lines[0])
    assert path.name[:60] in lines[0] or (case["command"] == "check-data"
                                          and "plan.json: queries[" in lines[0])
    assert fingerprint(world["home"]) == before  # ledger and audit log untouched
    if case["command"] in ("release-out", "release", "release-home", "discover",
                           "apply-discovery"):  # refused before the charge, nothing written
        assert list(out_dir.iterdir()) == []
    if "notebook" in case["command"]:  # api27: no notebook written, none left half-written
        assert list(out_dir.iterdir()) == []
        assert not path.is_file() or not case["command"].endswith("-out")
    if case["command"] == "release-out":  # refused before the charge, and nothing written
        assert (sorted(p.name for p in path.parent.iterdir()) if path.parent.is_dir()
                else []) == listing
    if case["command"] == "check-data":
        # releasing on the bad table refuses the same way and writes nothing
        bundle = out_dir / "never.zip"
        code, out, err = run(["release", str(plan), "--data", str(path), "--out",
                              str(bundle)], capsys)
        assert code == 2 and case["message"] in err
        assert list(out_dir.iterdir()) == []
        assert fingerprint(world["home"]) == before


def test_content_tampering_is_exit_1(world: dict[str, Path], capsys,  # type: ignore[no-untyped-def]
                                     tmp_path: Path) -> None:
    from tests.conftest import flip_zip_byte

    first = world["folder"] / "first.zip"
    for member in ("results.csv", "release.json", "audit.jsonl", "report.pdf"):
        bad = tmp_path / f"{member}.zip"
        flip_zip_byte(first, bad, member, 200)
        code, _, err = run(["verify", str(bad)], capsys)
        assert code == 1 and f"{member}: its content does not match" in err
