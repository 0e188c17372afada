"""The words a synthetic table brings (marginal, TVD, exponential mechanism, synthetic table,
noised count) are in the app's glossary and the user guide's, and found on screen."""

from __future__ import annotations

import pytest

from planner_app.core.support import words
from planner_app.core.support.resources import resource_path

TERMS = ("Marginal", "Total variation distance (TVD)", "Exponential mechanism",
         "Synthetic table", "Noised count")


@pytest.mark.parametrize("term", TERMS)
def test_the_term_is_in_both_glossaries(term: str) -> None:
    text = words.GLOSSARY[term]
    assert 1 <= text.count(". ") + 1 <= 3
    guide = resource_path("user-guide.md").read_text(encoding="utf-8")
    glossary = guide[guide.index("## Glossary"):]
    assert f"- **{term}**: {text}" in glossary


def test_the_words_on_screen_find_their_entries() -> None:
    shown = {"counts of region × age: a two-way marginal": "Marginal",
             "expected error as total variation distance": "Total variation distance (TVD)",
             "TVD 0.031 to the released noised marginal": "Total variation distance (TVD)",
             "a synthetic table of 3 columns": "Synthetic table",
             "the noised counts in release.json": "Noised count"}
    for text, term in shown.items():
        assert term in words.terms_in(text), text
    # the exponential mechanism's entry speaks of the synthetic table's pairs too
    assert "pair" in words.GLOSSARY["Exponential mechanism"]
