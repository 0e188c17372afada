"""The plan's fields as the app's controls name them: one table from a JSON path
(``dataset.expected_rows``, ``queries[age].lower``) to the label a person sees on screen
("About how many rows (Data tab)", "Lower bound"). The command line keeps the JSON paths (a
plan file is edited by path); every message the app shows goes through ``on_screen``."""

from __future__ import annotations

import re
from collections.abc import Sequence

# the plan's top-level fields: the control that edits each, and where it is
PLAN_FIELD_NAMES = {
    "dataset.name": "Dataset name (Data tab)",
    "dataset.expected_rows": "About how many rows (Data tab)",
    "dataset.path": "The table's file (Data tab)",
    "dataset": "The dataset (Data tab)",
    "privacy_unit.id_column": "The id column of a person (Data tab)",
    "privacy_unit.max_rows": "Rows one person may have (Data tab)",
    "privacy_unit.kind": "Who is one person (Data tab)",
    "privacy_unit": "Who is one person (Data tab)",
    "relation": "What is protected (Data tab)",
    "budget.epsilon": "Budget ε (Budget tab)",
    "budget.delta": "Budget δ (Budget tab)",
    "budget.accountant": "Accountant (Budget tab)",
    "budget": "Budget (Budget tab)",
    "justification": "Reason for ε (Budget tab)",
    "approvals": "Approvals (privacy officer's review)",
    "queries": "Statistics",
}

# a statistic's fields as the statistic editor labels them
QUERY_FIELD_NAMES = {
    "id": "Id", "label": "Label", "kind": "Kind", "column": "Column", "epsilon": "ε",
    "delta": "δ", "lower": "Lower bound", "upper": "Upper bound", "categories": "Categories",
    "bins": "Bins", "quantile": "Quantile level", "group_by": "Group by", "keys": "Group keys",
    "where": "Only rows where", "missing": "Missing or unreadable cells",
    "impute": "Value for missing cells", "mechanism": "Noise", "yes": "Yes values",
    "no": "No values", "justification": "Reasons", "grid_step": "Grid step",
    "columns": "Columns of the table", "rows": "Rows to generate", "method": "Method",
    "value": "Value", "op": "Operator", "expected_count": "Rows used",
}

_QUERY = re.compile(r"queries\[([^\]]*)\]((?:\.[A-Za-z_]+|\[\d+\])*)")
_PLAN = re.compile(r"\b(" + "|".join(re.escape(k) for k in sorted(
    PLAN_FIELD_NAMES, key=len, reverse=True) if "." in k or "_" in k) + r")\b")


def query_field_name(path: str, columns: Sequence[str] = ()) -> str:
    """A statistic's field (``.lower``, ``.group_by.keys``, ``.columns[1].bins``) as the editor
    labels it; a synthetic table's columns[i] is named by its column (``columns``)."""
    parts = [p for p in re.split(r"[.\[\]]", path) if p]
    named: list[str] = []
    for at, part in enumerate(parts):
        if not part.isdigit():
            named.append(QUERY_FIELD_NAMES.get(part, part.replace("_", " ")))
        elif at and parts[at - 1] == "columns" and int(part) < len(columns) and columns[int(part)]:
            named.append(columns[int(part)])
    return " → ".join(dict.fromkeys(named))


def field_name(where: str, columns: Sequence[str] = (), in_editor: bool = False,
               quoted: bool = False) -> str:
    """The control a plan path names: "Lower bound" in the statistic's own editor, "Lower
    bound of statistic “age”" elsewhere, "About how many rows (Data tab)" for the dataset's.
    ``quoted`` (a name inside a sentence): the control's own label in quotes, “Lower bound”
    of statistic “age”; a name never holds a quote inside a quote."""
    match = _QUERY.fullmatch(where)
    if match is not None:
        ident, rest = match.groups()
        field = query_field_name(rest, columns)
        if in_editor:
            name = field or "This statistic"
            return f"“{name}”" if quoted else name
        if not field:
            return f"Statistic “{ident}”"  # the statistic's id is what is quoted
        return f"“{field}” of statistic “{ident}”" if quoted else \
            f"{field} of statistic “{ident}”"
    name = PLAN_FIELD_NAMES.get(where, where)
    return f"“{name}”" if quoted else name


def on_screen(text: str, columns: Sequence[str] = (), in_editor: bool = False) -> str:
    """``text`` with every plan path in it replaced by the control's name (see
    ``field_name``), quoted inside a sentence; a sentence without a path is returned as it
    is."""
    def named(match: re.Match[str]) -> str:
        # "path: problem" names the field plainly; a path inside a sentence is quoted
        plain = text[match.end():match.end() + 1] == ":"
        return field_name(match.group(0), columns, in_editor, quoted=not plain)

    return _PLAN.sub(named, _QUERY.sub(named, text))
