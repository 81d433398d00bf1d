"""Reading ahead (memgate.streams.prefetch): the same stored records as one turn at a time,
the dedupe embeddings computed in the background, its failures reported as before."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memgate.backends import build_pipeline
from memgate.core.embedding import EncodingPlan, MiniLMEmbedder
from memgate.core.errors import FatalError
from memgate.core.events import CandidateFact, TurnEvent
from memgate.core.settings import Settings, load_settings
from memgate.sinks.audit import ClickHouseAudit
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.extract import Extractor
from memgate.stages.fact_keys import DELETED_VALUE
from memgate.stages.statements import HybridExtractor
from memgate.streams.prefetch import DEFAULT_WINDOW
from memgate.streams.runner import InProcessRunner
from tests.unit.streams.conftest import KEY, turn

NOW = datetime(2024, 6, 1, 12, 0, tzinfo=UTC)

#: what users say: facts, repeats, changes, near repeats, references, secrets, chatter
LINES = (
    "I prefer four-space indentation in every Python file.",
    "I work as a backend engineer on the payments team.",
    "We deploy with Jenkins and Helm charts.",
    "I like jazz, especially Coltrane.",
    "I live in Lisbon with my partner.",
    "My favourite editor is Neovim.",
    "ok thanks",
    "I prefer four-space indentation in every Python file.",
    "I now prefer tabs for indentation in Python files.",
    "Actually we moved from Jenkins to GitHub Actions last month.",
    "My API key is sk-live-51HabcdEFGHijklMNOPqrstUVwxyz0123456789 please keep it.",
    "Forget that I like jazz.",
    "I'm allergic to peanuts, so never suggest peanut recipes.",
    "I moved to Porto in March.",
    "Please delete what you know about my address.",
    "My favorite editor is Neovim, by the way.",
    "I usually run tests with pytest and coverage.",
    "lol that's funny",
    "I am vegetarian since 2019.",
    "Our team uses PostgreSQL 16 for the ledger service.",
    "Scratch that bit about the gym. I live in Porto.",
    "I prefer dark mode in every editor.",
    "I'm learning Rust on weekends.",
    "We switched the ledger service to PostgreSQL 17.",
)


def _turns() -> list[TurnEvent]:
    out: list[TurnEvent] = []
    n = 0
    for rnd in range(3):
        for user in ("alice", "bob"):
            for i, line in enumerate(LINES):
                if (i + rnd) % 3 == 2 and user == "bob":
                    continue  # the users differ a little
                n += 1
                out.append(
                    turn(
                        f"{user}-{rnd}-{i}",
                        line,
                        user=user,
                        minutes=n,
                        session_id=f"s{rnd}",
                        tenant_id="acme" if user == "alice" or i % 4 else "globex",
                    )
                )
    out.insert(4, out[2])  # a replay inside a window (of 5)
    out.insert(23, out[21].model_copy(update={"content": "Another turn, the same id."}))
    out.append(out[0])  # a replay of a turn applied windows before
    return out


class Run:
    """One run's stores: a retrieval index and its own audit database."""

    def __init__(self, tmp: Path, name: str, embedder: MiniLMEmbedder) -> None:
        self.settings: Settings = load_settings(data_dir=tmp / name, hmac_key=KEY)
        self.settings.data_dir.mkdir(parents=True)
        self.embedder = embedder
        self.retrieval = EmbeddedIndex(self.settings.retrieval_path, dim=embedder.dim)
        self.audit = ClickHouseAudit.embedded(tmp / "audit", database=f"audit_{name}")
        self.errors: list[str] = []

    def runner(self, window: int, extractor: Extractor | None = None) -> InProcessRunner:
        pipeline = build_pipeline(self.settings, self.embedder, extractor, clock=lambda: NOW)
        return InProcessRunner(
            pipeline, self.retrieval, self.audit, on_error=self.errors.append, window=window
        )

    def records(self) -> dict[str, Any]:
        facts: list[Any] = []
        for tenant in ("acme", "globex"):
            for user in ("alice", "bob"):
                stored = self.retrieval.list_facts(tenant, user, include_inactive=True)
                facts.extend(f.model_dump() for f in sorted(stored, key=lambda f: f.fact_id))
        tables = {
            t: self.audit.query(f"SELECT * FROM {t} FINAL ORDER BY event_id")[1]
            for t in ("journal", "decisions", "fact_history")
        }
        return {"facts": facts, **tables, "errors": self.errors}

    def close(self) -> None:
        self.retrieval.close()
        self.audit.close()


