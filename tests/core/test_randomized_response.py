"""Randomized response publishes no exact number of answers (issue 10).

The published answer file's length is the number of answers plus discrete Laplace noise
(exact only where the relation makes it public), the share's interval includes that noise,
verify recomputes both from the file, and an ε too small for the mechanism is refused before
anything is charged.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.dp.mechanisms import (
    SeededRandomSource,
    randomized_answer_file,
    uniform_permutation,
)
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.bundle import NOISED_DIR
from planner_app.core.release.noise import release_with_engine
from planner_app.core.release.publish import publish
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import app_home
from tests.conftest import plan_dict
from tests.oracle.pandas_engine import PandasEngine

RR = {"id": "r", "kind": "randomized_response", "column": "ok", "yes": ["yes"], "no": ["no"],
      "epsilon": 1.0}


def plan_of(query: dict[str, Any], **changes: Any) -> Any:
    return plan_from_dict(plan_dict(queries=[query], **changes))


def dlap_half_width(scale: float, confidence: float) -> int:
    """Independent: smallest k with 2 e^{-(k+1)/s} / (1 + e^{-1/s}) <= 1 - confidence."""
    alpha = 1 - confidence
    k = 0
    while 2 * math.exp(-(k + 1) / scale) / (1 + math.exp(-1 / scale)) > alpha:
        k += 1
    return k


def lengths(plan: Any, frame: pd.DataFrame, runs: int) -> list[int]:
    """The published file's length in ``runs`` releases of the same bounded table: one engine
    (it keeps each statistic's aggregates, so every release noises the same true values, as a
    new engine on the same seed gave; building one per release cost 0.1 s each, issue 23)."""
    engine = PandasEngine(plan, frame, SeededRandomSource(0))
    source = SeededRandomSource(1)
    out = []
    for _ in range(runs):
        r = release_with_engine(plan, engine, source=source)[0]
        assert r.noised_answers is not None
        out.append(int(r.noised_answers.size))
    return out


# ----------------------------------------------------------------------------- what is published


def test_the_number_of_published_answers_is_noised_under_add_remove() -> None:
    frame = pd.DataFrame({"ok": ["yes", "no"] * 50})
    got = lengths(plan_of(RR), frame, 200)
    # discrete Laplace of scale 1/(ε/10) = 10 around 100: spread, centred, never exact always
    assert len(set(got)) > 20 and abs(np.mean(got) - 100) < 4
    assert sum(g == 100 for g in got) < 40


@pytest.mark.parametrize("missing,neighbouring,unit,exact", [
    ({"impute": "no"}, "replace-one", {"kind": "row"}, True),
    ({"impute": "no"}, "replace-one", {"kind": "person", "id_column": "pid", "max_rows": 1},
     True),
    ("drop", "replace-one", {"kind": "row"}, False),  # an answer may turn missing
    ({"impute": "no"}, "add-remove", {"kind": "row"}, False),  # a respondent may join
    ({"impute": "no"}, "replace-one", {"kind": "person", "id_column": "pid", "max_rows": 2},
     False),  # a person's 1 row may become 2
])
def test_the_count_is_exact_only_where_the_relation_makes_it_public(
        missing: Any, neighbouring: str, unit: dict[str, Any], exact: bool) -> None:
    plan = plan_of({**RR, "missing": missing}, neighbouring=neighbouring, privacy_unit=unit)
    ms = {m.component.name: m for m in measurements_for(plan.queries[0], plan)}
    assert (ms["count"].mechanism == "none") is exact
    frame = pd.DataFrame({"ok": ["yes", None, "no", "maybe"] * 10,
                          "pid": [f"p{i}" for i in range(40)]})
    got = lengths(plan, frame, 30)
    assert (set(got) == {40}) is exact


def test_the_budget_covers_the_count_and_the_answers() -> None:
    plan = plan_of(RR, privacy_unit={"kind": "person", "id_column": "pid", "max_rows": 3})
    ms = {m.component.name: m for m in measurements_for(plan.queries[0], plan)}
    # the count: sensitivity k = 3 under add-remove, a tenth of ε
    assert ms["count"].component.l1 == 3
    assert float(ms["count"].scale) == pytest.approx(3 / 0.1)
    # each of k answers: truth t with ln((1+t)/(1-t)) <= 0.9 / 3
    t = float(ms["answers"].truth)
    assert t == pytest.approx(math.tanh(0.9 / 3 / 2), abs=1e-8)
    total = ms["count"].epsilon + ms["answers"].epsilon
    assert total <= 1.0 + 1e-12 and total > 1.0 - 1e-6


def test_a_person_with_more_than_k_rows_changes_the_file_by_noise_only() -> None:
    """Contribution bounding drops rows; how many must not show in the file's length."""
    unit = {"kind": "person", "id_column": "pid", "max_rows": 2}
    plan = plan_of(RR, privacy_unit=unit)
    few = pd.DataFrame({"pid": ["a", "b", "c"], "ok": ["yes", "no", "yes"]})
    many = pd.DataFrame({"pid": ["a", "b", "c", "c", "c", "c"],
                         "ok": ["yes", "no", "yes", "yes", "yes", "yes"]})
    a, b = lengths(plan, few, 300), lengths(plan, many, 300)
    # scale 2/0.1 = 20: both spread widely, means 3 and 4 (clamped at 0 below)
    assert len(set(a)) > 20 and len(set(b)) > 20
    assert set(a) & set(b)


