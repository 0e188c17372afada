"""Composition: what a whole release (or a dataset's lifetime of releases) costs.

* basic: ε and δ add up. Always valid.
* parallel: the disjoint cells of a histogram or group-by are one measurement whose
  sensitivity already covers every cell a person can touch (sensitivity.py), so cells cost
  the maximum, not the sum.
* zcdp: ρ adds up (pure ε gives ε²/2, the exponential mechanism ε²/8, a discrete Gaussian
  Δ₂²/2σ²), then converted to (ε, δ) at the budget's δ. Needs δ > 0.
* pld: privacy loss distributions composed as Google's dp-accounting composes them
  (pessimistic discretisation, so the result is an upper bound; its code carried in
  pld_pmf.py, pld_mechanisms.py and pld_ops.py). Needs δ > 0. A Gaussian over cells one
  person can touch several of is accounted by its maximal shifts (``shift_patterns``).

The default is the tightest valid accountant.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, NamedTuple

from ..support.errors import InputError
from .gaussian import shift_patterns
from .measure import Measurement, epsilon_from_rho

if TYPE_CHECKING:
    import numpy as np

    from .pld_pmf import DensePmf, Pmf

# The PLD code (pld_pmf, pld_mechanisms, pld_ops, laplace_pld: numpy) is imported by the
# functions that build or compose a PLD, when a total is first composed, not with this module:
# every plan edit reads it, and the desktop app's start reads the editing code (issue 24).


@dataclass(frozen=True)
class Total:
    epsilon: float
    delta: float
    accountant: str
    rho: float | None = None

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"epsilon": self.epsilon, "delta": self.delta,
                                  "accountant": self.accountant}
        if self.rho is not None:
            out["rho"] = self.rho
        return out


FIT_TOLERANCE = 1e-9  # relative: totals are computed in floating point


def within(total: Total, epsilon: float, delta: float) -> bool:
    """Whether ``total`` fits a budget or cap of (``epsilon``, ``delta``): the one comparison
    every caller uses (check, the ledger's charge, the wizard, the meter, the goal solver).
    Fails closed: a NaN total never fits."""
    return (total.epsilon <= epsilon * (1 + FIT_TOLERANCE)
            and total.delta <= delta * (1 + FIT_TOLERANCE))


class _Facts(NamedTuple):
    """What every accountant asks of a list of measurements, found in one walk of it."""

    epsilon: float  # Σε (math.fsum: exact, so in any order the same)
    delta: float  # Σδ
    rho: float  # Σρ
    any_thresholded: bool  # a discovery of keys (``thresholded``)
    threshold_delta: float  # Σδ of the Gaussian discoveries' thresholds (``threshold_only``)
    any_zcdp: bool  # AIM's adaptive rounds
    pure: bool  # ``all_pure``
    pld_ok: bool | None  # ``pld_supported``: found on first asking (it enumerates shifts)


_SUMS: OrderedDict[tuple[int, ...], tuple[list[Measurement], _Facts]] = OrderedDict()
_sums_lock = threading.Lock()


def _facts(measurements: Sequence[Measurement]) -> _Facts:
    """The ``_Facts`` of ``measurements``, kept for the last few lists: the editor composes
    the same measurements for the release and again for the dataset's lifetime at each
    slider step, and each accountant's rule asked its own question of all of them (at 1,000
    statistics a dozen walks a step). Keyed by the objects' ids, with the objects held so
    that no id is reused while it is a key (measurements are frozen)."""
    key = tuple(map(id, measurements))
    with _sums_lock:
        hit = _SUMS.get(key)
    if hit is not None:
        return hit[1]
    noisy = [m for m in measurements if m.mechanism != "none"]
    facts = _Facts(
        math.fsum(m.epsilon for m in measurements),
        math.fsum(m.delta for m in measurements),
        math.fsum(m.rho for m in measurements),
        any(thresholded(m) for m in measurements),
        math.fsum(m.delta for m in measurements if threshold_only(m)),
        any(m.mechanism == "zcdp" for m in measurements),
        all(m.delta == 0 and m.mechanism != "gaussian" for m in noisy),
        None)
    _keep(key, measurements, facts)
    return facts


def _keep(key: tuple[int, ...], measurements: Sequence[Measurement], facts: _Facts) -> None:
    with _sums_lock:
        _SUMS[key] = (list(measurements), facts)
        _SUMS.move_to_end(key)
        if len(_SUMS) > 4:
            _SUMS.popitem(last=False)


def _sums(measurements: Sequence[Measurement]) -> tuple[float, float, float]:
    """Σε, Σδ and Σρ of ``measurements``."""
    facts = _facts(measurements)
    return facts.epsilon, facts.delta, facts.rho


def basic(measurements: Sequence[Measurement]) -> Total:
    eps, delta, _ = _sums(measurements)
    return Total(eps, min(delta, 1.0), "basic")


def thresholded(m: Measurement) -> bool:
    """A discovery of keys' measurement: discrete Laplace counts published above a
    threshold, (ε, δ)-DP with a δ of its own (dp/threshold.py), which no ρ describes."""
    return m.mechanism == "laplace" and m.delta > 0


def threshold_only(m: Measurement) -> bool:
    """The threshold of a Gaussian discovery of keys (``gaussian_threshold``): (0, δ)-DP, a
    δ added to its Gaussian's, which every accountant composes (dp/threshold.py)."""
    return m.mechanism == "threshold"


