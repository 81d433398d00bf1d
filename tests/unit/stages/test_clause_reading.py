"""Facts said beside a request, after a lead, or before the old thing they replace
(session 47).

Each of these turns lost a fact on the previous main:

* a lasting fact said in the same sentence as a question ("ich spiele Cello im
  Stadtorchester, also …, wie übe ich …?", "我们组的服务都部署在阿里云上，日志该怎么收集？")
  was judged as a question, or dropped with it;
* a fact after a short lead ("so you know for later: my accountant is Priya Nair") was
  judged with the lead, which says nothing;
* one statement of the speaker's own before a request was held to the bar of a narrated
  turn;
* "seit dem 3. märz" ended a sentence at the day's full stop;
* "cancelled the old membership", "entrei numa outra banda … e larguei a antiga" named the
  thing they replace by its noun only;
* "esquece essa história do …", "olvida esa historia de …" were no deletion;
* "刚才那个…我说错了，别当真" was no withdrawal;
* "tô" (Portuguese chat for "estou") was no first person;
* a change said in lower case ("we're in leeds now, new flat …") named no value;
* a standing instruction with no subject ("Tabs not spaces, always") had its first words
  as owner.

The hard negatives beside them (a hypothetical lead, a tag question, a question particle, a
state of the day in Portuguese chat) pass on both.
"""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus, FactType, TriageVerdict
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.clauses import after_lead, asked_after
from memgate.stages.moment_scope import of_the_day
from memgate.stages.reference_topics import anaphoric_reference
from memgate.stages.references import find_references
from memgate.stages.resolve_replaced import replaced_value
from memgate.stages.statement_text import split_statements, subject_of
from memgate.stages.statements import HybridExtractor
from memgate.stages.triage import triage
from tests.unit.stages.resolver_kit import apply, apply_change, cand, facts, user_turn


@pytest.fixture(scope="module")
def extractor() -> HybridExtractor:
    return HybridExtractor()


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            "so you know for later: my accountant is Priya Nair. can you draft an email to "
            "her about the VAT return?",
            "Priya Nair",
        ),
        (
            "ich spiele Cello im Stadtorchester, also bitte keine Anfängertipps, wie übe "
            "ich am besten Lagenwechsel?",
            "Cello",
        ),
        ("我们组的服务都部署在阿里云上，日志该怎么收集？", "阿里云"),
        (
            "Neue Stelle seit dem 3. märz, ich bin jetzt bei Siemens Healthineers. Kannst "
            "du mir helfen, mein Profil zu aktualisieren?",
            "Siemens",
        ),
    ],
)
def test_a_fact_beside_a_request_is_kept_and_stored(
    extractor: HybridExtractor, text: str, value: str
) -> None:
    assert triage(user_turn(text))[0] is TriageVerdict.KEEP
    facts_ = extractor.extract(user_turn(text))
    assert any(value in f.object for f in facts_)
    assert not any("?" in f.object or "？" in f.object for f in facts_)


@pytest.mark.parametrize(
    "text",
    [
        "如果以后我们换成 Rust，性能大概能好多少？",
        "If we ever move the cluster to Hetzner, how much would we save?",
    ],
)
def test_a_hypothetical_before_a_question_is_not_stored(
    extractor: HybridExtractor, text: str
) -> None:
    assert extractor.extract(user_turn(text)) == []


def test_the_clauses_read() -> None:
    assert after_lead("fyi: we deploy on Fridays") == "we deploy on Fridays"
    assert after_lead("The three rules I keep for every code review: be kind, be quick.") == ""
    assert asked_after("我们组的服务都部署在阿里云上，日志该怎么收集？") == [
        "我们组的服务都部署在阿里云上。",
        "日志该怎么收集？",
    ]
    # a tag, a question particle, a hypothetical: one question, as it was
    for text in (
        "You know my brother Tom, right?",
        "我不是说过吗，我住在成都，周末有什么好去处？",
        "if we switch to Go, what breaks first?",
    ):
        assert asked_after(text) == [text]


