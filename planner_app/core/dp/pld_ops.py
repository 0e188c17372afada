# Copyright 2022 Google LLC.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
#
# Modified for planner_app: dp-accounting 0.6.0's compose_pmfs / DensePLDPmf.compose and
# _get_epsilon_for_delta (dp_accounting/pld/pld_pmf.py), with numpy in place of Python loops
# and scipy.fft in place of scipy.signal.fftconvolve, the same sums in the same order.
"""Composing two PLDs and finding ε for δ, the same to the bit as dp-accounting and without
Python loops.

dp-accounting (``dp_accounting.pld.pld_pmf``) walks arrays element by element in Python in
two places the editor hits at every ε slider step: cutting the tails of a composed PMF
(``_truncate_tails``, pld_pmf.truncate_tails here) and finding ε for a δ
(``_get_epsilon_for_delta``). On the PMFs of a 1,000-statistic plan (about 230,000 losses)
each walk costs milliseconds to tens of milliseconds. The functions here compute the same
floating-point sums in the same order: numpy's cumulative sum adds in sequence, as the loops
do, and every ``exp`` and ``log`` the result depends on is Python's ``math`` one, as in the
loops. A convolution is scipy.signal's ``fftconvolve`` step for step over scipy.fft (scipy.signal
itself costs about half a CPU second to import). So the PLDs and the ε are the same numbers to
the last bit; tests/core/test_incremental_pld.py and test_pld_carried.py compare them with
dp-accounting's own on many PMFs.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from typing import Any

import numpy as np

from .pld_pmf import (
    MAX_PMF_SPARSE_SIZE,
    TAIL_MASS_TRUNCATION,
    DensePmf,
    Pmf,
    SparsePmf,
    compose_sparse,
    sparse_epsilon_for_delta,
    to_dense,
    truncate_tails,
)

_BLOCK = 4096


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


def compose(first: Pmf, second: Pmf,
            tail_mass_truncation: float = TAIL_MASS_TRUNCATION) -> Pmf:
    """``first.compose(second)`` (dp-accounting's ``PrivacyLossDistribution.compose``, that
    is ``compose_pmfs``): sparse while both are and the product of their sizes is small, else
    dense (``DensePLDPmf.compose``); the same PMF, bit for bit."""
    if (isinstance(first, SparsePmf) and isinstance(second, SparsePmf)
            and first.size * second.size <= MAX_PMF_SPARSE_SIZE):
        return compose_sparse(first, second, tail_mass_truncation)
    a = to_dense(first)
    b = to_dense(second)
    lower_loss = a.lower_loss + b.lower_loss
    probs = _fftconvolve(a.probs, b.probs)
    infinity_mass = a.infinity_mass + b.infinity_mass - a.infinity_mass * b.infinity_mass
    offset, probs, right_tail = truncate_tails(probs, tail_mass_truncation)
    return DensePmf(a.discretization, lower_loss + offset, probs, infinity_mass + right_tail)


def epsilon_for_delta(pmf: Pmf, delta: float) -> float:
    """``pmf.get_epsilon_for_delta(delta)``: the smallest ε whose hockey-stick divergence is
    at most ``delta`` (inf when none is finite), the same ε, bit for bit. A dense PMF's
    (dp-accounting's ``_get_epsilon_for_delta``) is walked block by block from the largest
    loss down, as the loop goes."""
    if isinstance(pmf, SparsePmf):
        return sparse_epsilon_for_delta(pmf, delta)
    infinity_mass = pmf.infinity_mass
    if infinity_mass > delta:
        return math.inf
    d = pmf.discretization
    probs = np.flip(pmf.probs)
    n = len(probs)
    # the loop's running values before element i: losses count down from the top by -d
    loss = (pmf.lower_loss + n - 1) * d
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


