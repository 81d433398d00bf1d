"""A Chinese fact said again in other words (stages/resolve_same.py, chinese_said_again).

A Chinese stored value rarely names a Latin name and has no word boundaries, so the guard's
"a name both say" never held and no Chinese restatement without a Latin name reached the
pair classifier. Its content character bigrams, the last one among them, said again stand
in for the name. Hard negatives: another value in one frame, another person (kin words of
``paraphrase.json``), one more thing ("也") stay two facts. MiniLM's vectors, as the gate's.
"""

from __future__ import annotations

import pytest

from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from memgate.stages.resolve_paraphrase import other_persons
from memgate.stages.resolve_same import chinese_said_again, guarded
from tests.unit.stages.resolver_kit import CLOCK, USEM, facts, minilm, resolve, statement

STORE_EMBEDDER = minilm


def _resolver() -> Resolver:
    return Resolver(preset("balanced"), minilm(), clock=CLOCK, meaning=USEM)


FOLDS = [
    # a typed value said again in a sentence: no rule's fold meets it
    ("杭州", "lives_in", "我一直住在杭州，已经好多年了。"),
    ("粤菜", "likes", "粤菜是我吃过最喜欢的菜系。"),
]

NEGATIVES = [
    # another value in one frame
    ("我对芒果过敏。", "我对海鲜过敏。"),
    # another person: a cousin
    ("我每天早上喝一杯豆浆。", "我表姐每天早上喝一杯豆浆。"),
    # one more thing
    ("我们团队用飞书沟通。", "我们团队也用钉钉沟通。"),
]


@pytest.mark.parametrize(("said", "predicate", "again"), FOLDS)
def test_a_chinese_restatement_folds(
    store: EmbeddedIndex, said: str, predicate: str, again: str
) -> None:
    resolve(store, statement(said, predicate=predicate, days=0), _resolver())
    res, dec = resolve(store, statement(again, days=30), _resolver())
    assert (res.action.value, res.reason) == ("DUPLICATE", "same_fact"), dec.details
    got = facts(store)
    assert set(got) == {said} and got[said].occurrences == 2


@pytest.mark.parametrize(("said", "again"), NEGATIVES)
def test_another_chinese_fact_of_one_frame_is_not_folded(
    store: EmbeddedIndex, said: str, again: str
) -> None:
    resolve(store, statement(said, days=0), _resolver())
    res, _ = resolve(store, statement(again, days=30), _resolver())
    assert res.reason != "same_fact"
    assert facts(store)[said].occurrences == 1


@pytest.mark.parametrize(
    ("stored", "said", "again"),
    [
        ("我对芒果过敏", "芒果我一吃就过敏", True),
        ("我对芒果过敏", "我对海鲜过敏", False),
        ("杭州", "我住在杭州", True),
        ("我每天喝绿茶", "我每天喝红茶", False),
    ],
)
def test_chinese_said_again(stored: str, said: str, again: bool) -> None:
    assert chinese_said_again(stored, said) is again


def test_the_guard_lets_a_chinese_restatement_through() -> None:
    assert guarded("statement", "我对芒果过敏", "芒果我一吃就过敏", 0.7)
    assert guarded("lives_in", "杭州", "我一直住在杭州", 0.7)
    assert not guarded("statement", "我对芒果过敏", "我对海鲜过敏", 0.7)
    assert not guarded("statement", "我不喝酒", "我喝酒", 0.7)


def test_a_cousin_is_another_person() -> None:
    assert other_persons("我表哥每年春节回老家", "我姐姐每年春节回老家")
