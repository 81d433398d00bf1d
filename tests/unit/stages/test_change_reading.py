"""Changes and corrections read by structure, not by the turn's other sentences (session 46).

Each of these turns said a change or a correction the gate lost on the previous main:

* a change said before a question or request ("Bin auf Zed umgestiegen. Wie richte ich da
  rust-analyzer ein?") was held to the bar of a narrated turn and not stored;
* a lasting fact leading a sentence ("I'm pescatarian, so ... please ...") was hidden from
  triage by the request after it;
* a stored value that names a family of its own (``deploys_with: Jenkins``, a CI) was met
  only through its predicate's family, so "everything builds in Buildkite these days"
  updated nothing;
* a deletion's listed topics ("lo del asiento y lo de Iberia") were not read;
* "that was my sister's, not mine. Delete it" was no withdrawal;
* Portuguese and Spanish third-person moves ("a gente se mudou pra ...") were no move;
* a correction said as the speaker's own error was dropped as a remark of the moment;
* a Chinese move with no pronoun ("三月底搬到苏州了") was neither kept nor the user's;
* a statement that says the stored value again, with a change cue only elsewhere in the
  turn, replaced it;
* a pet's breed before its name ("um gato persa chamado Biscoito") cut the value at "um
  gato", and the word of naming counted as content the restatement had to say again.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memgate.core.events import FactStatus, FactType, Role, TriageVerdict, TurnEvent
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.durable_frame import sets_a_slot
from memgate.stages.reference_topics import anaphoric_reference, says_own_error
from memgate.stages.references import find_references
from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.resolve_probe import covered
from memgate.stages.statement_text import subject_of
from memgate.stages.statements import HybridExtractor
from memgate.stages.triage import TriageReason, triage
from memgate.stages.value_tails import extend
from tests.unit.stages.resolver_kit import apply, cand, facts


def _turn(text: str) -> TurnEvent:
    return TurnEvent(
        tenant_id="t", user_id="u", session_id="s", turn_id="1", role=Role.USER,
        content=text, ts=datetime(2026, 5, 1, 10, tzinfo=UTC),
    )  # fmt: skip


@pytest.fixture(scope="module")
def extractor() -> HybridExtractor:
    return HybridExtractor()


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            "Bin letzten Monat komplett auf Zed umgestiegen und hab den alten Editor "
            "deinstalliert. Wie richte ich da rust-analyzer ein?",
            "Zed",
        ),
        ("We switched to Linear last sprint. Can you draft the migration checklist?", "Linear"),
    ],
)
def test_a_change_before_a_request_is_stored(
    extractor: HybridExtractor, text: str, value: str
) -> None:
    facts_ = extractor.extract(_turn(text))
    assert any(value in f.object for f in facts_)
    assert not any("?" in f.object for f in facts_)  # the request is no part of it


@pytest.mark.parametrize(
    "text",
    [
        "I'm now totally exhausted today. Can you summarise this thread?",
        "The build is finally green again now. Can you write the release notes?",
        "Mi jefe ahora quiere el informe en inglés. ¿Me lo traduces?",
    ],
)
def test_a_state_or_another_persons_wish_before_a_request_is_not_stored(
    extractor: HybridExtractor, text: str
) -> None:
    """Hard negatives: a change cue in a state of the moment, a remark on a task, another
    person's wish: the request after them makes none of them a memory."""
    assert extractor.extract(_turn(text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "I'm pescatarian, so fish is fine but no meat please when you suggest recipes.",
        "三月底搬到苏州了，在工业园区买了套小房子，总算不用交房租了。",
        "Merci de toujours nous répondre en français, personne dans l'équipe ne lit l'anglais.",
    ],
)
def test_triage_keeps_a_lasting_fact_hidden_by_the_rest_of_its_sentence(text: str) -> None:
    assert triage(_turn(text))[0] is TriageVerdict.KEEP


def test_triage_keeps_a_correction_said_as_the_speakers_error() -> None:
    verdict = triage(_turn("Perdona, me equivoqué antes: no es Django, es Flask con SQLAlchemy."))
    assert verdict == (TriageVerdict.KEEP, TriageReason.MEMORY_SIGNAL)
    assert says_own_error("Sorry, I misspoke earlier: it's Flask.")
    assert not says_own_error("I was thinking about Flask for the new service.")


def test_a_value_that_names_another_family_is_met_through_it() -> None:
    names = [f.name for f in LEXICON.families_of("deploys_with", "Jenkins")]
    assert names[0] == "deploy" and "ci" in names


