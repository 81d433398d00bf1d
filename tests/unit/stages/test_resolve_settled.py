"""A brief confirmation settles the user's latest guess of the same session
(stages/resolve_settled.py): the pending fact is promoted (``promoted_brief_confirmation``);
a 'maybe', a no, a yes to a task, a confirmation in another session, or another user's,
settles nothing. The sentences are written for these tests, in other words than the
development files."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memgate.core.events import (
    FactStatus,
    RedactedCandidate,
    RedactionAction,
    RedactionResult,
    TurnEvent,
)
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from memgate.stages.resolve_probe import probe_candidate
from memgate.stages.resolve_settled import PROMOTED_BRIEFLY, settles
from tests.unit.stages.resolver_kit import CLOCK, T0, USEM, cand, facts, minilm, resolve

#: the ``store`` fixture (conftest.py) is of MiniLM's dimension
STORE_EMBEDDER = minilm

#: A brief confirmation naming nothing, six languages.
SETTLES = {
    "en": "Heard back from the lab this morning, it's official.",
    "de": "So, jetzt ist es beschlossen.",
    "fr": "Bon, c'est acté.",
    "es": "Hablé con mi jefa: está decidido.",
    "pt": "Pronto, está fechado!",
    "zh": "刚开完会，敲定了。",
}

#: Short turns that settle nothing: a doubt, a negation, a bare yes, a request, a question.
SETTLES_NOT = [
    "Not decided yet, honestly.",
    "Maybe it's official next week.",
    "Yes please.",
    "Noch nicht entschieden.",
    "Peut-être que c'est décidé, je ne sais pas.",
    "¿Ya está confirmado?",
    "Talvez esteja fechado amanhã.",
    "还没定下来。",
    "可能定了吧。",
    "Sure, go ahead.",
]


@pytest.mark.parametrize("lang", sorted(SETTLES))
def test_a_brief_confirmation_settles(lang: str) -> None:
    assert settles(SETTLES[lang])


@pytest.mark.parametrize("text", SETTLES_NOT)
def test_a_doubt_a_no_or_a_bare_yes_settles_nothing(text: str) -> None:
    assert not settles(text)


def test_a_long_turn_with_a_confirmation_word_is_no_brief_confirmation() -> None:
    text = (
        "It's official that the new library opens downtown next month with a big party "
        "and free coffee for everyone who shows up early"
    )
    assert not settles(text)


def _guess(obj: str, days: int, user: str = "u1") -> RedactedCandidate:
    item = cand(obj, "statement", days=days, user=user)
    return item.model_copy(
        update={"candidate": item.candidate.model_copy(update={"confidence": 0.5})}
    )


def _probe(text: str, days: int, session: str, minutes: int = 30) -> RedactedCandidate:
    turn = TurnEvent(
        tenant_id="acme",
        user_id="u1",
        session_id=session,
        turn_id=f"t{days}-confirm",
        role="user",
        content=text,
        ts=T0 + timedelta(days=days, minutes=minutes),
    )
    c = probe_candidate(turn)
    assert c is not None
    return RedactedCandidate(candidate=c, redaction=RedactionResult(action=RedactionAction.CLEAN))


def _resolver() -> Resolver:
    return Resolver(preset("balanced"), minilm(), clock=CLOCK, meaning=USEM)


GUESS = "ich bin laktoseintolerant"


def test_a_brief_confirmation_promotes_the_sessions_latest_guess(store: EmbeddedIndex) -> None:
    resolver = _resolver()
    res, _ = resolve(store, _guess(GUESS, 0), resolver)
    assert res.writes[0].status is FactStatus.PENDING
    _, dec = resolve(store, _probe("Heute beim Arzt gewesen, ist bestätigt.", 0, "s0"), resolver)
    assert dec.reason == PROMOTED_BRIEFLY, dec
    got = facts(store)[GUESS]
    assert got.status is FactStatus.ACTIVE
    assert got.occurrences == 2
    assert "t0-confirm" in got.source_turn_ids


def test_only_the_latest_guess_of_the_session_is_settled(store: EmbeddedIndex) -> None:
    resolver = _resolver()
    resolve(store, _guess("we might move to Porto", 0), resolver)
    later = _guess("I might adopt a greyhound", 0)
    later = later.model_copy(
        update={
            "candidate": later.candidate.model_copy(
                update={
                    "turn_ts": T0 + timedelta(minutes=5),
                    "candidate_id": "c-later",
                    "source_turn_ids": ["t0b"],
                }
            )
        }
    )
    resolve(store, later, resolver)
    resolve(store, _probe("Yep, it's decided.", 0, "s0"), resolver)
    got = facts(store)
    assert got["I might adopt a greyhound"].status is FactStatus.ACTIVE
    assert got["we might move to Porto"].status is FactStatus.PENDING


@pytest.mark.parametrize(
    ("text", "session"),
    [
        ("Heute beim Arzt gewesen, ist bestätigt.", "s9"),  # another session
        ("Vielleicht, noch nicht entschieden.", "s0"),  # a doubt and a negation
        ("Ja, bitte.", "s0"),  # a yes to an offer of a task
    ],
)
def test_nothing_else_settles_the_guess(store: EmbeddedIndex, text: str, session: str) -> None:
    resolver = _resolver()
    resolve(store, _guess(GUESS, 0), resolver)
    assert resolver(_probe(text, 0, session), store) == []  # no row: nothing restated
    assert facts(store)[GUESS].status is FactStatus.PENDING


def test_another_users_guess_is_not_settled(store: EmbeddedIndex) -> None:
    resolver = _resolver()
    resolve(store, _guess(GUESS, 0, user="u2"), resolver)
    assert resolver(_probe("Ist bestätigt.", 0, "s0"), store) == []
    assert facts(store, user="u2")[GUESS].status is FactStatus.PENDING
