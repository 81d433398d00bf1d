"""A cosine only speaks for what the encoder read (memgate.core.embedding_unseen).

MiniLM's English vocabulary maps most Chinese characters to [UNK]: "我每天早上喝一杯豆浆"
(soy milk) and "我每天早上喝一杯牛奶" (cow's milk) embed to the same vector, cosine 1.0.
Resolution folded the second into the first (a fact lost), a retraction of one value
closed the other, and consolidation merged such pairs. A decision on a high cosine now
also needs the two texts' unseen characters equal; the Chinese clause rules read a value
swapped in one frame (``cjk_swap``). Hard negatives: an exact repeat in Chinese, an
English near-duplicate and a Chinese restatement the encoder reads the same still fold;
the hashing embedder reads every character."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from memgate.core.embedding import HashingEmbedder
from memgate.core.embedding_unseen import no_unseen, unseen_apart, unseen_of
from memgate.core.events import (
    DecisionRecord,
    FactStatus,
    FactType,
    RedactedCandidate,
    Resolution,
    StoredFact,
    stable_id,
)
from memgate.core.tenant_policy import RetentionPolicy
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.consolidate import plan_lifecycle
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from tests.unit.stages.resolver_kit import CLOCK, cand, facts, minilm, ref, resolve, statement

#: the ``store`` fixture (conftest.py) is of MiniLM's dimension
STORE_EMBEDDER = minilm

SOY = "我每天早上喝一杯豆浆"  # I drink a cup of soy milk every morning
COW = "我每天早上喝一杯牛奶"  # ... of cow's milk


def apply(store: EmbeddedIndex, item: RedactedCandidate) -> tuple[Resolution, DecisionRecord]:
    return resolve(store, item, Resolver(preset("balanced"), minilm(), clock=CLOCK))


def active(store: EmbeddedIndex) -> dict[str, int]:
    return {v: f.occurrences for v, f in facts(store).items() if f.status is FactStatus.ACTIVE}


# -- the embedders ------------------------------------------------------------------------


def test_minilm_reads_the_two_sentences_as_one_and_says_what_it_could_not_read() -> None:
    a, b = minilm().embed([f"user {SOY}", f"user {COW}"])
    assert float(np.dot(a, b)) > 0.999  # why the cosine cannot tell them apart
    assert minilm().unseen(f"user {SOY}") == "".join(sorted("每早喝杯豆浆"))
    assert minilm().unseen(f"user {COW}") == "".join(sorted("每早喝杯牛奶"))
    assert minilm().unseen("user I drink soy milk every morning") == ""
    assert unseen_apart(minilm().unseen, SOY, COW)
    assert not unseen_apart(minilm().unseen, SOY, SOY)


def test_the_hashing_embedder_and_an_embedder_without_the_method_read_everything() -> None:
    assert HashingEmbedder().unseen(SOY) == ""
    assert unseen_of(HashingEmbedder())(SOY) == ""
    assert unseen_of(object()) is no_unseen
    assert not unseen_apart(unseen_of(HashingEmbedder()), SOY, COW)


# -- dedupe -------------------------------------------------------------------------------


def test_soy_milk_then_cows_milk_are_two_facts(store: EmbeddedIndex) -> None:
    apply(store, statement(SOY, days=0))
    res, _ = apply(store, statement(COW, days=14))
    assert res.action.value == "ADD"
    assert active(store) == {SOY: 1, COW: 1}


def test_an_exact_repeat_in_chinese_still_folds(store: EmbeddedIndex) -> None:
    apply(store, statement(SOY, days=0))
    res, _ = apply(store, statement(SOY, days=14))
    assert res.action.value == "DUPLICATE"
    assert active(store) == {SOY: 2}


def test_a_chinese_restatement_the_encoder_reads_alike_still_folds(store: EmbeddedIndex) -> None:
    """ "都" (every) is in the vocabulary: the unseen parts are equal, the cosine decides."""
    apply(store, statement(SOY, days=0))
    res, _ = apply(store, statement("我每天早上都喝一杯豆浆", days=14))
    assert (res.action.value, res.reason) == ("DUPLICATE", "near_duplicate")
    assert active(store) == {SOY: 2}


def test_an_english_near_duplicate_still_folds(store: EmbeddedIndex) -> None:
    apply(store, statement("I drink a cup of soy milk every morning", days=0))
    res, _ = apply(store, statement("Every morning I drink a cup of soy milk", days=14))
    assert (res.action.value, res.reason) == ("DUPLICATE", "near_duplicate")
    assert active(store) == {"I drink a cup of soy milk every morning": 2}


# -- deletion and retraction -------------------------------------------------------------


@pytest.mark.parametrize(("first", "second"), [(SOY, COW), (COW, SOY)])
def test_deleting_one_chinese_fact_leaves_the_other(
    store: EmbeddedIndex, first: str, second: str
) -> None:
    apply(store, statement(first, days=0))
    apply(store, statement(second, days=1))
    res, _ = apply(store, ref(first, "delete", days=14))
    assert res.action.value == "SUPERSEDE"
    assert active(store) == {second: 1}


def test_retracting_one_value_leaves_another_the_encoder_cannot_tell_apart(
    store: EmbeddedIndex,
) -> None:
    apply(store, cand("每天早上喝一杯牛奶", "drinks", days=0))
    res, _ = apply(store, cand("每天早上喝一杯豆浆", "drinks", days=14, retracts=True))
    assert (res.action.value, res.reason) == ("REJECT", "nothing_to_retract")
    assert active(store) == {"每天早上喝一杯牛奶": 1}


def test_retracting_the_value_said_still_closes_it(store: EmbeddedIndex) -> None:
    apply(store, cand("每天早上喝一杯牛奶", "drinks", days=0))
    res, _ = apply(store, cand("每天早上喝一杯牛奶", "drinks", days=14, retracts=True))
    assert (res.action.value, res.reason) == ("SUPERSEDE", "retracted")
    assert active(store) == {}


# -- consolidation ------------------------------------------------------------------------

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def _fact(i: int, value: str) -> StoredFact:
    return StoredFact(
        fact_id=stable_id("f", str(i)), tenant_id="acme", user_id="u1",
        key=f"acme/u1/user/statement/{value}", type=FactType.FACT, subject="user",
        predicate="statement", value=value, text=f"user statement {value}",
        status=FactStatus.ACTIVE, confidence=0.9, valid_from=T0, recorded_at=T0,
        session_ids=[f"s{i}"], first_seen=T0, last_seen=T0, source_turn_ids=[f"t{i}"],
        extractor="hybrid", extractor_version="1", policy_version="balanced-1",
        embedding=[1.0, 0.0, 0.0, 0.0],
    )  # fmt: skip


def _merged(values: tuple[str, str], **unseen: object) -> int:
    plan = plan_lifecycle(
        [_fact(i, v) for i, v in enumerate(values)], preset("balanced"), RetentionPolicy(),
        now=T0, policy_version="lifecycle-1+balanced-1", **unseen,  # type: ignore[arg-type]
    )  # fmt: skip
    return plan.counts().get("merge", 0)


def test_consolidation_merges_no_pair_that_differs_where_the_encoder_read_nothing() -> None:
    assert _merged((SOY, COW), unseen=minilm().unseen) == 0


def test_consolidation_still_merges_a_pair_the_encoder_read_whole() -> None:
    assert _merged((SOY, SOY + "。"), unseen=minilm().unseen) == 1  # same unseen characters
    assert _merged(("I drink soy milk", "I drink soy milk daily"), unseen=minilm().unseen) == 1
    assert _merged((SOY, COW)) == 1  # an embedder that reads everything: the cosine decides
