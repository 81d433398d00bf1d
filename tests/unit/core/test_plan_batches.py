"""The forward passes of the MiniLM embedder (memgate.core.embedding.plan_batches)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memgate.core.embedding import MiniLMEmbedder, plan_batches


@given(
    lengths=st.lists(st.integers(min_value=2, max_value=128), max_size=80),
    batch_size=st.integers(min_value=1, max_value=64),
    budget=st.integers(min_value=1, max_value=2048),
    split_at=st.integers(min_value=1, max_value=20),
)
def test_every_text_in_one_pass_within_the_limits(
    lengths: list[int], batch_size: int, budget: int, split_at: int
) -> None:
    passes = plan_batches(lengths, batch_size, budget, split_at)
    assert sorted(j for p in passes for j in p) == list(range(len(lengths)))
    for p in passes:
        longest = max(lengths[j] for j in p)
        assert len(p) <= batch_size
        assert len(p) == 1 or len(p) * longest <= budget  # a longer text goes alone
        assert len({lengths[j] >= split_at for j in p}) == 1  # short and long never mixed


def test_short_texts_share_a_pass_and_long_ones_go_alone() -> None:
    lengths = [120, 10, 10, 10, 10, 100, 9]
    assert plan_batches(lengths, 32, 192, 8) == [[0], [5], [1, 2, 3, 4, 6]]
    assert plan_batches(lengths, 2, 192, 8) == [[0], [5], [1, 2], [3, 4], [6]]
    # the former fixed batches: one pass padded to the longest text
    assert plan_batches(lengths, 32, 10**9, 8) == [[0, 5, 1, 2, 3, 4, 6]]


def test_the_budget_leaves_the_vectors_as_one_text_a_pass_gives() -> None:
    texts = [
        "short one",
        "a somewhat longer sentence about the deploy pipeline and its jobs",
        "ok",
        "the checkout service is written in Go and runs on three nodes",
    ] * 3
    texts = [f"{t} {i}" for i, t in enumerate(texts)]  # fmt: skip
    single = MiniLMEmbedder(batch_size=1, cache_size=0).embed(texts)
    for budget in (16, 192, 10**6):
        got = MiniLMEmbedder(cache_size=0, token_budget=budget).embed(texts)
        assert (got * single).sum(axis=1).min() > 0.9999


def test_a_budget_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="token_budget"):
        MiniLMEmbedder(token_budget=0)


def test_planning_tokenises_one_text_at_a_time_not_on_the_parallel_batch_path() -> None:
    """``Tokenizer.encode_batch`` hands a call's one or two texts to a thread pool (rayon):
    about 0.1 ms alone, but 6.6 ms a call in the ingest's profile on the loaded 2-core
    machine, on the read-ahead's critical thread. Each text is encoded on its own: the
    same word pieces."""
    emb = MiniLMEmbedder(cache_size=0)
    tok, _ = emb._ensure_loaded()
    texts = ["a somewhat longer sentence about the deploy pipeline", "ok", "short one"]

    class NoBatch:
        def __init__(self, inner: object) -> None:
            self.inner = inner

        def encode(self, *a: object, **k: object) -> object:
            return self.inner.encode(*a, **k)  # type: ignore[attr-defined]

        def encode_batch(self, *a: object, **k: object) -> object:
            raise AssertionError("encode_batch: the parallel path")

    emb._tokenizer = NoBatch(tok)  # type: ignore[assignment]
    plan = emb.plan_encoding(texts)
    ids = {tuple(int(x) for x in row[row != 0]) for _c, p, _m, _i in plan.passes for row in p}
    assert ids == {tuple(tok.encode(t, add_special_tokens=True).ids) for t in texts}


def test_a_plan_tokenised_without_the_gil_is_the_same_plan() -> None:
    """``release_gil`` (the read-ahead's background thread, issue 14) tokenises with
    ``encode_batch``, which releases the GIL: the same passes, word pieces and masks as
    ``encode`` one text at a time, on every LoCoMo dev turn of the first conversation."""
    from memgate.inputs import ReadErrors, read_turns
    from tests.datasets import locomo_file

    emb = MiniLMEmbedder(cache_size=0)
    texts = list(dict.fromkeys(t.content for t in read_turns(locomo_file(), ReadErrors())))[:600]
    one, batch = emb.plan_encoding(texts), emb.plan_encoding(texts, release_gil=True)
    assert one.texts == batch.texts
    assert len(one.passes) == len(batch.passes) > 0
    for (c1, i1, m1, q1), (c2, i2, m2, q2) in zip(one.passes, batch.passes, strict=True):
        assert c1 == c2 and q1 == q2
        assert (i1 == i2).all() and (m1 == m2).all()
