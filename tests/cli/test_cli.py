"""The command line: its commands, their output and exit codes. The entry point itself runs as
a user runs it, in a subprocess with PySide6 unimportable; the other tests read only a
command's exit code and output, so they call the CLI's main() in this process (issue 23:
about 1 s of CPU saved per command, tests.conftest.run_in_process)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from tests.conftest import DEMO_PLAN, DEMO_TABLE, ROOT, plan_dict, run_in_process, write_json


@pytest.fixture(scope="module")
def no_qt(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder whose PySide6 package fails to import, put first on PYTHONPATH."""
    folder = tmp_path_factory.mktemp("noqt")
    for name in ("PySide6", "shiboken6"):
        (folder / name).mkdir()
        (folder / name / "__init__.py").write_text(
            f"raise ImportError('{name} is not installed (test)', name='{name}')\n")
    return folder


def run(args: list[str], no_qt: Path | None = None, cwd: Path | None = None,
        timeout: int = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    paths = ([str(no_qt)] if no_qt else []) + [str(ROOT)]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.pop("PLANNER_APP_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "planner_app", *args], capture_output=True,
                          text=True, env=env, cwd=cwd or ROOT, timeout=timeout)


@pytest.mark.subprocess
def test_help_and_every_command_work_without_qt(no_qt: Path, tmp_path: Path) -> None:
    done = run(["--help"], no_qt)
    assert done.returncode == 0 and "explain" in done.stdout and "check" in done.stdout
    for args in (["explain", "--help"], ["check", "--help"], ["plan", "new", "--help"],
                 ["explain", "--epsilon", "1"],
                 ["check", str(DEMO_PLAN), "--data", str(DEMO_TABLE)],
                 ["plan", "new", "--data", str(DEMO_TABLE), "--out", str(tmp_path / "p.json")]):
        done = run(args, no_qt)
        assert done.returncode == 0, (args, done.stderr)
        assert "Traceback" not in done.stderr
    # the desktop app says what is missing, in one line
    done = run(["gui", "--smoke-test"], no_qt)
    assert done.returncode == 1
    assert "PySide6" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_explain_json() -> None:
    done = run_in_process(["explain", "--epsilon", "1.0986122886681098", "--json"])
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    for key in ("epsilon", "delta", "prior", "group_size", "posterior_max", "posterior_min",
                "sentence"):
        assert key in data
    assert data["posterior_max"] == pytest.approx(0.75)
    assert data["sentence"] == ("An attacker who was 50% sure that a person is in the data "
                                "can be at most 75% sure after this release.")
    done = run_in_process(["explain", "--epsilon", "0.5", "--delta", "1e-6", "--prior", "0.1",
                "--group-size", "3", "--json"])
    data = json.loads(done.stdout)
    e = math.exp(1.5)
    assert data["posterior_max"] == pytest.approx(0.1 * e / (1 + 0.1 * (e - 1)))
    assert data["group_size"] == 3 and data["group_epsilon"] == pytest.approx(1.5)


# ----------------------------------------------------------------------------- check


def dlap_half_width(scale: float, confidence: float = 0.95) -> int:
    """Independent: smallest k with 2 e^{-(k+1)/s} / (1 + e^{-1/s}) <= 1 - confidence."""
    alpha = 1 - confidence
    k = max(0, math.ceil(scale * math.log(2 / (alpha * (1 + math.exp(-1 / scale)))) - 1) - 2)
    while 2 * math.exp(-(k + 1) / scale) / (1 + math.exp(-1 / scale)) > alpha:
        k += 1
    return k


def zcdp_epsilon(rho: float, delta: float) -> float:
    """Independent: CKS 2020 Corollary 13, minimised numerically with scipy."""
    f = lambda a: a * rho + math.log((a - 1) / a) + (math.log(1 / delta) - math.log(a)) / (a - 1)  # noqa: E731
    res = minimize_scalar(f, bounds=(1.0001, 1e4), method="bounded", options={"xatol": 1e-10})
    return float(res.fun)


def pivot_quantile(scale_x: float, scale_y: float, radius: float, confidence: float) -> int:
    """Smallest integer w with P(|X + radius·Y| <= w) >= confidence for independent discrete
    Laplace X, Y (radius a whole number of steps, so X + radius·Y is an integer)."""
    qx, qy = math.exp(-1 / scale_x), math.exp(-1 / scale_y)
    ys = np.arange(-int(40 * scale_y) - 1, int(40 * scale_y) + 2)
    p_y = (1 - qy) / (1 + qy) * qy ** np.abs(ys)

    def cdf_x(v: np.ndarray) -> np.ndarray:  # P(X <= v), v integer
        return np.where(v >= 0, 1 - qx ** (v + 1) / (1 + qx), qx ** (-v) / (1 + qx))

    def inside(w: int) -> float:
        centre = radius * ys
        return float((p_y * (cdf_x(w - centre) - cdf_x(-w - centre - 1))).sum())

    lo, hi = 0, 1
    while inside(hi) < confidence:
        hi *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if inside(mid) >= confidence else (mid, hi)
    return hi


def discrete_gaussian_delta(sigma: float, shift: int, epsilon: float) -> float:
    """δ(ε) of N_Z(0, σ²) against N_Z(shift, σ²), summed from the definition."""
    y = np.arange(-int(60 * sigma) - shift - 10, int(60 * sigma) + shift + 11)
    w = np.exp(-(y.astype(float) ** 2) / (2 * sigma**2))
    p, q = w[shift:], w[:-shift]  # p(y) and p(y - shift) on the same outputs
    return float(np.maximum(0.0, p - math.exp(epsilon) * q).sum() / w.sum())


def test_check_gives_the_numbers_an_independent_computation_gives() -> None:
    done = run_in_process(["check", str(DEMO_PLAN), "--json"])
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert set(data) >= {"queries", "total", "fits_budget", "warnings"}
    qs = {q["id"]: q for q in data["queries"]}
    for q in qs.values():
        for key in ("id", "kind", "sensitivity", "derivation", "mechanism", "epsilon", "delta",
                    "accuracy"):
            assert key in q
        assert "scale" in q or "sigma" in q
        assert set(q["accuracy"]) >= {"confidence", "half_width"}
    k = 3  # up to 3 rows per person
    # count: sensitivity k, scale k/ε
    assert qs["responses"]["sensitivity"] == k
    assert qs["responses"]["scale"] == pytest.approx(k / 0.3)
    assert qs["responses"]["accuracy"]["half_width"] == dlap_half_width(k / 0.3)
    # sum over [0, 200000]: k * 200000; grid step 2 (2^(17-16))
    assert qs["income_2025"]["sensitivity"] == k * 200000
    assert qs["income_2025"]["scale"] == pytest.approx(k * 200000 / 0.3)
    assert qs["income_2025"]["accuracy"]["half_width"] == 2 * dlap_half_width(
        k * 200000 / 0.3 / 2)
    # histograms: sensitivity k, per-cell accuracy
    assert qs["region_counts"]["scale"] == pytest.approx(k / 0.4)
    assert qs["region_counts"]["accuracy"]["half_width"] == dlap_half_width(k / 0.4)
    assert qs["age_bands"]["cells"] == 7
    # mean: half the ε to a centred sum (sensitivity k * (U-L)/2), half to the count
    comps = {c["name"]: c for c in qs["hours_mean"]["components"]}
    assert comps["sum"]["sensitivity_l1"] == k * 40 and comps["sum"]["scale"] == k * 40 / 0.2
    assert comps["count"]["scale"] == pytest.approx(k / 0.2)
    # its ± is the 95% quantile of |X + R·Y| (sum noise X, count noise Y, R the radius,
    # all in grid steps) at the worst mean |μ| = R, over the row count, plus one grid step
    # for the lattice and half a step for rounding the values to the grid
    n = 3800
    step = 2.0 ** (math.floor(math.log2(80)) - 16)  # the grid of [0, 80]
    w = pivot_quantile(k * 40 / 0.2 / step, k / 0.2, 40 / step, 0.95)
    assert qs["hours_mean"]["accuracy"]["half_width"] == pytest.approx(
        (w + 1) / n * step + step / 2, rel=1e-6)
    # variance: three parts, the squares bounded by k * radius^2
    comps = {c["name"]: c for c in qs["age_variance"]["components"]}
    assert comps["sumsq"]["sensitivity_l1"] == k * 42**2
    # grouped mean over a 1-10 scale: the centred sum has sensitivity k * 4.5
    comps = {c["name"]: c for c in qs["satisfaction_by_region"]["components"]}
    assert comps["sum"]["sensitivity_l1"] == pytest.approx(k * 4.5)
    # quantile: rank sensitivity k
    assert qs["income_median"]["sensitivity"] == k
    # randomized response: a tenth of ε noises the number of answers (sensitivity k), each of
    # k answers gets the rest / k; the share's ± adds the count's error over n answers
    t = math.tanh(0.45 / k / 2)
    assert qs["smokers"]["truth_probability"] == pytest.approx(t, abs=1e-8)
    comps = {c["name"]: c for c in qs["smokers"]["components"]}
    assert comps["count"]["scale"] == pytest.approx(k / 0.05)
    assert qs["smokers"]["accuracy"]["half_width"] == pytest.approx(
        math.sqrt(math.log(2 / 0.025) / (2 * n)) / t + dlap_half_width(k / 0.05, 0.975) / n,
        rel=1e-6)
    # gaussian: the smallest σ whose exact (ε, δ) curve meets (0.3, 5e-7), summed from the
    # definition δ = Σ_y max(0, p(y) - e^ε p(y - Δ)); less noise than zCDP would give
    sigma = qs["employed"]["sigma"]
    assert discrete_gaussian_delta(sigma, k, 0.3) <= 5e-7 * (1 + 1e-9)
    assert discrete_gaussian_delta(sigma * 0.999, k, 0.3) > 5e-7
    assert zcdp_epsilon(k**2 / (2 * sigma**2), 5e-7) > 0.3
    # the total: basic is the sum of what each statistic spends; the chosen one is the least
    basic = next(a for a in data["alternatives"] if a["accountant"] == "basic")
    assert basic["epsilon"] == pytest.approx(sum(q["epsilon_spent"] for q in qs.values()))
    assert data["total"]["epsilon"] == pytest.approx(min(a["epsilon"]
                                                         for a in data["alternatives"]))
    assert data["total"]["epsilon"] <= 4.0 and data["fits_budget"] is True


def test_check_with_data_warns_about_bounds_from_the_data(tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    table.write_text("x,g\n3,a\n9,b\n5,a\n")
    plan = write_json(tmp_path / "p.json", plan_dict(queries=[
        {"id": "s", "kind": "sum", "column": "x", "lower": 3, "upper": 9, "epsilon": 1},
        {"id": "h", "kind": "histogram", "column": "g", "categories": ["a", "b"],
         "epsilon": 1}]))
    done = run_in_process(["check", str(plan), "--data", str(table), "--json"])
    assert done.returncode == 0, done.stderr
    warnings = " ".join(json.loads(done.stdout)["warnings"])
    assert "equal the data's own minimum and maximum" in warnings
    assert "exactly the values present in the data" in warnings
    assert json.loads(done.stdout)["fits_budget"] is False  # 2 > 1


def test_text_output_is_readable() -> None:
    done = run_in_process(["check", str(DEMO_PLAN)])
    assert done.returncode == 0
    assert "Composed total" in done.stdout and "at most" in done.stdout


def test_plan_new_fills_nothing_from_the_data(tmp_path: Path) -> None:
    out = tmp_path / "starter.json"
    done = run_in_process(["plan", "new", "--data", str(DEMO_TABLE), "--out", str(out), "--json"])
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    assert doc["format"] == "planner-app/plan@1"
    for q in doc["queries"]:
        if q["kind"] == "mean":
            assert q["lower"] is None and q["upper"] is None
        if q["kind"] == "histogram":
            assert q["categories"] == []
    text = out.read_text()
    assert "North" not in text and "200000" not in text  # no category or bound from the data
    assert doc["privacy_unit"] == {"kind": "person", "id_column": "person_id", "max_rows": None}
    done = run_in_process(["check", str(out)])
    assert done.returncode == 2
    assert "starter.json: privacy_unit.max_rows: is required" in done.stderr
    doc["privacy_unit"]["max_rows"] = 3
    write_json(out, doc)
    done = run_in_process(["check", str(out)])
    assert done.returncode == 2 and "starter.json: queries[" in done.stderr
    assert "is required" in done.stderr or "must not be empty" in done.stderr
    assert not any(q.get("column") == "person_id" for q in doc["queries"])
    again = run_in_process(["plan", "new", "--data", str(DEMO_TABLE), "--out", str(out)])
    assert again.returncode == 2 and "already exists" in again.stderr


# ----------------------------------------------------------------------------- exit 2


def q(**fields: Any) -> dict[str, Any]:
    base = {"id": "s", "kind": "sum", "column": "x", "lower": 0, "upper": 10, "epsilon": 0.5}
    base.update(fields)
    return base


BAD = [
    ("unknown kind", plan_dict(queries=[q(kind="median")]), "not one of"),
    ("lower above upper", plan_dict(queries=[q(lower=20)]), "must be below upper"),
    ("epsilon zero", plan_dict(queries=[q(epsilon=0)]), "above 0"),
    ("delta out of range", plan_dict(budget={"epsilon": 1, "delta": 1.5}), "[0, 1)"),
    ("empty categories", plan_dict(queries=[{"id": "h", "kind": "histogram", "column": "g",
                                             "categories": [], "epsilon": 1}]), "not be empty"),
    ("duplicate ids", plan_dict(queries=[q(), q()]), "duplicate id"),
    ("format version", plan_dict(format="planner-app/plan@9"), "unknown format version"),
]


@pytest.mark.parametrize("name,doc,words", BAD, ids=[b[0] for b in BAD])
def test_invalid_plans_exit_2_with_one_line(tmp_path: Path, name: str, doc: dict[str, Any],
                                            words: str) -> None:
    path = write_json(tmp_path / "bad.json", doc)
    done = run_in_process(["check", str(path)])
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert lines[0].startswith("planner-app: error: bad.json: ") and words in lines[0]


def test_other_bad_inputs_exit_2(tmp_path: Path) -> None:
    bad_json = tmp_path / "broken.json"
    bad_json.write_text('{"format": ')
    cases = [
        (["check", str(bad_json)], "broken.json: line 1 column 12: invalid JSON"),
        (["check", str(tmp_path / "none.json")], "none.json: no such file"),
        (["check", str(DEMO_PLAN), "--data", str(tmp_path / "none.csv")], "no such file"),
        (["explain", "--epsilon", "-1"], "error: --epsilon: must be above 0"),
        (["explain", "--epsilon", "nan"], "error: --epsilon: must be finite"),
        (["explain", "--epsilon", "1", "--delta", "1"], "error: --delta: must lie in [0, 1)"),
        (["explain"], "required"),
        (["frobnicate"], "error: COMMAND: invalid choice"),  # named once, not "argument: argument"
    ]
    binary = tmp_path / "b.csv"
    binary.write_bytes(b"\x00\x01\x02")
    cases.append((["check", str(DEMO_PLAN), "--data", str(binary)], "binary file"))
    wrong_cols = tmp_path / "w.csv"
    wrong_cols.write_text("a,b\n1,2\n")
    cases.append((["check", str(DEMO_PLAN), "--data", str(wrong_cols)],
                  "privacy_unit.id_column: no column 'person_id' in w.csv"))
    for args, words in cases:
        done = run_in_process(args)
        assert done.returncode == 2, (args, done.stderr)
        assert "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert words in done.stderr, (args, done.stderr)
