"""The Claude extractor's answer cache and its fallback, against the local stand-in.

Real SDK, real HTTP (tests/unit/stages/anthropic_standin.py counts and checks every
request), a real SQLite cache file (memgate.sinks.extract_cache).
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

import anthropic
import pytest

from memgate.core.errors import AuthenticationError
from memgate.core.events import DecisionRecord, Stage, TriagedTurn
from memgate.sinks.extract_cache import SQLiteAnswerCache
from memgate.stages import extract_anthropic
from memgate.stages.extract import RuleExtractor
from memgate.stages.extract_anthropic import PROMPT_VERSION, AnthropicExtractor
from memgate.streams.metrics import Metrics
from memgate.streams.pipeline import ExtractStep
from memgate.streams.topology import effects
from tests.unit.stages.anthropic_kit import API_KEY, MODEL, fact, turn
from tests.unit.stages.anthropic_standin import (
    AnthropicStandIn,
    bad_request,
    error_reply,
    malformed_items_reply,
    rate_limited,
    server_error,
    slow,
    text_reply,
    tool_use_reply,
)

HMAC = b"0123456789abcdef0123456789abcdef"






@pytest.fixture
def cache(tmp_path: Path) -> SQLiteAnswerCache:
    return SQLiteAnswerCache(tmp_path / "extract_cache.sqlite3", key=HMAC, max_entries=100)


def make(
    client: anthropic.Anthropic, cache: SQLiteAnswerCache | None = None, **kw: Any
) -> AnthropicExtractor:
    kw.setdefault("fallback", RuleExtractor())
    kw.setdefault("model", MODEL)
    return AnthropicExtractor(client, sleep=lambda _s: None, cache=cache, **kw)


# ------------------------------------------------------------------------ the cache


def test_a_cache_hit_makes_no_request_and_gives_the_same_facts(
    api: AnthropicStandIn, client: anthropic.Anthropic, cache: SQLiteAnswerCache
) -> None:
    ex = make(client, cache)
    api.enqueue(tool_use_reply([fact()]))
    first = ex.extract_reported(turn())
    second = ex.extract_reported(turn())
    assert len(api.requests) == 1
    assert first.report["cache"] == "miss" and second.report["cache"] == "hit"
    assert [f.model_dump() for f in second.facts] == [f.model_dump() for f in first.facts]
    assert ex.stats.cache_hits == 1 and ex.stats.calls == 1
    # a new extractor on the same file (the next run) makes no request either
    again = make(client, cache).extract_reported(turn())
    assert again.report["cache"] == "hit" and len(api.requests) == 1


def test_the_key_is_model_prompt_version_masked_text_and_user(
    api: AnthropicStandIn,
    client: anthropic.Anthropic,
    cache: SQLiteAnswerCache,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make(client, cache).extract(turn())
    assert len(api.requests) == 1
    make(client, cache, model="claude-sonnet-4-5").extract(turn())  # another model
    assert len(api.requests) == 2
    make(client, cache).extract(turn("From now on I use Helix as my editor."))  # other text
    assert len(api.requests) == 3
    make(client, cache).extract(turn(user_id="u2"))  # the same text of another user
    assert len(api.requests) == 4
    monkeypatch.setattr(extract_anthropic, "PROMPT_VERSION", PROMPT_VERSION + "-next")
    make(client, cache).extract(turn())  # a changed prompt
    assert len(api.requests) == 5
    monkeypatch.undo()
    make(client, cache).extract(turn())  # all of them cached
    assert len(api.requests) == 5


def test_nothing_raw_is_sent_keyed_or_cached(
    api: AnthropicStandIn, client: anthropic.Anthropic, cache: SQLiteAnswerCache
) -> None:
    email = "zoe.quarrington@example.org"
    ex = make(client, cache)
    t = turn(f"Please remember that my work address is {email} and I use Neovim.")
    api.enqueue(tool_use_reply([fact()]))
    ex.extract(t)
    sent = api.raw_bodies()[0].decode()
    assert email not in sent and "[EMAIL]" in sent
    disk = cache.path.read_bytes()
    assert email.encode() not in disk and b"[EMAIL]" not in disk  # the turn is not stored
    # the key is keyed: neither an unkeyed digest of what was sent nor of the raw text
    rendered = ex.render_turn(t)
    for material in (rendered, "\x00".join((MODEL, PROMPT_VERSION, rendered)), t.content):
        assert hashlib.sha256(material.encode()).hexdigest().encode() not in disk
    assert cache.count("acme", "u1") == 1


@pytest.mark.parametrize(
    "answer",
    [text_reply(), tool_use_reply([fact()], stop_reason="max_tokens"),
     malformed_items_reply([{"type": "nonsense"}])],
    ids=["no_tool_use", "max_tokens", "no_valid_item"],
)
def test_an_unusable_answer_is_not_cached(
    api: AnthropicStandIn, client: anthropic.Anthropic, cache: SQLiteAnswerCache, answer: Any
) -> None:
    ex = make(client, cache)
    api.enqueue(answer)
    ex.extract(turn())
    ex.extract(turn())
    assert len(api.requests) == 2 and cache.count() == 1  # the second, valid answer


def test_an_answer_that_echoes_something_sensitive_is_not_cached(
    api: AnthropicStandIn, client: anthropic.Anthropic, cache: SQLiteAnswerCache
) -> None:
    ex = make(client, cache)
    api.enqueue(tool_use_reply([fact(predicate="works_at", object="Acme, mail zoe@example.org")]))
    ex.extract(turn())
    assert cache.count() == 0 and ex.stats.dropped["cache_refused_sensitive"] == 1
    assert b"zoe@example.org" not in cache.path.read_bytes()


def test_the_cache_is_bounded_and_evicts_the_least_recently_used(
    api: AnthropicStandIn, client: anthropic.Anthropic, tmp_path: Path
) -> None:
    small = SQLiteAnswerCache(tmp_path / "c.sqlite3", key=HMAC, max_entries=2)
    ex = make(client, small)
    a, b, c = (turn(f"I use tool {x} every day.", turn_id=x) for x in "abc")
    ex.extract(a)
    ex.extract(b)
    ex.extract(a)  # a hit: a is now the most recently used
    ex.extract(c)  # evicts b
    assert small.count() == 2 and len(api.requests) == 3
    ex.extract(a)
    assert len(api.requests) == 3
    ex.extract(b)
    assert len(api.requests) == 4


def test_a_broken_cache_file_is_a_miss_not_a_failure(
    api: AnthropicStandIn, client: anthropic.Anthropic, tmp_path: Path
) -> None:
    path = tmp_path / "c.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    ex = make(client, SQLiteAnswerCache(path, key=HMAC))
    api.enqueue(tool_use_reply([fact()]))
    assert [f.object for f in ex.extract(turn())] == ["Neovim"]


# ---------------------------------------------------------------------- the fallback


@pytest.mark.parametrize(
    ("replies", "reason"),
    [
        ([text_reply()], "invalid:no_tool_use"),
        ([tool_use_reply([fact()], stop_reason="max_tokens")], "invalid:max_tokens"),
        ([tool_use_reply(tool_input={"facts": {"not": "a list"}})], "invalid:malformed_json"),
        ([malformed_items_reply([{"type": "nonsense"}, fact(confidence="high")])],
         "invalid:no_valid_item"),
        ([bad_request()], "rejected:http_400"),
        ([error_reply(413, "request_too_large", "Request exceeds the maximum size")],
         "rejected:http_413"),
        ([rate_limited(retry_after=0)] * 4, "unavailable:rate_limited"),
        ([server_error()] * 4, "unavailable:http_500"),
    ],
)
def test_a_failed_turn_is_read_by_the_offline_extractor_and_reported(
    api: AnthropicStandIn,
    client: anthropic.Anthropic,
    replies: list[Any],
    reason: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ex = make(client)
    api.enqueue(*replies)
    with caplog.at_level(logging.WARNING, logger="memgate.stages.extract_anthropic"):
        out = ex.extract_reported(turn("I use vim as my editor."))
    assert [(f.object, f.extractor) for f in out.facts] == [("vim", "rules")]
    # the requests that failed transiently and were tried again: all but the last of four
    kind = reason.removeprefix("unavailable:")
    retried = {f"retries.{kind}": "3"} if reason.startswith("unavailable:") else {}
    assert out.report == {"answered_by": "rules", "cache": "off", "fallback": reason, **retried}
    assert ex.stats.fallback_reasons == {reason: 1}
    assert len(api.requests) == len(replies)
    assert any("t1" in r.getMessage() and "rules" in r.getMessage() for r in caplog.records)


def test_a_timeout_after_the_retries_falls_back(api: AnthropicStandIn) -> None:
    c = anthropic.Anthropic(api_key=API_KEY, base_url=api.base_url, max_retries=0, timeout=0.2)
    ex = make(c, max_attempts=2)
    api.enqueue(*[slow(tool_use_reply([fact()]), 0.6)] * 2)
    out = ex.extract_reported(turn("I use vim as my editor."))
    assert out.report["fallback"] == "unavailable:timeout"
    assert [f.extractor for f in out.facts] == ["rules"]
    c.close()


def test_the_fallback_is_in_the_audit_decision_and_the_metrics(
    api: AnthropicStandIn, client: anthropic.Anthropic
) -> None:
    step = ExtractStep(extractor=make(client))
    api.enqueue(bad_request())
    outputs = step(TriagedTurn(turn=turn("I use vim as my editor."), reason="kept"))
    (decision,) = [o for o in outputs if isinstance(o, DecisionRecord)]
    assert decision.verdict == "facts"  # the turn is not lost
    assert decision.details["fallback"] == "rejected:http_400"
    assert decision.details["answered_by"] == "rules"
    metrics = Metrics()
    metrics.record_effects(Stage.EXTRACT, effects(Stage.EXTRACT, outputs))
    value = metrics.registry.get_sample_value(
        "memgate_extractor_fallbacks_total",
        {"extractor": decision.policy_version, "reason": "rejected:http_400"},
    )
    assert value == 1.0


def test_cache_lookups_are_counted(
    api: AnthropicStandIn, client: anthropic.Anthropic, cache: SQLiteAnswerCache
) -> None:
    step = ExtractStep(extractor=make(client, cache))
    metrics = Metrics()
    for _ in range(3):
        outputs = step(TriagedTurn(turn=turn(), reason="kept"))
        metrics.record_effects(Stage.EXTRACT, effects(Stage.EXTRACT, outputs))
    sample = metrics.registry.get_sample_value
    assert sample("memgate_extract_cache_total", {"result": "miss"}) == 1.0
    assert sample("memgate_extract_cache_total", {"result": "hit"}) == 2.0
    assert len(api.requests) == 1


# ------------------------------------------------------------ the API key in messages


def test_an_error_body_that_echoes_the_key_is_masked(
    api: AnthropicStandIn, client: anthropic.Anthropic
) -> None:
    ex = make(client)
    api.enqueue(error_reply(401, "authentication_error", f"invalid x-api-key: {API_KEY}"))
    with pytest.raises(AuthenticationError) as info:
        ex.extract(turn())
    assert API_KEY not in str(info.value) and "[API_KEY]" in str(info.value)
