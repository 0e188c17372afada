"""OpenDP's packaged AIM (opendp.extras.mbi.AIM, OpenDP 0.16 with mbi 1.1) on the demo
survey, for comparison with bench_synthetic_aim.py's MST and AIM (issue 25). It runs in a
separate virtual environment (OpenDP pins its own mbi): the 1-, 2- and 3-way TVD at
ε = 0.5, 1, 4 (δ = 1e-6 turned into ρ by the same conversion as this app's), with seconds
and peak memory of the process.

OpenDP bins with left-open edges ((a, b]) where this app's bins are left-closed; both sides
of each TVD here are binned OpenDP's way, so the figures compare methods, not binnings.

    python -m venv /tmp/odp && /tmp/odp/bin/pip install 'opendp[mbi]'
    /tmp/odp/bin/python bench/bench_opendp_aim.py RHO_FOR_EPS_0.5 RHO_FOR_EPS_1 RHO_FOR_EPS_4
"""

from __future__ import annotations

import itertools
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np
import opendp.prelude as dp
import polars as pl

ROOT = Path(__file__).resolve().parent.parent
KEYS = {"region": ["North", "South", "East", "West"],
        "employment": ["employed", "unemployed", "retired", "student"],
        "smoker": ["yes", "no"]}
CUTS = {"age": [25.0, 35.0, 45.0, 55.0, 65.0, 75.0], "satisfaction": [4.0, 7.0]}
COLUMNS = ["region", "employment", "age", "smoker", "satisfaction"]


def codes(frame: pl.DataFrame) -> np.ndarray:
    """Value indices; a row with a value outside the keys (OpenDP adds a null category) or
    no number is left out."""
    out = []
    for c in COLUMNS:
        if c in KEYS:
            out.append(frame[c].cast(pl.Utf8).replace_strict(
                {v: float(i) for i, v in enumerate(KEYS[c])}, default=None,
                return_dtype=pl.Float64).to_numpy())
        else:  # (-inf, a], (a, b], ..., (z, inf)
            x = frame[c].cast(pl.Float64).to_numpy()
            v = np.searchsorted(np.asarray(CUTS[c]), x, side="left").astype(float)
            v[np.isnan(x)] = np.nan
            out.append(v)
    table = np.stack(out, axis=1)
    return table[~np.isnan(table).any(axis=1)].astype(np.int64)


def tvd(a: np.ndarray, b: np.ndarray) -> float:
    return float(0.5 * np.abs(a / a.sum() - b / max(b.sum(), 1)).sum())


def marginal(c: np.ndarray, sizes: list[int], cl: tuple[int, ...]) -> np.ndarray:
    idx = np.zeros(c.shape[0], dtype=np.int64)
    for k in cl:
        idx = idx * sizes[k] + c[:, k]
    return np.bincount(idx, minlength=int(np.prod([sizes[k] for k in cl])))


def main() -> None:
    dp.enable_features("contrib")
    raw = pl.read_csv(ROOT / "resources" / "demo" / "survey.csv", infer_schema_length=0)
    data = raw.select(COLUMNS).with_columns(
        pl.col("age").cast(pl.Float64, strict=False),
        pl.col("satisfaction").cast(pl.Float64, strict=False)).drop_nulls()
    data = data.filter(pl.col("region").is_in(KEYS["region"])
                       & pl.col("employment").is_in(KEYS["employment"])
                       & pl.col("smoker").is_in(KEYS["smoker"]))
    path = Path("/tmp/opendp-aim-survey.csv")  # the rows this app's table counts, typed
    data.write_csv(path)
    true = codes(data)
    sizes = [len(KEYS[c]) if c in KEYS else len(CUTS[c]) + 1 for c in COLUMNS]
    for eps, rho in zip((0.5, 1.0, 4.0), map(float, sys.argv[1:4]), strict=True):
        t0 = time.perf_counter()
        context = dp.Context.compositor(data=pl.scan_csv(path),
                                        privacy_unit=dp.unit_of(contributions=3),
                                        privacy_loss=dp.loss_of(rho=rho))
        table = context.query(rho=rho).select(*COLUMNS).contingency_table(
            keys=KEYS, cuts=CUTS, algorithm=dp.mbi.AIM()).release()
        synth = codes(table.synthesize())
        secs = time.perf_counter() - t0
        tv = {n: float(np.mean([tvd(marginal(true, sizes, cl), marginal(synth, sizes, cl))
                                for cl in itertools.combinations(range(5), n)]))
              for n in (1, 2, 3)}
        print(json.dumps({"epsilon": eps, "rho": rho, "tvd": tv, "secs": secs,
                          "mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}),
              flush=True)


if __name__ == "__main__":
    main()
