"""Restatements with the value first and an idiom of refusal (issue 9, dedupe, dd29): the
stance towards the thing (resolve_stance) is compared, not a negation word, so "X is a
no-go for me" folds into "I'm allergic to X" and "no X"; a negated aversion ("not
allergic") and a liking keep the other stance and stay apart. Two things of one owner
told apart by a qualifier (resolve_qualifier: "our staging cache" / "our session cache")
are two facts under one extractor slot; a word of time ("new") still replaces."""

from __future__ import annotations

import pytest

from memgate.core.events import DecisionRecord, FactStatus, FactType, RedactedCandidate, Resolution
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from memgate.stages.resolve_qualifier import adds_another, qualified_noun
from memgate.stages.resolve_stance import averse, inflected, polarity_words, same_stance
from tests.unit.stages.resolver_kit import CLOCK, cand, facts, minilm, resolve

#: the ``store`` fixture (conftest.py) is of MiniLM's dimension
STORE_EMBEDDER = minilm


def apply(store: EmbeddedIndex, item: RedactedCandidate) -> tuple[Resolution, DecisionRecord]:
    return resolve(store, item, Resolver(preset("balanced"), minilm(), clock=CLOCK))


def said(
    obj: str,
    predicate: str = "statement",
    *,
    days: int,
    subject: str = "user",
    type_: FactType = FactType.FACT,
    context: str = "",
) -> RedactedCandidate:
    item = cand(
        obj, predicate, days=days, subject=subject, type_=type_, multi=predicate == "statement"
    )
    c = item.candidate.model_copy(update={"context": context})
    return item.model_copy(update={"candidate": c})


# ------------------------------------------------------------------ the stance, read alone


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Hazelnuts are a no-go for me, I have an allergy", True),
        ("I'm allergic to hazelnuts", True),
        ("I'm not allergic to hazelnuts", False),
        ("I never eat mushrooms", True),
        ("Mushrooms are a hard pass for me", True),
        ("I love mushrooms", False),
        ("Le poisson, très peu pour moi", True),
        ("Je ne suis pas allergique au poisson", False),
        ("Alcohol? Fora de cogitação para mim", True),
        ("Ich habe eine Erdnussallergie", True),  # the head of a compound
        ("我对花生过敏", True),
        ("我不过敏", False),
        # verbs of dislike are aversion cues (old: read as no stance at all)
        ("Olives? I hate them", True),
        ("Oliven hasse ich", True),
        ("Je déteste les olives", True),
        ("Las aceitunas, las odio", True),
        ("Azeitonas, odeio", True),
        ("我讨厌橄榄", True),
        ("I don't hate olives", False),
    ],
)
def test_the_stance_of_a_statement(text: str, want: bool) -> None:
    assert averse(text) is want


@pytest.mark.parametrize(
    ("stored", "said_", "want"),
    [
        # the negation belongs to a segment about another thing (old: two stances)
        ("Our invoices are kept in Xero", "We track invoicing in Xero, not in QuickBooks", True),
        ("Unsere Tickets liegen in YouTrack", "Alles läuft über YouTrack, nicht über Trello", True),
        ("Nuestro código está en Bitbucket", "Todo va en Bitbucket, no en GitHub", True),
        ("Cebolla no, por favor", "Nada de cebolla en mis platos, la detesto", True),
        # the other stance about the same thing stays another stance
        ("I eat onions", "I don't eat onions, never have", False),
        ("We deploy on Fridays", "We don't deploy on Fridays, not since the outage", False),
        ("Je bois du thé", "Le thé, je n'en bois pas, mais du café oui", False),
    ],
)  # fmt: skip
def test_the_stance_is_read_on_what_both_speak_of(stored: str, said_: str, want: bool) -> None:
    assert same_stance(stored, said_) is want


def test_the_words_of_the_stance_are_no_names() -> None:
    assert polarity_words("no mushrooms") == {"no"}
    assert "mushrooms" not in polarity_words("Mushrooms are a hard pass for me")


def test_a_word_inflected_is_the_same_word() -> None:
    assert inflected("sunday", "sundays") and inflected("woche", "wochen")
    assert not inflected("cat", "cats")  # too short a stem to tell
    assert not inflected("java", "javascript")


# ------------------------------------------------------- restatements that fold (old: ADD)


@pytest.mark.parametrize(
    ("first", "predicate", "again"),
    [
        ("I'm allergic to hazelnuts", "statement", "Hazelnuts are off the table for me"),
        ("no mushrooms", "diet", "Mushrooms are a hard pass for me, always have been"),
    ],
)  # fmt: skip
def test_a_restatement_by_an_idiom_of_refusal_folds(
    store: EmbeddedIndex, first: str, predicate: str, again: str
) -> None:
    apply(store, said(first, predicate, days=0))
    res, _ = apply(store, said(again, days=30, type_=FactType.INSTRUCTION))
    assert res.action.value == "DUPLICATE"
    got = facts(store)
    assert again not in got
    assert got[first].occurrences == 2 and got[first].status is FactStatus.ACTIVE


def test_a_name_said_in_another_form_folds(store: EmbeddedIndex) -> None:
    first = "We never merge on Sundays"
    apply(store, said(first, "deploys_with", days=0, subject="team"))
    again = "Merging on a Sunday is off-limits for our team"
    res, _ = apply(store, said(again, days=30, subject="team"))
    assert res.action.value == "DUPLICATE"
    assert facts(store)[first].occurrences == 2


