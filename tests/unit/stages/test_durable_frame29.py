"""Durable statements the keep classifier dropped or the extractor misread (issue 9, keep29).

Four structures kept a durable statement of the speaker from being stored, so a later
change or restatement had nothing to resolve against (stages/durable_frame.py):

- a **phrase of a recurring time** ("los domingos por la tarde", "todas as noites",
  "每天晚上", statements.json ``habit_times``) opening the clause hid the pro-drop verb of
  the first person, and a word of the present beside it ("ahora", "现在") or a morning
  ("por la mañana") read as a moment scope;
- a **Chinese clause with no subject** after a time of the past, opened by a verb of change
  or acquisition ("去年换了一辆电动车");
- a **medication frame**: a verb of taking with a bare object ("Tomo levotiroxina");
- a **family frame**: a possessive, a noun of kin, a verb of habit in the third person
  ("Minha filha estuda direito").

A phrase of a recurring time that opens a statement was also read as its subject. The
sentences are written for these tests, in other words than the development files; the hard
negatives (a state of the moment, a one-off request, a question, another person's passing
news, a hypothetical) stay dropped on the old code and the new.
"""

from __future__ import annotations

import pytest

from memgate.core.events import TriageVerdict, TurnEvent
from memgate.stages import durable_frame
from memgate.stages.durable_frame import durable_own
from memgate.stages.statement_text import subject_of
from memgate.stages.statements import HybridExtractor
from memgate.stages.triage import triage


def turn(text: str) -> TurnEvent:
    return TurnEvent(tenant_id="acme", user_id="u1", session_id="s1", turn_id="t1",
                     role="user", content=text, ts="2024-05-01T10:00:00Z")  # fmt: skip


def stored(text: str) -> list[str]:
    t = turn(text)
    if triage(t)[0] is not TriageVerdict.KEEP:
        return []
    return [f.object or "" for f in HybridExtractor().extract(t)]


KEPT = [
    # a phrase of a recurring time before a pro-drop verb of the first person
    "Los domingos por la tarde hago yoga.",
    "Todas as noites faço uma caminhada.",
    # ... and a word of the present before it: a change, not the moment
    "Ahora los viernes voy a clases de alemán.",
    "Agora às terças vou às aulas de inglês.",
    # Chinese: a phrase of a recurring time before the subject
    "每天晚上我都练书法。",
    # Chinese with no subject: a time of the past, a verb of change or acquisition
    "去年换了一辆电动车。",
    "最近买了一台索尼相机。",
    # a medication frame: a verb of taking, a bare object
    "Tomo levotiroxina.",
    "Tomo losartana todas as noites.",
    # a family frame: possessive, noun of kin, verb of habit in the third person
    "Minha filha estuda direito.",
    "Meu filho joga xadrez.",
]


@pytest.mark.parametrize("text", KEPT)
def test_a_durable_statement_of_the_speaker_is_read_by_its_frame(text: str) -> None:
    assert durable_own(text)
    facts = stored(text)
    assert len(facts) == 1, facts
    assert facts[0] in text


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Aos domingos é sempre dia de futebol para mim", "user"),
        ("Los jueves por la tarde voy a clases de piano", "user"),
        ("Ahora la base de datos es PostgreSQL", "base de datos"),  # as before
    ],
)
def test_a_leading_time_phrase_is_no_subject(text: str, subject: str) -> None:
    assert subject_of(text) == subject


def test_the_time_phrase_is_cut_and_a_word_of_the_present_with_it() -> None:
    scope = durable_frame.habit_scope  # new in keep29
    assert scope("ahora los viernes voy a clases") == ("voy a clases", "los viernes")
    assert scope("现在我一般都坐地铁") == ("我都坐地铁", "一般")
    assert scope("ahora voy a clases") == ("ahora voy a clases", "")


#: Hard negatives: nothing is stored, on the old code and the new.
NOT_KEPT = [
    # states of the moment (a phrase of a recurring time lifts no word of the moment)
    "Hoje estou cansado.",
    "Hoy por la mañana hago natación.",
    "今天我好累。",
    "现在我在开会。",
    # one-off requests
    "Traduz isto para inglês, por favor.",
    "帮我把这段话翻译一下。",
    "Tomo un café y vuelvo.",
    "Tomo uma cerveja agora e já volto.",
    # questions
    "¿Juegas al tenis los sábados?",
    "你每天几点起床？",
    # another person's passing news
    "Mi hermano viene mañana.",
    "Mi hija está cansada hoy.",
    # hypotheticals
    "Si tuviera tiempo, iría al gimnasio todos los días.",
    "Se eu tivesse tempo, correria todas as manhãs.",
    "如果有时间，我每天都去跑步。",
    # a recurring time with no speaker in it
    "Todos los días llueve aquí.",
]


@pytest.mark.parametrize("text", NOT_KEPT)
def test_hard_negatives_stay_dropped(text: str) -> None:
    assert not durable_own(text)
    assert stored(text) == []
