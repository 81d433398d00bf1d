"""The write decision's precision on sentences that state no fact of the speaker's world
(keep30, issue 9): irony, a work of fiction's world, an irrealis clause, a stranger's
words, in six languages; and their durable look-alikes (the speaker's own tastes, clubs
and family, a real condition), which must still be stored.

The sentences are written for these tests, in other words than the development file that
measures the same classes (labelled_turns_dev30k.jsonl) and the training corpora.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memgate.core.events import TriageVerdict, TurnEvent
from memgate.stages.statements import HybridExtractor, StatementExtractor
from memgate.stages.triage import TriageReason, triage
from memgate.stages.unreal import standing_condition, unreal_kind

ROOT = Path(__file__).resolve().parents[3]


def turn(text: str) -> TurnEvent:
    return TurnEvent(tenant_id="acme", user_id="u1", session_id="s1", turn_id="t1",
                     role="user", content=text, ts="2024-05-01T10:00:00Z")  # fmt: skip


def stored(text: str) -> bool:
    t = turn(text)
    verdict, _ = triage(t)
    return verdict is TriageVerdict.KEEP and bool(HybridExtractor().extract(t))


# kept by the old code (the rules' "likes", the classifiers' n-grams of a plain statement)
HARD_NEGATIVES = [
    ("irony", "Oh great, I just love it when the VPN drops at midnight again."),
    ("irony", "Na toll, ich liebe es, wenn die Bahn nachts schon wieder ausfällt."),
    ("irony", "Ah, claro, me encanta que se caiga la wifi otra vez, qué maravilla."),
    ("irony", "Ah, claro, eu amo quando o celular trava de novo no meio da reunião."),
    ("irony", "呵呵，我最喜欢半夜被报警电话叫醒了，真是享受。"),
    ("fiction", "In the novel the beekeeper owns a hotel rooftop in Paris."),
    ("fiction", "Im Roman betreibt die Heldin eine Imkerei auf Rügen."),
    ("fiction", "Dans le film, le héros tient une librairie à Québec."),
    ("fiction", "En la película el protagonista es un relojero de Toledo."),
    ("fiction", "Na série, o protagonista é um padeiro que mora em Olinda."),
    ("fiction", "在那部小说里，主人公是一个住在拉萨的邮递员。"),
    ("irrealis", "I'd open a bakery in Porto if I were braver."),
    ("irrealis", "Viviría en Cádiz si tuviera trabajo allí."),
    ("stranger", "Um rapaz no fórum falou que usa o mesmo notebook há quinze anos."),
    ("stranger", "有个网友说他每天只睡四个小时。"),
    ("stranger", "Some woman on a podcast said she has run a marathon on every continent."),
]


@pytest.mark.parametrize(("kind", "text"), HARD_NEGATIVES)
def test_a_sentence_of_no_fact_of_the_speakers_world_is_not_stored(kind: str, text: str) -> None:
    assert unreal_kind(text) == kind
    assert not stored(text)
    assert StatementExtractor().extract(turn(text)) == []


@pytest.mark.parametrize(
    "text",
    [
        "In the novel the beekeeper owns a hotel rooftop in Paris.",
        "Dans le film, le héros tient une librairie à Québec.",
        "有个网友说他每天只睡四个小时。",
    ],
)
def test_triage_drops_it_before_extraction(text: str) -> None:
    assert triage(turn(text)) == (TriageVerdict.DROP, TriageReason.UNREAL)


# the same surface forms said of the speaker's own world: stored, on the old code and on this
LOOK_ALIKES = [
    "I love hiking in the Peak District, I go most weekends.",
    "If a test fails, always show me the full traceback.",
    "My brother runs Gentoo on his home server.",
    "Mein Lieblingsroman ist Der Steppenwolf von Hesse.",
    "J'organise un club de lecture de romans policiers à Nantes.",
    "Mi hermano vive en Cádiz y trabaja de profesor.",
    "我平时最爱看推理小说，尤其是日本的。",
    "I'd prefer answers in British English, please.",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_a_durable_look_alike_is_stored(text: str) -> None:
    assert unreal_kind(text) is None
    assert stored(text)


def test_a_look_alike_no_frame_reads() -> None:
    """Read by no frame; triage's classifier (main's, unchanged since keep31) scores it
    under its bar, as it did before keep30: only keep30's retrained classifier kept it."""
    text = "Eu adoro pão de queijo, como quase todo dia."
    assert unreal_kind(text) is None
    assert triage(turn(text)) == (TriageVerdict.DROP, TriageReason.NOTHING_DURABLE)


CONDITIONS = [
    "If the invoice run fails, always text me on Signal.",
    "Si la sauvegarde échoue, préviens-moi toujours sur Signal.",
    "Si falla la copia de seguridad, avísame siempre por Telegram.",
]


@pytest.mark.parametrize("text", CONDITIONS)
def test_a_real_condition_with_a_standing_instruction_is_stored(text: str) -> None:
    """An indicative "if" with a standing word says what to do every time: triage's
    classifier read the "if" as a hypothetical and dropped it (old code)."""
    assert standing_condition(text)
    assert stored(text)


@pytest.mark.parametrize(
    "text",
    [
        # a possessive lead is the speaker's book club, not a work's world
        "In my book club we only read Russian classics.",
        # an indicative condition with a standing instruction
        "Wenn der Nightly-Build fehlschlägt, schick mir bitte immer eine Mail.",
        # a polite conditional of a standing preference
        "Je préférerais que tu me tutoies toujours.",
        # a sincere taste without a mark of irony
        "J'adore vraiment les marchés de Noël en Alsace.",
        # an indefinite noun phrase that is the speaker ("una persona" after a copula)
        "Soy una persona que dice siempre lo que piensa.",
        # a Portuguese reflexive "se" is no protasis
        "Participo de um grupo que se encontra numa livraria às terças.",
        # "falls" is an English verb too
        "My cat falls asleep on my keyboard every afternoon.",
    ],
)
def test_no_frame_without_its_structure(text: str) -> None:
    assert unreal_kind(text) is None


def test_test_sentences_are_in_no_corpus() -> None:
    train = ROOT / "memgate" / "data" / "train"
    rows = [
        json.loads(line)["text"]
        for name in (
            "statements.jsonl",
            "statements_hard.jsonl",
            "triage.jsonl",
            "triage_hard.jsonl",
        )
        for line in (train / name).read_text("utf-8").splitlines()
        if line.strip()
    ]
    dev = (ROOT / "memgate" / "data" / "eval" / "labelled_turns_dev30k.jsonl").read_text("utf-8")
    mine = [t for _, t in HARD_NEGATIVES] + LOOK_ALIKES + CONDITIONS
    mine.append("Eu adoro pão de queijo, como quase todo dia.")
    assert not set(mine) & set(rows)
    assert not any(t in dev for t in mine)
