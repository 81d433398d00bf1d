"""The lexicon's remembered text checks answer as the checks themselves, and stay bounded."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from memgate.stages import resolution_lexicon
from memgate.stages.resolution_lexicon import LEXICON, Lexicon
from memgate.stages.resolve_slots import _anchors, anchors

TEXTS = [
    "I now live in Lyon",
    "I live in Lyon",
    "Ich wohne nicht mehr in Köln",
    "je ne bois plus de café",
    "我们不再用 Jenkins 了",
    "switched to GitLab from Bitbucket",
    "my new manager is Dana",
    "",
    "  ",
]


def test_remembered_answers_are_the_checks_answers() -> None:
    for text in TEXTS * 2:  # the second round is answered from memory
        assert LEXICON.has_change_cue(text) == LEXICON._has_change_cue(text)
        assert LEXICON.has_negation(text) == LEXICON._has_negation(text)
        for sentence in (True, False):
            assert anchors(text, sentence=sentence) == set(_anchors.__wrapped__(text, sentence))


def test_a_caller_may_change_the_anchor_set_it_got() -> None:
    got = anchors("We use Travis CI", sentence=True)
    got.add("x")
    assert "x" not in anchors("We use Travis CI", sentence=True)


def test_the_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(resolution_lexicon, "_MEMO_MAX", 5)
    data = json.loads((resources.files("memgate") / "data" / "resolution.json").read_text())
    lex = Lexicon.from_data(data)  # its own memory
    for i in range(40):
        lex.has_change_cue(f"text number {i}")
        assert len(lex._memo) <= 5
    assert lex.has_change_cue("I now live in Lyon") is True