#: why zcdp cannot compose a discovery of keys (compose's refusal when it is named)
ZCDP_THRESHOLD = ("zcdp cannot account for a discovery of keys (its threshold's δ is not a "
                  "zCDP parameter); use pld or basic")


def zcdp(measurements: Sequence[Measurement], delta: float) -> Total:
    """ρ added up, then (ε, δ) at ``delta``; ε = inf (fails closed) with a thresholded
    measurement among them."""
    facts = _facts(measurements)
    if facts.any_thresholded:
        return Total(math.inf, delta, "zcdp")
    rho = facts.rho
    # a Gaussian discovery's threshold: approximate zCDP (ρ, δ_t) is (ε(ρ, δ - δ_t), δ)-DP
    # (OpenDP's make_gaussian_threshold states it so); inf when its δ leaves none for ρ
    cut = facts.threshold_delta
    if cut > 0 and not cut < delta:
        return Total(math.inf, delta, "zcdp", rho)
    return Total(epsilon_from_rho(rho, delta - cut), delta, "zcdp", rho)


MAX_PLD_SIGMA_STEPS = 20_000
AIM_PLD_REFUSAL = ("a synthetic table by AIM spends its rounds adaptively, which only zCDP "
                   "composes; use the zcdp accountant, or leave the accountant unset")


def _pld_ok(m: Measurement) -> bool:
    if m.mechanism == "zcdp":  # a ρ spent by adaptive rounds (AIM): zCDP composes it, no PLD
        return False
    if m.mechanism != "gaussian":
        return True
    assert m.sigma_sq is not None
    if float(m.sigma_sq) > MAX_PLD_SIGMA_STEPS**2:
        return False
    return m.component.single_cell or shift_patterns(m.component.l1, m.component.l2_sq,
                                                     m.component.cells) is not None


def pld_supported(measurements: Iterable[Measurement]) -> bool:
    """A PLD here exists for every measurement but a Gaussian with a very large σ in grid
    steps, or over several cells with a sensitivity too large to enumerate its shifts, and a
    ``zcdp`` budget spent by adaptive rounds (AIM's); such plans use zcdp."""
    return all(_pld_ok(m) for m in measurements)


def _pld_of(m: Measurement, older_grid: bool = False) -> Pmf:
    """A measurement's PLD (symmetric: one PMF); ``older_grid``: as releases computed it
    before the exact grid (a discrete Laplace by ``discrete_laplace_pld_before_exact_grid``, a
    discrete Gaussian's σ always a float step down), to verify their bundles."""
    from . import pld_mechanisms
    from .laplace_pld import (
        PLD_DISCRETISATION,
        discrete_laplace_pld,
        discrete_laplace_pld_before_exact_grid,
    )
    from .pld_pmf import self_compose

    d = PLD_DISCRETISATION
    if thresholded(m) or threshold_only(m):  # (ε, δ)-DP: its worst pair dominates it
        return pld_mechanisms.privacy_parameters(m.epsilon, m.delta, d)
    if m.mechanism == "laplace" and m.component.single_cell:
        assert m.scale is not None
        if older_grid:
            return discrete_laplace_pld_before_exact_grid(m.scale, m.component.l1, d)
        return discrete_laplace_pld(m.scale, m.component.l1, d)
    if m.mechanism == "gaussian":
        assert m.sigma_sq is not None
        # σ as a float at or below the true σ (pessimistic: less noise), but not a step below
        # one that is exact: a loss on a grid point (σ = 50, Δ = 2) would go a step up
        sigma = math.sqrt(float(m.sigma_sq))
        if older_grid or Fraction(sigma) ** 2 > m.sigma_sq:
            sigma = math.nextafter(sigma, 0.0)
        if m.component.single_cell:
            return _gaussian_pld(sigma, m.component.l1, d)
        patterns = shift_patterns(m.component.l1, m.component.l2_sq, m.component.cells)
        assert patterns is not None
        return _max_pld([_shift_pld(sigma, pattern, d) for pattern in patterns], d)
    if m.mechanism == "randomized_response":
        assert m.truth is not None
        noise = math.nextafter(float(1 - m.truth), 0.0)
        one = pld_mechanisms.randomized_response(noise, d)
        return self_compose(one, m.component.l1) if m.component.l1 > 1 else one
    # pure ε: the worst pair of any ε-DP mechanism dominates it
    return pld_mechanisms.privacy_parameters(m.epsilon, 0.0, d)


