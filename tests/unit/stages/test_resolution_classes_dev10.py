"""Issue 9, by word class and frame (development file scenarios_dev10.jsonl): a confirmation
said as an opening ("Double-checked:") settles the guess it answers, hedges said as "as far
as I know" or "diría que", a change said as an episode makes the facts it implies stale, a
thing the user said called wrong without a verb of withdrawing, facts said at the same
instant as a reference, states of the moment (a cold, nerves before tomorrow's exam), an
edit request that deletes lines of a file, a typed value's names, and the slot word of one
side said in the other."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memgate.core.events import FactStatus, TurnEvent
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.moment import moment_reason
from memgate.stages.reference_topics import loose_references
from memgate.stages.references import find_references
from memgate.stages.resolve_slots import anchors, head_terms
from memgate.stages.statement_text import clean_statement, hedged, without_confirmation_leads
from memgate.stages.statements import HybridExtractor
from tests.unit.stages.resolver_kit import apply, cand, facts, ref


def _turn(text: str) -> TurnEvent:
    return TurnEvent(
        tenant_id="t", user_id="u", session_id="s", turn_id="x", role="user",
        content=text, ts=datetime(2024, 5, 3, tzinfo=UTC),
    )  # fmt: skip


# ------------------------------------------------------------ confirmation


@pytest.mark.parametrize(
    ("text", "rest"),
    [
        ("Confirmed with the team: the services run on Node 18.", "the services run on Node 18."),
        ("Hab nachgeschaut: unser Cloud-Anbieter ist Azure.", "unser Cloud-Anbieter ist Azure."),
        ("Vérification faite, mon compte est à la Banque Postale.", "mon compte est à la"),
        ("Comprobado: la caché es Redis.", "la caché es Redis."),
        ("Verifiquei agora: o servidor é o Postfix.", "o servidor é o Postfix."),
        ("确认过了，脚本是用Python 3.11跑的。", "脚本是用Python 3.11跑的。"),
    ],
)
def test_a_confirmation_opening_is_cut_and_confirms_the_turn(text: str, rest: str) -> None:
    got, checked = without_confirmation_leads(text)
    assert checked
    assert got.startswith(rest)
    assert clean_statement(text).startswith(rest.rstrip(".。"))


@pytest.mark.parametrize(
    "text",
    [
        "Checked the logs and found nothing.",
        "I confirmed my attendance for Friday and booked a hotel.",
        "The deploy was verified by QA last week.",
        "Checked out the library there, it had a cool old book collection!",
    ],
)
def test_no_confirmation_opening(text: str) -> None:
    assert without_confirmation_leads(text) == (text, False)


def test_the_extractor_reads_a_confirmation_opening_as_a_confirmed_turn() -> None:
    found = HybridExtractor().extract(_turn("Double-checked: the Kafka cluster runs 3.6."))
    assert found
    assert all(c.confirmed for c in found)
    assert all("double-checked" not in c.object.lower() for c in found)
    plain = HybridExtractor().extract(_turn("The Kafka cluster runs 3.6."))
    assert all(c.confirmed is None for c in plain)


def test_a_confirmed_statement_closes_the_guess_under_another_key(store: EmbeddedIndex) -> None:
    guess = cand("I think our services run on Node 18", "statement", days=0, multi=True)
    guess = guess.model_copy(
        update={"candidate": guess.candidate.model_copy(update={"confidence": 0.5})}
    )
    apply(store, guess)
    assert facts(store)["I think our services run on Node 18"].status is FactStatus.PENDING
    said = cand("the services run on Node 18", "statement", days=1, subject="services", multi=True)
    said = said.model_copy(
        update={"candidate": said.candidate.model_copy(update={"confirmed": True})}
    )
    res, dec = apply(store, said)
    assert (res.action.value, res.reason) == ("SUPERSEDE", "confirmed_value"), dec.reason
    got = facts(store)
    assert got["I think our services run on Node 18"].status is FactStatus.SUPERSEDED
    assert got["the services run on Node 18"].status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("sentence", "believed"),
    [
        ("Soweit ich weiß, ist unser Cloud-Anbieter Azure.", True),
        ("Diría que la caché es Redis.", True),
        ("As far as I know, our VPN is WireGuard.", True),
        ("Pelo que sei, o servidor é o Postfix.", True),
        ("Unser Cloud-Anbieter ist Azure.", False),
    ],
)
def test_more_hedges_say_a_belief(sentence: str, believed: bool) -> None:
    assert hedged(sentence) is believed


# ------------------------------------------------------------ implied updates


def test_a_change_said_as_an_episode_makes_the_boss_stale(store: EmbeddedIndex) -> None:
    """ "Dejé Telefónica; ahora estoy en BBVA" replaces works_at in a slot update whose new
    fact is an episode: the change is of works_at, so the boss needs confirmation."""
    apply(store, cand("Telefónica", "works_at", days=0))
    apply(store, cand("Mi jefa se llama Marta", "statement", days=1, subject="user's jefa"))
    res, dec = apply(
        store, cand("Dejé Telefónica; ahora estoy en BBVA", "event", days=30, multi=True)
    )
    assert res.action.value == "SUPERSEDE", dec.reason
    got = facts(store)
    assert got["Telefónica"].status is FactStatus.SUPERSEDED
    assert got["Mi jefa se llama Marta"].status is FactStatus.PENDING
    assert dec.details["implied_stale"] == 1


# ------------------------------------------------------------ retraction


@pytest.mark.parametrize(
    ("sentence", "topic"),
    [
        ("Perdona, lo de mi hermana no es cierto, me confundí de persona.", "mi hermana"),
        ("Moment, das mit AWS stimmt nicht, das war bei meiner alten Firma.", "aws"),
        ("The bit about the gym was wrong.", "the gym"),
        ("刚才说养狗那句不对，那是我邻居家的。", "养狗"),
        ("跑步那个是我说错了，其实是我老公在跑。", "跑步"),
    ],
)
def test_a_thing_said_called_wrong_is_a_retraction(sentence: str, topic: str) -> None:
    assert loose_references(sentence) == [("retract", topic, sentence.lower().strip())]


@pytest.mark.parametrize(
    "sentence",
    [
        "I was wrong about the deadline, it's Friday.",
        "I'm confused about Kubernetes networking.",
        "Lo del viernes es a las cinco.",
        "Das mit dem Umzug hat gut geklappt.",
        "老板那个方案不对，我们得重新想。",
        "The thing about Kubernetes is that the docs are wrong.",
    ],
)
def test_no_retraction_without_a_thing_said_and_a_word_of_error(sentence: str) -> None:
    assert loose_references(sentence) == []


@pytest.mark.parametrize(
    ("sentence", "term"),
    [
        ("Vergiss den Teil mit Figma, das stimmt so nicht.", "figma"),
        ("Desconsidera o que eu disse do cluster, era de outro cliente.", "cluster"),
    ],
)
def test_more_leads_of_a_topic(sentence: str, term: str) -> None:
    refs = find_references(sentence)
    assert [r.op for r in refs] in (["retract"], ["delete"])  # "vergiss": forget, delete
    assert term in refs[0].topic.lower()


def test_a_retraction_at_the_same_instant_leaves_the_statement_standing(
    store: EmbeddedIndex,
) -> None:
    """Turns are timed to the second, and two turns of one instant cannot be ordered (a
    redelivery brings an earlier one after a later one): a fact stored at the reference's
    own instant from another turn stands, as in ``test_dedupe_redelivery``."""
    apply(store, cand("Unser Staging läuft auf AWS", "statement", days=0, subject="team"))
    said = ref("aws", "retract", days=0)
    said = said.model_copy(
        update={"candidate": said.candidate.model_copy(update={"source_turn_ids": ["t0-3"]})}
    )
    res, dec = apply(store, said)
    assert res.action.value != "SUPERSEDE", dec.reason
    assert facts(store)["Unser Staging läuft auf AWS"].status is FactStatus.ACTIVE
    later = ref("aws", "retract", days=0)
    later = later.model_copy(
        update={
            "candidate": later.candidate.model_copy(
                update={
                    "source_turn_ids": ["t0-4"],
                    "turn_ts": later.candidate.turn_ts + timedelta(seconds=1),
                }
            )
        }
    )
    res, dec = apply(store, later)
    assert res.action.value == "SUPERSEDE", dec.reason
    assert facts(store)["Unser Staging läuft auf AWS"].status is FactStatus.SUPERSEDED


# ------------------------------------------------------------ noise


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Ich bin diese Woche total erkältet.", "moment"),
        ("Mañana tengo un examen y estoy de los nervios.", "moment"),
        ("Heute ist es echt stressig.", "moment"),
        ("Fass mir bitte das Protokoll von heute kurz zusammen.", "one_off"),
        ("Supprime les lignes vides de ce fichier CSV.", "one_off"),
    ],
)
def test_more_states_of_the_moment_and_one_off_requests(text: str, reason: str) -> None:
    assert (moment_reason([text]) or "").startswith(reason)


def test_a_deletion_request_is_still_a_reference() -> None:
    assert [r.op for r in find_references("Borra lo que sepas de mi ordenador.")] == ["delete"]


# ------------------------------------------------------------ dedupe


@pytest.mark.parametrize(
    ("value", "names"),
    [
        ("all my code in Emacs", ["emacs"]),
        ("Enterprise tier", ["enterprise"]),
        ("Postgres 15", ["15", "postgres"]),
        ("data engineer", ["data", "engineer"]),
    ],
)
def test_a_typed_values_anchors_are_its_names(value: str, names: list[str]) -> None:
    assert sorted(anchors(value, sentence=False)) == names


def test_the_slot_word_of_one_side_said_in_the_other_is_the_same_slot(
    store: EmbeddedIndex,
) -> None:
    apply(store, cand("Enterprise tier", "uses_tool:plan", days=0, subject="team"))
    said = "Our account is on the Enterprise plan"
    res, dec = apply(store, cand(said, "statement", days=30, subject="team's account", multi=True))
    assert res.action.value == "DUPLICATE", dec.reason
    got = facts(store)
    assert said not in got
    assert got["Enterprise tier"].occurrences == 2


def test_another_plan_is_not_folded(store: EmbeddedIndex) -> None:
    apply(store, cand("Enterprise tier", "uses_tool:plan", days=0, subject="team"))
    said = "Our account is on the Starter plan"
    res, _ = apply(store, cand(said, "statement", days=30, subject="team's account", multi=True))
    assert res.action.value != "DUPLICATE"


def test_infrastructure_as_code_is_one_tool_of_the_team(store: EmbeddedIndex) -> None:
    first = "Toute notre infrastructure est décrite en Terraform"
    apply(store, cand(first, "statement", days=0, subject="team", multi=True))
    said = "On gère l'infra avec Terraform, tout est dans le code"
    res, dec = apply(store, cand(said, "statement", days=30, subject="user", multi=True))
    assert res.action.value == "DUPLICATE", dec.reason
    assert facts(store)[first].occurrences == 2


# ------------------------------------------------------------ supersede


@pytest.mark.parametrize(
    ("value", "head"),
    [("我换成华为手机了", {"手机"}), ("我用的是小米手机", {"手机"}), ("用Go", set())],
)
def test_a_chinese_clause_ends_with_its_head_noun(value: str, head: set[str]) -> None:
    assert head_terms(value) == head


def test_a_new_phone_said_in_chinese_replaces_the_old_one(store: EmbeddedIndex) -> None:
    apply(store, cand("我用的是小米手机", "uses_tool:other", days=0))
    res, dec = apply(store, cand("我换成华为手机了", "statement", days=30, multi=True))
    # the head noun (手机) found it first; the phone family (dev12) now reads it before
    assert res.action.value == "SUPERSEDE", dec.reason
    assert dec.details.get("match") in ("head", "family:phone"), dec.details
    got = facts(store)
    assert got["我用的是小米手机"].status is FactStatus.SUPERSEDED
    assert got["我换成华为手机了"].status is FactStatus.ACTIVE


def test_a_chinese_statement_without_a_change_cue_stands_beside(store: EmbeddedIndex) -> None:
    apply(store, cand("我用的是小米手机", "uses_tool:other", days=0))
    apply(store, cand("我老婆用的是华为手机", "statement", days=30, multi=True))
    assert facts(store)["我用的是小米手机"].status is FactStatus.ACTIVE
