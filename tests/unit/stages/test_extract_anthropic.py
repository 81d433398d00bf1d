"""The Claude extractor against a local stand-in of the Messages API (real SDK, real HTTP)."""

from __future__ import annotations

import json
import random
import socket
import string
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import anthropic
import pytest
from pydantic import SecretStr

from memgate.core.errors import (
    AuthenticationError,
    ExtractionError,
    FatalError,
    TransientError,
    is_fatal,
    is_transient,
)
from memgate.core.events import FactType, Outcome, stable_id
from memgate.stages.extract_anthropic import (
    RECORD_FACTS_TOOL,
    SYSTEM_PROMPT,
    AnthropicExtractor,
    _retry_after,
)
from tests.unit.stages.anthropic_kit import API_KEY, MODEL, TS, fact, turn
from tests.unit.stages.anthropic_standin import (
    AnthropicStandIn,
    bad_request,
    malformed_items_reply,
    not_found,
    rate_limited,
    server_error,
    text_reply,
    tool_use_reply,
    unauthorized,
)


def fake_anthropic_key() -> str:
    # Built at run time so that secret scanners do not flag this file. Random-looking on
    # purpose: the detector treats low-entropy values ("xxxx...") as placeholders.
    rng = random.Random(20240501)
    body = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(40))
    return "sk-ant-" + "api03-" + body






@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def ex(client: anthropic.Anthropic, sleeps: list[float]) -> AnthropicExtractor:
    # backoff recorded, not slept; no fallback: a turn that still fails raises
    return AnthropicExtractor(client, model=MODEL, sleep=sleeps.append)


# ----------------------------------------------------------------- the request


def test_request_carries_tool_schema_choice_model_and_prompt(
    api: AnthropicStandIn, ex: AnthropicExtractor
) -> None:
    ex.extract(turn())

    assert len(api.requests) == 1
    req = api.requests[0]
    assert req.method == "POST" and req.path == "/v1/messages"
    assert req.api_key == API_KEY  # SDK 2.x: Authorization: Bearer, not x-api-key
    assert req.headers["anthropic-version"]
    body = req.body
    assert body["model"] == MODEL
    assert body["max_tokens"] == 1024
    assert body["tools"] == [json.loads(json.dumps(RECORD_FACTS_TOOL))]
    assert body["tool_choice"] == {"type": "tool", "name": "record_facts"}
    item_schema = body["tools"][0]["input_schema"]["properties"]["facts"]["items"]
    assert item_schema["properties"]["type"]["enum"] == [t.value for t in FactType]
    assert item_schema["required"] == ["type", "subject", "predicate", "object", "confidence"]

    system = body["system"]
    assert system == SYSTEM_PROMPT
    for needle in (
        "Durable",
        "Reusable",
        "Attributable",
        "Permitted",
        "0.2: a guess from one ambiguous turn",
        "0.5: an inference from a clear statement",
        "0.9: stated explicitly by the user",
        "1.0: imported from a system of record",
        "small talk",
        "the assistant's own opinions",
        "keep it short for this one",
        "hypotheticals",
        "questions",
        "credentials",
        "health",
        "payment",
        "I always prefer",
        "please remember",
        "from now on",
        "we moved from X to Y",
        "snake_case",
        "uses_tool:editor",
        "Zero facts is the common, normal outcome: return an empty list when nothing qualifies",
    ):
        assert needle in system, needle

    (message,) = body["messages"]
    assert message["role"] == "user"
    assert "From now on I use Neovim as my editor." in message["content"]
    assert 'session="s1"' in message["content"]
    assert "2024-05-01T10:00:00Z" in message["content"]


def test_max_tokens_and_model_are_configurable(
    api: AnthropicStandIn, client: anthropic.Anthropic
) -> None:
    ex = AnthropicExtractor(client, model="claude-haiku-4-5-20251001", max_tokens=256)
    assert ex.name == "anthropic" and ex.version == "1.2.0+claude-haiku-4-5-20251001"
    ex.extract(turn())
    assert api.bodies[0]["model"] == "claude-haiku-4-5-20251001"
    assert api.bodies[0]["max_tokens"] == 256