def _gaussian_pld(sigma: float, sensitivity: int, d: float) -> Pmf:
    """The discrete Gaussian's PLD, or all at +∞ where its noise cannot hide the shift (a huge
    ε: σ under a twentieth of Δ); dp-accounting refuses that case, a plan may ask for it."""
    from . import pld_mechanisms

    if pld_mechanisms.distinguishable(sigma, sensitivity):
        return pld_mechanisms.certain_loss(d)
    return pld_mechanisms.discrete_gaussian(sigma, sensitivity, d)


def _shift_pld(sigma: float, pattern: tuple[int, ...], d: float) -> Pmf:
    """PLD of independent discrete Gaussians on cells shifted by ``pattern``: the
    composition of the one-dimensional PLDs."""
    from . import pld_ops
    from .pld_pmf import self_compose

    total: Pmf | None = None
    for part in sorted(set(pattern)):
        one = _gaussian_pld(sigma, part, d)
        times = pattern.count(part)
        piece = self_compose(one, times) if times > 1 else one
        total = piece if total is None else pld_ops.compose(total, piece)
    assert total is not None  # a shift pattern has at least one shifted cell
    return total


def _max_pld(plds: list[Pmf], d: float) -> Pmf:
    """One PLD that dominates each of ``plds`` (all symmetric): pessimistic connect-the-dots
    (Doroshenko et al. 2022) on the largest of their δ(ε) at every loss on the grid. The
    largest of hockey-stick curves is again convex in e^ε, so a pair with that curve exists
    and the connect-the-dots PLD dominates it."""
    import numpy as np

    from .pld_pmf import connect_dots, to_dense

    if len(plds) == 1:
        return plds[0]
    pmfs = [to_dense(p) for p in plds]
    lower = min(pm.lower_loss for pm in pmfs)
    upper = max(pm.lower_loss + pm.size - 1 for pm in pmfs)
    grid = np.arange(lower, upper + 1)
    deltas = np.max([_deltas_on_grid(pm, grid, d) for pm in pmfs], axis=0)
    deltas = np.minimum(1.0, np.maximum(0.0, deltas * (1 + 1e-9) + 1e-15))  # float error
    return connect_dots(d, grid, deltas)


def _deltas_on_grid(pm: DensePmf, grid: np.ndarray, d: float) -> np.ndarray:
    """δ(ε) of a dense PLD pmf at every ε = g·d, in one pass: δ(ε) = ∞-mass +
    Σ_{L > ε} p_L (1 - e^(ε - L)), from reverse cumulative sums."""
    import numpy as np

    lower, probs = pm.lower_loss, np.asarray(pm.probs)
    losses = (lower + np.arange(probs.size)) * d
    tail_p = np.append(np.cumsum(probs[::-1])[::-1], 0.0)
    tail_q = np.append(np.cumsum((probs * np.exp(-losses))[::-1])[::-1], 0.0)
    first = np.clip(grid - lower + 1, 0, probs.size)  # the first loss above g·d
    deltas: np.ndarray = pm.infinity_mass + np.maximum(
        0.0, tail_p[first] - np.exp(grid * d) * tail_q[first])
    return deltas


_Key = tuple[object, ...]


