"""The Claude extractor's burst of faults of the fault suite (tests/faults/claude_burst.py),
in process: the script, the oracle and the designed outcomes that the case on the real
broker (tests/faults/test_faults_claude_int.py) relies on, checked without Kafka.

A faulted in-process run (real SDK and HTTP against the stand-in, the product's extractor
with its fallback, the in-process runner on embedded stores, LoCoMo turns and four turns
carrying secrets) holds exactly the facts of the reference run, every turn has its extract
decision with the designed fallback and retries, the metrics count them, and the stand-in
saw the expected model and masked text only. The comparison can fail: against the
correct answer throughout, the turns handed to the rules differ.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anthropic
import pytest
from prometheus_client import generate_latest

from memgate.backends import build_pipeline
from memgate.core.embedding import HashingEmbedder
from memgate.core.events import TurnEvent
from memgate.core.settings import load_settings
from memgate.inputs import load_locomo
from memgate.sinks.audit import ClickHouseAudit
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.extract import RuleExtractor
from memgate.stages.extract_anthropic import AnthropicExtractor
from memgate.streams.metrics import Metrics
from memgate.streams.runner import InProcessRunner
from tests.datasets import locomo_file
from tests.faults.claude_burst import (
    API_KEY,
    ATTEMPTS,
    FORBIDDEN,
    MODEL,
    PATTERNS,
    READ_BY_RULES,
    RETRY_AFTER_S,
    BurstScript,
    Pattern,
    check_patterns,
    correct_answers,
    extract_decisions,
    interleave,
    labelled,
    outcome_problems,
    reference_script,
    sensitive_turns,
    unmasked_scan,
)
from tests.integration.test_pipeline_int import _records
from tests.unit.stages.anthropic_standin import AnthropicStandIn, rate_limited, tool_use_reply

KEY = "unit-test-hmac-key-0123456789abcdef0123"
TIMEOUT_S = 0.3
START = 3  # the burst begins at the fourth turn asked about


@dataclass
class Run:
    index: EmbeddedIndex
    audit_path: Path
    metrics: Metrics
    sleeps: list[float]
    requests: int
    sent: str  # the text of every message the stand-in was sent


def _turns() -> list[TurnEvent]:
    locomo = load_locomo(locomo_file())[0].turns[:40]
    return interleave(locomo, sensitive_turns(locomo[3::4][:4], locomo[0].tenant_id), every=4)


def _run(tmp: Path, turns: list[TurnEvent], script: BurstScript) -> Run:
    s = load_settings(data_dir=tmp, embedder="hashing", hmac_key=KEY)
    s.data_dir.mkdir(parents=True)
    embedder = HashingEmbedder()
    index = EmbeddedIndex(s.retrieval_path, dim=embedder.dim)
    audit = ClickHouseAudit.embedded(s.audit_path)
    sleeps: list[float] = []
    metrics = Metrics()
    with AnthropicStandIn(
        api_key=API_KEY, forbidden=FORBIDDEN, scan=unmasked_scan(), respond=script
    ) as api:
        client = anthropic.Anthropic(
            api_key=API_KEY, base_url=api.base_url, max_retries=0, timeout=TIMEOUT_S
        )
        # as from_settings builds it (4 attempts, backoff from 0.5 s, the rules behind),
        # with the waits recorded instead of slept
        extractor = AnthropicExtractor(
            client, MODEL, max_attempts=ATTEMPTS, fallback=RuleExtractor(), sleep=sleeps.append
        )
        InProcessRunner(build_pipeline(s, embedder, extractor), index, audit,
                        metrics=metrics).run(turns)  # fmt: skip
        client.close()
        assert api.violations == [], api.violations
        requests = len(api.requests)
        sent = "\n".join(m["content"] for b in api.bodies for m in b["messages"])
    audit.close()
    return Run(index, s.audit_path, metrics, sleeps, requests, sent)


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, ...]]:
    turns = _turns()
    renderer = AnthropicExtractor(anthropic.Anthropic(api_key=API_KEY), MODEL)
    answers, ids = correct_answers(turns, renderer)
    faulted = BurstScript(answers, ids, burst=PATTERNS, start=START, hang_s=TIMEOUT_S * 3)
    got = _run(tmp_path_factory.mktemp("faulted") / "data", turns, faulted)
    reference = reference_script(faulted)
    want = _run(tmp_path_factory.mktemp("reference") / "data", turns, reference)
    yield turns, faulted, got, reference, want
    got.index.close()
    want.index.close()


def _by_user(index: EmbeddedIndex, turns: list[TurnEvent]) -> dict[tuple[str, str], object]:
    return {
        (t, u): _records(index.list_facts(t, u, include_inactive=True))
        for t, u in sorted({(x.tenant_id, x.user_id) for x in turns})
    }


def test_the_pattern_table_states_the_designed_outcomes() -> None:
    check_patterns([*PATTERNS, READ_BY_RULES])
    with pytest.raises(AssertionError):  # the check can fail: a wrong retry count
        check_patterns([Pattern("x", ("timeout",) * ATTEMPTS, "unavailable:timeout",
                                {"timeout": ATTEMPTS})])  # fmt: skip
    with pytest.raises(AssertionError):  # an unusable answer is not retried
        check_patterns([Pattern("x", ("not_a_list", "timeout"), None, {"timeout": 1})])


def test_the_faulted_run_holds_the_reference_facts_and_the_designed_outcomes(
    scenario: tuple[Any, ...],
) -> None:
    turns, faulted, got, reference, want = scenario
    # the burst hit every pattern, on turns asked about from the START-th on
    assert list(faulted.assigned.values()) == list(PATTERNS)
    assert list(faulted.assigned) == faulted.order[START : START + len(PATTERNS)]
    assert faulted.problems == [] and reference.problems == []
    # the facts: whole records, per user, the same in both runs
    assert _by_user(got.index, turns) == _by_user(want.index, turns)
    facts = sum(len(v) for v in _by_user(want.index, turns).values())  # type: ignore[arg-type]
    assert facts > 0
    # the extract decisions: every kept turn once, with the designed fallback and retries
    decided = extract_decisions(got.audit_path)
    ref_decided = extract_decisions(want.audit_path)
    assert outcome_problems(decided, faulted, ref_decided) == []
    assert outcome_problems(ref_decided, reference, decided) == []
    # the metrics count them
    reasons, kinds = faulted.totals()
    page = generate_latest(got.metrics.registry).decode()
    assert labelled(page, "memgate_extractor_fallbacks_total", "reason") == reasons
    assert labelled(page, "memgate_extractor_retries_total", "kind") == kinds
    assert sum(kinds.values()) == len(got.sleeps)
    assert sum(1 for s in got.sleeps if s >= RETRY_AFTER_S) >= kinds["rate_limited"]
    # a request per turn read, and one per retry (a turn whose attempts ran out made
    # ATTEMPTS requests: ATTEMPTS - 1 retried, and the last)
    assert want.requests == len(ref_decided)
    assert got.requests == len(decided) + sum(kinds.values())


def test_the_sensitive_turns_were_sent_masked(scenario: tuple[Any, ...]) -> None:
    turns, faulted, got, *_ = scenario
    zoe = [t.turn_id for t in turns if t.user_id == "zoe"]
    assert set(zoe) <= set(faulted.order)  # each was asked about (the stand-in checked it)
    assert "[EMAIL]" in got.sent and "[API_KEY]" in got.sent and "[PHONE]" in got.sent


def test_the_comparison_fails_against_the_correct_answer_throughout(
    scenario: tuple[Any, ...], tmp_path: Path
) -> None:
    turns, faulted, got, *_ = scenario
    calm = BurstScript(faulted.answers, faulted.ids, hang_s=TIMEOUT_S * 3)
    correct = _run(tmp_path / "correct", turns, calm)
    try:
        a, b = _by_user(got.index, turns), _by_user(correct.index, turns)
        assert a != b
        differ = {i for k in a for i in set(a[k]) ^ set(b[k])}  # type: ignore[arg-type]
        fell_back = set(faulted.fallbacks())
        sources = {s for k in a for i in differ if i in a[k] for s in a[k][i]["source_turn_ids"]}  # type: ignore[index]
        assert sources and sources <= fell_back
        # and the extract decisions differ on every turn that fell back or was retried
        problems = outcome_problems(extract_decisions(correct.audit_path), faulted,
                                    extract_decisions(got.audit_path))  # fmt: skip
        flagged = {line.split(": ", 1)[0] for line in problems}
        assert flagged == set(faulted.fallbacks()) | set(faulted.retries())
    finally:
        correct.index.close()


def test_a_request_for_another_model_or_turn_is_refused_and_listed() -> None:
    script = BurstScript({"<turn>x</turn>": []}, {"<turn>x</turn>": "t1"})
    other_model = {"model": "claude-other", "messages": [{"role": "user", "content": "x"}]}
    assert script(other_model).status == 400
    unknown = {"model": MODEL, "messages": [{"role": "user", "content": "<turn>y</turn>"}]}
    assert script(unknown).status == 400
    assert len(script.problems) == 2 and "claude-other" in script.problems[0]
    known = {"model": MODEL, "messages": [{"role": "user", "content": "<turn>x</turn>"}]}
    assert script(known).status == 200 and script.order == ["t1"]


def test_the_standin_answers_by_its_respond_hook_else_by_its_queue() -> None:
    picked: list[str] = []

    def respond(body: Any) -> Any:
        picked.append(body["model"])
        return rate_limited(3) if body["model"] == "limited" else None

    with AnthropicStandIn(respond=respond) as api:
        api.enqueue(tool_use_reply([]))
        client = anthropic.Anthropic(api_key=API_KEY, base_url=api.base_url, max_retries=0)
        kw: dict[str, Any] = {
            "max_tokens": 10,
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [{"name": "t", "description": "d", "input_schema": {"type": "object"}}],
            "tool_choice": {"type": "tool", "name": "t"},
        }
        with pytest.raises(anthropic.RateLimitError):
            client.messages.create(model="limited", **kw)
        assert api.pending == 1  # the hook answered; the queue kept its answer
        assert client.messages.create(model="other", **kw).stop_reason == "tool_use"
        assert api.pending == 0
        client.close()
    assert picked == ["limited", "other"]


def test_labelled_sums_one_label_over_the_others() -> None:
    page = "\n".join([
        "# HELP memgate_x_total x",
        'memgate_x_total{extractor="a",kind="timeout"} 2.0',
        'memgate_x_total{extractor="b",kind="timeout"} 1.0',
        'memgate_x_total{extractor="a",kind="rate_limited"} 3.0',
        'memgate_x_created{extractor="a",kind="timeout"} 1.7e+09',
        'memgate_xy_total{kind="timeout"} 9.0',
    ])  # fmt: skip
    assert labelled(page, "memgate_x_total", "kind") == {"timeout": 3.0, "rate_limited": 3.0}
    assert labelled(page, "memgate_x_total", "nope") == {}
