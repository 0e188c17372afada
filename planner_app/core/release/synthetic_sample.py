"""Drawing a synthetic table's rows from its fitted model (post-processing of released
values; the randomness is a generator seeded from the payload): ``tree_sample`` for MST's
tree-shaped model, ``mbi_sample`` (mbi's own sampler) for AIM's, whose model is any graph.
release/synthetic.py's ``synthetic_codes`` fits the model and calls one of them."""

from __future__ import annotations

from typing import Any

import numpy as np


def mbi_sample(model: Any, names: list[str], rows: int, seed: int) -> np.ndarray:
    """Rows of an AIM model by mbi's ``synthetic_data`` (randomized rounding down its
    junction tree), which draws from numpy's global generator: seeded with the payload's
    seed for the call and restored after (post-processing of released values)."""
    state = np.random.get_state()
    try:
        np.random.seed(seed)
        data = model.synthetic_data(rows=rows).to_dict()
    finally:
        np.random.set_state(state)
    out: np.ndarray = np.stack([np.asarray(data[n], dtype=np.int64) for n in names], axis=1)
    return out


def rounded_counts(weights: np.ndarray, total: int) -> np.ndarray:
    """``total`` split in proportion to ``weights`` (negatives as 0; all 0: evenly), by
    largest remainders (ties to the first): every count within 1 of its share."""
    w = np.clip(np.nan_to_num(np.asarray(weights, dtype=np.float64)), 0, None)
    share = w / w.sum() if w.sum() > 0 else np.full(w.size, 1.0 / w.size)
    exact = share * total
    counts: np.ndarray = np.floor(exact).astype(np.int64)
    left = total - int(counts.sum())
    if left > 0:
        order = np.argsort(-(exact - counts), kind="stable")
        counts[order[:left]] += 1
    return counts


def tree_sample(names: list[str], sizes: list[int], pairs: list[tuple[str, str]],
                marginal: Any, rows: int, seed: int) -> np.ndarray:
    """Rows drawn from a tree-shaped model (MST's: the chosen pairs join every column):
    the first column's values in proportion to its estimated marginal, then down the tree
    each child's values, within each value of its parent, in proportion to the estimated
    pair marginal (largest-remainder rounding, so every measured marginal of the model is
    matched to within a row a cell), shuffled within the parent's value and, at the end,
    across rows. ``marginal(columns)`` gives the model's marginal (row-major). Randomness
    here is post-processing of released values: a generator seeded from the payload."""
    rng = np.random.default_rng(seed)
    index = {n: k for k, n in enumerate(names)}
    links: dict[int, list[int]] = {k: [] for k in range(len(names))}
    for a, b in pairs:
        links[index[a]].append(index[b])
        links[index[b]].append(index[a])
    codes = np.zeros((rows, len(names)), dtype=np.int64)
    codes[:, 0] = np.repeat(np.arange(sizes[0]), rounded_counts(marginal((names[0],)), rows))
    seen, queue = {0}, [0]
    while queue:
        parent = queue.pop(0)
        for child in sorted(links[parent]):
            if child in seen:
                continue
            seen.add(child)
            queue.append(child)
            joint = marginal((names[parent], names[child])).reshape(sizes[parent], sizes[child])
            for v in range(sizes[parent]):
                where = np.flatnonzero(codes[:, parent] == v)
                if where.size == 0:
                    continue
                values = np.repeat(np.arange(sizes[child]),
                                   rounded_counts(joint[v], int(where.size)))
                codes[where, child] = rng.permutation(values)
    for k in range(len(names)):  # a column outside the tree (never with MST): its marginal
        if k not in seen:
            codes[:, k] = rng.permutation(np.repeat(
                np.arange(sizes[k]), rounded_counts(marginal((names[k],)), rows)))
    out: np.ndarray = codes[rng.permutation(rows)]
    return out
