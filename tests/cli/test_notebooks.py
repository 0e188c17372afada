"""The notebooks of issue 27, executed headless (nbclient, a real IPython kernel): the plan
notebook of ``export-notebook`` prints the numbers ``check`` prints, the bundle notebook of
``report --notebook`` reads the values of the bundle's results.csv. Each starts a kernel (a
process of its own): marked ``subprocess``, in CI's second stage."""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from planner_app.cli import main
from tests.conftest import DEMO_PLAN, DEMO_TABLE

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")


def run(args: list[str], capsys: Any) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def execute(path: Path, extra: str | None = None) -> Any:
    """The notebook at ``path`` run top to bottom in its folder (as Jupyter runs it), with
    ``extra`` appended as a last code cell when given."""
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)  # the file is a valid nbformat 4 notebook as written
    if extra is not None:
        notebook.cells.append(nbformat.v4.new_code_cell(extra))
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    return notebook


def printed(cell: Any) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def pictures(notebook: Any) -> int:
    return sum("image/png" in o.get("data", {}) for c in notebook.cells
               if c.cell_type == "code" for o in c.outputs)


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-12)


@pytest.mark.subprocess
def test_plan_notebook_prints_the_numbers_check_prints(tmp_path: Path, capsys: Any) -> None:
    for source in (DEMO_PLAN, DEMO_TABLE):
        shutil.copy(source, tmp_path / source.name)
    plan = tmp_path / DEMO_PLAN.name
    out = tmp_path / "notebooks" / "plan.ipynb"
    out.parent.mkdir()
    code, said, err = run(["export-notebook", str(plan), "--out", str(out)], capsys)
    assert code == 0 and err == "" and "plan.ipynb" in said
    code, text, _ = run(["check", str(plan)], capsys)
    assert code == 0
    code, data, _ = run(["check", str(plan), "--json"], capsys)
    checked = json.loads(data)

    notebook = execute(out)
    cell = next(c for c in notebook.cells if "api.accuracy_table" in c.source)
    lines = printed(cell).splitlines()
    rows = {line.split()[0]: line.split() for line in lines[2:len(checked["queries"]) + 2]}
    assert list(rows) == [q["id"] for q in checked["queries"]]
    for q in checked["queries"]:  # id, kind, mechanism, ε, δ, ±, confidence, noise, unit
        _, kind, mechanism, eps, delta, half, conf, noise, *_ = rows[q["id"]]
        assert (kind, mechanism) == (q["kind"], q["mechanism"])
        assert close(float(eps), q["epsilon"]) and close(float(delta), q["delta"])
        assert close(float(half), q["accuracy"]["half_width"])
        assert close(float(conf), q["accuracy"]["confidence"])
        expected_noise = q.get("sigma", q.get("scale"))
        assert (noise == "NaN") if expected_noise is None else close(float(noise),
                                                                    expected_noise)
    total = next(x for x in text.splitlines() if x.startswith("Composed total"))
    assert total in lines  # the same words and numbers as check's
    assert "Ready to release: " + ("yes" if checked["ready"] else "NO") in lines
    # the belief chart and one accuracy chart per statistic
    assert pictures(notebook) == 1 + len(checked["queries"])
    # the release is there, commented out: the run charged nothing
    release = notebook.cells[-1].source
    assert release.startswith("# result = api.release(plan, data='../survey.csv'")
    code, ledger, _ = run(["ledger", "show", "--json"], capsys)
    assert "demo-survey" not in ledger


@pytest.mark.subprocess
def test_bundle_notebook_reads_the_bundles_results(tmp_path: Path, capsys: Any,
                                                   demo_bundle: Path) -> None:
    bundle = tmp_path / "demo.zip"
    shutil.copy(demo_bundle, bundle)
    out = tmp_path / "results.ipynb"
    code, said, err = run(["report", str(bundle), "--notebook", str(out)], capsys)
    assert code == 0 and "results.ipynb" in said, err
    with zipfile.ZipFile(bundle) as z:  # read apart from the API: the csv module
        expected = list(csv.DictReader(io.StringIO(z.read("results.csv").decode("utf-8"))))

    notebook = execute(out, "import json\nprint(json.dumps(results[['query_id', 'value', "
                            "'low', 'high']].to_dict('records')))")
    assert printed(notebook.cells[1]).strip() == "demo.zip verified"
    got = json.loads(printed(notebook.cells[-1]))
    assert [r["query_id"] for r in got] == [r["query_id"] for r in expected]
    for mine, theirs in zip(got, expected, strict=True):
        for name in ("value", "low", "high"):
            if theirs[name] == "":
                assert mine[name] is None or math.isnan(mine[name])  # no interval
            else:
                assert close(mine[name], float(theirs[name])), (name, mine, theirs)
    shown = "".join(o["data"].get("text/plain", "") for o in notebook.cells[3].outputs
                    if o.output_type == "execute_result")
    assert "query_id" in shown and "low" in shown  # the results table is shown
    assert pictures(notebook) == len({r["query_id"] for r in expected})


# ----------------------------------------------------------------------------- fixapi


@pytest.mark.subprocess
def test_plan_notebook_checks_with_the_home_it_was_exported_with(tmp_path: Path,
                                                                  capsys: Any) -> None:
    """``--home H export-notebook``: run where $PLANNER_APP_HOME names another home, the
    notebook still checks with H (its confidence setting, 0.8 here; the other home has the
    default 0.95), and its first cell names H."""
    from planner_app.core.planning.settings import Settings, save_settings
    from planner_app.core.support.home import app_home

    home = tmp_path / "owner home"
    save_settings(Settings(confidence=0.8), app_home(home).ensure().settings_path)
    out = tmp_path / "plan.ipynb"
    code, said, err = run(["--home", str(home), "export-notebook", str(DEMO_PLAN), "--out",
                           str(out)], capsys)
    assert code == 0 and err == "" and str(home.resolve()) in said
    code, data, _ = run(["--home", str(home), "check", str(DEMO_PLAN), "--json"], capsys)
    checked = json.loads(data)
    assert {q["accuracy"]["confidence"] for q in checked["queries"]} == {0.8}

    notebook = execute(out, "import json\nprint(json.dumps([accuracy['confidence']"
                            ".unique().tolist(), accuracy['half_width'].tolist()]))")
    assert f"`{home.resolve().as_posix()}`" in notebook.cells[0].source
    confidences, half_widths = json.loads(printed(notebook.cells[-1]))
    assert confidences == [0.8]
    for got, q in zip(half_widths, checked["queries"], strict=True):
        assert close(got, q["accuracy"]["half_width"])


def test_plan_notebook_without_a_home_names_the_per_user_folders(tmp_path: Path,
                                                                 capsys: Any,
                                                                 monkeypatch: Any) -> None:
    monkeypatch.delenv("PLANNER_APP_HOME")
    out = tmp_path / "plan.ipynb"
    code, said, _ = run(["export-notebook", str(DEMO_PLAN), "--out", str(out)], capsys)
    assert code == 0 and "this user's app folders" in said
    cells = json.loads(out.read_text("utf-8"))["cells"]
    assert "HOME = api.per_user_home()" in cells[1]["source"]
    assert "this user's app folders" in cells[0]["source"]
