"""Triage: a table of turns and their expected (verdict, reason), plus properties."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memgate.core.events import Role, TriageVerdict, TurnEvent
from memgate.core.text import split_sentences
from memgate.stages.triage import TriagePolicy, TriageReason, is_filler_sentence, triage

KEEP = TriageVerdict.KEEP
DROP = TriageVerdict.DROP
R = TriageReason
TS = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)


def turn(text: str, role: Role | str = Role.USER) -> TurnEvent:
    return TurnEvent(
        tenant_id="acme",
        user_id="u1",
        session_id="s1",
        turn_id="t1",
        role=Role(role),
        content=text,
        ts=TS,
    )


# (id, text, role, verdict, reason)
CASES: list[tuple[str, str, Role, TriageVerdict, TriageReason]] = [
    # --- roles
    ("system-role", "You are a helpful assistant. Always answer in English.", Role.SYSTEM,
     DROP, R.SYSTEM_OR_TOOL_ROLE),
    ("tool-role", '{"status": "ok", "rows": 42}', Role.TOOL, DROP, R.SYSTEM_OR_TOOL_ROLE),
    ("tool-role-with-first-person", "I prefer tabs over spaces", Role.TOOL,
     DROP, R.SYSTEM_OR_TOOL_ROLE),
    ("assistant", "Sure! I'd recommend using pathlib for that.", Role.ASSISTANT,
     DROP, R.ASSISTANT_TURN),
    # --- empty
    ("empty", "", Role.USER, DROP, R.EMPTY),
    ("whitespace-only", "   \n\t  ", Role.USER, DROP, R.EMPTY),
    # --- filler
    ("ok", "ok", Role.USER, DROP, R.FILLER),
    ("thanks-got-it", "thanks, got it!", Role.USER, DROP, R.FILLER),
    ("emoji-only", "👍🙏", Role.USER, DROP, R.FILLER),
    ("emoji-laughing", "😂😂😂", Role.USER, DROP, R.FILLER),
    ("punctuation-only", "...?!", Role.USER, DROP, R.FILLER),
    ("reaction-with-name", "Wow, that's great, Maria!", Role.USER, DROP, R.FILLER),
    ("greeting-and-how-are-you", "Hi there! How are you?", Role.USER, DROP, R.FILLER),
    ("repeat-that", "can you repeat that?", Role.USER, DROP, R.FILLER),
    ("lol-emoji", "lol 😂", Role.USER, DROP, R.FILLER),
    ("de-danke", "Danke schön!", Role.USER, DROP, R.FILLER),
    ("fr-merci", "Merci beaucoup !", Role.USER, DROP, R.FILLER),
    ("es-vale-gracias", "Vale, gracias.", Role.USER, DROP, R.FILLER),
    ("pt-obrigado", "Muito obrigado!", Role.USER, DROP, R.FILLER),
    ("pt-tudo-bem", "Tudo bem, valeu.", Role.USER, DROP, R.FILLER),
    # --- clarification requests
    ("what-do-you-mean", "What do you mean?", Role.USER, DROP, R.CLARIFICATION_REQUEST),
    ("explain-again", "Sorry, can you explain that again?", Role.USER,
     DROP, R.CLARIFICATION_REQUEST),
    ("i-dont-understand", "I don't understand.", Role.USER, DROP, R.CLARIFICATION_REQUEST),
    ("de-was-meinst-du", "Was meinst du damit?", Role.USER, DROP, R.CLARIFICATION_REQUEST),
    ("fr-tu-veux-dire", "Qu'est-ce que tu veux dire ?", Role.USER,
     DROP, R.CLARIFICATION_REQUEST),
    ("es-que-quieres-decir", "¿Qué quieres decir?", Role.USER, DROP, R.CLARIFICATION_REQUEST),
    ("pt-nao-entendi", "Não entendi.", Role.USER, DROP, R.CLARIFICATION_REQUEST),
    # --- memory signals (kept even when phrased as a question or short)
    ("remember-vegan-question", "Can you remember that I'm vegan?", Role.USER,
     KEEP, R.MEMORY_SIGNAL),
    ("from-now-on", "From now on, please answer in French.", Role.USER, KEEP, R.MEMORY_SIGNAL),
    ("always-prefer", "I always prefer tabs over spaces.", Role.USER, KEEP, R.MEMORY_SIGNAL),
    ("never-suggest", "Never suggest jQuery.", Role.USER, KEEP, R.MEMORY_SIGNAL),
    ("my-name-is", "My name is Jon.", Role.USER, KEEP, R.MEMORY_SIGNAL),
    ("de-ab-jetzt", "Ab jetzt bitte immer auf Deutsch antworten.", Role.USER,
     KEEP, R.MEMORY_SIGNAL),
    ("de-bevorzuge", "Ich bevorzuge kurze Antworten.", Role.USER, KEEP, R.MEMORY_SIGNAL),
    ("fr-prefere", "Je préfère les réponses courtes.", Role.USER, KEEP, R.MEMORY_SIGNAL),
    ("fr-a-partir", "À partir de maintenant, réponds en anglais.", Role.USER,
     KEEP, R.MEMORY_SIGNAL),
    ("es-prefiero", "Prefiero respuestas cortas.", Role.USER, KEEP, R.MEMORY_SIGNAL),
    ("es-a-partir", "A partir de ahora, responde en español.", Role.USER,
     KEEP, R.MEMORY_SIGNAL),
    ("pt-prefiro", "Eu prefiro respostas curtas.", Role.USER, KEEP, R.MEMORY_SIGNAL),
    ("pt-a-partir", "A partir de agora, responda em português.", Role.USER,
     KEEP, R.MEMORY_SIGNAL),
    # --- too short
    ("single-word", "vegan", Role.USER, DROP, R.TOO_SHORT),
    ("short-question", "Rust?", Role.USER, DROP, R.TOO_SHORT),
    ("two-short-words", "k8s ok", Role.USER, DROP, R.TOO_SHORT),
    # --- questions only
    ("capital-of-peru", "What's the capital of Peru?", Role.USER, DROP, R.QUESTION_ONLY),
    ("how-do-i", "How do I reverse a list in Python?", Role.USER, DROP, R.QUESTION_ONLY),
    ("can-i-ask", "Can I ask you something?", Role.USER, DROP, R.QUESTION_ONLY),
    ("what-if-we-rust", "What if we used Rust?", Role.USER, DROP, R.QUESTION_ONLY),
    ("thanks-then-question", "Thanks! Which version should we pin?", Role.USER,
     DROP, R.QUESTION_ONLY),
    ("question-no-mark", "how does asyncio work", Role.USER, DROP, R.QUESTION_ONLY),
    ("de-question", "Wie spät ist es in Tokio?", Role.USER, DROP, R.QUESTION_ONLY),
    ("fr-question", "Pourquoi le ciel est bleu ?", Role.USER, DROP, R.QUESTION_ONLY),
    ("es-question", "¿Cuál es la capital de Perú?", Role.USER, DROP, R.QUESTION_ONLY),
    # --- first-person statements
    ("argocd-casual", "ok so we deploy with ArgoCD now", Role.USER,
     KEEP, R.FIRST_PERSON_STATEMENT),
    ("im-vegan", "I'm vegan", Role.USER, KEEP, R.FIRST_PERSON_STATEMENT),
    ("moved-berlin-with-filler", "Thanks! I moved to Berlin. Any tips?", Role.USER,
     KEEP, R.FIRST_PERSON_STATEMENT),
    ("statement-inside-question", "Do you know I'm allergic to peanuts?", Role.USER,
     KEEP, R.FIRST_PERSON_STATEMENT),
    ("statement-plus-question", "I use vim, any plugin tips?", Role.USER,
     KEEP, R.FIRST_PERSON_STATEMENT),
    ("casual-life", "I went to a pottery class yesterday and loved it.", Role.USER,
     KEEP, R.FIRST_PERSON_STATEMENT),
    ("our-stack", "Our stack is Django and Postgres.", Role.USER,
     KEEP, R.FIRST_PERSON_STATEMENT),
    ("de-arbeite-bei", "Ich arbeite bei Siemens in München.", Role.USER,
     KEEP, R.FIRST_PERSON_STATEMENT),
    ("fr-habite", "J'habite à Lyon depuis 2020.", Role.USER, KEEP, R.FIRST_PERSON_STATEMENT),
    ("es-vivo-en", "Vivo en Madrid con mi pareja.", Role.USER, KEEP, R.FIRST_PERSON_STATEMENT),
    ("pt-moro-em", "Moro em Lisboa há três anos.", Role.USER, KEEP, R.FIRST_PERSON_STATEMENT),
    ("pt-trabalho", "Eu trabalho como enfermeira.", Role.USER, KEEP, R.FIRST_PERSON_STATEMENT),
    # --- substantive (no first person, not a question)
    ("third-person-fact", "The staging cluster runs Kubernetes 1.29.", Role.USER,
     KEEP, R.SUBSTANTIVE),
    ("code-paste", "def f(x):\n    return x * 2", Role.USER, KEEP, R.SUBSTANTIVE),
    # issue 9 item 4: no sentence the durable-sentence classifier keeps (a problem being
    # debugged right now; the rules kept it as a first-person statement)
    ("nothing-durable", "The CSV export still hangs at the same step every time I retry it.",
     Role.USER, DROP, R.NOTHING_DURABLE),
    # keep30: a work's world, an irrealis clause, irony, a stranger's words (stages/unreal.py)
    ("unreal", "In the sequel the pilot retires to a farm in Montana.", Role.USER, DROP,
     R.UNREAL),
    # issue 9: a one-off request is dropped before extraction (it was kept as substantive)
    ("imperative", "Rewrite this paragraph in plain English.", Role.USER, DROP,
     R.ONE_OFF_REQUEST),
    ("imperative_standing", "Write every commit message in English, please.", Role.USER, KEEP,
     R.SUBSTANTIVE),
    # states of the moment, one-off requests and chatter in the six languages
    ("moment_en", "The staging box is down at the moment.", Role.USER, DROP, R.MOMENT),
    ("moment_de", "Ich bin heute krank.", Role.USER, DROP, R.MOMENT),
    ("moment_fr", "Je suis en vacances jusqu'à jeudi.", Role.USER, DROP, R.MOMENT),
    ("moment_es", "Estoy muy liada esta semana.", Role.USER, DROP, R.MOMENT),
    ("moment_pt", "Estou de férias até sexta.", Role.USER, DROP, R.MOMENT),
    ("moment_zh", "我今天生病了。", Role.USER, DROP, R.MOMENT),
    ("one_off_de", "Bitte übersetze den Text ins Englische.", Role.USER, DROP, R.ONE_OFF_REQUEST),
    ("one_off_fr", "Résume ce document en trois points.", Role.USER, DROP, R.ONE_OFF_REQUEST),
    ("one_off_es", "Por favor, traduce esta carta al inglés.", Role.USER, DROP,
     R.ONE_OFF_REQUEST),
    ("one_off_pt", "Escreva um e-mail para o fornecedor.", Role.USER, DROP, R.ONE_OFF_REQUEST),
    ("one_off_zh", "帮我翻译这封邮件。", Role.USER, DROP, R.ONE_OFF_REQUEST),
    ("chatter_en", "As I said, the first draft was better.", Role.USER, DROP, R.CHATTER),
    ("chatter_es", "Como te dije, eso ya lo probé.", Role.USER, DROP, R.CHATTER),
    ("question_zh", "这个函数为什么这么慢？", Role.USER, DROP, R.QUESTION_ONLY),
    ("zh_statement", "我在一家医院当护士。", Role.USER, KEEP, R.SUBSTANTIVE),
    ("moment_with_fact", "I'm swamped this week. We moved our office to Porto.", Role.USER,
     KEEP, R.FIRST_PERSON_STATEMENT),
    # issue 9, LoCoMo: social formulas and remarks about the other person, nothing about the
    # speaker, are chatter in the six languages (they were kept as statements)
    ("social_en", "Totally with you on that one, Priya. Best of luck on Friday!", Role.USER,
     DROP, R.CHATTER),
    ("social_de", "Ich bin so stolz auf dich, Jonas. Viel Glück beim Umzug!", Role.USER, DROP,
     R.CHATTER),
    ("social_fr", "Bon courage pour la suite, Léa ! Tu as tellement travaillé.", Role.USER,
     DROP, R.CHATTER),
    ("social_es", "¡Tienes razón, Diego! Sigue así con el huerto.", Role.USER, DROP,
     R.CHATTER),
    ("social_pt", "Parabéns pela promoção, Bruno! Você merece demais.", Role.USER, DROP,
     R.CHATTER),
    ("social_zh", "恭喜你拿到驾照！你真的很努力。", Role.USER, DROP, R.CHATTER),
    ("second_person_en_drop", "Your garden looks so peaceful, Omar!", Role.USER, DROP,
     R.CHATTER),
    ("social_with_fact", "Thanks, Mia! I started a pottery class in Leeds last month.",
     Role.USER, KEEP, R.FIRST_PERSON_STATEMENT),
]


@pytest.mark.parametrize(
    ("text", "role", "verdict", "reason"),
    [c[1:] for c in CASES],
    ids=[c[0] for c in CASES],
)
def test_triage_table(text: str, role: Role, verdict: TriageVerdict, reason: TriageReason) -> None:
    assert triage(turn(text, role)) == (verdict, reason)


def test_table_covers_every_reason() -> None:
    assert {c[4] for c in CASES} == set(TriageReason)


def test_table_ids_unique_and_large() -> None:
    ids = [c[0] for c in CASES]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 40


def test_keep_assistant_policy() -> None:
    policy = TriagePolicy(keep_assistant=True)
    t = turn("I'd recommend pathlib for file paths.", Role.ASSISTANT)
    assert triage(t, policy) == (KEEP, R.FIRST_PERSON_STATEMENT)


def test_drop_questions_off_keeps_questions() -> None:
    policy = dataclasses.replace(TriagePolicy(), drop_questions=False)
    assert triage(turn("What's the capital of Peru?"), policy) == (KEEP, R.SUBSTANTIVE)


def test_custom_filler_and_min_chars() -> None:
    policy = TriagePolicy(filler_phrases=frozenset({"roger roger"}), min_chars=20)
    assert triage(turn("Roger roger!"), policy) == (DROP, R.FILLER)
    # "ok" is no longer filler under this policy, and the turn is too short
    assert triage(turn("ok then, fine"), policy) == (DROP, R.TOO_SHORT)


def test_system_role_dropped_even_with_memory_signal() -> None:
    assert triage(turn("Remember: the user is vegan.", Role.SYSTEM)) == (
        DROP,
        R.SYSTEM_OR_TOOL_ROLE,
    )


def test_reason_is_a_plain_string() -> None:
    _, reason = triage(turn("ok"))
    assert reason == "filler"
    # a str subclass either way: what must hold is that it reads and serialises as the
    # plain word (an Enum that is not a StrEnum would give "TriageReason.FILLER")
    assert f"{reason}" == "filler" and json.dumps(reason) == '"filler"'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Thanks! I moved to Berlin. Any tips?", ["Thanks!", "I moved to Berlin.", "Any tips?"]),
        ("one\ntwo\n\nthree", ["one", "two", "three"]),
        ("Great.I live in Lisbon.", ["Great.", "I live in Lisbon."]),
        ("", []),
        ("v1.2.3 is out", ["v1.2.3 is out"]),
    ],
    ids=["punctuation", "newlines", "no-space-after-period", "empty", "version-number"],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


@pytest.mark.parametrize(
    ("sentence", "filler"),
    [
        ("ok, thanks, got it", True),
        ("Thanks, Maria!", True),
        ("That sounds awesome!", True),
        ("🎉", True),
        ("I moved to Berlin.", False),
        ("Thanks for the tip about pytest fixtures.", False),
    ],
)
def test_is_filler_sentence(sentence: str, filler: bool) -> None:
    assert is_filler_sentence(sentence) is filler


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(max_size=400),
    role=st.sampled_from(list(Role)),
)
def test_triage_total_and_reason_consistent(text: str, role: Role) -> None:
    verdict, reason = triage(turn(text, role))
    assert reason in set(TriageReason)
    keep_reasons = {R.MEMORY_SIGNAL, R.FIRST_PERSON_STATEMENT, R.SUBSTANTIVE}
    assert (verdict is KEEP) == (reason in keep_reasons)
    if role in (Role.SYSTEM, Role.TOOL):
        assert verdict is DROP


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=200))
def test_triage_deterministic(text: str) -> None:
    first = triage(turn(text))
    again = triage(turn(text))  # a second turn object: nothing carried over from the first
    assert again == first