def test_secrets_and_pii_are_masked_before_sending(
    api: AnthropicStandIn, ex: AnthropicExtractor
) -> None:
    email = "jane.doe@example.com"
    phone = "+1 415 555 0142"
    key = fake_anthropic_key()
    session_email = "jane@example.org"  # ids may hold an @, so they are masked too
    content = (
        f"Please remember my work email is {email} and my phone is {phone}. "
        f"Here is my key: {key}. Also I take insulin every day."
    )
    ex.extract(turn(content, session_id=session_email))

    assert len(api.requests) == 1
    sent = api.bodies[0]["messages"][0]["content"]
    assert "[EMAIL]" in sent and "[PHONE]" in sent and "[API_KEY]" in sent
    assert "[HEALTH]" in sent and "insulin" not in sent
    for raw in (email, phone, key, session_email, "415 555"):
        for req in api.requests:
            assert raw.encode() not in req.raw
            assert raw not in json.dumps(req.body)
            assert all(raw not in v for v in req.headers.values())


def test_an_injected_masker_is_used(api: AnthropicStandIn, client: anthropic.Anthropic) -> None:
    seen: list[str] = []

    def masker(text: str) -> str:
        seen.append(text)
        return text.replace("secret-thing", "[MASKED]")

    ex = AnthropicExtractor(client, model=MODEL, masker=masker)
    ex.extract(turn("my secret-thing is here"))
    assert "my secret-thing is here" in seen and "s1" in seen
    assert "secret-thing" not in api.requests[0].raw.decode()


@pytest.mark.parametrize("role", ["assistant", "system", "tool"])
def test_non_user_turns_send_nothing(
    api: AnthropicStandIn, ex: AnthropicExtractor, role: str
) -> None:
    assert ex.extract(turn("I always prefer Vim.", role=role)) == []
    assert api.requests == []
    assert ex.stats.calls == 0 and ex.stats.skipped_roles[role] == 1


def test_blank_user_turn_sends_nothing(api: AnthropicStandIn, ex: AnthropicExtractor) -> None:
    assert ex.extract(turn("   \n ")) == []
    assert api.requests == []
    assert ex.stats.dropped["empty"] == 1


# ------------------------------------------------------------------ the answer


def test_valid_answer_becomes_candidate_facts(
    api: AnthropicStandIn, ex: AnthropicExtractor
) -> None:
    api.enqueue(
        tool_use_reply(
            [
                fact(rationale="stated standing preference"),
                fact(
                    type="event",
                    predicate="lives_in",
                    object="Berlin",
                    confidence=0.9,
                    valid_from="2024-03-01T09:00:00+02:00",
                ),
                fact(
                    type="correction",
                    predicate="uses_tool:ci",
                    object="GitHub Actions",
                    confidence=0.5,
                    valid_from="2024-04-15",
                ),
                fact(predicate="likes", object="  hiking ", multi_valued=True, valid_from=None),
            ]
        )
    )
    t = turn(outcome="success", confirmed=True)
    facts = ex.extract(t)

    assert len(facts) == 4
    first = facts[0]
    assert first.candidate_id == stable_id("acme", "t1", "0")
    assert (first.tenant_id, first.user_id, first.session_id) == ("acme", "u1", "s1")
    assert first.type is FactType.PREFERENCE
    assert (first.subject, first.predicate, first.object) == ("user", "uses_tool:editor", "Neovim")
    assert first.confidence == 0.9
    assert first.valid_from == TS  # none given: the turn's time
    assert first.rationale == "stated standing preference"
    assert first.source_turn_ids == ["t1"]
    assert first.extractor == "anthropic" and first.extractor_version == f"1.2.0+{MODEL}"
    assert first.turn_ts == TS
    assert first.outcome is Outcome.SUCCESS and first.confirmed is True
    assert first.multi_valued is False

    assert facts[1].type is FactType.EVENT
    assert facts[1].valid_from == datetime(2024, 3, 1, 7, 0, tzinfo=UTC)
    assert facts[1].valid_from.utcoffset() == timedelta(0)
    assert facts[2].type is FactType.CORRECTION
    assert facts[2].valid_from == datetime(2024, 4, 15, tzinfo=UTC)
    assert facts[3].multi_valued is True and facts[3].object == "hiking"
    assert facts[3].valid_from == TS
    assert [f.candidate_id for f in facts] == [stable_id("acme", "t1", str(i)) for i in range(4)]

    assert ex.stats.calls == 1 and ex.stats.facts == 4
    assert sum(ex.stats.dropped.values()) == 0
    assert ex.stats.input_tokens > 0 and ex.stats.output_tokens > 0


def test_same_turn_gives_the_same_ids(api: AnthropicStandIn, ex: AnthropicExtractor) -> None:
    api.enqueue(tool_use_reply([fact()]), tool_use_reply([fact()]))
    first = ex.extract(turn())
    again = ex.extract(turn())
    assert len(first) == 1
    assert [f.candidate_id for f in again] == [f.candidate_id for f in first]
    assert again == first