# ----------------------------------------------------------------------------- the file itself


def test_answer_file_pads_with_fair_coins_and_subsamples_uniformly() -> None:
    src = SeededRandomSource(5)
    t = Fraction(1, 2)
    ones = np.ones(1000, dtype=bool)
    # padded: 1000 answers (yes w.p. 3/4) and 3000 coins (1/2): mean 0.5625
    padded = randomized_answer_file(src, ones, t, 4000)
    assert padded.size == 4000 and abs(padded.mean() - 0.5625) < 0.03
    # subsampled: 600 of the 1000 answers
    fewer = randomized_answer_file(src, ones, t, 600)
    assert fewer.size == 600 and abs(fewer.mean() - 0.75) < 0.06
    assert randomized_answer_file(src, ones, t, 0).size == 0


def test_uniform_permutation_is_uniform() -> None:
    src = SeededRandomSource(9)
    counts: dict[tuple[int, ...], int] = {}
    for _ in range(6000):
        key = tuple(uniform_permutation(src, 3).tolist())
        counts[key] = counts.get(key, 0) + 1
    assert len(counts) == 6 and all(abs(c - 1000) < 150 for c in counts.values())


def test_the_interval_includes_the_count_noise_and_holds() -> None:
    """Coverage on many releases: the interval holds the true share at least 95% of the time,
    also when the file was padded or subsampled (small n, large count noise)."""
    frame = pd.DataFrame({"ok": ["yes"] * 18 + ["no"] * 2})
    plan = plan_of({**RR, "epsilon": 3.0})
    engine = PandasEngine(plan, frame, SeededRandomSource(0))
    source = SeededRandomSource(3)
    misses, runs = 0, 400
    for _ in range(runs):
        v = release_with_engine(plan, engine, source=source)[0].values[0]
        if v.value is None:
            continue
        misses += not (v.low <= 0.9 <= v.high)
    assert misses <= 0.05 * runs


def test_planned_accuracy_adds_the_count_error() -> None:
    plan = plan_of(RR, dataset={"name": "t", "expected_rows": 1000})
    from planner_app.core.kinds.shared_dp import accuracy_for

    hw = accuracy_for(plan.queries[0], plan).half_width
    t = math.tanh(0.9 / 2)
    expected = math.sqrt(math.log(2 / 0.025) / 2000) / t + dlap_half_width(10, 0.975) / 1000
    assert hw == pytest.approx(expected, rel=1e-6)


# ----------------------------------------------------------------------------- tiny ε


@pytest.mark.parametrize("epsilon", [1e-12, 1e-300, 5e-324, 1e-6])
def test_an_epsilon_too_small_is_refused_with_a_clear_message(epsilon: float) -> None:
    from planner_app.core.planning.check import check_plan

    plan = plan_of({**RR, "epsilon": epsilon})
    with pytest.raises(InputError) as info:
        check_plan(plan)
    assert "queries[r].epsilon" in str(info.value) and "too small" in str(info.value)