@pytest.mark.parametrize(
    ("first", "subject", "again"),
    [
        ("Wir verwalten Tickets in YouTrack", "team", "Alles läuft in YouTrack, nicht in Trello"),
        ("Las cebollas, no las soporto", "user", "Nada de cebolla en mis platos, la detesto"),
    ],
)  # fmt: skip
def test_a_repeat_whose_other_stance_is_about_another_thing_folds(
    store: EmbeddedIndex, first: str, subject: str, again: str
) -> None:
    """Said as a repeat (its marker cut: ``repeats``); old: the negation of Trello, or
    the dislike read as no stance, made two stances, and the repeat a second fact."""
    apply(store, said(first, days=0, subject=subject))
    item = said(again, days=30, subject=subject)
    marked = item.candidate.model_copy(update={"repeats": True})
    item = item.model_copy(update={"candidate": marked})
    res, _ = apply(store, item)
    assert (res.action.value, res.reason) == ("DUPLICATE", "repeat")
    assert facts(store)[first].occurrences == 2


# ------------------------------------------------------------ hard negatives: stay apart


@pytest.mark.parametrize(
    ("first", "predicate", "again"),
    [
        ("I love mushrooms", "statement", "Mushrooms are a hard pass for me"),  # old: folded
        ("I never eat mushrooms", "statement", "I eat mushrooms every day"),
        ("no mushrooms", "diet", "Mushrooms are my favourite topping"),
    ],
)
def test_the_other_stance_never_folds(
    store: EmbeddedIndex, first: str, predicate: str, again: str
) -> None:
    apply(store, said(first, predicate, days=0))
    res, _ = apply(store, said(again, days=30))
    assert res.action.value != "DUPLICATE"
    assert facts(store)[first].occurrences == 1


# ------------------------------------------------------------------- qualified things


def test_the_qualified_noun_of_a_sentence() -> None:
    assert qualified_noun("Our staging cache is Redis.") == ("staging", "cache")
    assert qualified_noun("Our new cache is Memcached") is None  # time, not which
    assert qualified_noun("Our cache is now Memcached") is None


def test_two_qualified_things_under_one_slot_are_two_facts(store: EmbeddedIndex) -> None:
    apply(store, said("Redis", "uses_tool:cache", days=0, subject="team",
                      context="Our staging cache is Redis."))  # fmt: skip
    res, _ = apply(store, said("Memcached", "uses_tool:cache", days=30, subject="team",
                               context="Our session cache is Memcached."))  # fmt: skip
    assert res.action.value == "ADD"
    got = facts(store)
    assert got["Redis"].status is FactStatus.ACTIVE
    assert got["Memcached"].status is FactStatus.ACTIVE
    # the second thing changed later replaces itself, never the first
    res, _ = apply(store, said("Valkey", "uses_tool:cache", days=60, subject="team",
                               context="Our session cache is now Valkey."))  # fmt: skip
    assert res.action.value == "SUPERSEDE"
    got = facts(store)
    assert got["Memcached"].status is FactStatus.SUPERSEDED
    assert got["Redis"].status is FactStatus.ACTIVE and got["Valkey"].status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    "context", ["Our new cache is Memcached.", "Our cache is Memcached now.", ""]
)
def test_a_new_value_with_no_other_qualifier_still_supersedes(
    store: EmbeddedIndex, context: str
) -> None:
    apply(store, said("Redis", "uses_tool:cache", days=0, subject="team",
                      context="Our staging cache is Redis."))  # fmt: skip
    res, _ = apply(store, said("Memcached", "uses_tool:cache", days=30, subject="team",
                               context=context))  # fmt: skip
    assert res.action.value == "SUPERSEDE"
    assert facts(store)["Redis"].status is FactStatus.SUPERSEDED


# ------------------------------------------- another one: "also", "a second", another day


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ("I have a cat", "I have a second cat"),  # old: near_duplicate
        ("Tenho um gato", "Tenho outro gato"),  # old: same_clause
        ("我周一和哥哥去游泳", "我周三和哥哥去游泳"),  # old: paraphrase by words
        ("Voy a nadar con mi hermano los lunes", "Voy a nadar con mi hermano los martes"),
        ("I go running with my neighbour", "I also go running with my colleague"),
    ],
)
def test_another_one_is_another_fact(store: EmbeddedIndex, first: str, again: str) -> None:
    apply(store, said(first, days=0))
    res, _ = apply(store, said(again, days=30))
    assert res.action.value == "ADD"
    got = facts(store)
    assert got[first].status is FactStatus.ACTIVE and got[first].occurrences == 1
    assert got[again].status is FactStatus.ACTIVE


def test_the_same_day_said_again_still_folds(store: EmbeddedIndex) -> None:
    first = "I do yoga with my sister on Mondays"
    apply(store, said(first, days=0))
    res, _ = apply(store, said("Mondays are yoga days with my sister", days=30))
    assert res.action.value == "DUPLICATE"
    assert facts(store)[first].occurrences == 2


def test_a_word_of_another_day_or_one_more() -> None:
    assert adds_another("Jogo às segundas", "Jogo também às segundas")
    assert not adds_another("Jogo às segunda-feira", "Às segunda-feira eu jogo")  # a day
    assert not adds_another("I also have a dog", "I also have a dog, Rex")  # said on both
