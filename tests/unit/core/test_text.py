"""The one sentence splitter and the one question detector (word list in memgate/data)."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from memgate.core.text import is_question, question_starts, split_sentences, starts_like_question


@pytest.mark.parametrize(
    ("sentence", "question"),
    [
        ("Any tips?", True),
        ('Is it "done?"', True),  # closing quote after the mark
        ("¿Dónde vives", True),
        ("where do you live", True),  # a question word, no final punctuation
        ("Where do you live.", False),
        ("What a day…", False),  # an ellipsis ends a statement like "..." does
        ("What a day...", False),
        ("Qu'est-ce que je peux essayer d'autre", True),
        ("Pouvez-vous annuler ma commande", True),
        ("Por qué no funciona", True),  # a phrase of two words
        ("O que mais eu posso tentar", True),
        ("How'd you get into pottery", True),  # listed contraction
        ("How’d you get into pottery", True),  # typographic apostrophe
        ("Can't wait to see it", False),  # "can" is a whole word, not "can't"
        ("Canada is lovely", False),
        ("Por fin tengo un perro", False),  # "por" alone is not "por qué"
        ("There is a gym near my place", False),
        ("I moved to Berlin.", False),
        ("", False),
    ],
)
def test_is_question(sentence: str, question: bool) -> None:
    assert is_question(sentence) is question


def test_starts_like_question_after_opening_punctuation() -> None:
    assert starts_like_question('"Do you know I\'m vegan')
    assert starts_like_question("¡Qué bueno")
    assert not starts_like_question("I use vim, any tips?")


def test_split_sentences() -> None:
    assert split_sentences("Thanks! I moved to Berlin.Any tips?\nSee you") == [
        "Thanks!",
        "I moved to Berlin.",
        "Any tips?",
        "See you",
    ]
    assert split_sentences("  \n ") == []


def test_word_list_is_data_in_five_languages() -> None:
    raw = (resources.files("memgate") / "data" / "questions.json").read_text("utf-8")
    starts = json.loads(raw)["starts"]
    assert sorted(starts) == ["de", "en", "es", "fr", "pt"]
    every = [w for words in starts.values() for w in words]
    assert all(w == w.strip().casefold() and w for w in every)
    assert question_starts() == frozenset(every)


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        # a name's initials: after a capitalised word or another initial, before a capital
        ("My favourite author is Ursula K. Le Guin. I reread her.",
         ["My favourite author is Ursula K. Le Guin.", "I reread her."]),
        ("I grew up on J. R. R. Tolkien. Still do.",
         ["I grew up on J. R. R. Tolkien.", "Still do."]),
        ("My GP is Anna M. Weber, in Köln.", ["My GP is Anna M. Weber, in Köln."]),
        # a lone capital after a lower-case word ends its sentence
        ("I take vitamin D. My doctor said so.", ["I take vitamin D.", "My doctor said so."]),
        ("I got an A. It was hard.", ["I got an A.", "It was hard."]),
        # a day before its month (German ordinals); a number before another word ends
        ("Wir fliegen am 12. August nach Kreta. Das Hotel ist gebucht.",
         ["Wir fliegen am 12. August nach Kreta.", "Das Hotel ist gebucht."]),
        ("Seit dem 1. März wohne ich in Jena.", ["Seit dem 1. März wohne ich in Jena."]),
        ("Ich bin 30. Das ist viel.", ["Ich bin 30.", "Das ist viel."]),
    ],
)  # fmt: skip
def test_an_initial_or_an_ordinal_day_ends_no_sentence(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences


def test_the_extractor_keeps_a_name_with_an_initial_whole() -> None:
    from datetime import UTC, datetime

    from memgate.core.events import TurnEvent
    from memgate.stages.extract import RuleExtractor

    t = TurnEvent(tenant_id="a", user_id="u", session_id="s", turn_id="t1", role="user",
                  content="My favourite author is Ursula K. Le Guin.",
                  ts=datetime(2025, 1, 1, tzinfo=UTC))  # fmt: skip
    values = [c.object for c in RuleExtractor().extract(t)]
    assert any("Le Guin" in v for v in values), values
    assert "Ursula K" not in values
