"""Issue 9 (session 29, confirm29): operations that refer to earlier facts reach the fact
they mean, and only that one.

* A stop said with no verb ("No more Friday calls, please", "Keine Anrufe mehr am
  Freitag", "Basta de llamadas", "Chega de ligações"): ``nominal_stops`` of
  clause_roles.json; "no more than two" is a measure, not a thing.
* A thing said with a demonstrative and a stuff word, and a word of error ("that Heroku
  thing isn't right, that was at my previous job"), withdraws that thing when the speaker
  says why in words of their own; "that regex thing isn't right" may be said of an answer,
  "that second part is wrong" of a draft.
* Beside a deletion request, a change of a thing of the day ("the meeting moved to 3")
  is no new value to keep; the speaker's own change ("I moved to Berlin") still is.
* A hedged fact or a checked one about the speaker's team named by a noun ("Il me semble
  que la réunion d'équipe a lieu le jeudi", "C'est confirmé, la réunion d'équipe ...") is
  kept (a belief, then the fact), as "notre réunion" was; a bare "C'est confirmé." or
  "It's confirmed, thanks!" is still chatter.
* A Chinese workplace said with a locative ("我在一家银行做会计") is a durable statement
  of the speaker; a place of no organisation ("我在厨房做饭") is not.
"""

from __future__ import annotations

import pytest

from memgate.core.events import CandidateFact, FactStatus, TriagedTurn, TriageVerdict
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.durable_frame import durable_own, hedged_fact
from memgate.stages.references import find_references
from memgate.stages.resolve_semantic import DELETED_PREDICATE
from memgate.stages.statements import HybridExtractor
from memgate.stages.triage import triage
from memgate.streams.pipeline import ExtractStep
from tests.unit.stages.resolver_kit import apply, cand, facts, ref, user_turn


def _extracted(content: str) -> list[CandidateFact]:
    out = ExtractStep(HybridExtractor())(TriagedTurn(turn=user_turn(content), reason="kept"))
    return [c for c in out if isinstance(c, CandidateFact)]


# ------------------------------------------------------------ a stop said with no verb


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        ("No more Friday calls, please.", "Friday calls"),
        ("Keine Anrufe am Freitag mehr, bitte.", "Anrufe am Freitag"),
        ("Basta de llamadas los viernes.", "llamadas viernes"),
        ("Chega de ligações às sextas.", "ligações às sextas"),
    ],
)
def test_a_stop_said_with_no_verb_names_its_thing(text: str, topic: str) -> None:
    assert [(r.op, r.topic) for r in find_references(text)] == [("stop", topic)]


@pytest.mark.parametrize(
    "text",
    [
        "No more than two coffees a day for me.",
        "No more calls on Friday?",
        "I had no more time for the gym that week.",
    ],
)
def test_a_measure_a_question_or_a_statement_is_no_stop(text: str) -> None:
    assert find_references(text) == []


def test_a_stop_said_with_no_verb_closes_the_standing_request_only(store: EmbeddedIndex) -> None:
    calls = "Please call me every Friday with an update on my open tickets"
    other = "I prefer e-mail for invoices"
    apply(store, cand(calls, days=1, multi=True))
    apply(store, cand(other, days=2, multi=True))
    (r,) = find_references("No more Friday calls, please.")
    _res, dec = apply(store, ref(r.topic, r.op, days=3))
    assert dec.reason == "stopped_by_reference", (dec.reason, dec.details)
    got = facts(store)
    assert got[calls].status is FactStatus.SUPERSEDED
    assert got[other].status is FactStatus.ACTIVE


# ------------------------------------------------------------ "that X thing isn't right"


def test_a_thing_said_wrong_with_a_reason_is_withdrawn() -> None:
    (r,) = find_references("Hold on, that Heroku thing isn't right, that was at my previous job.")
    assert (r.op, r.topic, r.retracted) == ("delete", "heroku", True)


@pytest.mark.parametrize(
    "text",
    [
        "That regex thing isn't right.",  # may be said of an answer
        "That second part is wrong, I need it shorter.",  # a part of a draft
        "That Heroku thing is great, I love it.",  # no word of error
    ],
)
def test_a_thing_called_wrong_with_no_reason_of_the_speaker_is_no_withdrawal(text: str) -> None:
    assert find_references(text) == []


