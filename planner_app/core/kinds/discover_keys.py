"""The statistic kind ``discover_keys``: the keys (categories, group keys) present in a column,
found privately by thresholded partition selection (core/dp/threshold.py has the proof and its
sources, OpenDP's ``make_laplace_threshold`` / ``make_gaussian_threshold`` and Google's
``LaplacePartitionSelection`` / ``GaussianPartitionSelection``).

Each person counts once in each key they hold, in at most ``max_keys`` keys (a person over
them keeps the keys with the smallest secret-salted hash, data/sql_keys.py); each count gets
discrete Laplace noise (``laplace_threshold``) or discrete Gaussian noise
(``gaussian_threshold``: half the declared δ for the noise, half for the threshold); the
keys whose noised count reaches the threshold are published, sorted by their text, and
nothing else: not the others, their number, or an order of the data. The noised counts of
the published keys are released only when the plan asks (``publish_counts``). Cost: (ε, δ)
with δ the threshold's (and the Gaussian's), at most the declared δ.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

from ..dp.accuracy import Accuracy, measurement_half_width
from ..dp.measure import (
    MAX_SCALE_BITS,
    Measurement,
    exact_epsilon,
    exact_gaussian_sigma_sq,
    gaussian_too_small,
    laplace_epsilon,
    laplace_scale,
    multi_cell_gaussian_sigma_sq,
)
from ..dp.selected import selected_interval
from ..dp.sensitivity import Component, describe_rows, unit_text
from ..dp.threshold import (
    GaussianNoise,
    Noise,
    found_at,
    gaussian_selection_delta,
    gaussian_threshold_for,
    keep_preview,
    selection_delta,
    threshold_for,
)
from ..model import KindParams, Plan, PrivacyUnit, Query
from ..model.reader import FieldReader
from ..model.values import canonical_key
from ..support.errors import InputError
from ..support.words import confidence_percent
from .base import StatisticKind
from .params import params_of
from .results import Aggregate, QueryRelease, ReleasedValue
from .shared_data import AggregateDescription, KeyCounts
from .shared_form import COLUMN, DELTA, MAX_KEYS, MISSING, PUBLISH_COUNTS, WHERE
from .shared_plan import Stage
from .shared_release import NoiseDraw, noise_for

#: the most keys one person may count in (a wider bound costs more noise than it is worth)
MAX_KEYS_PER_PERSON = 1_000
#: the largest δ a discovery of keys may declare (fixdisc). δ is the chance that a key one
#: person alone holds is published, revealing it outright: above 1e-3 that chance is not
#: small next to 1/n for a table of a thousand people, and the (ε, δ) the accountants state
#: become vacuous (at δ = 0.9 the pld total is ε = 0, the zCDP one ε = inf).
MAX_DISCOVERY_DELTA = 1e-3


@dataclass(frozen=True)
class KeysParams(KindParams):
    """A discovery of keys: how many keys one person may count in, and whether the noised
    counts of the published keys are released too."""

    max_keys: int = 1
    publish_counts: bool = False


def params(query: Query) -> KeysParams:
    return params_of(query, KeysParams)


def keys_per_person(query: Query, unit: PrivacyUnit) -> int:
    """m: the keys one person counts in (a row holds one key, so never more than the rows a
    person keeps)."""
    rows = unit.rows_per_unit if unit.kind == "person" else 1
    return max(1, min(params(query).max_keys, rows))


#: the share of a gaussian_threshold's declared δ spent by the noise (the rest is the
#: threshold's), as Google's GaussianPartitionSelection splits it (dp/threshold.py)
GAUSSIAN_NOISE_DELTA_SHARE = 0.5


def threshold_of(m: Measurement) -> int:
    """The integer threshold a noised count must reach, from the measurement alone (public
    parameters only: its scale, its δ and the keys one person counts in, its cells)."""
    assert m.scale is not None
    return threshold_for(m.scale, m.component.cells, m.delta, _sides(m))


@dataclass(frozen=True)
class Selection:
    """A discovery's selection, from its measurements alone (public parameters): the noise
    measurement drawn on every key's count, the threshold τ, the δ that τ reaches (at most
    the threshold's share of the declared δ) and the noise for the owner's preview."""

    noise: Measurement
    threshold: int
    threshold_delta: float
    preview: Noise


def selection_of(ms: list[Measurement]) -> Selection:
    """The selection of a discovery of keys: one ``laplace`` measurement (its δ the
    threshold's), or a ``gaussian`` one and a ``threshold`` one (its δ share, its cells m)."""
    noise = ms[0]
    if noise.mechanism == "laplace":
        assert noise.scale is not None
        return Selection(noise, threshold_of(noise), threshold_delta(noise), noise.scale)
    cut = ms[1]
    assert noise.sigma_sq is not None and cut.mechanism == "threshold"
    tau = gaussian_threshold_for(noise.sigma_sq, cut.component.cells, cut.delta, _sides(cut))
    return Selection(noise, tau, gaussian_selection_delta(noise.sigma_sq, tau,
                                                          cut.component.cells, _sides(cut)),
                     GaussianNoise(noise.sigma_sq))


def _sides(m: Measurement) -> int:
    """2 under replace-one (its sensitivity is twice the keys a person counts in), else 1."""
    return max(1, m.component.l1 // m.component.cells)


def threshold_delta(m: Measurement) -> float:
    """The δ the threshold gives (at most the declared δ, which the ledger charges)."""
    assert m.scale is not None
    return selection_delta(m.scale, threshold_of(m), m.component.cells, _sides(m))


def counted_note(threshold: int, confidence: float) -> str:
    """The note beside a published key's noised count: the count is shown only because it
    reached the threshold, so near it the count is biased upward; its interval is the one
    given that it was published (dp/selected.py), which allows for that."""
    return (f"noised count, published only because it reached the threshold {threshold:,}, so "
            "biased upward near it; the interval holds the true count with "
            f"{confidence_percent(confidence)} confidence among the keys published, reaching "
            "further down near the threshold")


def _too_small(query: Query, l1: int, epsilon: float) -> None:
    """Refuse an ε at which the Gaussian's noise would be set by δ alone (measure.py's rule
    for the gaussian mechanism), before any charge."""
    if Fraction(l1) / exact_epsilon(epsilon) >= 1 << MAX_SCALE_BITS:
        raise InputError("plan", None, gaussian_too_small(query.epsilon,
                                                          l1 / 2.0**MAX_SCALE_BITS))


def sort_key(label: Any) -> tuple[int, float, str]:
    """The published order: numbers by value, then texts by their text (never the data's)."""
    key = canonical_key(label)
    try:
        return (0, float(key), key)
    except ValueError:
        return (1, 0.0, key)


class DiscoverKeys(StatisticKind):
    name = "discover_keys"
    params_type = KeysParams
    own_keys = ("max_keys", "publish_counts")
    title = "Keys found privately"
    words = "discovery of keys"
    mechanisms = ("laplace_threshold", "gaussian_threshold")
    not_taken = frozenset({"group_by"})
    #: its δ is the threshold's: above 0 with its mechanism, which is not the gaussian
    needs_delta: ClassVar[bool] = True
    discovers_cells = True
    is_discovery = True
    discovers = "keys"
    basic_accountant_refusal = None

    # --- plan fields -------------------------------------------------------------------------

    def read_own(self, r: FieldReader, stage: Stage, got: dict[str, Any]) -> None:
        super().read_own(r, stage, got)
        if stage == "trailing":
            m = r.integer("max_keys", required=False, default=1)
            assert m is not None
            if not 1 <= m <= MAX_KEYS_PER_PERSON:
                r.fail("max_keys", f"must be between 1 and {MAX_KEYS_PER_PERSON:,}")
            got["max_keys"] = m
            counts = r.obj.get("publish_counts", False)
            if not isinstance(counts, bool):
                r.fail("publish_counts", "must be true or false")
            got["publish_counts"] = counts
            delta = r.obj.get("delta")
            if isinstance(delta, (int, float)) and not isinstance(delta, bool) \
                    and delta > MAX_DISCOVERY_DELTA:
                r.fail("delta", f"is the chance that a key one person alone holds is "
                                f"published: at most {MAX_DISCOVERY_DELTA:g} (1e-6 or less is "
                                "usual; it should be below 1 over the number of people)")

    def read_impute(self, r: FieldReader, value: Any, got: Any) -> Any:
        r.fail("missing", "a discovery of keys finds the values present: missing cells are "
                          "never a key, so they cannot be imputed")

    def fields_to_dict(self, query: Query) -> dict[str, Any]:
        p = params(query)
        out: dict[str, Any] = {"max_keys": p.max_keys}
        if p.publish_counts:
            out["publish_counts"] = True
        return out

    # --- DP ----------------------------------------------------------------------------------

    accuracy_unit = "count"

    def components(self, query: Query, unit: PrivacyUnit, relation: str) -> list[Component]:
        m = keys_per_person(query, unit)
        l1 = m if relation == "add-remove" else 2 * m
        rule = ("add-remove: a person counts once in each of at most "
                if relation == "add-remove" else
                "replace-one: a person's keys may all move, at most ")
        asked = params(query).max_keys
        clamped = (f" (max_keys {asked:,} is more than the {m:,} row{'s' if m > 1 else ''} a "
                   f"person has, each holding one key: {m:,} is used)" if asked > m else "")
        what = (f"people per key of {query.column}{describe_rows(query)}, {unit_text(unit)}, "
                f"{rule}{m:,} key{'s' if m > 1 else ''}{clamped}: sensitivity {l1}")
        return [Component(name="count", step=1.0, l1=l1, l2_sq=l1, cells=m,
                          single_cell=False, derivation=what)]

    def measurements(self, query: Query, plan: Plan) -> list[Measurement]:
        """Discrete Laplace on each key's count; its δ is the declared one (the threshold's
        own δ, ``stated_delta``, is at most that). ``gaussian_threshold``: the discrete
        Gaussian at (ε, δ/2) and a ``threshold`` measurement (0, δ/2): their composition is
        the release's (ε, δ) (dp/threshold.py has the proof)."""
        (comp,) = self.components(query, plan.privacy_unit, plan.neighbouring)
        if query.mechanism == "gaussian_threshold":
            return self._gaussian_measurements(query, comp)
        scale = laplace_scale(comp.l1, query.epsilon)
        return [Measurement(query.id, comp, "laplace", laplace_epsilon(comp.l1, scale),
                            query.delta, scale=scale)]

    def _gaussian_measurements(self, query: Query, comp: Component) -> list[Measurement]:
        keys, l1 = comp.cells, comp.l1
        noise_delta = query.delta * GAUSSIAN_NOISE_DELTA_SHARE
        cut_delta = query.delta - noise_delta
        _too_small(query, l1, query.epsilon)
        # every cell one person moves, by 1 each: m under add-remove, 2m under replace-one
        counts = Component(name="count", step=1.0, l1=l1, l2_sq=l1, cells=l1,
                           single_cell=l1 == 1,
                           derivation=comp.derivation + f" (L2 sensitivity "
                           f"{'√' + str(l1) if l1 > 1 else 1}), at δ = {noise_delta:.3g}, half "
                           "the declared δ")
        sigma_sq = (exact_gaussian_sigma_sq(1, query.epsilon, noise_delta) if l1 == 1 else
                    multi_cell_gaussian_sigma_sq(l1, l1, l1, query.epsilon, noise_delta))
        cut = Component(name="threshold", step=1.0, l1=l1, l2_sq=0, cells=keys,
                        single_cell=False,
                        derivation=f"the threshold: a key only one person holds (of the at "
                        f"most {keys:,} key{'s' if keys > 1 else ''} a person counts in) is "
                        f"published with a chance of at most δ = {cut_delta:.3g}, the other "
                        "half of the declared δ")
        return [Measurement(query.id, counts, "gaussian", query.epsilon, noise_delta,
                            sigma_sq=sigma_sq),
                Measurement(query.id, cut, "threshold", 0.0, cut_delta)]

    def refusal(self, query: Query, measurements: list[Measurement]) -> str | None:
        return None

    def accuracy(self, query: Query, plan: Plan, measurements: list[Measurement],
                 confidence: float) -> Accuracy:
        sel = selection_of(measurements)
        hw = measurement_half_width(sel.noise, confidence)
        tau = sel.threshold
        who = "people" if plan.privacy_unit.kind == "person" else "rows"
        # the preview's own size (found_at), not τ plus a two-sided ±
        sure = found_at(sel.preview, tau, confidence)
        note = (f"threshold {tau:,} {who}: a key held by {sure:,} or more {who} is "
                f"found with {confidence_percent(confidence)} confidence; a key nobody else "
                f"holds is published with a chance of at most {sel.threshold_delta:.2g}")
        return Accuracy(confidence, float(hw), "count", note)

    # --- data --------------------------------------------------------------------------------

    def aggregate_of(self, query: Query) -> AggregateDescription:
        assert query.column is not None
        return KeyCounts(query.column, params(query).max_keys)

    # --- planning and release ----------------------------------------------------------------
    gives_interval = False
    always_shows_delta = True

    def interval_given(self, query: Query) -> bool:
        """The keys carry no interval; their counts, when published, do (given the key was
        kept: core/dp/selected.py)."""
        return params(query).publish_counts

    def release(self, query: Query, aggregate: Aggregate, ms: list[Measurement],
                draw: NoiseDraw) -> QueryRelease:
        """Noise on every present key's count, drawn in the order of the keys' sorted text
        (never the engine's), then only the keys at or above the threshold, sorted."""
        sel = selection_of(ms)
        counts = aggregate.parts["count"]
        labels = [c[1] for c in aggregate.cells]
        order = sorted(range(len(labels)), key=lambda i: sort_key(labels[i]))
        noise = noise_for(sel.noise, len(order), draw.source)
        tau = sel.threshold
        publish = params(query).publish_counts
        out: list[ReleasedValue] = []
        note = counted_note(tau, draw.confidence) if publish else "found (count not published)"
        for j, i in enumerate(order):
            noised = int(counts[i]) + int(noise[j])
            if noised >= tau:
                low, high = (selected_interval(sel.preview, tau, noised, draw.confidence)
                             if publish else (None, None))
                out.append(ReleasedValue(query.id, query.title, None, canonical_key(labels[i]),
                                         noised if publish else None, low, high,
                                         draw.confidence, query.mechanism, note))
        return QueryRelease(query.id, out)

    def released_value_problem(self, query: Query, value: float, low: float | None,
                               high: float | None, half: float | None) -> str | None:
        return None

    def discovered_rows_problem(self, query: Query, plan: Plan,
                                rows: list[tuple[str, float | None]],
                                ends: list[tuple[float | None, float | None]] | None = None,
                                confidence: float | None = None) -> str | None:
        """What verify finds wrong with the published keys: (key, noised count) in order,
        and each published count's interval, recomputed from the public parameters and the
        count (a release made before the intervals left them empty: still valid)."""
        keys = [k for k, _ in rows]
        if len(set(keys)) != len(keys):
            return "a key is published twice"
        if keys != sorted(keys, key=sort_key):
            return "the keys are not in sorted order"
        publish = params(query).publish_counts
        sel = selection_of(self.measurements(query, plan))
        tau = sel.threshold
        for n, (key, value) in enumerate(rows):
            if publish and value is None:
                return f"key {key!r} has no noised count"
            if not publish and value is not None:
                return f"key {key!r} has a count, which the plan does not publish"
            if value is not None and value < tau:
                return f"key {key!r} has a noised count below the threshold {tau}"
            low, high = ends[n] if ends is not None else (None, None)
            if low is None and high is None:
                continue
            if value is None or confidence is None or not float(value).is_integer() or \
                    (low, high) != selected_interval(sel.preview, tau, int(value), confidence):
                return (f"key {key!r}: its interval is not the one its noised count and the "
                        "threshold give")
        return None

    def missing_words(self, query: Query) -> list[str]:
        return [f"an empty {query.column} cell (or NA, NULL…) is never a key"]

    def public_parameters(self, query: Query) -> list[tuple[str, str]]:
        p = params(query)
        noise = "Gaussian" if query.mechanism == "gaussian_threshold" else "Laplace"
        return [("Column", query.column or ""),
                ("Keys per person", f"at most {p.max_keys:,}"),
                ("Noised counts", "published" if p.publish_counts else "not published"),
                ("Noise", f"discrete {noise}, keys kept above a threshold")]

    def value_words(self, column: str) -> str:
        return f"people holding a key of {column}"

    def check_lines(self, query: Query, plan: Plan, accuracy: dict[str, Any]) -> list[str]:
        sel = selection_of(self.measurements(query, plan))
        who = "people" if plan.privacy_unit.kind == "person" else "rows"
        chances = ", ".join(f"{n:,} {who}: {100 * p:.0f}%"
                            for n, p in keep_preview(sel.preview, sel.threshold))
        return [str(accuracy.get("note", "")),
                f"chance that a key is found, by how many {who} hold it: {chances}"]

    def report_meaning(self, record_query: dict[str, Any], query: Query | None,
                       confidence: float) -> str:
        counted = ""
        if query is not None and params(query).publish_counts:
            counted = (" Each published count was published because it reached the "
                       "threshold, so near it the count is biased upward (a key held by fewer "
                       "people is published only when its noise was large); its interval is "
                       "computed given that it was published and holds the true count with "
                       f"{confidence_percent(confidence)} confidence among the published "
                       "keys, reaching further down near the threshold.")
        return ("The keys are those whose noised count of people reached the threshold; a "
                "key held by few people may be missing, and nothing is said about the keys "
                "that were not found. " + str(record_query["accuracy"].get("note", "")) + "."
                + counted)

    def describe(self, column: str | None, kind_name: str, imputed: bool = False,
                 id_column: str | None = None, max_rows: int = 1, people: bool = False) -> str:
        return f"Keys of {column} found privately"

    # --- the app's form ----------------------------------------------------------------------
    def form_fields(self) -> frozenset[str]:
        return frozenset({COLUMN, MISSING, WHERE, DELTA, MAX_KEYS, PUBLISH_COUNTS})

    # gui25: what the app's list of statistics says instead of a ±: the keys it tends to find
    def accuracy_cell(self, query: Query, plan: Plan, acc: Accuracy) -> str:
        sel = selection_of(self.measurements(query, plan))  # Laplace or Gaussian (core25)
        sure = found_at(sel.preview, sel.threshold, acc.confidence)
        who = "people" if plan.privacy_unit.kind == "person" else "rows"
        return f"keys of {sure:,}+ {who}"