def test_an_epsilon_whose_truth_underflows_is_refused_where_the_count_is_public() -> None:
    from planner_app.core.planning.check import check_plan

    plan = plan_of({**RR, "epsilon": 1e-12, "missing": {"impute": "no"}},
                   neighbouring="replace-one")
    with pytest.raises(InputError) as info:
        check_plan(plan)
    assert "truthful answer rounds to 0" in str(info.value)


def test_an_editor_can_still_show_a_refused_epsilon() -> None:
    """The GUI recomputes at every ε its spin box allows (down to 0.0001, with k rows): the
    measurements, the total and the accuracy exist; the accuracy says why it is refused."""
    from planner_app.core.dp.accounting import compose
    from planner_app.core.kinds.shared_dp import accuracy_for

    plan = plan_of({**RR, "epsilon": 0.0001},
                   privacy_unit={"kind": "person", "id_column": "pid", "max_rows": 1000})
    ms = measurements_for(plan.queries[0], plan)
    assert compose(ms, 0.0).epsilon <= 0.0001 + 1e-12
    acc = accuracy_for(plan.queries[0], plan)
    assert acc.half_width == math.inf and "too small" in acc.note


def test_the_solver_treats_a_refused_epsilon_as_unreachable() -> None:
    from planner_app.core.kinds.shared_dp import epsilon_for_half_width

    plan = plan_of(RR, dataset={"name": "t", "expected_rows": 100_000})
    eps = epsilon_for_half_width(plan.queries[0], plan, 0.05)
    assert eps is not None and 0 < eps < 10


def test_tiny_epsilon_release_exits_2_before_any_charge(tmp_path: Path) -> None:
    import json


    home = tmp_path / "home"
    data = tmp_path / "t.csv"
    data.write_text("ok\nyes\nno\nyes\n")
    plan = tmp_path / "p.json"
    plan.write_text(json.dumps(plan_dict(queries=[{**RR, "epsilon": 1e-12}])))
    from tests.conftest import run_in_process

    for args in (["check", str(plan)],
                 ["release", str(plan), "--data", str(data), "--out", str(tmp_path / "b.zip")]):
        done = run_in_process(args, home)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in done.stderr
        assert "queries[r].epsilon" in lines[0] and "too small" in lines[0]
    assert not (tmp_path / "b.zip").exists()
    assert not app_home(home).ledger_path.exists()


# ----------------------------------------------------------------------------- bundle and verify


def test_bundle_publishes_no_exact_count_and_verifies(tmp_path: Path) -> None:
    from planner_app.core.release.bundle import Verdict, read_bundle
    from planner_app.core.release.verify_release import verify_bundle, verify_contents

    data = tmp_path / "t.csv"
    data.write_text("ok\n" + "yes\nno\n\nmaybe\n" * 10)
    plan = plan_of({**RR, "epsilon": 2.0}, budget={"epsilon": 2.0, "delta": 0.0})
    home = app_home(tmp_path / "home")
    result = publish(plan, load_table(data), tmp_path / "b.zip", home)
    assert verify_bundle(tmp_path / "b.zip").valid
    files = read_bundle(tmp_path / "b.zip")
    answers = files[f"{NOISED_DIR}/r.csv"].decode().splitlines()[1:]
    published = result.releases[0].noised_answers
    assert published is not None and len(answers) == published.size
    text = "\n".join(f.decode("utf-8", "replace") for name, f in files.items()
                     if not name.endswith(".pdf"))
    assert "the number of answers is public" not in text
    assert "number of answers (local model)" not in text
    # a file one answer longer no longer recomputes: the share and interval follow its length
    broken = dict(files)
    broken[f"{NOISED_DIR}/r.csv"] = ("answer\n" + "\n".join(answers + ["yes"]) + "\n").encode()
    verdict = Verdict("b.zip", True)
    verify_contents(broken, verdict)
    assert any("do not recompute" in p for p in verdict.problems)
