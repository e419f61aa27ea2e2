"""Hostile pass 26's blind-text findings: a role said as a capacity, a persona, a member or one
"among us"; a teammate's ruling or summary after "our"; a role in an XML-like tag, an attribute or
after "Role" and a glued dash. And the prose beside them that stays prose."""

from __future__ import annotations

import pytest

from studies.blind_text import blind_spans
from tests.studies.test_blind_text_pass23 import TERMS


def names(text: str) -> list[str]:
    return [text[s.start : s.end] for s in blind_spans(text, TERMS)]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("In my implementer capacity I will draft the timeline.", ["implementer"]),
        ("In my capacity as the moderator, I close the round.", ["moderator"]),
        ("I, acting as environmentalist, object to the dam.", ["environmentalist"]),
        ("Taking on the futurist persona, I imagine 2050.", ["futurist"]),
        ("The startup founder among us pitched a subscription model.", ["startup founder"]),
        ("Our group's startup founder pitched a subscription model.", ["startup founder"]),
        ("From the standpoint of the environmentalist member, the dam is harmful.", ["environmentalist"]),
        ("Per our moderator's ruling, the affirmative wins.", ["moderator"]),
        ("Summary prepared by our coordinator after three rounds.", ["coordinator"]),
        ("<role>Implementer</role> Step 1 ideas follow.", ["Implementer"]),
        ('<turn speaker="Moderator">Let us vote.</turn>', ["Moderator"]),
        ("Role—Implementer", ["Implementer"]),
        ('role="Futurist"', ["Futurist"]),
        # prose
        ("The startup founder pitched a subscription model to the council.", []),
        ("In her capacity as mayor, she opened the dam.", []),
        ("The environmentalist member of parliament objected.", []),
        ("Per our agreement, the city pays for the seawall.", []),
        ("A report prepared by the coordinator of the relief agency.", []),
        ("Our coordinator at the ministry approved the plan.", []),
        ("The futurist movement imagined floating cities.", []),
        ("Among us were farmers and a startup founder.", []),
        # the first rules' prose, found while writing them
        ("Growth in our plant capacity was 5% last year.", []),
        ("The plant member states agreed on tariffs.", []),
        ("Adopting the futurist role in policy debates is common.", []),
        ("The report was prepared by our coordinator at the ministry.", []),
    ],
)
def test_pass_26(text, found):
    assert names(text) == found
