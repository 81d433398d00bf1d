"""The Resolver with the learned pair classifier (settings ``resolution_model = "assist"``):
asked only when no rule finds a target, and under the rules' guarantees (tenant scope,
replays change nothing, facts said at the same instant stand)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgate.core.embedding import MiniLMEmbedder
from memgate.core.events import FactStatus, FactType, RedactedCandidate
from memgate.core.settings import Settings
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from memgate.stages.relation_model import RelationModel
from tests.unit.stages.test_dedupe import CLOCK, apply, cand

WIKI = "Our wiki lives in Confluence"
WIKI_MOVED = "We migrated the wiki to Notion"
ELIXIR = "Our backend is written in Elixir"
ELIXIR_AGAIN = "The backend code is Elixir"


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture
def store(tmp_path: Path, minilm: MiniLMEmbedder) -> EmbeddedIndex:
    return EmbeddedIndex(tmp_path / "r.sqlite3", dim=minilm.dim)


def _resolver(minilm: MiniLMEmbedder, *, on: bool = True) -> Resolver:
    model = RelationModel.load() if on else None
    return Resolver(preset("balanced"), minilm, clock=CLOCK, relation_model=model)


def _said(text: str, *, n: int = 0, days: int = 0, tenant: str = "acme") -> RedactedCandidate:
    return cand(text, predicate="statement", subject="team", type_=FactType.FACT, n=n,
                days=days, tenant=tenant, multi=True)  # fmt: skip


def _facts(store: EmbeddedIndex, tenant: str = "acme") -> list[tuple[str, str, int]]:
    return sorted(
        (f.value, f.status.value, f.occurrences)
        for f in store.list_facts(tenant, "u1", include_inactive=True)
    )


def test_off_the_rules_alone_leave_a_change_in_new_words_as_a_second_fact(
    store: EmbeddedIndex, minilm: MiniLMEmbedder
) -> None:
    r = _resolver(minilm, on=False)
    apply(r, store, _said(WIKI))
    assert apply(r, store, _said(WIKI_MOVED, n=1, days=3)).reason == "new_key"


def test_a_change_in_new_words_with_no_shared_key_supersedes(
    store: EmbeddedIndex, minilm: MiniLMEmbedder
) -> None:
    r = _resolver(minilm)
    apply(r, store, _said(WIKI))
    out = r(_said(WIKI_MOVED, n=1, days=3), store)
    res, dec = out[0], out[1]
    assert (res.action.value, res.reason) == ("SUPERSEDE", "relation_update")  # type: ignore[union-attr]
    assert dec.details["relation"] == "update" and dec.details["model"].startswith("relation-")  # type: ignore[union-attr]
    assert float(dec.details["probability"]) >= RelationModel.load().threshold  # type: ignore[union-attr]
    apply(r, store, _said(WIKI_MOVED, n=1, days=3))
    assert _facts(store) == [(WIKI, "superseded", 1), (WIKI_MOVED, "active", 1)]


def test_a_restatement_in_other_words_is_folded_in(
    store: EmbeddedIndex, minilm: MiniLMEmbedder
) -> None:
    r = _resolver(minilm)
    apply(r, store, _said(ELIXIR))
    res = apply(r, store, _said(ELIXIR_AGAIN, n=1, days=2))
    assert (res.action.value, res.reason) == ("DUPLICATE", "relation_same")
    assert _facts(store) == [(ELIXIR, "active", 2)]


def test_a_second_item_of_its_kind_coexists(store: EmbeddedIndex, minilm: MiniLMEmbedder) -> None:
    r = _resolver(minilm)
    apply(r, store, cand("a dog called Rex", predicate="has_pet", multi=True))
    res = apply(r, store, _said("We also got a cat named Luna", n=1, days=2))
    assert res.action.value == "ADD"
    assert [s for _, s, _ in _facts(store)] == ["active", "active"]


@pytest.mark.parametrize(("first", "second"), [(WIKI, WIKI_MOVED), (ELIXIR, ELIXIR_AGAIN)])
def test_a_replayed_turn_changes_nothing(
    store: EmbeddedIndex, minilm: MiniLMEmbedder, first: str, second: str
) -> None:
    r = _resolver(minilm)
    apply(r, store, _said(first))
    apply(r, store, _said(second, n=1, days=3))
    once = [f.model_dump() for f in store.list_facts("acme", "u1", include_inactive=True)]
    for _ in range(2):
        again = apply(r, store, _said(second, n=1, days=3))
        assert (again.action.value, again.reason, again.writes) == ("DUPLICATE", "redelivered", [])
    assert [f.model_dump() for f in store.list_facts("acme", "u1", include_inactive=True)] == once


def test_facts_said_at_the_same_instant_stand(store: EmbeddedIndex, minilm: MiniLMEmbedder) -> None:
    r = _resolver(minilm)
    apply(r, store, _said(WIKI))
    same_time = _said(WIKI_MOVED).model_copy(deep=True)
    c = same_time.candidate.model_copy(update={"source_turn_ids": ["t-other"],
                                               "candidate_id": "c-other"})  # fmt: skip
    res = apply(r, store, same_time.model_copy(update={"candidate": c}))
    assert res.action.value == "ADD"
    assert all(s == FactStatus.ACTIVE.value for _, s, _ in _facts(store))


def test_another_tenants_fact_is_never_read(store: EmbeddedIndex, minilm: MiniLMEmbedder) -> None:
    r = _resolver(minilm)
    apply(r, store, _said(WIKI, tenant="other"))
    res = apply(r, store, _said(WIKI_MOVED, n=1, days=3))
    assert (res.action.value, res.reason) == ("ADD", "new_key")
    assert _facts(store, "other") == [(WIKI, "active", 1)]


def test_the_setting_turns_the_model_on_in_the_pipeline(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from memgate.backends import build_pipeline
    from memgate.core.embedding import HashingEmbedder

    monkeypatch.setenv("MEMGATE_HMAC_KEY", "k" * 40)
    off = build_pipeline(Settings(data_dir=tmp_path), HashingEmbedder())
    assert off.resolve.relation_model is None
    monkeypatch.setenv("MEMGATE_RESOLUTION_MODEL", "assist")
    on = build_pipeline(Settings(data_dir=tmp_path), HashingEmbedder())
    assert on.resolve.relation_model is not None


def _typed(text: str, predicate: str, type_: FactType, *, n: int, days: int) -> RedactedCandidate:
    return cand(text, predicate=predicate, type_=type_, n=n, days=days, multi=True)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # two episodes: the consolidation pass folds episodes, never the hot path
        (("I went to the library with my niece on Monday", "event", FactType.EVENT),
         ("I went to the library with my niece again on Friday", "event", FactType.EVENT)),
        # two pets: a family of several values, a second one replaces none
        (("a dog named Rex", "has_pet", FactType.FACT),
         ("now we have a cat named Luna", "has_pet", FactType.FACT)),
        # two people with one value
        (("My brother works as a nurse in Leeds", "statement", FactType.FACT),
         ("My sister works as a nurse in Leeds", "statement", FactType.FACT)),
    ],
)  # fmt: skip
def test_the_rules_structure_is_kept_under_the_model(
    store: EmbeddedIndex,
    minilm: MiniLMEmbedder,
    first: tuple[str, str, FactType],
    second: tuple[str, str, FactType],
) -> None:
    r = _resolver(minilm)
    apply(r, store, _typed(*first, n=0, days=0))
    res = apply(r, store, _typed(*second, n=1, days=2))
    assert not res.reason.startswith("relation_")
    assert [s for _, s, _ in _facts(store)] == ["active", "active"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # one typed predicate: its key tells the two values apart already
        (("user", "likes", "hiking"), ("user", "likes", "rock climbing")),
        # two subjects named apart
        (("user's sister", "lives_in", "Rome"), ("user's brother", "lives_in", "Rome")),
        (("team's kundenportal", "stack", "Unser Kundenportal ist in React geschrieben"),
         ("team's admin-tool", "stack", "Unser neues Admin-Tool ist in Vue geschrieben")),
        # two slots: the home city and the time zone
        (("user", "lives_in", "Ciudad de México"),
         ("user", "timezone", "la hora del centro de México")),
        (("user", "lives_in", "Ciudad de México"),
         ("user", "statement", "Mi zona horaria es la hora del centro de México")),
    ],
)  # fmt: skip
def test_pairs_the_keys_and_subjects_tell_apart_are_not_read(
    store: EmbeddedIndex,
    minilm: MiniLMEmbedder,
    first: tuple[str, str, str],
    second: tuple[str, str, str],
) -> None:
    r = _resolver(minilm)
    for n, (subject, predicate, obj) in enumerate((first, second)):
        item = cand(obj, subject=subject, predicate=predicate, type_=FactType.FACT, n=n,
                    days=2 * n, multi=predicate == "likes")  # fmt: skip
        res = apply(r, store, item)
    assert not res.reason.startswith("relation_")
    assert [s for _, s, _ in _facts(store)] == ["active", "active"]