class _Node:
    """A cached PLD: its id (never reused), the PLD, its bytes, the call that last used it
    (-1 once it has left the cache)."""

    __slots__ = ("ident", "size", "used", "value")

    def __init__(self, ident: int, value: Pmf, size: int, used: int) -> None:
        self.ident = ident
        self.value = value
        self.size = size
        self.used = used


def _pld_key(m: Measurement) -> _Key:
    """What a measurement's PLD depends on (not its statistic): equal keys, equal PLDs."""
    return (m.mechanism, m.component.single_cell, m.component.l1,
            m.component.l2_sq if m.mechanism == "gaussian" else None,
            m.component.cells if m.mechanism == "gaussian" and not m.component.single_cell
            else None, m.scale, m.sigma_sq, m.truth,
            m.epsilon if m.mechanism in ("exponential",) or not m.component.single_cell else None,
            m.delta if thresholded(m) or threshold_only(m) else None)


def _nbytes(p: Pmf) -> int:
    """The memory a PLD holds: its array (a sparse pmf's entries at 100 bytes each)."""
    from .pld_pmf import SparsePmf

    if isinstance(p, SparsePmf):
        return 400 + 100 * len(p.loss_probs)
    return 400 + int(p.probs.nbytes)


PLD_CACHE_BYTES = 256 * 2**20  # at most
PLD_CACHE_FLOOR = 64 * 2**20  # kept past the current tree's three times, up to the most
_MAX_NAMES = 200_000  # interned measurement keys and statistic ids before they are dropped


