"""Two of dp-accounting's PLD operations, the same to the bit and without Python loops.

dp-accounting (``dp_accounting.pld.pld_pmf``) walks arrays element by element in Python in
two places the editor hits at every ε slider step: cutting the tails of a composed PMF
(``_truncate_tails``) and finding ε for a δ (``_get_epsilon_for_delta``). On the PMFs of a
1,000-statistic plan (about 230,000 losses) each walk costs milliseconds to tens of
milliseconds. The functions here compute the same floating-point sums in the same order:
numpy's cumulative sum adds in sequence, as the loops do, and every ``exp`` and ``log`` the
result depends on is Python's ``math`` one, as in the loops. So the PLDs and the ε are the
same numbers to the last bit; tests/core/test_incremental_pld.py compares them with
dp-accounting's own on many PMFs.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # dp-accounting has no type information
    from dp_accounting.pld.privacy_loss_distribution import PrivacyLossDistribution

TAIL_MASS_TRUNCATION = 1e-15  # PrivacyLossDistribution.compose's default
_BLOCK = 4096


def _prefix_to_truncate(arr: np.ndarray, threshold: float) -> int:
    """The longest prefix whose running sum stays at or below ``threshold`` (the loop in
    dp-accounting's ``_truncate_tails``: ``s += val`` until ``s > threshold``)."""
    running: Any = 0
    for start in range(0, len(arr), _BLOCK):  # tails are short: sum a block at a time
        sums = np.cumsum(np.concatenate(([running], arr[start:start + _BLOCK])))[1:]
        over = np.flatnonzero(sums > threshold)
        if over.size:
            return start + int(over[0])
        running = sums[-1]
    return len(arr)


def _truncate_tails(probs: np.ndarray, tail_mass_truncation: float,
                    pessimistic_estimate: bool) -> tuple[int, np.ndarray, float]:
    """dp-accounting's ``pld_pmf._truncate_tails``, line for line but the loop."""
    if tail_mass_truncation == 0:
        return 0, probs, 0
    left_idx = _prefix_to_truncate(probs, tail_mass_truncation / 2)
    right_idx = len(probs) - _prefix_to_truncate(np.flip(probs), tail_mass_truncation / 2)
    right_idx = max(right_idx, left_idx + 1)
    left_mass = np.sum(probs[:left_idx])
    right_mass = np.sum(probs[right_idx:])
    truncated_probs = probs[left_idx:right_idx]
    if pessimistic_estimate:
        truncated_probs[0] += left_mass
        return left_idx, truncated_probs, right_mass
    truncated_probs[-1] += right_mass
    return left_idx, truncated_probs, 0


_SPECTRA: OrderedDict[tuple[int, int], tuple[np.ndarray, Any]] = OrderedDict()
_SPECTRA_BYTES = 64 * 2**20
_spectra_lock = threading.Lock()
_spectra_size = [0]


def _spectrum(probs: np.ndarray, fshape: list[int]) -> Any:
    """``rfftn(probs, fshape, axes=[0])``, as scipy's ``fftconvolve`` computes it, kept for the
    arrays seen last: a slider step convolves the changed path with siblings that did not
    change, so their spectra come from here (least recently used out past 64 MB)."""
    from scipy import fft as sp_fft  # type: ignore[import-untyped]

    key = (id(probs), fshape[0])
    with _spectra_lock:
        hit = _SPECTRA.get(key)
        if hit is not None and hit[0] is probs:
            _SPECTRA.move_to_end(key)
            return hit[1]
    spectrum = sp_fft.rfftn(probs, fshape, axes=[0])
    with _spectra_lock:
        _SPECTRA[key] = (probs, spectrum)  # the array is held: its id is not reused
        _spectra_size[0] += spectrum.nbytes
        while _spectra_size[0] > _SPECTRA_BYTES and len(_SPECTRA) > 1:
            _, (_, old) = _SPECTRA.popitem(last=False)
            _spectra_size[0] -= old.nbytes
    return spectrum


def _fftconvolve(in1: np.ndarray, in2: np.ndarray) -> np.ndarray:
    """``scipy.signal.fftconvolve(in1, in2)`` for two non-empty 1-D float arrays, step for step
    (``_freq_domain_conv`` with ``calc_fast_len``, then the 'full' copy), with the spectra
    from ``_spectrum``."""
    from scipy import fft as sp_fft

    shape = [in1.shape[0] + in2.shape[0] - 1]
    fshape = [sp_fft.next_fast_len(shape[0], True)]
    ret = sp_fft.irfftn(_spectrum(in1, fshape) * _spectrum(in2, fshape), fshape, axes=[0])
    return np.array(ret[:shape[0]], copy=True)


def _compose_pmfs(pmf1: Any, pmf2: Any, tail_mass_truncation: float) -> Any:
    """dp-accounting's ``pld_pmf.compose_pmfs`` (dense PMFs: ``DensePLDPmf.compose``)."""
    from dp_accounting.pld import pld_pmf

    if (isinstance(pmf1, pld_pmf.SparsePLDPmf) and isinstance(pmf2, pld_pmf.SparsePLDPmf)
            and pmf1.size * pmf2.size <= pld_pmf._MAX_PMF_SPARSE_SIZE):  # noqa: SLF001
        return pmf1.compose(pmf2, tail_mass_truncation)
    a = pmf1.to_dense_pmf()
    b = pmf2.to_dense_pmf()
    a.validate_composable(b)
    # pylint: disable=protected-access
    lower_loss = a._lower_loss + b._lower_loss  # noqa: SLF001
    probs = _fftconvolve(a._probs, b._probs)  # noqa: SLF001
    infinity_mass = (a._infinity_mass + b._infinity_mass  # noqa: SLF001
                     - a._infinity_mass * b._infinity_mass)  # noqa: SLF001
    offset, probs, right_tail = _truncate_tails(probs, tail_mass_truncation,
                                                a._pessimistic_estimate)  # noqa: SLF001
    return pld_pmf.DensePLDPmf(a._discretization, lower_loss + offset, probs,  # noqa: SLF001
                               infinity_mass + right_tail, a._pessimistic_estimate)  # noqa: SLF001


def compose(first: PrivacyLossDistribution, second: PrivacyLossDistribution,
            tail_mass_truncation: float = TAIL_MASS_TRUNCATION) -> PrivacyLossDistribution:
    """``first.compose(second)``: the same PLD, bit for bit."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    remove = _compose_pmfs(first._pmf_remove, second._pmf_remove,  # noqa: SLF001
                           tail_mass_truncation)
    if first._symmetric and second._symmetric:  # noqa: SLF001
        return pld.PrivacyLossDistribution(remove)
    add = _compose_pmfs(first._pmf_add, second._pmf_add, tail_mass_truncation)  # noqa: SLF001
    return pld.PrivacyLossDistribution(remove, add)


def _pmf_epsilon(pmf: Any, delta: float) -> float:
    """``pmf.get_epsilon_for_delta(delta)`` (dp-accounting's ``_get_epsilon_for_delta`` on a
    dense PMF), block by block from the largest loss down, as the loop goes."""
    from dp_accounting.pld import pld_pmf

    if not isinstance(pmf, pld_pmf.DensePLDPmf):
        return float(pmf.get_epsilon_for_delta(delta))
    infinity_mass = pmf._infinity_mass  # noqa: SLF001
    if infinity_mass > delta:
        return math.inf
    d = pmf._discretization  # noqa: SLF001
    probs = np.flip(pmf._probs)  # noqa: SLF001
    n = len(probs)
    # the loop's running values before element i: losses count down from the top by -d
    loss = (pmf._lower_loss + n - 1) * d  # noqa: SLF001
    upper: Any = infinity_mass
    lower: Any = 0
    start = 0
    while start < n:
        stop = min(n, start + _BLOCK)
        k = stop - start
        losses = np.cumsum(np.concatenate(([loss], np.full(k - 1, -d))))
        p = probs[start:stop]
        exps = np.fromiter(map(math.exp, (-losses).tolist()), dtype=np.float64, count=k)
        uppers = np.cumsum(np.concatenate(([upper], p)))  # before element i, and after
        lowers = np.cumsum(np.concatenate(([lower], exps * p)))
        u, lo = uppers[:-1], lowers[:-1]
        ready = (u > delta) & (lo > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            logs = np.log(np.where(ready, (u - delta) / np.where(lo > 0, lo, 1.0), 1.0))
        # np.log may differ from math.log in the last bit: decide near-ties with math.log
        sure = ready & (logs >= losses) & (np.abs(logs - losses) > 1e-9 * (1 + np.abs(losses)))
        near = ready & (np.abs(logs - losses) <= 1e-9 * (1 + np.abs(losses)))
        stops = set(np.flatnonzero(sure).tolist())
        for i in np.flatnonzero(near).tolist():
            if math.log((uppers[i] - delta) / lowers[i]) >= losses[i]:
                stops.add(i)
        brk = min(stops) if stops else k
        zero = np.flatnonzero((uppers[1:] >= delta) & (lowers[1:] == 0))
        if zero.size and zero[0] < brk:  # the loop's early return after element zero[0]
            return max(0, float(losses[zero[0]]))
        if brk < k:
            upper, lower = uppers[brk], lowers[brk]
            break
        upper, lower = uppers[-1], lowers[-1]
        loss = losses[-1] + -d
        start = stop
    if upper <= lower + delta:
        return 0.0
    return math.log((upper - delta) / lower)


def epsilon_for_delta(value: PrivacyLossDistribution, delta: float) -> float:
    """``value.get_epsilon_for_delta(delta)``: the same ε, bit for bit."""
    eps = _pmf_epsilon(value._pmf_remove, delta)  # noqa: SLF001
    if value._symmetric:  # noqa: SLF001
        return eps
    return max(eps, _pmf_epsilon(value._pmf_add, delta))  # noqa: SLF001
