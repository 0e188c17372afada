"""A synthetic table whose plan states fewer (or more) rows than the data has: the model is
fitted at the noised counts' own scale and the stated rows are drawn from it, so its one-way
shares follow the noised counts. (Fitted with the stated rows as the model's total, the fit
collapsed: 300 rows all 'North', all non-smokers.)"""

from __future__ import annotations

import io
from typing import Any

import pandas as pd
import pytest

pytest.importorskip("mbi")


def _one_way_tvds(bundle: dict[str, Any]) -> dict[str, float]:
    """Each column's TVD between the CSV's shares and the released noised counts' (clipped
    at 0, normalised), counted here with pandas."""
    payload = bundle["record"]["synthetic"]["synth"]
    csv = next(data for name, data in bundle["files"].items() if name.startswith("synthetic/"))
    table = pd.read_csv(io.BytesIO(csv), dtype=str, keep_default_na=False)
    out = {}
    for mg in payload["marginals"]:
        if len(mg["columns"]) != 1:
            continue
        column = mg["columns"][0]
        domain = payload["domains"][payload["columns"].index(column)]
        noised = pd.Series(mg["values"], index=domain).clip(lower=0)
        made = table[column].value_counts().reindex(domain, fill_value=0)
        out[column] = 0.5 * float((made / made.sum() - noised / noised.sum()).abs().sum())
    return out


def test_stated_rows_keep_the_noised_shares(synthetic_demo: dict[str, Any]) -> None:
    bundle = synthetic_demo  # demo_bundle: 300 rows stated; the demo table has about 3,800
    assert bundle["record"]["synthetic"]["synth"]["rows"] == 300
    tvds = _one_way_tvds(bundle)
    assert set(tvds) == {"region", "employment", "age", "smoker"}
    # ε = 2 over ~3,800 rows: the noise moves a share by about 1%; 300 rows round a share
    # by at most 1/300 a cell
    assert max(tvds.values()) < 0.05, tvds
