"""Shadow mode: a second extractor reads every kept turn; where it differs, the audit says so.

Through the extract step (the Claude extractor against the local stand-in as the
primary, the offline rule extractor as the shadow) and through `memgate ingest`
on the embedded stores (offline extractors both), the report and `memgate forget`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anthropic
import pytest
from typer.testing import CliRunner

from memgate.cli import app
from memgate.core.events import DisagreementRecord, TriagedTurn, TurnEvent
from memgate.stages.detectors import Detector
from memgate.stages.extract import RuleExtractor
from memgate.stages.extract_anthropic import AnthropicExtractor
from memgate.streams.pipeline import ExtractStep
from memgate.streams.topology import decode_audit, encode_audit
from tests.unit.stages.anthropic_standin import AnthropicStandIn, running_standin, tool_use_reply

API_KEY = "test-" + "key-" + "standin"
TS = datetime(2024, 5, 1, 10, 0, tzinfo=UTC)


def turn(content: str, turn_id: str = "t1") -> TriagedTurn:
    t = TurnEvent(tenant_id="acme", user_id="u1", session_id="s1", turn_id=turn_id,
                  role="user", content=content, ts=TS)  # type: ignore[arg-type]
    return TriagedTurn(turn=t, reason="kept")


def claude_fact(obj: str, predicate: str = "uses_tool:editor") -> dict[str, Any]:
    return {"type": "preference", "subject": "user", "predicate": predicate, "object": obj,
            "confidence": 0.9}


@pytest.fixture
def api() -> Iterator[AnthropicStandIn]:
    with running_standin(api_key=API_KEY) as standin:
        yield standin


@pytest.fixture
def step(api: AnthropicStandIn) -> Iterator[ExtractStep]:
    client = anthropic.Anthropic(api_key=API_KEY, base_url=api.base_url, max_retries=0, timeout=5)
    primary = AnthropicExtractor(client, model="claude-haiku-4-5", fallback=RuleExtractor())
    yield ExtractStep(extractor=primary, shadow=RuleExtractor(), detector=Detector())
    client.close()


def _disagreements(outputs: list[Any]) -> list[DisagreementRecord]:
    return [o for o in outputs if isinstance(o, DisagreementRecord)]


def test_agreement_writes_nothing(api: AnthropicStandIn, step: ExtractStep) -> None:
    api.enqueue(tool_use_reply([claude_fact("vim")]))
    outputs = step(turn("I use vim as my editor."))
    assert _disagreements(outputs) == []
    assert [getattr(o, "extractor", None) for o in outputs[:1]] == ["anthropic"]


def test_a_different_value_is_a_value_disagreement(
    api: AnthropicStandIn, step: ExtractStep
) -> None:
    api.enqueue(tool_use_reply([claude_fact("Neovim")]))
    outputs = step(turn("I use vim as my editor."))
    (rec,) = _disagreements(outputs)
    assert (rec.kind, rec.primary_keep, rec.shadow_keep) == ("value", True, True)
    assert rec.only_primary == ["user/uses_tool:editor = Neovim"]
    assert rec.only_shadow == ["user/uses_tool:editor = vim"]
    assert rec.primary.startswith("anthropic-") and rec.shadow.startswith("rules-")
    # only the primary's candidates go on
    assert [o.object for o in outputs if hasattr(o, "object")] == ["Neovim"]


def test_keep_and_key_disagreements(api: AnthropicStandIn, step: ExtractStep) -> None:
    api.enqueue(tool_use_reply([]))
    (keep,) = _disagreements(step(turn("I use vim as my editor.")))
    assert (keep.kind, keep.primary_keep, keep.shadow_keep) == ("keep", False, True)
    api.enqueue(tool_use_reply([claude_fact("Acme", predicate="works_at")]))
    (key,) = _disagreements(step(turn("I use vim as my editor.", "t2")))
    assert key.kind == "key"


def test_disagreements_hold_masked_values_only(api: AnthropicStandIn, step: ExtractStep) -> None:
    email = "zoe.quarrington@example.org"
    api.enqueue(tool_use_reply([claude_fact(f"mail {email}", predicate="works_at")]))
    (rec,) = _disagreements(step(turn(f"My work email is {email} and I use vim as my editor.")))
    text = json.dumps(rec.model_dump(mode="json"))
    assert email not in text and "[EMAIL]" in text
    assert decode_audit(encode_audit(rec)) == rec  # the worker's audit topic carries it


def _cli(data: Path, *args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(
        app, ["--embedder", "hashing", "--data-dir", str(data), *args],
        env={"MEMGATE_SHADOW_EXTRACTOR": "statements"},
    )
    assert result.exit_code == code, result.output
    return result


def test_ingest_in_shadow_mode_reports_and_forgets_disagreements(tmp_path: Path) -> None:
    rows = [
        ("u1", "t1", "I use vim as my editor."),
        ("u1", "t2", "Our staging cluster runs on Hetzner in Falkenstein."),
        ("u1", "t3", "I moved to Lisbon last month and work at Quoxtrel now."),
        ("u2", "t4", "I use vim as my editor."),
        ("u2", "t5", "Our staging cluster runs on Hetzner in Falkenstein."),
    ]
    path = tmp_path / "turns.jsonl"
    path.write_text("".join(
        json.dumps({"tenant_id": "acme", "user_id": u, "session_id": "s1", "turn_id": t,
                    "role": "user", "content": c, "ts": "2024-03-01T09:00:00Z"}) + "\n"
        for u, t, c in rows), encoding="utf-8")
    data = tmp_path / "data"
    _cli(data, "ingest", str(path))
    out = _cli(data, "audit", "disagreements", "--json").output
    report = json.loads(out)
    assert report, out
    assert {r["shadow"].split("-")[0] for r in report} == {"statements"}
    counted = _cli(data, "audit", "--sql",
                   "SELECT user_id, count() FROM disagreements GROUP BY user_id ORDER BY user_id",
                   "--json").output
    per_user = {r["user_id"]: r["count()"] for r in json.loads(counted)}
    assert per_user.get("u1", 0) >= 1 and per_user.get("u2", 0) >= 1, per_user

    _cli(data, "forget", "-t", "acme", "-u", "u1", "--yes")
    left = json.loads(_cli(data, "audit", "--sql",
                           "SELECT user_id, only_primary, only_shadow FROM disagreements",
                           "--json").output)
    # u1 is gone; what forget keeps is a content-free copy under a keyed-hash id (so the
    # counts of the reports still add up: issue 12), with no masked value left in it
    assert "u1" not in {r["user_id"] for r in left}
    assert "u2" in {r["user_id"] for r in left}
    kept = [r for r in left if r["user_id"] != "u2"]
    assert kept and all(r["user_id"].startswith("erased:") for r in kept)
    assert all(r["only_primary"] == [] and r["only_shadow"] == [] for r in kept)


def test_the_shadow_must_differ_from_the_primary(tmp_path: Path) -> None:
    path = tmp_path / "turns.jsonl"
    path.write_text("", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["--embedder", "hashing", "--data-dir", str(tmp_path / "d"), "ingest", str(path)],
        env={"MEMGATE_EXTRACTOR": "rules", "MEMGATE_SHADOW_EXTRACTOR": "rules"},
    )
    assert result.exit_code == 2 and "shadow_extractor" in result.output, result.output
    assert "Traceback" not in result.output


def test_a_failing_shadow_never_fails_the_turn_and_is_not_compared(
    api: AnthropicStandIn,
) -> None:
    from tests.unit.stages.anthropic_standin import bad_request

    client = anthropic.Anthropic(api_key=API_KEY, base_url=api.base_url, max_retries=0, timeout=5)
    shadow = AnthropicExtractor(client, model="claude-haiku-4-5")  # no fallback, as a shadow
    step = ExtractStep(extractor=RuleExtractor(), shadow=shadow, detector=Detector())
    api.enqueue(bad_request())
    outputs = step(turn("I use vim as my editor."))
    assert [getattr(o, "object", None) for o in outputs[:1]] == ["vim"]
    assert _disagreements(outputs) == []
    client.close()
