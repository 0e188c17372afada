"""Consistent values under a tree of relations (issue 27): post-processing of noised values.

The cells form a forest (``parent[i]``: the cell that cell i adds up to, or -1; every cell
with children is their sum). The leaves determine every cell, ``x = B z`` (``B[i, k]`` = 1
when leaf k lies under cell i or is it), so the weighted least-squares estimate under the
relations is ``z = (Bᵀ W B)⁻¹ Bᵀ W y`` with W = 1 / each noise's variance, and the
non-negative one is the non-negative least squares of ``W^½ B z ≈ W^½ y`` (every cell is a
sum of leaves, so leaves ≥ 0 makes every cell ≥ 0). Whole numbers come from a controlled
rounding down the tree: each cell becomes the floor or the ceiling of its consistent value
and its children's whole numbers add up to it exactly.

Everything here is a function of the noised values and public parameters only, with no
randomness but a simulation under a fixed public seed: verify redoes it and gets the same
numbers. Nothing here reads the data.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# scipy (about a second of imports) is imported where it is used: only a plan with relations
# needs it, and every release imports this module (issue 24)

#: the public seed of every simulation of the intervals (so verify redoes them exactly)
SEED = 20261127
LINEAR_RUNS = 4_000  # draws of the noise for a linear estimate's interval (matrix products)
DECIMALS = 3  # non-integer consistent values are published to this many decimals


@dataclass(frozen=True)
class CellNoise:
    """One cell's noise law, from public parameters: ``laplace`` (discrete, its scale) or
    ``gaussian`` (discrete, its σ²), on a grid of ``step`` (a sum's grid; 1 for a count)."""

    kind: str
    param: float  # the scale or σ² in grid steps
    step: float = 1.0  # the grid step in value units (1 for a count)

    @property
    def variance(self) -> float:
        if self.kind == "gaussian":
            return self.param * self.step ** 2
        q = math.exp(-1.0 / self.param)
        return 2.0 * q / (1.0 - q) ** 2 * self.step ** 2

    def draw(self, rng: np.random.Generator, runs: int) -> np.ndarray:
        """``runs`` draws of this noise in value units (discrete Laplace exactly, as the
        difference of two geometric variables; the discrete Gaussian as a rounded normal)."""
        if self.kind == "gaussian":
            return np.rint(rng.normal(0.0, math.sqrt(self.param), runs)) * self.step
        p = 1.0 - math.exp(-1.0 / self.param)
        return (rng.geometric(p, runs) - rng.geometric(p, runs)).astype(float) * self.step


@dataclass(frozen=True)
class Consistent:
    """The consistent values of every cell with their interval; ``method`` says how the
    intervals were made; ``empty_cell_bias``: for non-negative values, about how far above
    0 a cell whose true count is 0 comes out on average (from public parameters)."""

    values: list[float] | list[int]
    low: list[float] | list[int]
    high: list[float] | list[int]
    method: str
    empty_cell_bias: list[float]


def leaf_matrix(parent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(B, leaves): ``B[i, k]`` = 1 when leaf ``leaves[k]`` is cell i or lies under it."""
    n = len(parent)
    has_child = np.zeros(n, dtype=bool)
    has_child[parent[parent >= 0]] = True
    leaves = np.flatnonzero(~has_child)
    b = np.zeros((n, len(leaves)))
    for k, leaf in enumerate(leaves.tolist()):
        at = leaf
        while at >= 0:
            b[at, k] = 1.0
            at = int(parent[at])
    return b, leaves


def _projection(b: np.ndarray, var: np.ndarray) -> np.ndarray:
    """P with x̂ = P y: the weighted least-squares estimate under the relations."""
    w = 1.0 / var
    m = b.T @ (w[:, None] * b)
    return np.asarray(b @ np.linalg.solve(m, b.T * w[None, :]))


def linear_sd(var: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """Each cell's standard deviation of the linear consistent value's error (from the
    noises' variances alone): what the app's preview states before the release."""
    b, _ = leaf_matrix(parent)
    proj = _projection(b, var)
    return np.asarray(np.sqrt(np.einsum("ij,j,ij->i", proj, var, proj)))


def non_negative_leaves(b: np.ndarray, var: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The non-negative weighted least squares of the leaves (scipy's NNLS)."""
    from scipy.optimize import nnls  # type: ignore[import-untyped]

    root_w = 1.0 / np.sqrt(var)
    z, _ = nnls(b * root_w[:, None], y * root_w, maxiter=50 * b.shape[1] + 100)
    return np.asarray(z)


def controlled_rounding(x: np.ndarray, parent: np.ndarray) -> list[int]:
    """Whole numbers, each the floor or the ceiling of its cell's value, whose children add
    up exactly to every parent: a root rounds to nearest; the children of a cell whose whole
    number is T take their floors and ``T - Σ floors`` of them (the largest fractions first,
    the earlier cell on a tie) their ceilings."""
    x = np.round(x, 9)  # a sum of floats off by 1e-15 must not flip a floor
    n = len(x)
    children: list[list[int]] = [[] for _ in range(n)]
    for i, p in enumerate(parent.tolist()):
        if p >= 0:
            children[p].append(i)
    out = [0] * n
    stack = [i for i in range(n) if parent[i] < 0]
    for r in stack:
        out[r] = math.floor(float(x[r]) + 0.5)
    while stack:
        at = stack.pop()
        kids = children[at]
        if not kids:
            continue
        floors = [math.floor(float(x[k])) for k in kids]
        fractions = [float(x[k]) - f for k, f in zip(kids, floors, strict=True)]
        movable = [j for j, f in enumerate(fractions) if f > 0]
        # T lies in [Σ floors, Σ ceilings] since T is the floor or ceiling of their sum;
        # _check_sums proves it held
        up = min(max(out[at] - sum(floors), 0), len(movable))
        chosen = set(sorted(movable, key=lambda j: (-fractions[j], j))[:up])
        for j, k in enumerate(kids):
            out[k] = floors[j] + (1 if j in chosen else 0)
            stack.append(k)
    _check_sums(out, parent)
    return out


def _check_sums(values: Sequence[int], parent: np.ndarray) -> None:
    """Every parent is exactly the sum of its children, in integers."""
    sums = [0] * len(values)
    has = [False] * len(values)
    for i, p in enumerate(parent.tolist()):
        if p >= 0:
            sums[p] += int(values[i])
            has[p] = True
    bad = [i for i in range(len(values)) if has[i] and sums[i] != int(values[i])]
    if bad:
        raise ArithmeticError(f"controlled rounding broke the relation at cell {bad[0]}")


def estimate(y: np.ndarray, var: np.ndarray, parent: np.ndarray, *, non_negative: bool,
             integer: bool, b: np.ndarray | None = None,
             projection: np.ndarray | None = None) -> tuple[np.ndarray, list[int] | None]:
    """(the consistent values as floats, their whole numbers or None)."""
    if b is None:
        b, _ = leaf_matrix(parent)
    if non_negative:
        x = b @ non_negative_leaves(b, var, y)
    else:
        x = (projection if projection is not None else _projection(b, var)) @ y
    return x, controlled_rounding(x, parent) if integer else None


def consistent_values(y: Sequence[float], noise: Sequence[CellNoise], parent: np.ndarray,
                      *, non_negative: bool, integer: bool,
                      confidence: float) -> Consistent:
    """The consistent values of the noised cells ``y`` and their intervals at
    ``confidence``. The interval is the linear estimate's, whose error is the noise alone
    (a fixed linear map of it, whatever the true values): in closed form when every noise is
    Gaussian, else by simulating the noise from its public laws under the fixed seed
    ``SEED``. For non-negative values it is cut at 0 (a true count is never below), and it
    always holds the published value."""
    ya = np.asarray(y, dtype=float)
    var = np.array([c.variance for c in noise])
    b, _ = leaf_matrix(parent)
    proj = _projection(b, var)
    sd = np.sqrt(np.einsum("ij,j,ij->i", proj, var, proj))
    linear = proj @ ya
    x, whole = estimate(ya, var, parent, non_negative=non_negative, integer=integer, b=b,
                        projection=proj)
    alpha = 1.0 - confidence
    if all(c.kind == "gaussian" for c in noise):
        from scipy.special import ndtri  # type: ignore[import-untyped]

        half = float(ndtri(1.0 - alpha / 2)) * sd
        lo_err, hi_err = -half, half
        method = "closed form (the linear estimate's error is Gaussian)"
    else:
        lo_err, hi_err = _quantiles(_noise_matrix(noise, LINEAR_RUNS) @ proj.T, alpha)
        method = (f"simulation of the linear estimate's error: {LINEAR_RUNS:,} draws of the "
                  f"noise from its public laws, seed {SEED}")
    low, high = linear - hi_err, linear - lo_err
    if non_negative:
        low, high = np.maximum(low, 0.0), np.maximum(high, 0.0)
        method += "; cut at 0"
    # for a non-negative estimate: about how far above 0 an empty cell comes out on average
    # (the mean of the positive part of its linear error, from public parameters)
    bias = [round(v, 2) for v in (sd / math.sqrt(2 * math.pi)).tolist()] if non_negative \
        else [0.0] * len(x)
    if whole is not None:
        lows = [min(math.ceil(round(float(v), 9)), w) for v, w in zip(low, whole, strict=True)]
        highs = [max(math.floor(round(float(v), 9)), w)
                 for v, w in zip(high, whole, strict=True)]
        return Consistent(whole, lows, highs, method, bias)
    return Consistent(_published(x), _published(np.minimum(low, x)),
                      _published(np.maximum(high, x)), method, bias)


def _published(x: np.ndarray) -> list[float]:
    """Floats to ``DECIMALS`` places (verify compares them byte for byte; -0.0 is 0.0)."""
    return [float(round(float(v), DECIMALS)) + 0.0 for v in x]


def _noise_matrix(noise: Sequence[CellNoise], runs: int) -> np.ndarray:
    """runs × cells draws of every cell's noise, the cells in order, from the fixed seed."""
    rng = np.random.Generator(np.random.PCG64(SEED))
    return np.column_stack([c.draw(rng, runs) for c in noise])


def _quantiles(errors: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    lo = np.quantile(errors, alpha / 2, axis=0, method="inverted_cdf")
    hi = np.quantile(errors, 1 - alpha / 2, axis=0, method="inverted_cdf")
    return np.asarray(lo), np.asarray(hi)
