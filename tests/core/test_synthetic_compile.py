"""JAX compiles a synthetic table's estimation for its chosen pairs; the dry run before the
charge synthesizes on the pairs the release most likely chooses, in an order that does not
depend on the selection's, so the synthesis after the charge reuses the compilation whenever
the pairs are the same (docs/synthetic.md)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.kinds.results import Aggregate
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.synthetic import (
    dry_run_payload,
    likely_tree,
    pair_score,
    placeholder_payload,
    synthetic_codes,
)
from tests.conftest import plan_dict
from tests.core.test_synthetic_dry_run import refused_before_the_charge

SIZES = {"a": 3, "b": 4, "c": 2, "d": 5}


def _query() -> Any:
    cols = [{"column": n, "categories": [f"{n}{k}" for k in range(s)]} for n, s in SIZES.items()]
    return plan_from_dict(plan_dict(
        budget={"epsilon": 1, "delta": 1e-5},
        queries=[{"id": "s", "kind": "synthetic", "epsilon": 1, "delta": 1e-6, "rows": 50,
                  "columns": cols}])).queries[0]


def _payload(q: Any, pairs: list[tuple[str, str]]) -> dict[str, Any]:
    p = placeholder_payload(q)
    ones = [dict(mg, values=[7] * len(mg["values"]), sigma_sq_steps="25")
            for mg in p["marginals"] if len(mg["columns"]) == 1]
    twos = [{"name": f"twoway:{r}", "columns": [a, b], "sigma_sq_steps": "25",
             "values": [3] * (SIZES[a] * SIZES[b])} for r, (a, b) in enumerate(pairs, 1)]
    return {**p, "marginals": ones + twos, "selected": [list(x) for x in pairs], "rows": 50}


@pytest.fixture()
def compiles() -> Iterator[list[float]]:
    jax = pytest.importorskip("jax")
    pytest.importorskip("mbi")
    seen: list[float] = []

    def listener(event: str, duration: float, **_: Any) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            seen.append(duration)

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield seen
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)


def test_the_same_pairs_in_another_order_compile_nothing(compiles: list[float]) -> None:
    q = _query()
    pairs = [("a", "b"), ("b", "c"), ("c", "d")]
    first = synthetic_codes(q, _payload(q, pairs))
    assert compiles  # the first synthesis of these pairs compiles
    compiles.clear()
    again = synthetic_codes(q, _payload(q, pairs[::-1]))
    assert compiles == []
    assert np.array_equal(first, again)  # and the rows do not depend on the order either


def _aggregate(q: Any, rng: np.random.Generator) -> Aggregate:
    names = list(SIZES)
    agg = Aggregate(query_id=q.id, cells=[(None, None)])
    for n in names:
        agg.parts[f"oneway:{n}"] = rng.integers(5, 40, SIZES[n])
    for i, j in itertools.combinations(range(len(names)), 2):
        agg.parts[f"pair:{i}:{j}"] = rng.integers(0, 30, SIZES[names[i]] * SIZES[names[j]])
    return agg


def test_the_likely_tree_is_the_maximum_spanning_tree_of_the_scores() -> None:
    """Against every spanning tree of the 4 columns, enumerated here."""
    q = _query()
    names = list(SIZES)
    for seed in range(20):
        agg = _aggregate(q, np.random.default_rng(seed))
        true_one = [np.asarray(agg.parts[f"oneway:{n}"]) for n in names]
        rows = float(np.mean([v.sum() for v in true_one]))
        shares = [v / v.sum() for v in true_one]
        score = {(i, j): pair_score(agg.parts[f"pair:{i}:{j}"], shares[i], shares[j], rows)
                 for i, j in itertools.combinations(range(4), 2)}
        best = -1
        for edges in itertools.combinations(score, 3):
            parent = list(range(4))

            def root(k: int, parent: list[int] = parent) -> int:
                while parent[k] != k:
                    k = parent[k]
                return k

            tree = True
            for i, j in edges:
                if root(i) == root(j):
                    tree = False
                    break
                parent[root(i)] = root(j)
            if tree:
                best = max(best, sum(score[e] for e in edges))
        chosen = likely_tree(q, agg)
        assert len(chosen) == 3 and sum(score[e] for e in chosen) == best


def test_the_dry_run_payload_has_the_likely_pairs_and_the_stand_in_shape() -> None:
    q = _query()
    agg = _aggregate(q, np.random.default_rng(3))
    stand_in = _payload(q, [("a", "d"), ("b", "d"), ("c", "d")])
    out = dry_run_payload(q, agg, stand_in, SeededRandomSource(1))
    names = list(SIZES)
    want = [[names[i], names[j]] for i, j in likely_tree(q, agg)]
    assert out["selected"] == want
    twos = out["marginals"][4:]
    assert [mg["columns"] for mg in twos] == want
    assert [mg["name"] for mg in twos] == ["twoway:1", "twoway:2", "twoway:3"]
    assert all(len(mg["values"]) == SIZES[a] * SIZES[b]
               for mg, (a, b) in zip(twos, want, strict=True))
    assert out["marginals"][:4] == stand_in["marginals"][:4]
    assert {k: v for k, v in out.items() if k not in ("selected", "marginals")} == \
        {k: v for k, v in stand_in.items() if k not in ("selected", "marginals")}


def test_a_synthesis_that_fails_is_refused_before_the_charge(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The dry run still runs the whole synthesis (to the last step, the sampling) on its
    likeliest pairs: a failure there refuses the release while nothing is charged."""
    pytest.importorskip("mbi")
    from planner_app.core.release import synthetic

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("a defect in the sampling")

    monkeypatch.setattr(synthetic, "tree_sample", broken)
    refused_before_the_charge(tmp_path)
