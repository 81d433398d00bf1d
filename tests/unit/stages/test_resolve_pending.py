"""A hedged guess said again in other words in a later session is promoted, under
whatever key the restatement is stored (stages/resolve_pending.py); a guess said again
with another value is not, nor is another user's guess."""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus, RedactedCandidate
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from tests.unit.stages.resolver_kit import CLOCK, USEM, cand, facts, minilm, resolve

#: the ``store`` fixture (conftest.py) is of MiniLM's dimension
STORE_EMBEDDER = minilm

#: (subject, the guess, the same guess said again in other words), en de fr es pt zh
RESTATED = [
    ("user's landlord", "my landlord is Mr Brooks", "Mr Brooks is my landlord"),
    ("user's zahnarzt", "mein Zahnarzt heißt Doktor Wegener",
     "mein Zahnarzt heißt Doktor Wegener, so steht es jedenfalls auf der Rechnung"),
    ("team", "nous déployons avec Ansible",
     "nous déployons avec Ansible, c'est ce que dit le wiki"),
    ("team", "usamos Jenkins para la integración continua",
     "usamos Jenkins para la integración continua, eso pone en la wiki"),
    ("team", "usamos Grafana para os painéis",
     "a gente usa Grafana para os painéis"),
    ("team", "我们用禅道管理缺陷", "我们用禅道管理缺陷，至少文档里是这么写的"),
]  # fmt: skip

#: The same frame, another value: two guesses, neither evidence for the other.
OTHER_VALUE = [
    ("user's landlord", "my landlord is Mr Brooks", "my landlord is Mr Okafor"),
    ("user's zahnarzt", "mein Zahnarzt heißt Doktor Wegener", "mein Zahnarzt heißt Doktor Albers"),
    ("team", "usamos Grafana para os painéis", "a gente usa Kibana para os painéis"),
    ("team", "我们用禅道管理缺陷", "我们用Jira管理缺陷"),
]


def _guess(obj: str, subject: str, days: int, user: str = "u1") -> RedactedCandidate:
    item = cand(obj, "statement", days=days, subject=subject, multi=True, user=user)
    return item.model_copy(
        update={"candidate": item.candidate.model_copy(update={"confidence": 0.5})}
    )


def _resolver() -> Resolver:
    return Resolver(preset("balanced"), minilm(), clock=CLOCK, meaning=USEM)


@pytest.mark.parametrize(("subject", "first", "again"), RESTATED)
def test_a_guess_said_again_in_other_words_is_promoted(
    store: EmbeddedIndex, subject: str, first: str, again: str
) -> None:
    resolver = _resolver()
    res, _ = resolve(store, _guess(first, subject, 0), resolver)
    assert res.writes[0].status is FactStatus.PENDING
    _, dec = resolve(store, _guess(again, subject, 20), resolver)
    assert dec.reason == "promoted_repeated_evidence", dec
    got = facts(store)
    assert got[first].status is FactStatus.ACTIVE
    assert got[first].occurrences == 2
    assert again not in got  # one fact, not a second guess beside the first


@pytest.mark.parametrize(("subject", "first", "other"), OTHER_VALUE)
def test_a_guess_with_another_value_is_no_evidence(
    store: EmbeddedIndex, subject: str, first: str, other: str
) -> None:
    resolver = _resolver()
    resolve(store, _guess(first, subject, 0), resolver)
    _, dec = resolve(store, _guess(other, subject, 20), resolver)
    assert dec.reason != "promoted_repeated_evidence", dec
    got = facts(store)
    assert got[first].status is FactStatus.PENDING
    assert got[other].status is FactStatus.PENDING


def test_another_users_guess_is_no_evidence(store: EmbeddedIndex) -> None:
    resolver = _resolver()
    resolve(store, _guess("usamos Grafana para os painéis", "team", 0, user="u2"), resolver)
    _, dec = resolve(store, _guess("a gente usa Grafana para os painéis", "team", 20), resolver)
    assert dec.reason != "promoted_repeated_evidence", dec
    assert facts(store, user="u2")["usamos Grafana para os painéis"].status is FactStatus.PENDING
