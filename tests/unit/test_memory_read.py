"""memgate.Memory's read path on the demo turns with MiniLM (relevance floor, token budget,
metrics); one module, since chDB holds one data dir per process at a time."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memgate import Memory
from memgate.core.tokens import WordPieceCounter, token_counter

DEMO = Path(__file__).resolve().parents[2] / "memgate" / "data" / "demo.jsonl"


def demo_turns() -> list[dict[str, object]]:
    return [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memory]:
    """The demo turns on the default embedder (MiniLM) and the embedded stores."""
    with Memory(data_dir=tmp_path_factory.mktemp("demo")) as m:
        m.add(demo_turns())
        yield m


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[Memory]:
    with Memory(data_dir=tmp_path, embedder="hashing") as m:
        yield m


def values(result: object) -> list[str]:
    return [h.fact.value for h in result.hits]  # type: ignore[attr-defined]


# -- the relevance floor ---------------------------------------------------------------


@pytest.mark.parametrize(
    "question", ["recipe for chocolate cake", "who won the football world cup in 1998"]
)
def test_an_unrelated_question_returns_nothing_with_the_default_floor(
    demo: Memory, question: str
) -> None:
    result = demo.search(question, "acme", "alice")
    assert result.hits == []
    assert result.below_floor > 0  # the store found facts; the floor dropped them
    # without the floor the raw fusion still returns facts (what the floor fixes)
    assert demo.search(question, "acme", "alice", min_score=-1).hits


@pytest.mark.parametrize(
    ("question", "tenant", "user", "value"),
    [
        ("how do we deploy?", "acme", "alice", "GitHub Actions"),
        ("which editor do I use?", "acme", "alice", "neovim"),
        ("how do we deploy?", "globex", "bob", "ArgoCD on Kubernetes"),
    ],
)
def test_a_relevant_question_still_finds_its_fact(
    demo: Memory, question: str, tenant: str, user: str, value: str
) -> None:
    result = demo.search(question, tenant, user)
    assert values(result)[0] == value
    top = result.hits[0].score
    assert top.relevance is not None and top.relevance >= result.min_score == 0.3
    assert top.dense_rank == 1 and top.final <= top.fused  # decay divides the ranks
    # the demo turns are months old: the decay divides each rank, and the fact is the
    # user's own (subject focus 1), so final is the fusion of the divided ranks
    assert 0 < top.decay < 1
    ranks = [r for r in (top.lexical_rank, top.dense_rank) if r is not None]
    assert top.final == pytest.approx(sum(1 / (60 + r / top.decay) for r in ranks))
    assert 0 < top.fused_share <= 1


# -- the token budget -------------------------------------------------------------------


def test_the_budget_counts_minilm_wordpiece_tokens(demo: Memory) -> None:
    counter = token_counter()
    assert isinstance(counter, WordPieceCounter)
    full = demo.search("what do I work on and use?", "acme", "alice", min_score=-1, k=8)
    assert len(full.hits) >= 3
    for h in full.hits:
        assert h.tokens == counter.count(h.fact.text) > 0
    budget = full.hits[0].tokens + full.hits[1].tokens
    packed = demo.search(
        "what do I work on and use?", "acme", "alice", min_score=-1, k=8, token_budget=budget
    )
    assert values(packed) == values(full)[:2]
    assert packed.tokens_used == budget and packed.over_budget == len(full.hits) - 2
    assert packed.tokenizer == "wordpiece:all-MiniLM-L6-v2"


# -- metrics, whichever interface serves -----------------------------------------------


def test_every_served_search_is_counted_with_the_age_of_what_it_served(demo: Memory) -> None:
    reg = demo.metrics.registry

    def sample(name: str, **labels: str) -> float:
        return reg.get_sample_value(name, labels) or 0.0

    before = sample("memgate_retrievals_total", backend="embedded")
    ages_before = sample("memgate_served_fact_age_seconds_count")
    now = datetime(2024, 6, 1, tzinfo=UTC)
    result = demo.search("how do we deploy?", "acme", "alice", now=now)
    assert sample("memgate_retrievals_total", backend="embedded") == before + 1
    assert sample("memgate_served_fact_age_seconds_count") == ages_before + len(result.hits)
    demo.search("recipe for chocolate cake", "acme", "alice")  # served nothing: still counted
    assert sample("memgate_retrievals_total", backend="embedded") == before + 2