def test_a_days_ordinal_ends_no_statement() -> None:
    assert split_statements("Seit dem 3. märz bin ich bei Siemens. Ich bin 30. Gut.") == [
        "Seit dem 3. märz bin ich bei Siemens.",
        "Ich bin 30.",
        "Gut.",
    ]


@pytest.mark.parametrize(
    ("text", "old"),
    [
        ("I cancelled my old gym membership, now I train at FitX in Kreuzberg", "membership"),
        ("entrei numa outra banda, os Vira-Latas, e larguei a antiga", "banda"),
        ("Ich habe den alten Handyvertrag gekündigt und bin jetzt bei Congstar", "Handyvertrag"),
        ("J'ai résilié mon ancien forfait, je suis chez Free maintenant", "forfait"),
    ],
)
def test_the_old_thing_a_change_names_by_its_noun(text: str, old: str) -> None:
    pair = replaced_value(text)
    assert pair is not None and pair[0] == old


def test_a_change_that_names_the_old_thing_supersedes_it(store: EmbeddedIndex) -> None:
    """An episode with a word of another ("outra banda") that says the old one was left."""
    stored = "eu toco baixo numa banda de garagem, os Marimbondos"
    apply_change(store, cand(stored, "statement", days=0))
    res, _ = apply_change(
        store,
        cand(
            "entrei numa outra banda, os Vira-Latas, e larguei a antiga", "event", days=30,
            type_=FactType.EVENT, multi=True,
        ),
    )  # fmt: skip
    assert res.action.value == "SUPERSEDE"
    assert facts(store)[stored].status is FactStatus.SUPERSEDED


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        ("esquece essa história do meu curso de inglês, por favor", "meu curso de inglês"),
        ("olvida esa historia de las clases de piano", "las clases de piano"),
    ],
)
def test_a_deletion_of_the_story_about_a_topic(text: str, topic: str) -> None:
    assert [r.topic for r in find_references(text)] == [topic]


def test_a_chinese_withdrawal_by_dont_take_it_seriously() -> None:
    assert anaphoric_reference("等等，刚才那个地址我说错了，别当真") == "retract"
    assert anaphoric_reference("这个方案别当真，只是随便想想") is None  # no error of the speaker's


def test_portuguese_chat_first_person() -> None:
    assert subject_of("tô fazendo um curso de cerâmica faz uns meses") == "user"
    assert of_the_day("Tô exausto hoje, dormi mal.")


def test_a_lower_case_move_supersedes_the_city(store: EmbeddedIndex) -> None:
    apply(store, cand("leeds", "lives_in", days=0))
    res, _ = apply(
        store,
        cand(
            "finally moved; we're in bristol now, new flat is near the harbour", "statement",
            days=30, subject="team", multi=True,
        ),
    )  # fmt: skip
    assert res.action.value == "SUPERSEDE"
    assert facts(store)["leeds"].status is FactStatus.SUPERSEDED


def test_a_standing_instruction_with_no_subject_is_the_speakers(
    extractor: HybridExtractor,
) -> None:
    facts_ = extractor.extract(user_turn("reminder: tabs not spaces in every snippet, always."))
    assert [(f.subject, f.type) for f in facts_] == [("user", FactType.INSTRUCTION)]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Samstags spiele ich immer Badminton im Verein.", FactType.FACT),
        ("Le samedi matin, je vais toujours nager à la piscine municipale.", FactType.FACT),
        ("膝盖受伤以后球就不打了，现在每周六上午改去游泳馆游一个小时。", FactType.FACT),
        ("Always answer in French, please.", FactType.INSTRUCTION),
        ("Send me a summary of the open tickets every morning.", FactType.INSTRUCTION),
    ],
)
def test_a_habit_with_a_word_of_always_is_a_fact_not_an_instruction(
    extractor: HybridExtractor, text: str, kind: FactType
) -> None:
    """A habit is a fact of the speaker's, which a change replaces; an instruction is a
    wish of theirs about the assistant."""
    facts_ = extractor.extract(user_turn(text))
    assert facts_ and {f.type for f in facts_} == {kind}
