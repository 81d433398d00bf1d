"""A plan or hedge, then the turn that says it happened: one fact, the guess promoted or
replaced (stages/resolve_settled.py); a plan never settled, given up, denied or followed by
news of something else stays pending."""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus, RedactedCandidate, Role, TurnEvent
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.statements import HybridExtractor
from memgate.stages.triage import TriageVerdict, triage
from tests.unit.stages.resolver_kit import apply, cand, facts


def _guess(text: str, days: int = 0) -> RedactedCandidate:
    item = cand(text, "statement", days=days, multi=True)
    return item.model_copy(
        update={"candidate": item.candidate.model_copy(update={"confidence": 0.5})}
    )


def _said(text: str, days: int) -> RedactedCandidate:
    return cand(text, "statement", days=days, multi=True)


def _current(store: EmbeddedIndex) -> dict[str, FactStatus]:
    return {v: f.status for v, f in facts(store).items() if f.status is not FactStatus.SUPERSEDED}


# (a plan said as a guess, a later turn that says it happened with no thing of its own)
BARE = [
    (
        "I'm thinking about adopting a greyhound from the shelter",
        "Yes, I went ahead and did it last weekend!",
    ),
    (
        "Ich habe vor, mich für den Töpferkurs anzumelden",
        "Erledigt, ich bin seit gestern angemeldet",
    ),
    ("Estoy pensando en apuntarme al coro del barrio", "Sí, ya está, me apunté el lunes"),
    ("我打算报一个游泳班", "对，我已经报名了"),
]


@pytest.mark.parametrize(("plan", "done"), BARE)
def test_a_bare_confirmation_promotes_the_latest_guess(
    store: EmbeddedIndex, plan: str, done: str
) -> None:
    res, _ = apply(store, _guess(plan))
    assert res.writes[0].status is FactStatus.PENDING
    _, dec = apply(store, _said(done, days=7))
    assert dec.reason == "promoted_confirmed", dec
    assert _current(store) == {plan: FactStatus.ACTIVE}  # one fact, the guess, active
    assert facts(store)[plan].occurrences == 2


# (a plan, a later turn that says it happened naming the thing by the same name)
NAMED = [
    (
        "Je compte déménager à Grenoble cet automne",
        "C'est signé, j'ai le bail de mon appart à Grenoble",
    ),
    ("Talvez eu aceite a proposta da Embraer", "Assinei o contrato com a Embraer na sexta"),
    ("我可能会搬去成都", "定了，下个月正式搬到成都"),
]


@pytest.mark.parametrize(("plan", "done"), NAMED)
def test_a_confirmation_naming_the_thing_replaces_the_guess(
    store: EmbeddedIndex, plan: str, done: str
) -> None:
    apply(store, _guess(plan))
    _, dec = apply(store, _said(done, days=7))
    assert dec.reason == "confirmed_value", dec
    assert _current(store) == {done: FactStatus.ACTIVE}
    assert facts(store)[plan].status is FactStatus.SUPERSEDED


# (a plan, a later turn that does not settle it): the guess waits, never active
NOT_SETTLED = [
    # news of something else, named, flagged as checked
    ("Estou pensando em trocar de carro", "Confirmado: a reunião com o fornecedor é na terça"),
    # given up
    ("Je compte partir travailler à Lyon", "Finalement je ne pars pas, je reste ici"),
    # denied
    ("I might take the job at Shopify", "I haven't signed anything yet"),
    # another thing done, by its own name
    ("I'm considering a move to Lisbon", "I signed up for the climbing gym"),
    ("Ich überlege, nach Hamburg zu ziehen", "Ich habe den Vertrag mit Vodafone unterschrieben"),
]


@pytest.mark.parametrize(("plan", "later"), NOT_SETTLED)
def test_what_does_not_settle_the_plan_leaves_it_pending(
    store: EmbeddedIndex, plan: str, later: str
) -> None:
    apply(store, _guess(plan))
    item = _said(later, days=7)
    if later.startswith("Confirmado"):
        item = item.model_copy(
            update={"candidate": item.candidate.model_copy(update={"confirmed": True})}
        )
    apply(store, item)
    assert facts(store)[plan].status is FactStatus.PENDING


def test_a_bare_confirmation_long_after_the_plan_settles_nothing(store: EmbeddedIndex) -> None:
    plan = "I'm thinking about learning the cello"
    apply(store, _guess(plan))
    apply(store, _said("Done, I signed up!", days=400))
    assert facts(store)[plan].status is FactStatus.PENDING


def _turn(text: str) -> TurnEvent:
    return TurnEvent(tenant_id="acme", user_id="u1", session_id="s1", turn_id="t1",
                     role=Role.USER, content=text, ts="2024-05-01T10:00:00Z")  # fmt: skip


# a plan of the speaker, in six languages: read as a belief (pending until confirmed)
PLANS = [
    "I'm leaning towards buying a cargo bike for the kids.",
    "Ich überlege, mir ein Klavier zu kaufen.",
    "J'hésite encore, mais je penche pour une formation en menuiserie.",
    "Estoy pensando en comprarme una furgoneta camper.",
    "Estou pensando em fazer um curso de cerâmica.",
    "我打算明年去读研究生。",
]


@pytest.mark.parametrize("text", PLANS)
def test_a_plan_of_the_speaker_is_kept_as_a_belief(text: str) -> None:
    assert triage(_turn(text))[0] is TriageVerdict.KEEP
    got = HybridExtractor().extract(_turn(text))
    assert got and all(f.confidence <= 0.5 for f in got), got


@pytest.mark.parametrize(
    "text", ["I live in Leipzig with my partner.", "Ich spiele seit Jahren Geige."]
)
def test_a_plain_fact_of_the_speaker_is_no_belief(text: str) -> None:
    got = HybridExtractor().extract(_turn(text))
    assert got and all(f.confidence >= 0.9 for f in got), got


def test_a_doubt_with_no_thing_is_no_plan() -> None:
    assert HybridExtractor().extract(_turn("I'm not sure.")) == []


@pytest.mark.parametrize(
    "text",
    [
        "I relocated to Seattle in May.",  # the month, no doubt
        "Tobias Crane took over as head of our group in May, so he's my boss now.",
        "I made a cake the other day, maybe you would like that!",  # the hedge is yours
        "I can't stop thinking about the screenplay.",  # a hedge denied
        "We decided to do playdates, considering we all need friends.",  # settled
    ],
)
def test_what_is_no_plan_of_the_speaker_is_no_belief(text: str) -> None:
    assert all(f.confidence >= 0.9 for f in HybridExtractor().extract(_turn(text)))
