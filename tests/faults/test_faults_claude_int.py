"""The Claude extractor timing out, answering 429 and answering malformed output for a
burst (issue 15), on the real broker and a real ``memgate worker``, reconciled exactly.

The stand-in of the Messages API runs in this process (``tests/unit/stages/
anthropic_standin.py``; no network): it checks every request the way the API does (path,
headers, body schema: tools, forced tool choice), that it asks for the configured model,
and that it carries nothing raw that the detectors find or that four turns carrying an
e-mail address, a phone number, an API key and a password hold. The worker runs with
``extractor = anthropic`` pointed at it (``anthropic_base_url``, a 3 s client timeout).
It answers by :class:`tests.faults.claude_burst.BurstScript`: correctly (the oracle's
items for the turn) but for a burst of turns, from the 9th turn asked about, each of which
meets one pattern of faults: held back past the client's timeout, 429 with
``retry-after: 2``, a body that is not JSON, a tool output that is cut-off JSON or not a
list, text instead of the tool call, items that all fail the schema; alone and mixed.
Bounded form under ``make test`` (160 LoCoMo turns, each pattern once); ``make faults``
(MEMGATE_FAULTS_FULL=1): 400 turns, the burst three times over.

What is asserted, the design of ``memgate/stages/extract_anthropic.py`` (README, "The
Claude extractor"): transient failures are retried for the same turn (at most 4 requests,
waiting at least the ``retry-after`` and the timeout), and a turn whose attempts ran out
or whose answer cannot be used is read by the offline rule extractor; nothing is dead-
lettered and no turn is lost. So:

* facts out = the in-process run of the same turns whose stand-in answers correctly
  throughout, except the turns the design hands to the rules (their one request there
  gets an answer that cannot be used, so the rules read them too): whole records, by
  :func:`tests.faults.reconcile.reconcile`, with the journal (every turn once) and the
  drained lag;
* every kept turn has one extract decision, as in the reference, no error verdict, and
  the fallback reason and the retries by kind the script's pattern states (none outside
  the burst); a request per turn read and one per retry;
* ``memgate_extractor_fallbacks_total`` by reason and ``memgate_extractor_retries_total``
  by kind count exactly those; no dead letter;
* a retry after a 429 came at least its ``retry-after`` later, one after a time-out at
  least the client's timeout later.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import anthropic
import pytest
from pydantic import SecretStr

from memgate.core.embedding import MiniLMEmbedder
from memgate.core.settings import load_settings
from memgate.inputs import load_locomo
from memgate.sinks.opensearch import OpenSearchStore
from memgate.stages.extract_anthropic import AnthropicExtractor
from memgate.streams.producer import produce_turns
from tests.datasets import locomo_file
from tests.faults.claude_burst import (
    API_KEY,
    FORBIDDEN,
    MODEL,
    PATTERNS,
    BurstScript,
    correct_answers,
    extract_decisions,
    interleave,
    labelled,
    outcome_problems,
    reference_script,
    sensitive_turns,
    unmasked_scan,
)
from tests.faults.reconcile import FULL, metric, metrics_page, reconcile
from tests.integration.conftest import KAFKA, WorkerProcess, settings_for, worker_env
from tests.integration.kafka_helpers import wait_drained
from tests.unit.stages.anthropic_standin import running_standin

pytestmark = pytest.mark.integration

N_TURNS = 400 if FULL else 160
REPEATS = 3 if FULL else 1
START = 8  # the burst begins at the 9th turn asked about (the worker is warm by then)
TIMEOUT_S = 3.0  # the worker's client timeout (anthropic_timeout_s)
HANG_S = 2 * TIMEOUT_S  # a held-back answer comes this late


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_the_claude_extractor_timing_out_throttled_and_malformed_for_a_burst(
    services: dict[str, str], run_id: str, tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    locomo = load_locomo(locomo_file())[0].turns[:N_TURNS]
    turns = interleave(locomo, sensitive_turns(locomo[9::10][:4], locomo[0].tenant_id), every=10)
    renderer = AnthropicExtractor(anthropic.Anthropic(api_key=API_KEY), MODEL)
    answers, ids = correct_answers(turns, renderer)  # by the request each turn makes
    burst = PATTERNS * REPEATS
    script = BurstScript(answers, ids, burst=burst, start=START, hang_s=HANG_S)
    data = tmp_path / "data"
    standin = {"api_key": API_KEY, "forbidden": FORBIDDEN, "scan": unmasked_scan()}
    with running_standin(**standin, respond=script) as api:  # fails on a protocol violation
        env = worker_env(
            run_id, data,
            MEMGATE_EXTRACTOR="anthropic",
            MEMGATE_ANTHROPIC_API_KEY=API_KEY,
            MEMGATE_ANTHROPIC_BASE_URL=api.base_url,
            MEMGATE_ANTHROPIC_MODEL=MODEL,
            MEMGATE_ANTHROPIC_TIMEOUT_S=str(TIMEOUT_S),
        )  # fmt: skip
        s = settings_for(env)
        port = env["MEMGATE_METRICS_PORT"]
        w = WorkerProcess(env, tmp_path / "worker.log")
        w.start()
        try:
            t0 = time.monotonic()
            asyncio.run(produce_turns(s, turns))
            # a turn of the burst holds its partition up to 4 x 3 s + 3.5 s of backoff
            wait_drained(KAFKA, s.worker_id, s.topic_prefix, timeout=900, stall=180,
                         describe=w.log)  # fmt: skip
            took = time.monotonic() - t0
            assert w.proc is not None and w.proc.poll() is None, "the worker died:\n" + w.log()
            page = metrics_page(port)
            dead_letters = metric(port, "memgate_dead_letters_total")
        finally:
            w.stop()
        requests = len(api.requests)
        sent = "\n".join(m["content"] for b in api.bodies for m in b["messages"])

    store = OpenSearchStore.from_settings(s, dim=embedder.dim)
    reference = reference_script(script, hang_s=HANG_S)
    try:
        with running_standin(**standin, respond=reference) as ref_api:
            ref_extractor = AnthropicExtractor.from_settings(
                SecretStr(API_KEY), model=MODEL, base_url=ref_api.base_url, timeout=TIMEOUT_S
            )
            ref_dir = tmp_path / "ref"
            decided = extract_decisions(load_settings(data_dir=data).audit_path)
            reasons, kinds = script.totals()
            # the reference's decisions are read after reconcile ran it; the figures first
            reconcile(turns, store, [data], ref_dir, embedder, extractor=ref_extractor,
                      case=f"Claude extractor: time-outs, 429s, malformed answers "
                           f"({len(burst)}-turn burst)",
                      drained_s=took, requests=requests, fallbacks=reasons, retries=kinds,
                      dead_letters=dead_letters)  # fmt: skip
        ref_decided = extract_decisions(load_settings(data_dir=ref_dir).audit_path)
    finally:
        store.client.indices.delete(index=store.index, ignore_unavailable=True)
        store.close()

    # the burst hit every pattern, and the stand-in saw what it expected
    assert list(script.assigned.values()) == list(burst), script.order[:40]
    assert script.problems == [] and reference.problems == []
    assert script.pacing_problems(TIMEOUT_S) == []
    # the extract decisions: each kept turn once, as in the reference, with the designed
    # fallback and retries (and none outside the burst)
    assert outcome_problems(decided, script, ref_decided) == []
    assert outcome_problems(ref_decided, reference, decided) == []
    assert requests == len(decided) + sum(kinds.values())
    # the metrics count them; nothing was dead-lettered
    assert labelled(page, "memgate_extractor_fallbacks_total", "reason") == reasons
    assert labelled(page, "memgate_extractor_retries_total", "kind") == kinds
    assert labelled(page, "memgate_extraction_calls_total", "outcome") == {"ok": len(decided)}
    assert dead_letters == 0
    # the turns carrying secrets were asked about, masked (the stand-in refused raw ones)
    assert {t.turn_id for t in turns if t.user_id == "zoe"} <= set(script.order)
    assert "[EMAIL]" in sent and "[API_KEY]" in sent and "[PHONE]" in sent
