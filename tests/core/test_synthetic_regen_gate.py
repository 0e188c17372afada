"""The adversarial review of the synthetic tables' tie to their bundle (round 48): verify
--regenerate never silently skips a table, the recorded versions cover everything the CSV
depends on, --clamp-counts never moves the number of rows, one escape-collision rule for
check and release, and every published field of a synthetic table's result rows checked."""

from __future__ import annotations

import json
import zipfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.model import plan_from_dict
from planner_app.core.release.publish import publish
from planner_app.core.support.home import app_home
from tests.conftest import DEMO_TABLE
from tests.core.test_synthetic import synth_plan

pytest.importorskip("mbi")


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def forged(src: Path, dst: Path, change: Any) -> Path:
    """``src`` with its release.json changed by ``change(record)`` and everything a bundle's
    own checks look at rebuilt (tests/trust/forge.py): only a signature could tell."""
    from planner_app.core.release.bundle import MANIFEST, RECORD, SIGNATURE, zip_bytes
    from tests.trust.forge import reseal

    files = _members(src)
    files.pop(SIGNATURE, None)
    files.pop(MANIFEST)
    record = json.loads(files[RECORD])
    change(record)
    reseal(files, record)
    dst.write_bytes(zip_bytes(files, signature=None))
    return dst


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("gate")
    plan = plan_from_dict(synth_plan(rows=300))
    out = folder / "b.zip"
    publish(plan, load_table(DEMO_TABLE), out, app_home(folder / "h").ensure(),
            source=SeededRandomSource(8))
    files = _members(out)
    return {"plan": plan, "path": out, "files": files, "folder": folder,
            "record": json.loads(files["release.json"])}


def _verify(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from planner_app.cli import main

    code = main(["verify", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


# ----------------------------------------------------------------------------- 1: exit 5


def test_regenerate_with_other_recorded_versions_says_so_and_exits_5(
        demo: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    def other_mbi(record: dict[str, Any]) -> None:
        record["synthetic"]["synth"]["versions"]["mbi"] = "0.0.1"

    bad = forged(demo["path"], demo["folder"] / "mbi.zip", other_mbi)
    code, out, err = _verify([str(bad)], capsys)
    assert code == 0, err  # without --regenerate: valid (the versions are public words)
    code, out, err = _verify([str(bad), "--regenerate"], capsys)
    assert code == 5, out + err
    line = f"not regenerated: synthetic/synth.csv: mbi {version('mbi')} here, 0.0.1 recorded"
    assert sum(line in x for x in out.splitlines()) == 1, out
    assert "not regenerated" in err and len(err.strip().splitlines()) == 1
    code, out, err = _verify([str(bad), "--regenerate", "--json"], capsys)
    assert code == 5
    table = json.loads(out)["synthetic"]["synth"]
    assert table["regenerated"] is False and "0.0.1 recorded" in table["reason"]
    code, out, err = _verify([str(demo["path"]), "--regenerate", "--json"], capsys)
    assert code == 0, err
    table = json.loads(out)["synthetic"]["synth"]
    assert table["regenerated"] is True and table["reason"] is None


# ----------------------------------------------------------------------------- 2: versions


def test_the_payload_records_numpy_and_the_synthesis_code(demo: dict[str, Any]) -> None:
    from planner_app.core.release.synthetic import SYNTHESIS_CODE
    from planner_app.core.release.verify_synthetic import synthetic_problems

    versions = demo["record"]["synthetic"]["synth"]["versions"]
    assert versions == {"mbi": version("mbi"), "jax": version("jax"),
                        "numpy": version("numpy"), "planner_app synthesis": SYNTHESIS_CODE}
    for key in ("numpy", "planner_app synthesis"):
        record = json.loads(json.dumps(demo["record"]))
        del record["synthetic"]["synth"]["versions"][key]
        problems = synthetic_problems(demo["files"], demo["plan"], record)
        assert any("its versions are not" in p for p in problems), problems


@pytest.mark.parametrize(("key", "recorded"), [("numpy", "0.0.1"),
                                               ("planner_app synthesis", "0")])
def test_regenerate_only_when_numpy_and_the_synthesis_code_match(
        demo: dict[str, Any], key: str, recorded: str) -> None:
    from planner_app.core.release.synthetic import SYNTHESIS_CODE
    from planner_app.core.release.verify_synthetic import regenerate_synthetic

    record = json.loads(json.dumps(demo["record"]))
    record["synthetic"]["synth"]["versions"][key] = recorded
    checks, problems, outcome = regenerate_synthetic(demo["files"], demo["plan"], record)
    here = version("numpy") if key == "numpy" else SYNTHESIS_CODE
    assert checks == [] and problems == []
    assert outcome["synth"] == {"regenerated": False,
                                "reason": f"{key} {here} here, {recorded} recorded"}