def test_zero_facts_is_a_normal_answer(api: AnthropicStandIn, ex: AnthropicExtractor) -> None:
    api.enqueue(tool_use_reply([]))
    assert ex.extract(turn("thanks, that helps")) == []
    assert ex.stats.calls == 1 and sum(ex.stats.dropped.values()) == 0


def test_malformed_items_are_dropped_and_counted(
    api: AnthropicStandIn, ex: AnthropicExtractor
) -> None:
    api.enqueue(
        malformed_items_reply(
            [
                fact(object="Helix"),  # valid, index 0
                {"type": "preference", "subject": "user", "predicate": "likes", "confidence": 0.9},
                fact(confidence=1.5),
                fact(type="opinion"),
                "not an object",
                fact(subject="   "),
                fact(confidence="high"),
                fact(confidence=True),
                fact(predicate="p" * 500),
                fact(rationale=["not", "a", "string"]),
                fact(object="Zed", valid_from="next tuesday"),  # valid, index 10
            ]
        )
    )
    facts = ex.extract(turn())
    assert [f.object for f in facts] == ["Helix", "Zed"]
    assert facts[0].candidate_id == stable_id("acme", "t1", "0")
    assert facts[1].candidate_id == stable_id("acme", "t1", "10")
    assert facts[1].valid_from == TS  # unparseable date: the turn's time
    assert ex.stats.corrected["valid_from_unparseable"] == 1
    assert ex.stats.dropped == {
        "bad_object": 1,
        "bad_confidence": 3,
        "bad_type": 1,
        "not_an_object": 1,
        "bad_subject": 1,
        "bad_predicate": 1,
        "bad_rationale": 1,
    }
    assert ex.stats.facts == 2


def test_overlong_rationale_is_truncated_not_dropped(
    api: AnthropicStandIn, ex: AnthropicExtractor
) -> None:
    api.enqueue(tool_use_reply([fact(rationale="r" * 5000)]))
    (f,) = ex.extract(turn())
    assert len(f.rationale) == 1000


@pytest.mark.parametrize(
    "tool_input", [{}, {"facts": "not a list"}, {"facts": {"type": "fact"}}, {"facts": None}]
)
def test_facts_missing_or_not_a_list_is_malformed(
    api: AnthropicStandIn, ex: AnthropicExtractor, tool_input: dict[str, Any]
) -> None:
    api.enqueue(tool_use_reply(tool_input=tool_input))
    assert ex.extract(turn()) == []
    assert ex.stats.dropped["malformed_json"] == 1


def test_facts_sent_as_a_json_string_are_accepted(
    api: AnthropicStandIn, ex: AnthropicExtractor
) -> None:
    api.enqueue(tool_use_reply(tool_input={"facts": json.dumps([fact()])}))
    assert [f.object for f in ex.extract(turn())] == ["Neovim"]


def test_text_only_answer_gives_nothing(api: AnthropicStandIn, ex: AnthropicExtractor) -> None:
    api.enqueue(text_reply())
    assert ex.extract(turn()) == []
    assert ex.stats.dropped["no_tool_use"] == 1


def test_a_call_of_another_tool_is_no_tool_use(
    api: AnthropicStandIn, ex: AnthropicExtractor
) -> None:
    api.enqueue(tool_use_reply([fact()], name="something_else"))
    assert ex.extract(turn()) == []
    assert ex.stats.dropped["no_tool_use"] == 1


def test_an_answer_cut_off_at_max_tokens_is_discarded(
    api: AnthropicStandIn, ex: AnthropicExtractor
) -> None:
    api.enqueue(tool_use_reply([fact(object="Neov")], stop_reason="max_tokens"))
    assert ex.extract(turn()) == []
    assert ex.stats.dropped["max_tokens"] == 1


# ------------------------------------------------------------------ the errors


def test_429_is_retried_and_still_transient_after_the_last_attempt(
    api: AnthropicStandIn, ex: AnthropicExtractor, sleeps: list[float]
) -> None:
    api.enqueue(*[rate_limited(retry_after=2)] * 4)
    with pytest.raises(TransientError) as info:
        ex.extract(turn())
    assert info.value.retry_after == 2.0
    assert is_transient(info.value)
    assert ex.stats.transient["rate_limited"] == 4
    assert len(api.requests) == 4  # the turn was tried max_attempts times
    assert sleeps == [2.0, 2.0, 2.0]  # at least retry-after between attempts


