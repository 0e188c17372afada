"""Sensitivities of a synthetic table's measurements (dp/synthetic.py has the method).

Every row lands in exactly one cell of every marginal, or (a value outside a declared domain,
or missing, in any declared column) in none of them. With k rows a person (after
contribution bounding) a marginal moves by at most k in L1 and k² in squared L2 under
add-remove; under replace-one by 2k and 2k². A pair's selection score is an L1 distance to a
fixed (already noised) estimate, so it moves by at most the marginal's L1 sensitivity.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model import PrivacyUnit, Query, SynthColumn
from .sensitivity import Component


def marginal_sensitivity(unit: PrivacyUnit, relation: str) -> tuple[int, int]:
    """(L1, squared L2) sensitivity of one marginal, in rows."""
    k = unit.rows_per_unit
    if relation == "add-remove":
        return k, k * k
    return 2 * k, 2 * k * k


def _rows_text(unit: PrivacyUnit) -> str:
    k = unit.rows_per_unit
    return "one row a person" if k == 1 else f"up to {k} rows a person"


def synthetic_components(query: Query, unit: PrivacyUnit, relation: str,
                         columns: Sequence[SynthColumn]) -> list[Component]:
    """The components of a synthetic table, in the order they are measured: the one-way
    marginals (named ``oneway:<column>``), then for each round i the selection
    (``select:i``) and the selected two-way marginal (``twoway:i``). Two columns have one
    pair, the only candidate whatever the data: no selection round (no ``select:1``)."""
    cols = tuple(columns)
    l1, l2_sq = marginal_sensitivity(unit, relation)
    who = _rows_text(unit)
    single = relation == "add-remove" and l1 == 1
    rule = ("add-remove: a person's rows add one to a cell each" if relation == "add-remove"
            else "replace-one: a person's rows may move to other cells")
    out = []
    for c in cols:
        out.append(Component(
            name=f"oneway:{c.column}", step=1.0, l1=l1, l2_sq=l2_sq, cells=c.size,
            single_cell=single or c.size == 1,
            derivation=(f"counts of {c.column} over its {c.size} declared values (rows with a "
                        f"value outside a declared domain are left out), {who}, {rule}: "
                        f"sensitivity {l1}")))
    if len(cols) < 2:
        return out
    widest = max(cols[a].size * cols[b].size for a in range(len(cols))
                 for b in range(a + 1, len(cols)))
    for i in range(1, len(cols)):
        if len(cols) > 2:  # two columns: one pair, the only candidate, taken without a choice
            out.append(Component(
                name=f"select:{i}", step=1.0, l1=l1, l2_sq=l1 * l1, cells=1, single_cell=True,
                derivation=(f"round {i} of choosing a pair of columns: the exponential "
                            f"mechanism over each pair's L1 distance between its true two-way "
                            f"counts and the product of the noised one-way counts, {who}: "
                            f"sensitivity {l1}")))
        out.append(Component(
            name=f"twoway:{i}", step=1.0, l1=l1, l2_sq=l2_sq, cells=widest,
            single_cell=single,
            derivation=(f"counts of the pair of columns chosen in round {i} over their declared "
                        f"values, {who}, {rule}: sensitivity {l1}" if len(cols) > 2 else
                        f"counts of the one pair of columns ({cols[0].column}, {cols[1].column}) "
                        f"over their declared values, {who}, {rule}: sensitivity {l1}")))
    return out
