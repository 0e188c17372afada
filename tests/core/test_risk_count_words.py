"""The δ sentence points back at the frequency sentence without naming its size (walk 2,
finding 18: it said "the count out of 100 above" under "Of 1,000 people …")."""

from __future__ import annotations

from planner_app.core.dp.risk import delta_words, frequency_words


def test_the_delta_words_name_no_other_count_than_the_one_above() -> None:
    above = frequency_words(4.975, 1e-6)
    assert above.startswith("Of 1,000 people")  # 1/(1+e^4.975) of 100 is under one person
    words = delta_words(4.975, 1e-6)
    assert "out of 100" not in words
    assert "the count of people targeted above already allows for δ" in words
