"""The predicate vocabulary is data, and the rule extractor stays inside it."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from memgate.core.events import TurnEvent
from memgate.stages.extract import MULTI_VALUED_PREDICATES, RuleExtractor
from memgate.stages.vocabulary import (
    PREDICATES,
    QUALIFIED_FAMILIES,
    is_multi_valued,
    valid_predicate,
)


def _bundled_turns() -> list[TurnEvent]:
    turns: list[TurnEvent] = []
    root = resources.files("memgate") / "data" / "eval"
    for name in ("labelled_turns.jsonl", "scenarios.jsonl", "leaks.jsonl"):
        for line in (root / name).read_text("utf-8").splitlines():
            row = json.loads(line)
            for t in row.get("turns") or [row.get("turn") or row]:
                if isinstance(t, dict) and "content" in t:
                    turns.append(TurnEvent.model_validate(t))
    return turns


def test_every_predicate_the_rule_extractor_emits_is_in_the_vocabulary() -> None:
    ex = RuleExtractor()
    seen = {f.predicate for t in _bundled_turns() for f in ex.extract(t)}
    assert len(seen) > 15
    assert all(valid_predicate(p) for p in seen), sorted(p for p in seen if not valid_predicate(p))
    for f in (f for t in _bundled_turns() for f in ex.extract(t)):
        assert f.multi_valued is is_multi_valued(f.predicate)


@pytest.mark.parametrize(
    "bad",
    ["a/b/../../B/b", "uses_tool", "uses_tool:", "uses_tool:Editor", "works at", "role",
     "prefers_language:answers", "likes:", "works_at:x", "uses_tool:a/b", "x" * 200, "",
     "likes\n", "uses_tool:editor\u202e"],
)
def test_predicates_outside_the_vocabulary_are_invalid(bad: str) -> None:
    assert not valid_predicate(bad)


def test_the_vocabulary_is_the_one_the_extract_module_uses() -> None:
    assert {"likes", "prefers:other", "uses_tool:other"} <= MULTI_VALUED_PREDICATES
    assert {"works_at", "lives_in", "likes"} <= PREDICATES
    assert {"prefers", "uses_tool", "favorite", "contact"} == QUALIFIED_FAMILIES