def test_500_is_transient(api: AnthropicStandIn, ex: AnthropicExtractor) -> None:
    api.enqueue(*[server_error()] * 4)
    with pytest.raises(TransientError) as info:
        ex.extract(turn())
    assert info.value.retry_after is None
    assert "500" in str(info.value)


def test_unreachable_api_is_transient_without_a_fallback() -> None:
    with socket.socket() as s:  # a port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ex = AnthropicExtractor.from_settings(
        SecretStr(API_KEY),
        base_url=f"http://127.0.0.1:{port}",
        max_retries=0,
        timeout=5,
        fallback_to_rules=False,
    )
    with pytest.raises(TransientError):
        ex.extract(turn())
    assert ex.stats.transient["connection"] == 1


def test_400_is_an_extraction_error(api: AnthropicStandIn, ex: AnthropicExtractor) -> None:
    api.enqueue(bad_request())
    with pytest.raises(ExtractionError) as info:
        ex.extract(turn())
    assert "400" in str(info.value) and "max_tokens" in str(info.value)
    assert not is_transient(info.value)
    assert ex.stats.dropped["api_error"] == 1


def test_401_is_a_fatal_authentication_error(
    api: AnthropicStandIn, ex: AnthropicExtractor
) -> None:
    api.enqueue(unauthorized())
    with pytest.raises(AuthenticationError, match="API key") as info:
        ex.extract(turn())
    assert is_fatal(info.value) and not is_transient(info.value)
    assert not isinstance(info.value, ExtractionError)  # never reported per turn
    assert "\n" not in str(info.value)
    assert ex.stats.dropped["api_error"] == 1
    assert len(api.requests) == 1  # not retried


def test_404_names_the_model(api: AnthropicStandIn, client: anthropic.Anthropic) -> None:
    ex = AnthropicExtractor(client, model="claude-nope")
    api.enqueue(not_found("claude-nope"))
    with pytest.raises(FatalError, match=r"'claude-nope'.*model name"):
        ex.extract(turn())


def test_from_settings_talks_to_the_api(api: AnthropicStandIn) -> None:
    ex = AnthropicExtractor.from_settings(
        SecretStr(API_KEY), model="claude-haiku-4-5", base_url=api.base_url, max_retries=0
    )
    api.enqueue(tool_use_reply([fact()]))
    assert [f.object for f in ex.extract(turn())] == ["Neovim"]
    assert api.requests[0].api_key == API_KEY
    assert ex.version == "1.2.0+claude-haiku-4-5"


def test_a_wrong_key_is_rejected_by_the_standin(api: AnthropicStandIn) -> None:
    ex = AnthropicExtractor.from_settings(
        SecretStr("wrong-key"), base_url=api.base_url, max_retries=0
    )
    with pytest.raises(AuthenticationError, match=r"API key.*401"):
        ex.extract(turn())


def test_invalid_settings_fail_early(client: anthropic.Anthropic) -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        AnthropicExtractor(client, model=MODEL, max_tokens=0)
    with pytest.raises(ValueError, match="api_key"):
        AnthropicExtractor.from_settings(SecretStr(""))


def test_retry_after_forms() -> None:
    assert _retry_after({"retry-after": "2"}) == 2.0
    assert _retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert _retry_after({}) is None
    assert _retry_after({"retry-after": "soon"}) is None
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 25 <= (_retry_after({"retry-after": later}) or 0) <= 31


# -------------------------------------------------------------- the stand-in


def test_standin_rejects_what_the_real_api_rejects() -> None:
    with AnthropicStandIn() as standin:
        request = urllib.request.Request(
            standin.base_url + "/v1/messages",
            data=json.dumps({"model": "m", "max_tokens": 0, "messages": []}).encode(),
            headers={"content-type": "application/json"},
            method="POST",
        )
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=5)
        assert info.value.code == 400
        err = json.loads(info.value.read())
        assert err["type"] == "error" and err["error"]["type"] == "invalid_request_error"
        text = "\n".join(standin.violations)
        for problem in ("x-api-key", "anthropic-version", "max_tokens", "messages", "tools"):
            assert problem in text, problem
        assert len(standin.requests) == 1


def test_standin_violation_surfaces_through_the_sdk() -> None:
    with AnthropicStandIn() as standin:
        c = anthropic.Anthropic(api_key=API_KEY, base_url=standin.base_url, max_retries=0)
        with pytest.raises(anthropic.BadRequestError):
            c.messages.create(
                model=MODEL, max_tokens=10, messages=[{"role": "user", "content": "hi"}]
            )
        c.close()
        assert any("tools" in v for v in standin.violations)
