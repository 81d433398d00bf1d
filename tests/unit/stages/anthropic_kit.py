"""What the Claude extractor's tests share: a turn, a tool-call fact, and the stand-in.

The three test modules of :mod:`memgate.stages.extract_anthropic` (the path itself, its
cache, and its distrust of the answer and the network) build the same turn and fact and
talk to the same local stand-in (:mod:`tests.unit.stages.anthropic_standin`) through the
real SDK: the fixtures ``api`` and ``client`` are in this folder's conftest.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memgate.core.events import TurnEvent

#: long enough for the redaction of a key (the ``[API_KEY]`` mask) to read it as one
API_KEY = "test-" + "key-" + "standin-0123456789"
MODEL = "claude-haiku-4-5"
TS = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)


def turn(content: str = "From now on I use Neovim as my editor.", **kw: Any) -> TurnEvent:
    """A user turn of tenant ``acme``, user ``u1``; ``kw`` overrides any field."""
    data: dict[str, Any] = {
        "tenant_id": "acme",
        "user_id": "u1",
        "session_id": "s1",
        "turn_id": "t1",
        "role": "user",
        "content": content,
        "ts": TS,
    }
    data.update(kw)
    return TurnEvent.model_validate(data)


def fact(**kw: Any) -> dict[str, Any]:
    """One item of the ``record_facts`` tool call; ``kw`` overrides any field."""
    item: dict[str, Any] = {
        "type": "preference",
        "subject": "user",
        "predicate": "uses_tool:editor",
        "object": "Neovim",
        "confidence": 0.9,
    }
    item.update(kw)
    return item