@pytest.fixture
def runs(tmp_path: Path) -> Iterator[tuple[Run, Run]]:
    one = Run(tmp_path, "one", MiniLMEmbedder())
    ahead = Run(tmp_path, "ahead", MiniLMEmbedder())
    try:
        yield one, ahead
    finally:
        one.close()
        ahead.close()


def _encodes_on(emb: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The threads the embedder's forward passes run on, one name a call."""
    threads: list[str] = []
    run = emb.run_encoding

    def spy(plan: EncodingPlan) -> Any:
        threads.append(threading.current_thread().name)
        return run(plan)

    monkeypatch.setattr(emb, "run_encoding", spy)
    return threads


def test_read_ahead_stores_exactly_what_one_turn_at_a_time_stores(
    runs: tuple[Run, Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    one, ahead = runs
    turns = _turns()
    on_main = _encodes_on(one.embedder, monkeypatch)
    in_ahead = _encodes_on(ahead.embedder, monkeypatch)
    s1 = one.runner(window=1).run(turns)
    s2 = ahead.runner(window=5).run(turns)
    assert s1.as_dict() == s2.as_dict()
    assert s1.replayed == 2 and s1.failed == {"turn_id_conflict": 1}
    assert s1.stored > 20 and s1.actions["DUPLICATE"] and s1.actions["SUPERSEDE"]
    a, b = one.records(), ahead.records()
    # every fact with content has its vector (a deletion's tombstones keep none)
    assert len(a["facts"]) > 40 and all(
        f["embedding"] for f in a["facts"] if f["value"] != DELETED_VALUE
    )
    assert a == b  # facts with their vectors, every audit row, every error line
    # the dedupe stage's forward passes ran in the background, every one of them
    main = threading.main_thread().name
    assert set(on_main) == {main}
    assert in_ahead and main not in in_ahead
    assert len(in_ahead) >= len(on_main)  # one reference resolved by its early check


class FailingEmbedder(MiniLMEmbedder):
    """Fails every forward pass that has a text naming Coltrane (in the background when
    read ahead), and the tokenisation of every text naming Porto (in the background too)."""

    def run_encoding(self, plan: EncodingPlan) -> Any:
        if any("Coltrane" in t for t in plan.texts):
            raise ValueError("the encoder failed on this text")
        return super().run_encoding(plan)

    def plan_encoding(self, texts: Sequence[str], *, release_gil: bool = False) -> EncodingPlan:
        if any("Porto" in t for t in texts):
            raise RuntimeError("the tokenizer failed on this text")
        return super().plan_encoding(texts, release_gil=release_gil)


def test_a_failure_in_the_background_fails_the_same_turn_the_same_way(tmp_path: Path) -> None:
    one = Run(tmp_path, "one", FailingEmbedder())
    ahead = Run(tmp_path, "ahead", FailingEmbedder())
    try:
        turns = _turns()[:50]
        one.runner(window=1, extractor=Refusing(0, fail=7)).run(turns)
        ahead.runner(window=8, extractor=Refusing(0, fail=7)).run(turns)
        kinds = {e.split("(")[1].split(":")[0] for e in one.errors if "processed (" in e}
        assert kinds == {"ZeroDivisionError", "ValueError", "RuntimeError"}, one.errors
        assert one.records() == ahead.records()
    finally:
        one.close()
        ahead.close()


class Refusing(HybridExtractor):
    """The extractor, refusing its ``n``-th call and every one after it as a refused API
    key would; it fails a turn's extraction at the ``fail``-th call."""

    def __init__(self, n: int, fail: int = 0) -> None:
        super().__init__()
        self.n, self.fail = n, fail
        self.calls: list[str] = []

    def extract(self, turn: TurnEvent) -> list[CandidateFact]:
        self.calls.append(turn.turn_id)
        if len(self.calls) == self.fail:
            raise ZeroDivisionError("a bug in a rule")
        if self.n and len(self.calls) >= self.n:
            raise FatalError("the extraction API refused the key")
        return super().extract(turn)


def test_a_fatal_error_ahead_stops_reading_ahead_and_the_run_at_its_turn(
    runs: tuple[Run, Run],
) -> None:
    one, ahead = runs
    turns = _turns()[:30]
    kept: list[dict[str, Any]] = []
    calls: list[list[str]] = []
    for run, window in ((one, 1), (ahead, 32)):
        extractor = Refusing(6)
        with pytest.raises(FatalError):
            run.runner(window, extractor).run(turns)
        kept.append(run.records())
        calls.append(extractor.calls)
    assert calls[0] == calls[1] and len(calls[0]) == 6  # no extraction after the refusal
    assert kept[0] == kept[1] and kept[0]["facts"]  # the turns before it are saved


def test_the_window_default_is_the_settings_default() -> None:
    assert Settings.model_fields["ingest_window"].default == DEFAULT_WINDOW > 1


def test_misses_counts_the_cache_and_what_will_be_cached() -> None:
    emb = MiniLMEmbedder()
    emb.embed(["cached one"])
    assert emb.misses(["a", "cached one", "b", "a"]) == ("a", "b")
    assert emb.misses(["a", "b"], known={"b"}) == ("a",)
    assert MiniLMEmbedder(cache_size=0).misses(["x", "x"], known={"x"}) == ("x",)


def test_a_call_takes_what_was_encoded_ahead_for_exactly_its_texts() -> None:
    from concurrent.futures import Future

    emb = MiniLMEmbedder()
    plain = MiniLMEmbedder().embed(["one text", "another text"])
    marked: Future[Any] = Future()
    marked.set_result(plain * 0)  # recognisable: zero rows
    emb.encode_ahead(("another text",), marked)  # not what the call encodes: not taken
    assert (emb.embed(["one text", "another text"]) == plain).all()
    emb.cache_clear()
    emb.encode_ahead(("one text", "another text"), marked)
    assert not emb.embed(["one text", "another text"]).any()
    emb.forget_ahead([("another text",)])
    assert not emb._ahead


def _user_turns(lines: Sequence[str]) -> list[TurnEvent]:
    return [turn(f"t{i}", line, minutes=i, session_id="s") for i, line in enumerate(lines)]


def test_the_next_window_is_read_before_this_one_is_applied(
    runs: tuple[Run, Run], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The background thread has the next window's passes while this one is applied (so
    it does not sit idle while the main thread reads the next window's front stages)."""
    _, ahead = runs
    turns = _user_turns(LINES[:16])  # two windows of 8; the first three keep facts
    extractor = Refusing(0)
    at_first_write: list[int] = []
    upsert = ahead.retrieval.upsert

    def spy(*args: Any, **kwargs: Any) -> Any:
        if not at_first_write:
            at_first_write.append(len(extractor.calls))
        return upsert(*args, **kwargs)

    monkeypatch.setattr(ahead.retrieval, "upsert", spy)
    ahead.runner(window=8, extractor=extractor).run(turns)
    second = {f"t{i}" for i in range(8, 16)}
    assert at_first_write and second & set(extractor.calls[: at_first_write[0]])


def test_a_replay_of_the_window_not_yet_applied_is_not_computed_ahead(
    runs: tuple[Run, Run],
) -> None:
    """A turn of the next window that replays one of this window, which the ledger does
    not hold yet, is predicted a replay: it costs no extraction (an API call with the
    Claude extractor), as with no read-ahead."""
    one, ahead = runs
    turns = _user_turns(LINES[:10])
    turns.insert(6, turns[1])  # window of 5: the replay is in the second window
    turns.insert(8, turns[3].model_copy(update={"content": "Another turn, the same id."}))
    calls: list[list[str]] = []
    for run, window in ((one, 1), (ahead, 5)):
        extractor = Refusing(0)
        summary = run.runner(window, extractor).run(turns)
        assert summary.replayed == 1 and summary.failed == {"turn_id_conflict": 1}
        calls.append(extractor.calls)
    assert calls[0] == calls[1] and calls[0].count("t1") == 1
    assert one.records() == ahead.records()
