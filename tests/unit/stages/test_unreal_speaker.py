"""keep31: the unreal frames (stages/unreal.py) read only where the frame word governs the
clause that holds the fact (issue 9, the keep decision).

keep30 dropped these sentences of the speaker's own world: a work the speaker makes or
reads ("In the novel I'm writing ..."), a character of the speaker's own work ("the hero
of my novel"), the speaker's own reaction after "I can imagine", and a polite offer whose
conditional is the protasis's own verb ("if you'd like"). The hard negatives below (a
work of someone else, a comma and no relative clause, an imagined world, a protasis with
its apodosis, irony) stay dropped. Sentences written for these tests, in none of the
corpora.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memgate.core.events import TriageVerdict, TurnEvent
from memgate.stages.statements import HybridExtractor
from memgate.stages.triage import TriageReason, triage
from memgate.stages.unreal import unreal_kind

ROOT = Path(__file__).resolve().parents[3]


def turn(text: str) -> TurnEvent:
    return TurnEvent(
        tenant_id="acme",
        user_id="u1",
        session_id="s1",
        turn_id="t1",
        role="user",
        content=text,
        ts="2024-05-01T10:00:00Z",
    )


def stored(text: str) -> bool:
    t = turn(text)
    verdict, _ = triage(t)
    return verdict is TriageVerdict.KEEP and bool(HybridExtractor().extract(t))


# the speaker makes or reads the work: a relative clause of the speaker after its noun, or
# a possessive of the speaker after the character (dropped as fiction by keep30)
SPEAKERS_WORK = [
    "In the novel I'm writing, the detective keeps bees on a lighthouse roof.",
    "In the fantasy series we're drafting together, the capital city floats above a lake.",
    "Im Roman, den ich gerade schreibe, betreibt die Heldin eine Imkerei auf Rügen.",
    "Der Held meines Romans ist ein Koch aus Wien.",
    "Dans le roman que j'écris, le héros tient une librairie à Québec.",
    "Le héros de mon roman est un libraire de Québec.",
    "En la novela que estoy escribiendo, el protagonista es un relojero de Toledo.",
    "El protagonista de mi novela es un relojero de Toledo.",
    "No livro que estou escrevendo, o protagonista é um padeiro de Olinda.",
    "O protagonista do meu livro é um padeiro de Olinda.",
    "在我们翻译的那本小说里，主人公是一个住在拉萨的邮递员。",
]


@pytest.mark.parametrize("text", SPEAKERS_WORK)
def test_a_work_the_speaker_makes_or_reads_is_the_speakers_world(text: str) -> None:
    assert unreal_kind(text) is None
    assert stored(text)


def test_a_chinese_relative_clause_of_the_speaker_is_no_fiction_frame() -> None:
    text = "在我写的小说里，主人公是一个住在拉萨的邮递员。"
    assert unreal_kind(text) is None
    assert triage(turn(text))[1] != TriageReason.UNREAL


# the frame word does not govern the clause of the fact (dropped as irrealis by keep30)
NOT_GOVERNED = [
    # "imagine" after a subject: the speaker's own reaction, no imagined world
    "I can imagine the move was hard, I changed cities three times myself.",
    # the conditional is the protasis's own verb: an offer, no apodosis
    "I can share my sourdough recipe with you if you'd like, I bake every Sunday.",
]


@pytest.mark.parametrize("text", NOT_GOVERNED)
def test_a_frame_word_that_governs_no_clause_of_the_fact_drops_nothing(text: str) -> None:
    assert unreal_kind(text) is None
    assert stored(text)


# a sentence of no fact of the speaker's world is no sentence to judge: the durable one
# beside it is held to the bar of a turn with one sentence (keep30 held it to the bar of a
# narrated turn of several, and stored nothing)
BESIDE_IRONY = [
    (
        "Na toll, schon wieder ein Absturz, ich liebe das einfach. "
        "Ich lese am liebsten isländische Thriller.",
        "isländische Thriller",
    ),
    (
        "Oh super, encore une panne du VPN, j'adore ça. "
        "Je lis surtout des romans policiers japonais.",
        "romans policiers japonais",
    ),
]


@pytest.mark.parametrize(("text", "value"), BESIDE_IRONY)
def test_a_durable_sentence_beside_irony_is_judged_alone(text: str, value: str) -> None:
    t = turn(text)
    assert triage(t)[0] is TriageVerdict.KEEP
    facts = HybridExtractor().extract(t)
    assert [f.object for f in facts if value in f.object]
    assert not [f.object for f in facts if "VPN" in f.object or "Absturz" in f.object]


# still no fact of the speaker's world, on keep30 and on keep31
HARD_NEGATIVES = [
    ("fiction", "In the film he plays a pilot who retires to a farm in Montana."),
    ("fiction", "In the film, I think the hero is a coward."),
    ("fiction", "Im Roman, den er schreibt, betreibt die Heldin eine Imkerei auf Rügen."),
    ("fiction", "Dans le roman qu'il écrit, le héros tient une librairie à Québec."),
    ("fiction", "El protagonista de la novela es un relojero de Toledo."),
    ("fiction", "Na novela que ela escreve, o protagonista é um padeiro de Olinda."),
    ("fiction", "在他写的小说里，主人公是一个住在拉萨的邮递员。"),
    ("fiction", "The hero of his novel is a retired glassblower from Reykjavik."),
    ("irrealis", "Imagine I lived in Lisbon and surfed every morning."),
    ("irrealis", "I'd move to Porto if I were braver."),
    ("irrealis", "If you'd asked me, I would have moved to Porto."),
    ("irrealis", "Si tuviera más tiempo, aprendería a tocar el violonchelo."),
    ("irony", "Oh great, I just love it when the VPN drops at midnight again."),
]


@pytest.mark.parametrize(("kind", "text"), HARD_NEGATIVES)
def test_a_hard_negative_stays_dropped(kind: str, text: str) -> None:
    assert unreal_kind(text) == kind
    assert not stored(text)


def _rows(name: str) -> list[dict[str, object]]:
    path = ROOT / "memgate" / "data" / "train" / name
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def test_the_frames_on_their_written_corpus() -> None:
    """statements_hard.jsonl (270 sentences, six languages; no longer a training corpus):
    the frames find at least 88 of its 98 hard negatives of their four classes, and no
    durable look-alike."""
    rows = _rows("statements_hard.jsonl")
    frames = ("fiction", "irrealis", "irony", "stranger")
    negatives = [r for r in rows if not r["keep"] and r["class"] in frames]
    found = [r for r in negatives if unreal_kind(str(r["text"])) == r["class"]]
    assert len(negatives) == 98
    assert len(found) >= 88
    assert not [r["text"] for r in rows if r["keep"] and unreal_kind(str(r["text"]))]


def test_test_sentences_are_in_no_corpus() -> None:
    texts = {
        str(r["text"])
        for name in (
            "statements.jsonl",
            "statements_hard.jsonl",
            "triage.jsonl",
            "triage_hard.jsonl",
        )
        for r in _rows(name)
    }
    dev = (ROOT / "memgate" / "data" / "eval" / "labelled_turns_dev30k.jsonl").read_text("utf-8")
    mine = SPEAKERS_WORK + NOT_GOVERNED + [t for _, t in HARD_NEGATIVES + BESIDE_IRONY]
    assert not set(mine) & texts
    assert not any(t in dev for t in mine)
