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