def test_a_ci_changed_in_new_words_supersedes_the_deploy_fact(store: EmbeddedIndex) -> None:
    apply(store, cand("Jenkins", "deploys_with", days=0, subject="team"))
    res, _ = apply(
        store,
        cand(
            "we ripped out the old box and everything builds in Buildkite these days",
            "event", days=30, subject="team", type_=FactType.EVENT, multi=True,
        ),
    )  # fmt: skip
    assert res.action.value == "SUPERSEDE"
    assert facts(store)["Jenkins"].status is FactStatus.SUPERSEDED


def test_a_deletion_reads_the_topics_listed_after_it() -> None:
    refs = find_references(
        "Oye, borra lo que sepas de mis preferencias de viaje, lo del asiento y lo de Iberia."
    )
    assert [(r.op, r.topic) for r in refs] == [
        ("delete", "mis preferencias de viaje"),
        ("delete", "lo del asiento"),
        ("delete", "lo de Iberia"),
    ]
    # what follows the topic that is no noun phrase of a list is no topic
    assert [r.topic for r in find_references("Delete my address, thanks a lot!")] == ["my address"]
    assert [r.topic for r in find_references("Please delete my address, I moved.")] == [
        "my address"
    ]


@pytest.mark.parametrize(
    ("text", "op"),
    [
        ("Uy no, perdona, eso era de mi hermana, no mío. Bórralo.", "delete"),
        ("Oops, that one was my brother's, not mine. Scratch that.", "retract"),
    ],
)
def test_a_fact_said_to_be_another_persons_is_withdrawn(text: str, op: str) -> None:
    assert anaphoric_reference(text) == op


def test_a_third_person_move_is_a_move() -> None:
    text = "em maio a gente se mudou pra Florianópolis"
    fam, _ = LEXICON.family_of("statement", text)
    assert fam is not None and fam.name == "lives_in"
    assert LEXICON.has_change_cue(text)
    assert LEXICON.has_change_cue("mi hermana se mudó a Valencia")


def test_a_chinese_move_with_no_pronoun_is_the_users(extractor: HybridExtractor) -> None:
    assert sets_a_slot("三月底搬到苏州了。")
    assert subject_of("三月底搬到苏州了") == "user"
    facts_ = extractor.extract(_turn("三月底搬到苏州了，在工业园区买了套小房子。"))
    assert [(f.subject, f.predicate) for f in facts_] == [("user", "lives_in")]


def test_a_restated_value_is_no_slot_update_without_a_cue_of_its_own(
    store: EmbeddedIndex,
) -> None:
    apply(store, cand("français", "answer_language", days=0))
    c = cand(
        "Chez nous il faut des réponses en français uniquement", days=20, subject="team",
        multi=True,
    )  # fmt: skip
    c = c.model_copy(
        update={"candidate": c.candidate.model_copy(update={"context": "ça ne marche plus"})}
    )
    res, _ = apply(store, c)
    assert res.action.value != "SUPERSEDE"
    assert facts(store)["français"].status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("value", "rest", "want"),
    [
        ("um gato", " persa chamado Biscoito, ele tem 5 anos.", "um gato persa chamado Biscoito"),
        (
            "un chat",
            " roux qui s'appelle Filou et deux poissons",
            "un chat roux qui s'appelle Filou",
        ),
        # a clause end or an article is no modifier of the pet: nothing is added
        ("a dog", " and a cat named Tom", "a dog"),
        ("a big dog", ".", "a big dog"),
    ],
)
def test_a_pets_breed_before_its_name_stays_in_the_value(value: str, rest: str, want: str) -> None:
    assert extend("has_pet", value, rest) == want


def test_a_word_of_naming_is_no_content_a_restatement_must_say() -> None:
    said = "O Biscoito, meu persa, tá soltando pelo demais essa semana, alguma dica de escova?"
    assert covered("um gato persa chamado Biscoito", said) > 0.6


def test_a_chinese_withdrawal_of_that_sentence_names_its_topic() -> None:
    text = "刚才说前端那句你当没听见吧，我搞混了，那是隔壁组的技术栈，我们组还没定。"
    assert [(r.op, r.topic) for r in find_references(text)] == [("delete", "前端")]
    assert triage(_turn(text))[0] is TriageVerdict.KEEP


def test_a_request_for_this_once_is_no_memory(extractor: HybridExtractor) -> None:
    text = "Me dá três opções de roteiro pra um fim de semana em Ouro Preto, só pra essa vez."
    assert extractor.extract(_turn(text)) == []
