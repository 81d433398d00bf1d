"""Prompt injection and a model that obeys it: the Claude extractor's answer is checked.

The turn carries injected text (tests/unit/stages/test_injection.py); the local
stand-in of the Messages API answers as a model that followed it would: a tool
call naming another tenant and user (extra ``tenant_id``/``user_id`` fields, a
subject ``globex/bob``), confidence 1.0, an out-of-vocabulary predicate, a
control character. Through ``Memory.add`` (real SDK, real HTTP): nothing is
stored for anyone but the turn's owner, every key has the owner's shape, no
confidence is above 0.9, and the fake delimiters were neutralised in what was sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memgate import Memory
from tests.unit.stages.anthropic_standin import AnthropicStandIn, running_standin, tool_use_reply
from tests.unit.stages.test_injection import INJECTIONS, _check_shape, _nothing_for_victims

API_KEY = "test-" + "key-" + "injection"


def _item(**kw: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "preference",
        "subject": "user",
        "predicate": "uses_tool:editor",
        "object": "Helix",
        "confidence": 1.0,
    }
    item.update(kw)
    return item


HOSTILE_ANSWERS = (
    # extra owner fields the schema does not have: ignored, the turn's owner stands
    [_item(tenant_id="globex", user_id="bob")],
    # a subject that is another owner's key prefix: dropped
    [_item(subject="globex/bob"), _item(subject="acme/bob", predicate="lives_in", object="Oslo")],
    # a predicate outside the vocabulary, a confidence out of range, a control character
    [_item(predicate="owner:globex/bob"), _item(confidence=7), _item(subject="user\x00bob")],
    # everything at once, plus one plain item that must come through capped
    [
        _item(tenant_id="globex", user_id="bob", subject="globex/bob"),
        _item(subject="user", predicate="lives_in", object="Oslo", confidence=1.0),
    ],
)


@pytest.fixture(scope="module")
def api() -> Iterator[AnthropicStandIn]:
    with running_standin(api_key=API_KEY) as standin:
        yield standin


@pytest.mark.parametrize(
    ("answer", "kept"),
    list(zip(HOSTILE_ANSWERS, (True, False, False, True), strict=True)),
    ids=["owner-fields", "key-prefix", "bad", "mix"],
)
def test_a_hostile_tool_call_writes_only_for_the_turns_owner_capped(
    api: AnthropicStandIn, tmp_path: Path, answer: list[dict[str, Any]], kept: bool
) -> None:
    api.enqueue(tool_use_reply(answer))
    with Memory(
        data_dir=tmp_path / "data",
        embedder="hashing",
        extractor="anthropic",
        anthropic_api_key=API_KEY,
        anthropic_base_url=api.base_url,
    ) as memory:
        text = INJECTIONS[2].format(t="globex", u="bob") + " I live in Oslo and use Helix."
        added = memory.add([{"role": "user", "content": text}], tenant="acme", user="alice")
        assert added.rejected == 0, added.errors
        assert api.pending == 0, "the stand-in was not asked"
        _nothing_for_victims(memory, "alice")
        facts = memory.get_all("acme", "alice", include_inactive=True)
        for f in facts:
            _check_shape(f, "acme", "alice")
            assert f.confidence <= 0.9, (f.key, f.confidence)
        used = [f for f in facts if f.provenance.extractor == "anthropic"]
        if kept:  # the answer's plain item is stored for the turn's owner, capped at 0.9
            assert [f.confidence for f in used] == [0.9], facts
        else:  # every item of the answer was dropped
            assert used == [], facts
        assert not any("globex" in f.key or "bob" in f.key for f in facts), [f.key for f in facts]
    # what was sent: the turn inside its delimiters, the fake ones neutralised
    sent = api.bodies[-1]["messages"][0]["content"]
    text_sent = sent if isinstance(sent, str) else " ".join(b.get("text", "") for b in sent)
    # one real turn: the fake closing tag is neutralised, the fake system block stays data
    assert text_sent.count("</turn>") == 1 and text_sent.rstrip().endswith("</turn>")
    assert text_sent.count("<turn") == 1 and "[/turn] <system>" in text_sent
