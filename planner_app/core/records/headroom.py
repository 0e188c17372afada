"""How much of a dataset's lifetime cap is left, in the accounting the cap itself uses.

The ledger counts a dataset's releases composed together (``ledger.lifetime_total``: the
releases' ε added up, or all their measurements composed by the PLD or zCDP accountant when
that is tighter). Composed, releases cost less than the sum of their ε: a release of ε = 5.04
may fit when "ε = 4.96 left" was read as cap minus spent, because it adds only ε = 3.6 to the
composed total. ``headroom`` is the one place that works this out; ``headroom_sentence`` says
it (the checklist's lifetime rule, `check`, the meter, the release wizard), and
``spent_note`` says why the spent total is less than the releases' ε added up (`ledger show`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..dp.accounting import Total, within
from ..dp.measure import Measurement
from .ledger import POLICY_CAP, LedgerState, lifetime_after

ACCOUNTANTS = {"pld": "the PLD accountant", "zcdp": "zCDP", "rdp": "Rényi DP",
               "basic": "adding ε up"}


@dataclass(frozen=True)
class Headroom:
    """A release against its dataset's lifetime cap, in the cap's own accounting."""

    state: LedgerState
    release: Total  # the release on its own
    after: Total  # the dataset's composed total with the release (the charge's test)

    @property
    def left(self) -> float:
        """ε left of the cap before the release: the cap minus the composed total spent."""
        return self.state.remaining_epsilon

    @property
    def adds(self) -> float:
        """What the release adds to the dataset's composed total (at most its own ε)."""
        return max(0.0, self.after.epsilon - self.state.spent.epsilon)

    @property
    def left_after(self) -> float:
        return max(0.0, self.state.cap.epsilon - self.after.epsilon)

    @property
    def fits(self) -> bool:
        """The charge's rule: the composed total with the release stays within the cap."""
        return within(self.after, self.state.cap.epsilon, self.state.cap.delta)

    @property
    def composes_below_sum(self) -> bool:
        """The release adds visibly other than its own ε, mostly less (so "left" minus its ε
        would be wrong): shown at the 4 significant figures every sentence uses."""
        return f"{self.adds:.4g}" != f"{self.release.epsilon:.4g}"

    @property
    def composes_above_sum(self) -> bool:
        """The release adds visibly more than its own ε: with it, the dataset's releases are
        counted by a looser accountant than before (the tighter one cannot compose them all
        within the cap: a discovery of keys after zCDP, a δ that would pass the cap's)."""
        return self.composes_below_sum and self.adds > self.release.epsilon


def headroom(state: LedgerState, measurements: Sequence[Measurement],
             total: Total) -> Headroom:
    """``total`` (the release composed on its own, of ``measurements``) against ``state``."""
    return Headroom(state, total, lifetime_after(state, measurements, total))


def cap_words(state: LedgerState) -> str:
    """The dataset's lifetime cap in words (whose it is: the default, the policy's)."""
    cap = state.cap
    default = " (the default)" if cap.is_default else POLICY_CAP if cap.by_policy else ""
    return f"lifetime cap ε = {cap.epsilon:g}{default}"


def accountant_words(accountant: str) -> str:
    return ACCOUNTANTS.get(accountant, accountant)


def headroom_sentence(h: Headroom) -> str:
    """One sentence: what is left, and what is left after the release; when the release adds
    less than its own ε (it is composed with the earlier releases), why it still fits.
    Without a full stop (the rule's message adds it)."""
    state = h.state
    left = f"Dataset {state.dataset!r} has ε = {h.left:.4g} left of its {cap_words(state)}"
    if not h.fits:
        return (f"{left}: not enough for this release, which would bring its total to "
                f"ε = {h.after.epsilon:.4g}, δ = {h.after.delta:.3g}")
    if not math.isfinite(h.release.epsilon):  # its δ alone passes its budget's (walk25)
        return (f"{left}; this release's own ε cannot be stated within its budget's δ (the "
                "budget line says why); counted with the dataset's releases "
                f"({accountant_words(h.after.accountant)}) it adds ε = {h.adds:.4g}; about "
                f"{h.left_after:.4g} is left after it")
    if h.composes_above_sum:
        own = f"{left}; this release (ε = {h.release.epsilon:.4g}"
        added = math.fsum([*(r.delta for r in state.releases), h.release.delta])
        if added > state.cap.delta:  # the releases' own (ε, δ) added up cannot fit the cap
            return (f"{own}, δ = {h.release.delta:.3g} on its own) adds ε = {h.adds:.4g} to "
                    f"it, more than its own ε: the releases' δ added up ({added:.3g}) would "
                    f"pass the cap's δ = {state.cap.delta:g}, so the cap counts each of their "
                    f"measurements' own ε and δ instead "
                    f"({accountant_words(h.after.accountant)}); about {h.left_after:.4g} is "
                    "left after it")
        return (f"{own} on its own) adds ε = {h.adds:.4g} to it, more than its own ε: the "
                "cheaper way the dataset's releases were counted so far "
                f"({accountant_words(state.spent.accountant)}) does not take this one within "
                f"the cap, so it counts them by {accountant_words(h.after.accountant)}; about "
                f"{h.left_after:.4g} is left after it")
    if not h.composes_below_sum:
        return f"{left}; about {h.left_after:.4g} after this release"
    return (f"{left}; this release (ε = {h.release.epsilon:.4g} on its own) adds only "
            f"ε = {h.adds:.4g} to it, because the cap counts all the dataset's releases "
            f"composed together ({accountant_words(h.after.accountant)}), which costs less "
            f"than their ε added up; about {h.left_after:.4g} is left after it")


def spent_note(state: LedgerState) -> str | None:
    """Why the spent total is not the releases' ε added up (None when it is): less, composed
    together; more, when their δ added up would pass the cap's (``lifetime_total``)."""
    added = math.fsum(r.epsilon for r in state.releases)
    if len(state.releases) < 2 or f"{added:.4g}" == f"{state.spent.epsilon:.4g}":
        return None
    if state.spent.epsilon > added:
        return (f"its releases' ε add up to {added:.4g}, but their δ add up to "
                f"{math.fsum(r.delta for r in state.releases):.3g}, past the cap's "
                f"δ = {state.cap.delta:g}; the cap counts their measurements within its δ "
                f"instead ({accountant_words(state.spent.accountant)}): they spend "
                f"ε = {state.spent.epsilon:.4g}, δ = {state.spent.delta:.3g}")
    return (f"its releases' ε add up to {added:.4g}; composed together "
            f"({accountant_words(state.spent.accountant)}), as the cap counts them, they "
            f"spend ε = {state.spent.epsilon:.4g}, so a new release may add less than its "
            "own ε")


def again_words(h: Headroom) -> str:
    """What releasing a plan again does to its dataset's lifetime total, from the charge's own
    composition (``lifetime_after``): spent so far, this release on its own, the composed total
    after it and the cap. Composition is not additive: the total after is not spent + ε."""
    state = h.state
    after = (f"brings the dataset's composed total ({accountant_words(h.after.accountant)}) "
             f"to ε = {h.after.epsilon:.4g}")
    if h.after.delta > 0:
        after += f", δ = {h.after.delta:.3g}"
    verdict = "" if h.fits else ": more than the cap, so it will be refused"
    return (f"Dataset {state.dataset!r} has spent ε = {state.spent.epsilon:.4g} so far; this "
            f"release (ε = {h.release.epsilon:.4g} on its own) {after}, against its "
            f"{cap_words(state)}{verdict}")
