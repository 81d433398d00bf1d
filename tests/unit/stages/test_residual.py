"""A withdrawal that names part of a stored statement leaves the rest current
(stages/resolve_residual.py): "forget what I said about ArgoCD" after "we deploy with
ArgoCD and the monorepo uses Turborepo" keeps the monorepo. What goes is erased or closed as
before; the residual holds none of the withdrawn words; a redelivery changes nothing.

Sentences are written for these tests, not taken from the eval files."""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus, RedactedCandidate
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.context import said_in
from memgate.stages.resolve_residual import residual_value
from tests.unit.stages.resolver_kit import T0, apply, facts, ref, statement


def _named(word: str):  # type: ignore[no-untyped-def]
    return lambda piece: word.lower() in piece.lower()


@pytest.mark.parametrize(
    ("value", "word", "rest"),
    [
        ("we deploy with ArgoCD and the monorepo uses Turborepo", "argocd",
         "the monorepo uses Turborepo"),
        ("ich habe Spotify und Deezer", "deezer", "ich habe Spotify"),
        ("estudio alemán los martes, y mi hija hace judo", "alemán", "mi hija hace judo"),
        ("je bosse chez Alan; le week-end je fais de la voile", "voile", "je bosse chez Alan"),
        ("我们用飞书沟通。项目管理在 Jira 上", "飞书", "项目管理在 Jira 上"),
        # the pieces after the named one that say more of it go with it
        ("I run on Tuesdays, usually along the canal; my cat is called Miso", "tuesdays",
         "my cat is called Miso"),
        ("我每周二去游泳，那天别约我; 我在美团做运营", "游泳", "我在美团做运营"),
    ],
)  # fmt: skip
def test_the_rest_of_a_statement_stays(value: str, word: str, rest: str) -> None:
    assert residual_value(value, _named(word)) == rest


@pytest.mark.parametrize(
    ("value", "word"),
    [
        # "works at Dell" is the brother's: no subject of its own, it goes with him
        ("my brother lives in Lyon and works at Renault", "brother"),
        ("we deploy with ArgoCD", "argocd"),  # nothing left
        ("we deploy with ArgoCD and the monorepo uses Turborepo", "gitlab"),  # nothing named
        ("I use Vim; what plugins do you like?", "vim"),  # only a question left
        ("I use Vim and ok", "vim"),  # too little left
        # pieces joined by a comma are one run: an apposition, a reason, a second clause
        ("Tengo una moto, una Vespa de 2019", "moto"),
        ("I'm lactose intolerant, no dairy for me", "dairy"),
        ("Our biggest client is Nordwind, I maintain their portal", "portal"),
    ],
)
def test_nothing_is_left_when_nothing_of_its_own_remains(value: str, word: str) -> None:
    assert residual_value(value, _named(word)) is None


def test_said_in_is_the_sentence_of_the_value() -> None:
    ctx = "Hi. I have the Premium plan. Please invoice Olmedo SL from now on."
    assert said_in(ctx, "I have the Premium plan") == "I have the Premium plan."
    assert said_in(ctx, "invoices go to Olmedo SL") == "Please invoice Olmedo SL from now on."


STATED = "we deploy with ArgoCD and the monorepo uses Turborepo"
LEFT = "the monorepo uses Turborepo"


def _current(store: EmbeddedIndex) -> dict[str, FactStatus]:
    return {v: f.status for v, f in facts(store).items()}


def test_a_deletion_erases_the_named_part_and_keeps_the_rest(store: EmbeddedIndex) -> None:
    apply(store, statement(STATED, days=0))
    _, dec = apply(store, ref("ArgoCD", "delete", days=5))
    assert dec.reason == "deletion_requested" and dec.details["residuals"] == 1
    got = facts(store)
    assert STATED not in got  # erased: a tombstone holds no content
    assert got[LEFT].status is FactStatus.ACTIVE
    assert got[LEFT].valid_from == T0  # valid since the statement was said, not since now
    for f in got.values():  # no word of what went, in any field of any row
        assert "argocd" not in f.model_dump_json().lower()
    # the retraction delivered again writes nothing more
    again, dec2 = apply(store, ref("ArgoCD", "delete", days=5))
    assert dec2.reason == "redelivered" and not again.writes
    assert [v for v, s in _current(store).items() if s is FactStatus.ACTIVE] == [LEFT]


def test_the_first_turn_delivered_again_brings_nothing_back(store: EmbeddedIndex) -> None:
    apply(store, statement(STATED, days=0))
    apply(store, ref("ArgoCD", "delete", days=5))
    apply(store, statement(STATED, days=0))  # a replay of the turn after the erasure
    active = [v for v, s in _current(store).items() if s is FactStatus.ACTIVE]
    assert active == [LEFT]


def test_a_retraction_closes_the_fact_and_keeps_the_rest(store: EmbeddedIndex) -> None:
    apply(store, statement("ich habe Spotify und Deezer", days=0))
    _, dec = apply(store, ref("Deezer", "retract", days=3))
    assert dec.reason == "retracted_by_reference"
    got = facts(store)
    assert got["ich habe Spotify und Deezer"].status is FactStatus.SUPERSEDED  # history kept
    assert got["ich habe Spotify"].status is FactStatus.ACTIVE
    assert got["ich habe Spotify"].supersedes == got["ich habe Spotify und Deezer"].fact_id


def test_a_fact_of_another_sentence_of_the_turn_is_not_reached(store: EmbeddedIndex) -> None:
    turn = "I have the Premium plan. Please invoice Olmedo SL from now on."

    def said(value: str, days: int) -> RedactedCandidate:
        item = statement(value, days=days)
        c = item.candidate.model_copy(update={"context": turn})
        return item.model_copy(update={"candidate": c})

    apply(store, said("I have the Premium plan", 0))
    apply(store, said("invoices go to Olmedo SL", 0))
    apply(store, ref("the invoices to Olmedo", "delete", days=4))
    got = facts(store)
    assert got["I have the Premium plan"].status is FactStatus.ACTIVE
    assert "invoices go to Olmedo SL" not in got


def test_another_users_fact_is_untouched(store: EmbeddedIndex) -> None:
    apply(store, statement(STATED, days=0))
    other = statement(STATED, days=0)
    c = other.candidate.model_copy(update={"user_id": "u2", "candidate_id": "c-u2"})
    apply(store, other.model_copy(update={"candidate": c}))
    apply(store, ref("ArgoCD", "delete", days=5))
    assert facts(store, user="u2")[STATED].status is FactStatus.ACTIVE
    assert LEFT not in facts(store, user="u2")
