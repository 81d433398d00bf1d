"""A reference's topic is a noun phrase: what follows a colon, a dash between spaces or a
semicolon is a clause of its own, the reason given with the request (stages/references.py,
issue 9). Left in the topic, the reason's words reached other facts of the speaker, or
made the topic name none.
"""

from __future__ import annotations

import pytest

from memgate.stages.references import find_references


@pytest.mark.parametrize(
    ("text", "topic", "reason"),
    [
        ("Forget what I told you about the piano: I sold it years ago.", "piano", "sold"),
        (
            "Vergiss, was ich über die Sauna gesagt habe – das war meine Nachbarin.",
            "sauna",
            "nachbarin",
        ),
        ("Olvida lo que te dije del gimnasio; me confundí de persona.", "gimnasio", "persona"),
    ],
)
def test_the_reason_after_a_colon_dash_or_semicolon_is_not_the_topic(
    text: str, topic: str, reason: str
) -> None:
    refs = find_references(text)
    assert refs, text
    assert topic in refs[0].topic.lower()
    assert reason not in refs[0].topic.lower()


def test_a_hyphenated_word_is_no_dash() -> None:
    refs = find_references("Please forget what I said about my e-bike commute.")
    assert refs and "e-bike" in refs[0].topic