def _digest(text: str) -> int:
    """A digest that is the same in every process (``hash`` of a str is not)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")


def _joins(places: list[int]) -> tuple[tuple[int, int], ...]:
    """The tree over leaves at sorted ``places`` (digests): each node splits its leaves at the
    first bit where their digests differ (in the middle if they are equal, never in practice)
    and composes left with right. Its internal nodes in post-order, each as the slots of its
    two children: slots 0..n-1 are the leaves, slot n + k the k-th internal node."""
    joins: list[tuple[int, int]] = []
    n = len(places)

    def build(lo: int, hi: int) -> int:
        if hi - lo == 1:
            return lo
        first, last = places[lo], places[hi - 1]
        if first == last:
            split = (lo + hi) // 2
        else:
            bit = (first ^ last).bit_length() - 1
            split = bisect.bisect_left(places, (first >> bit | 1) << bit, lo, hi)
        left = build(lo, split)
        right = build(split, hi)
        joins.append((left, right))
        return n + len(joins) - 1

    build(0, n)
    return tuple(joins)


@dataclass(frozen=True)
class _Shape:
    """The tree of one set of statistics (``names`` in the order given), and the leaves and
    slots (nodes) of the last call composed on it; ``slots`` None when not kept."""

    names: tuple[str, ...]
    order: tuple[str, ...]  # the statistics by place: the leaves left to right
    joins: tuple[tuple[int, int], ...]
    leaves: list[tuple[tuple[int, int], ...]]
    slots: list[_Node | None] | None


class PldTree:
    """Composes PLDs along one fixed tree and keeps its nodes, so composing measurements that
    differ from an earlier call's in a few statistics recomposes only the nodes above those.

    The tree depends on the measurements alone, never on what was composed before:
    * a leaf per statistic (query id): the PLDs of its measurements (equal measurements
      self-composed, as ``times`` copies), composed in the order of their keys' ``repr``;
    * leaves placed by a digest of the statistic's id, and composed up a binary trie on those
      digests: each node splits its leaves at the first bit where their digests differ, and
      composes left with right. A random-looking digest keeps the trie about log2(n) deep, and
      adding, removing or changing one statistic changes only the nodes on its path.
    So a total from the cache is bit for bit the total composed from nothing (the same
    convolutions in the same order, which a fresh ``PldTree`` does), and an ε slider step at
    n statistics costs one leaf and about log2(n) convolutions.

    Nodes are cached by content (a leaf by its measurements' keys, a node by its two
    children's ids; ids are never reused); after a call the least recently used go past
    ``limit`` (three times that call's tree, at least 64 MB, at most ``max_bytes``). Each call
    touches every node of its tree, so the plan being edited stays cached (its tree is 6 MB at
    100 statistics of every kind, 67 MB at 1,000; a slider step adds one path, about 5 MB at
    1,000) with room for the paths of an undo or a slider dragged back; a tree larger than
    ``max_bytes`` is still composed correctly, only from less cache.
    """

    def __init__(self, max_bytes: int = PLD_CACHE_BYTES, older_grid: bool = False) -> None:
        self.max_bytes = max_bytes
        self.older_grid = older_grid  # see ``_pld_of``
        self._lock = threading.Lock()
        self._nodes: dict[object, _Node] = {}
        self._bytes = 0
        self._next_id = 0
        self._call = 0  # stamps the nodes each call uses: the least recently used go first
        self._call_bytes = 0  # what the last call's tree holds
        self._kids: dict[_Key, int] = {}  # measurement key -> interned id
        self._first: dict[int, tuple[Measurement, str]] = {}  # id -> a measurement, repr(key)
        self._objects: dict[int, tuple[Measurement, int]] = {}  # id(m) -> (m, key id)
        self._places: dict[str, int] = {}  # statistic id -> digest
        self._last: tuple[tuple[tuple[str, int], ...], _Node] | None = None
        # the last call's measurements (held: their ids are not reused) and their ids
        self._last_ids: tuple[list[Measurement], tuple[int, ...]] | None = None
        self._shape: _Shape | None = None  # the last call's tree, to reuse its nodes
        self._epsilons: OrderedDict[tuple[int, float], float] = OrderedDict()
        # a statistic's measurements (key ids and counts, as met) -> its leaf, in key order:
        # sorting them by their keys' repr at every slider step cost more than the step's
        # bookkeeping at 1,000 statistics
        self._orders: dict[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]] = {}

    @property
    def cached_bytes(self) -> int:
        return self._bytes

    # -- the cache ----------------------------------------------------------------------------

    def _get(self, key: object) -> _Node | None:
        hit = self._nodes.get(key)
        if hit is not None and hit.used != self._call:
            hit.used = self._call
            self._call_bytes += hit.size
        return hit

    def _put(self, key: object, value: Pmf) -> _Node:
        with self._lock:
            hit = self._nodes.get(key)
            if hit is not None:  # another thread composed it meanwhile: keep the one
                return hit
            self._next_id += 1
            node = _Node(self._next_id, value, _nbytes(value), self._call)
            self._nodes[key] = node
            self._bytes += node.size
            self._call_bytes += node.size
            if self._bytes > self.max_bytes:
                self._evict(self.max_bytes)
            return node

    @property
    def limit(self) -> int:
        """The bytes kept between calls: three times the last tree (its stale paths, for an
        undo or a slider dragged back), at least ``PLD_CACHE_FLOOR``, at most ``max_bytes``."""
        return min(self.max_bytes, max(PLD_CACHE_FLOOR, 3 * self._call_bytes))

    def _evict(self, bound: int) -> None:
        """Drop the least recently used nodes down to 3/4 of ``bound`` (called locked)."""
        order = sorted(self._nodes.items(), key=lambda item: (item[1].used, item[1].ident))
        for key, node in order:
            if self._bytes <= bound * 3 // 4:
                break
            del self._nodes[key]
            self._bytes -= node.size
            node.used = -1  # gone: the last tree's slots (``_Shape``) no longer reuse it

    def _kid(self, m: Measurement) -> int:
        seen = self._objects.get(id(m))
        if seen is not None and seen[0] is m:
            return seen[1]
        key = _pld_key(m)
        kid = self._kids.get(key)
        if kid is None:
            with self._lock:
                self._next_id += 1
                kid = self._next_id
            self._kids[key] = kid
            self._first[kid] = (m, repr(key))
        self._objects[id(m)] = (m, kid)
        return kid

    def _place(self, query_id: str) -> int:
        place = self._places.get(query_id)
        if place is None:
            place = self._places[query_id] = _digest(query_id)
        return place

    # -- the tree -----------------------------------------------------------------------------

    def _part(self, kid: int, times: int) -> _Node:
        from .laplace_pld import PLD_DISCRETISATION
        from .pld_pmf import self_compose

        key = ("part", kid, times, PLD_DISCRETISATION)
        hit = self._get(key)
        if hit is None:
            one = _pld_of(self._first[kid][0], self.older_grid)
            hit = self._put(key, self_compose(one, times) if times > 1 else one)
        return hit

    def _leaf(self, parts: tuple[tuple[int, int], ...]) -> _Node:
        from . import pld_ops

        if len(parts) == 1:
            return self._part(*parts[0])
        key = ("leaf", parts)
        hit = self._get(key)
        if hit is None:
            total = self._part(*parts[0]).value
            for kid, times in parts[1:]:
                total = pld_ops.compose(total, self._part(kid, times).value)
            hit = self._put(key, total)
        return hit

    def _stamp(self, node: _Node) -> None:
        """Count ``node`` as used by this call (a node reused from the last tree's slots)."""
        if node.used != self._call:
            node.used = self._call
            self._call_bytes += node.size

    def _compose(self, shape: _Shape, leaves: list[tuple[tuple[int, int], ...]]) -> _Node:
        """The root of ``shape``'s tree over ``leaves``: each node composes its two children.
        A node whose children are the very nodes of the last call's tree on the same shape is
        that call's node, taken from its slots without a look-up; the rest go through the
        cache by content. Either way the same convolutions of the same arrays: only the
        finding is quicker (at 1,000 statistics a walk of 2,000 nodes by key cost several ms a
        slider step)."""
        from . import pld_ops

        n = len(leaves)
        prev = shape.slots
        prev_leaves = shape.leaves
        slots: list[_Node | None] = [None] * (n + len(shape.joins))

        def leaf(i: int) -> _Node:
            node = prev[i] if prev is not None and prev_leaves[i] == leaves[i] else None
            if node is not None and node.used != -1:
                self._stamp(node)
                return node
            return self._leaf(leaves[i])

        if n == 1:
            root = slots[0] = leaf(0)
        keep = True  # the slots are kept for the next call while the tree fits in half the cache
        j = n
        for a, b in shape.joins:
            left = slots[a] or leaf(a)
            right = slots[b] or leaf(b)
            node = prev[j] if prev is not None and prev[a] is left and prev[b] is right else None
            if node is not None and node.used != -1:
                self._stamp(node)
            else:
                key = (left.ident, right.ident)
                node = self._get(key)
                if node is None:
                    node = self._put(key, pld_ops.compose(left.value, right.value))
            slots[a], slots[b], slots[j] = left, right, node
            if not keep or self._call_bytes > self.max_bytes // 2:
                keep = False  # a tree this large: hold only the nodes still to be composed
                slots[a] = slots[b] = None
            root = node
            j += 1
        self._shape = _Shape(shape.names, shape.order, shape.joins, leaves,
                             slots if keep else None)
        return root

    def root(self, measurements: Iterable[Measurement]
             ) -> tuple[int, Pmf] | None:
        """The composed PLD of the noisy ``measurements`` with its id, or None without any."""
        if len(self._kids) > _MAX_NAMES or len(self._objects) > _MAX_NAMES:
            self._kids.clear()  # ids are never reused, so older nodes only age out
            self._first.clear()
            self._objects.clear()
            self._last = None
            self._last_ids = None
        if len(self._places) > _MAX_NAMES:
            self._places.clear()
        if len(self._orders) > _MAX_NAMES:
            self._orders.clear()
        self._call += 1
        self._call_bytes = 0
        held = list(measurements)
        ids = tuple(map(id, held))
        last = self._last
        if (last is not None and self._last_ids is not None
                and self._last_ids[1] == ids):  # the very objects again (the meter, then the
            return last[1].ident, last[1].value  # lifetime without history): the same root
        measurements = held
        objects = self._objects
        named_list = []
        for m in measurements:
            if m.mechanism != "none":
                seen = objects.get(id(m))
                named_list.append((m.query_id, seen[1] if seen is not None and seen[0] is m
                                   else self._kid(m)))
        named = tuple(named_list)
        if not named:
            return None
        if last is not None and last[0] == named:  # the same measurements again (the meter,
            self._last_ids = (held, ids)  # then the lifetime): the same root
            return last[1].ident, last[1].value
        by_query: dict[str, dict[int, int]] = {}
        for qid, kid in named:
            counts = by_query.get(qid)
            if counts is None:
                by_query[qid] = {kid: 1}
            else:
                counts[kid] = counts.get(kid, 0) + 1
        names = tuple(by_query)
        shape = self._shape
        if shape is None or shape.names != names:
            # leaves placed by their statistic's digest (ids are unique: ties never go further)
            order = tuple(sorted(names, key=lambda qid: (self._place(qid), qid)))
            shape = _Shape(names, order, _joins([self._place(qid) for qid in order]), [], None)
        first = self._first
        orders = self._orders
        leaves = []
        for counts in map(by_query.__getitem__, shape.order):
            met = tuple(counts.items())
            if len(met) > 1:
                leaf = orders.get(met)
                if leaf is None:
                    leaf = orders[met] = tuple(sorted(
                        met, key=lambda item: (first[item[0]][1], item[1])))
                met = leaf
            leaves.append(met)
        node = self._compose(shape, leaves)
        self._last = (named, node)
        self._last_ids = (held, ids)
        if self._bytes > self.limit:
            with self._lock:
                self._evict(self.limit)
        return node.ident, node.value

    def epsilon(self, root: tuple[int, Pmf], delta: float) -> float:
        """ε at ``delta`` of a composed PLD (cached: the meter and the lifetime ask twice)."""
        from . import pld_ops

        key = (root[0], delta)
        with self._lock:
            hit = self._epsilons.get(key)
        if hit is None:
            hit = float(pld_ops.epsilon_for_delta(root[1], delta))
            if math.isnan(hit):  # fail closed: an accountant that cannot compute is never 0
                hit = math.inf
            with self._lock:
                self._epsilons[key] = hit
                if len(self._epsilons) > 256:
                    self._epsilons.popitem(last=False)
        return hit


_TREE = PldTree()


def pld(measurements: Sequence[Measurement], delta: float) -> Total:
    """Tight (ε, δ) at ``delta`` from composed privacy loss distributions."""
    root = _TREE.root(measurements)
    if root is None:
        return Total(0.0, delta, "pld")
    return Total(max(_TREE.epsilon(root, delta), 0.0), delta, "pld")


def pld_as_chain(measurements: Sequence[Measurement], delta: float,
                 older_grid: bool = False) -> Total:
    """The PLD total as releases composed it before ``PldTree``, for verifying their bundles:
    equal measurements (equal ``_pld_key``) grouped across statistics and self-composed, the
    groups composed one after another in the order of ``repr((key, times))`` (what a fresh
    process gave). The tree composes the same PLDs in another order, which moves a total by
    about 1e-9 relative from 100 statistics on (both are upper bounds: pessimistic
    discretisation, tails cut pessimistically). Slow at many statistics (a chain, not cached):
    verify asks for it only when the tree's total does not match the stated one."""
    from . import pld_ops
    from .pld_pmf import self_compose

    groups: dict[_Key, list[Measurement]] = {}
    for m in measurements:
        if m.mechanism != "none":
            groups.setdefault(_pld_key(m), []).append(m)
    if not groups:
        return Total(0.0, delta, "pld")
    total: Pmf | None = None
    for key, times in sorted(((k, len(v)) for k, v in groups.items()), key=repr):
        one = _pld_of(groups[key][0], older_grid)
        part = self_compose(one, times) if times > 1 else one
        total = part if total is None else pld_ops.compose(total, part)
    assert total is not None
    eps = float(pld_ops.epsilon_for_delta(total, delta))
    if math.isnan(eps):  # fail closed, as ``pld``
        eps = math.inf
    return Total(max(eps, 0.0), delta, "pld")


OLDER_PLD_WAYS = ("chain", "tree, older grid", "chain, older grid")
_older_tree: list[PldTree] = []


def pld_composed_as(way: str, measurements: Sequence[Measurement], delta: float) -> Total:
    """The PLD total as older releases composed it (one of ``OLDER_PLD_WAYS``), for verifying
    their bundles: as a chain (before ``PldTree``), or with the discrete Laplace's losses
    rounded as before the exact grid (by the tree or the chain). Slow and uncached beyond one
    tree: verify asks only when today's total does not match the stated one."""
    if way == "chain":
        return pld_as_chain(measurements, delta)
    if way == "chain, older grid":
        return pld_as_chain(measurements, delta, older_grid=True)
    if not _older_tree:
        _older_tree.append(PldTree(PLD_CACHE_FLOOR, older_grid=True))
    tree = _older_tree[0]
    root = tree.root(measurements)
    if root is None:
        return Total(0.0, delta, "pld")
    return Total(max(tree.epsilon(root, delta), 0.0), delta, "pld")


def accountant_delta_problem(accountant: str | None, delta: float) -> str | None:
    """Why this accountant cannot compose within this δ (zCDP and PLD give (ε, δ) with δ
    above 0), or None."""
    if accountant in ("zcdp", "pld") and delta <= 0:
        return f"{accountant} gives (ε, δ) and needs budget.delta above 0"
    return None


def all_pure(measurements: Iterable[Measurement]) -> bool:
    """Whether every noisy measurement is pure ε-DP (δ = 0): then so is their composition."""
    return all(m.delta == 0 and m.mechanism != "gaussian"
               for m in measurements if m.mechanism != "none")


PLD_GAUSSIAN_REFUSAL = ("pld cannot account for a gaussian statistic with this large a noise "
                        "or sensitivity in grid steps; use zcdp")


def accountant_refusal(accountant: str, measurements: Sequence[Measurement]) -> str | None:
    """Why ``accountant`` cannot compose ``measurements`` (None when it can): the one rule
    for a plan's named accountant, the alternatives `check` lists and a dataset's lifetime.
    basic composes anything; zcdp no thresholded measurement (a discovery of keys); pld no
    ``zcdp`` measurement (AIM's adaptive rounds) and no Gaussian it cannot enumerate."""
    if accountant == "zcdp" and _facts(measurements).any_thresholded:
        return ZCDP_THRESHOLD
    if accountant == "pld":
        facts = _facts(measurements)
        if facts.any_zcdp:
            return AIM_PLD_REFUSAL
        ok = facts.pld_ok
        if ok is None:
            ok = pld_supported(measurements)
            _keep(tuple(map(id, measurements)), measurements, facts._replace(pld_ok=ok))
        if not ok:
            return PLD_GAUSSIAN_REFUSAL
    return None


def valid_totals(measurements: Sequence[Measurement], delta: float,
                 with_pld: bool = True) -> list[Total]:
    """The total of every accountant that can compose ``measurements`` (basic always; zcdp
    and pld at ``delta`` when above 0 and ``accountant_refusal`` lets them), in the order
    basic, zcdp, pld. Each is valid; basic's δ is the measurements' own, maybe over
    ``delta``. A history that holds AIM's rounds and a discovery of keys gets basic alone.
    ``with_pld=False`` leaves pld out (``composes_pld``: a release whose total needs none)."""
    out = [basic(measurements)]
    if delta > 0:
        out += [way(measurements, delta) for name, way in (("zcdp", zcdp), ("pld", pld))
                if (with_pld or name != "pld")
                and accountant_refusal(name, measurements) is None]
    return out


def composes_pld(measurements: Sequence[Measurement], delta: float,
                 accountant: str | None = None) -> bool:
    """Whether ``compose`` builds a PLD for this total: the pld accountant named, or none
    named for measurements that are not all pure ε (the tightest of every valid total).
    A PLD needs scipy.fft (about 0.25 CPU s of a process to import): a release whose total
    needs none lists the other alternatives without it (issue 24)."""
    if accountant == "pld":
        return True
    return (accountant is None and not _facts(measurements).pure and delta > 0
            and accountant_refusal("pld", measurements) is None)


def compose(measurements: Sequence[Measurement], delta: float,
            accountant: str | None = None) -> Total:
    """The composed total with the named accountant, or the tightest valid one.

    Without a named accountant, measurements that are all pure ε compose to pure ε-DP with
    ε = their sum (basic composition is exact for pure DP). An accountant at δ > 0 may state
    a slightly smaller ε, but with a δ, which weakens every promise made from it (the belief
    bound holds only "except with a chance of δ"), and a δ would be charged to the ledger
    for a release that spends none."""
    if accountant == "basic" or (accountant is None and _facts(measurements).pure):
        return basic(measurements)
    problem = accountant_delta_problem(accountant, delta)
    if problem:
        raise InputError("plan", "budget.accountant", problem)
    if accountant in ("zcdp", "pld"):
        refusal = accountant_refusal(accountant, measurements)
        if refusal is not None:
            raise InputError("plan", "budget.accountant", refusal)
        return zcdp(measurements, delta) if accountant == "zcdp" else pld(measurements, delta)
    totals = valid_totals(measurements, delta)
    # basic only when its δ is within the budget's (or nothing else composes them)
    candidates = [t for t in totals if t.accountant != "basic" or delta <= 0
                  or t.delta <= delta] or totals[:1]
    return min(candidates, key=lambda t: (t.epsilon, t.accountant != "basic"))


def group_privacy(epsilon: float, delta: float, group_size: int) -> tuple[float, float]:
    """(ε, δ) for a group of g people: g·ε and g·e^((g-1)ε)·δ."""
    g = group_size
    eps = g * epsilon
    dlt = min(1.0, g * math.exp((g - 1) * epsilon) * delta) if delta else 0.0
    return eps, dlt
