"""Randomized response at an ε the engine refuses: the app keeps working and says why."""

from __future__ import annotations


def test_a_refused_epsilon_shows_its_reason_and_the_app_goes_on(  # type: ignore[no-untyped-def]
        demo) -> None:
    session = demo.session
    session.select("smokers")
    # the spin box's smallest ε; the demo's person may have 3 rows: the noised number of
    # answers would need a scale of 3 / 0.00001 = 300,000 answers, above the limit
    session.set_epsilon("smokers", 0.0001)
    acc = session.accuracy(session.plan.query("smokers"))
    assert "too small for randomized response" in acc.note
    assert "too small for randomized response" in demo.statistic_pane.accuracy_note.text()
    assert session.total().epsilon > 0  # the meter still composes every statistic
    session.set_epsilon("smokers", 0.5)
    assert "too small" not in demo.statistic_pane.accuracy_note.text()