def test_a_team_fact_withdrawn_as_a_thing_said_wrong_goes_and_the_other_stays(
    store: EmbeddedIndex,
) -> None:
    apply(store, cand("Heroku", "deploys_with", days=1, subject="team"))
    apply(store, cand("I cycle to the office most days", days=2, multi=True))
    (r,) = find_references("Hold on, that Heroku thing isn't right, that was at my previous job.")
    _res, dec = apply(store, ref(r.topic, "delete:retracted", days=3))
    assert dec.reason == "deletion_requested", (dec.reason, dec.details)
    got = facts(store)
    assert "Heroku" not in got
    assert [f.predicate for f in got.values() if f.status is FactStatus.SUPERSEDED] == [
        DELETED_PREDICATE
    ]
    assert got["I cycle to the office most days"].status is FactStatus.ACTIVE


# ------------------------------------------------------------ a change beside a deletion


def test_a_change_of_the_day_beside_a_deletion_request_is_not_kept() -> None:
    got = _extracted(
        "Okay, a few things. The meeting moved to 3, I need to pick up groceries, and, oh, "
        "please erase the stuff I told you about my pen collection, I'd rather not have it "
        "stored. Thanks!"
    )
    assert got and all(c.retracts for c in got), [(c.predicate, c.object) for c in got]


def test_the_speakers_own_change_beside_a_deletion_request_is_kept() -> None:
    got = _extracted("I moved to Berlin, forget my old address.")
    kept = [c.object for c in got if not c.retracts]
    assert any("Berlin" in o for o in kept), kept
    assert any(c.retracts for c in got)


# ------------------------------------------------------------ a hedge, then confirmed


HEDGED = "Il me semble que la réunion d'équipe a lieu le jeudi."
CHECKED = "C'est confirmé, la réunion d'équipe a lieu le jeudi."


def test_a_hedge_about_the_team_named_by_a_noun_is_a_hedged_fact() -> None:
    assert hedged_fact(HEDGED) == "la réunion d'équipe a lieu le jeudi."
    assert hedged_fact("Creo que la reunión de equipo es los jueves.") is not None
    assert hedged_fact("I think Rust is overrated.") is None  # an opinion stays one
    assert hedged_fact("Je crois que le film est trop long.") is None  # about no one


@pytest.mark.parametrize("text", [HEDGED, CHECKED])
def test_triage_keeps_the_hedge_and_its_confirmation(text: str) -> None:
    assert triage(user_turn(text))[0] is TriageVerdict.KEEP


@pytest.mark.parametrize("text", ["C'est confirmé.", "It's confirmed, thanks!"])
def test_a_bare_confirmation_is_still_chatter(text: str) -> None:
    assert triage(user_turn(text))[0] is TriageVerdict.DROP


def test_the_hedge_is_a_belief_and_the_confirmation_the_same_fact() -> None:
    (belief,) = _extracted(HEDGED)
    (fact,) = _extracted(CHECKED)
    assert belief.confidence == 0.5 and fact.confidence == 0.9
    assert (belief.subject, belief.predicate, belief.object) == (
        fact.subject,
        fact.predicate,
        fact.object,
    )


def test_a_hedge_of_the_moment_is_not_kept_as_a_belief() -> None:
    out = _extracted("Il me semble que la réunion d'équipe a lieu demain.")
    # no belief; at most a probe, which can only reinforce a stored fact (resolve_probe)
    assert [c for c in out if not c.probe] == []


# ------------------------------------------------------------ a Chinese workplace


@pytest.mark.parametrize(
    ("text", "durable"),
    [
        ("我在一家银行做会计。", True),
        ("我在医院工作。", True),
        ("我在一所大学教书。", True),
        ("我在厨房做饭。", False),  # a place of no organisation: what I'm doing now
        ("我在家做作业。", False),
        ("我现在在公司上班。", False),  # a moment word
    ],
)
def test_a_chinese_workplace_said_with_a_locative_is_durable(text: str, durable: bool) -> None:
    assert durable_own(text) is durable
