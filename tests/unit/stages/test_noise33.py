"""noise33: two structures of a turn of the moment that triage kept, in new words (not the
development file scenarios_dev33n.jsonl that measures them, nor a training corpus).

* a protasis said by inversion, with no "if" ("Wäre ich ..., würde ich ...", "Had I ...,
  I would ..."): an irrealis clause (:mod:`memgate.stages.unreal`);
* a sensation of the moment (dizzy, queasy, 头晕) with a time of the moment: a state of a
  class of the moment (``moment_state_classes`` of ``statements.json``);
* a posture or passing activity (``momentary_verbs`` of ``moment_scope.json``: "liegt",
  "esperando", "sitting") with the day's time: a state of the day
  (:func:`memgate.stages.moment_scope.day_scoped_state`), after laughter too;
* a laugh, then an event of a moment ago ("lol, ... just knocked", "jaja, ... acaba de"),
  with nothing lasting: an anecdote of the moment
  (:func:`memgate.stages.moment_scope.laughed_anecdote`).

Each with durable look-alikes that must still be kept.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memgate.core.events import TriageVerdict, TurnEvent
from memgate.stages.moment_scope import day_scoped_state, laughed_anecdote
from memgate.stages.statements import HybridExtractor
from memgate.stages.triage import triage
from memgate.stages.unreal import unreal_kind

ROOT = Path(__file__).resolve().parents[3]


def turn(text: str) -> TurnEvent:
    return TurnEvent(tenant_id="acme", user_id="u1", session_id="s1", turn_id="t1",
                     role="user", content=text, ts="2024-05-01T10:00:00Z")  # fmt: skip


def stored(text: str) -> bool:
    t = turn(text)
    verdict, _ = triage(t)
    return verdict is TriageVerdict.KEEP and bool(HybridExtractor().extract(t))


INVERTED = [
    "Wäre ich zehn Jahre jünger, würde ich sofort eine Weltreise mit dem Rad machen.",
    "Hätten wir ein größeres Budget, würden wir das ganze Backend neu schreiben.",
    "Könnte ich zaubern, wäre mein Garten voller Orangenbäume.",
    "Had I more patience, I would be teaching my nephew chess every weekend.",
    "Were we based in Oslo, we'd commute by ferry every day.",
]

MOMENT_SENSATIONS = [
    "I'm feeling a bit dizzy right now, probably skipped lunch.",
    "Mir ist heute total schwindelig, keine Ahnung warum.",
    "J'ai des vertiges ce matin depuis que je me suis levé.",
    "Ahora mismo estoy mareada, creo que me levanté muy rápido.",
    "Estou enjoada agora, acho que foi o barco.",
    "我今天有点恶心，可能吃坏了东西。",
]

MOMENTARY = [
    "Ich stehe gerade an der Kasse im Baumarkt, melde mich später.",
    "Haha, mein Hund liegt gerade auf meinen Füßen und schnarcht.",
    "Right now I'm sitting on the floor of the laundromat.",
    "Hoy estoy cocinando para doce personas, qué locura.",
    "Hoje estou almoçando sozinha no escritório.",
    "Je mange dehors ce soir avec des collègues.",
]

ANECDOTES = [
    # stored by the old code: the speaker's own slip of a moment ago, after a laugh
    "Lol, I just spilled coffee all over my keyboard.",
    "Haha, I just locked myself out of the flat in my socks.",
    "Kkkk, acabei de sair de casa de chinelo.",
    # dropped by the old code's classifier already
    "Lol, my toddler just painted the cat with yoghurt.",
    "Haha, the intern just pushed straight to main again.",
    "Jaja, mi abuela acaba de mandarme un audio de diez minutos.",
    "Kkkk, meu chefe acabou de tropeçar no cabo do projetor.",
    "Mdr, mon voisin vient de tondre la pelouse en pyjama.",
    "哈哈，我老公刚才把盐当成糖放进咖啡了。",
]

LOOK_ALIKES = [
    # an inverted verb with no conditional after the break: the speaker's fact
    "Hätte ich fast vergessen: ich bin allergisch gegen Erdnüsse.",
    # a past verb with its subject dropped, then a conditional: no protasis
    "Had a long chat with my brother, he would like to visit Kyoto with me.",
    # a sensation that lasts, with no time of the moment
    "I get dizzy on boats, so please never suggest ferry trips.",
    "Ich werde im Auto schnell schwindelig, deshalb sitze ich immer vorne.",
    # a passing activity with no time of the day: a habit
    "I drive my daughter to her swimming club every Thursday.",
    "Ich sitze im Elternbeirat der Grundschule meiner Tochter.",
    # a day's time that opens a lasting state
    "Ab heute esse ich kein Fleisch mehr.",
    # a laugh before a lasting change, a milestone, a taste, a fact with no event
    "Haha, we just adopted a retired greyhound.",
    "Lol, I just ran my first half marathon under two hours.",
    "haha I just love hiking in the rain",
    "Jaja, por cierto, soy profesora de yoga en un gimnasio de barrio.",
]


@pytest.mark.parametrize("text", INVERTED)
def test_a_protasis_said_by_inversion_is_irrealis_and_not_stored(text: str) -> None:
    assert unreal_kind(text) == "irrealis"
    assert triage(turn(text))[0] is TriageVerdict.DROP
    assert not stored(text)


@pytest.mark.parametrize("text", MOMENT_SENSATIONS)
def test_a_sensation_of_the_moment_is_dropped_by_triage(text: str) -> None:
    verdict, reason = triage(turn(text))
    assert verdict is TriageVerdict.DROP, reason
    assert not stored(text)


@pytest.mark.parametrize("text", MOMENTARY)
def test_a_posture_or_passing_activity_of_the_day_is_the_moment(text: str) -> None:
    assert day_scoped_state(text)
    verdict, reason = triage(turn(text))
    assert verdict is TriageVerdict.DROP, reason
    assert not stored(text)


@pytest.mark.parametrize("text", ANECDOTES)
def test_a_laugh_then_an_event_of_a_moment_ago_is_not_stored(text: str) -> None:
    assert laughed_anecdote(text)
    assert not stored(text)


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_a_durable_look_alike_is_stored(text: str) -> None:
    assert unreal_kind(text) is None
    assert not day_scoped_state(text)
    assert not laughed_anecdote(text)
    assert stored(text)


def test_test_sentences_are_in_no_corpus() -> None:
    train = ROOT / "memgate" / "data" / "train"
    rows = {
        json.loads(line)["text"]
        for path in train.glob("*.jsonl")
        for line in path.read_text("utf-8").splitlines()
        if line.strip() and "text" in json.loads(line)
    }
    dev = (ROOT / "memgate" / "data" / "eval" / "scenarios_dev33n.jsonl").read_text("utf-8")
    mine = INVERTED + MOMENT_SENSATIONS + MOMENTARY + ANECDOTES + LOOK_ALIKES
    assert not set(mine) & rows
    assert not any(t in dev for t in mine)
