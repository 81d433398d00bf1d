"""The Claude extractor's burst of faults (issue 15): what the stand-in answers, and what
the design says comes of it.

Shared by the fault case on the real broker (``tests/faults/test_faults_claude_int.py``)
and its in-process check in the unit tier (``tests/unit/streams/test_claude_burst.py``).

The stand-in of the Messages API (``tests/unit/stages/anthropic_standin.py``) answers by a
:class:`BurstScript`, keyed by the turn a request carries (its masked ``<turn>`` message,
exactly as the extractor renders it), so what a turn meets does not depend on timing or
on which worker asks:

* outside the burst, every request gets the *correct answer*: a ``record_facts`` call
  whose items are the offline hybrid extractor's candidates of the masked turn, filtered
  to items the extractor's checks accept (the oracle: a model that answers well);
* the turns of the burst (the ``start``-th distinct turn asked about and the ones after
  it, in the order the stand-in first sees them) each meet one :class:`Pattern`: time-outs
  (the answer held back past the client's timeout), 429s with ``retry-after``, bodies that
  are not JSON, tool outputs that cannot be used, alone and mixed; a turn read again meets
  its pattern again (a redelivered turn ends the same way).

The design (``memgate/stages/extract_anthropic.py``, README "The Claude extractor"): a
transient failure (time-out, 429, 5xx, a body that is not a message) is retried for the same
turn, at most 4 requests a turn (``from_settings``: 3 retries), waiting at least the
``retry-after``; a turn whose requests all failed transiently, or whose answer cannot be
used (not retried), is read by the offline rule extractor (``fallback`` in its extract
decision, ``extractor = rules`` on its facts). So each pattern states its outcome: no
fallback and the correct answer's facts, or the fallback reason and the rules' facts, and
the retries counted by kind (the last failure of a turn whose attempts ran out is not a
retry).

The reference run (in process) meets :func:`reference_script`: the correct answer
throughout, except the turns the design hands to the rule extractor, whose one request
gets a tool output that cannot be used, so the rules read them there too.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

from memgate.core.events import TurnEvent
from memgate.stages.detectors import Detector
from memgate.stages.extract_anthropic import MAX_CONFIDENCE, MAX_FACTS, AnthropicExtractor
from memgate.stages.statements import HybridExtractor
from memgate.stages.untrusted import clean_subject, clean_value
from memgate.stages.vocabulary import valid_predicate
from tests.unit.stages.anthropic_standin import (
    Reply,
    bad_request,
    malformed_items_reply,
    malformed_payload,
    rate_limited,
    slow,
    text_reply,
    tool_use_reply,
)

MODEL = "claude-haiku-4-5"
API_KEY = "test-" + "key-" + "claude-burst-0123456789"
#: requests of one turn at most (AnthropicExtractor.from_settings: max_retries=3)
ATTEMPTS = 4
RETRY_AFTER_S = 2
_MAX_OBJECT_CHARS = 300  # the extractor's limit on an item's object

#: raw values of the sensitive turns: no request may carry one
EMAIL = "zoe.quarrington@example.org"
PHONE = "+1 415 555 0134"
SECRET = "sk-ant-" + "api03-" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-abcd"
PASSWORD = "Tr0ub4dor&3-horse"
FORBIDDEN = (EMAIL, PHONE, SECRET, PASSWORD, "415 555")
_SENSITIVE = (
    f"My email is {EMAIL}, send the reports there.",
    f"My phone number is {PHONE}.",
    f"My API key is {SECRET} for the staging account.",
    f"My password for the build server is {PASSWORD}, I use vim as my editor there.",
)

# fault kinds of a pattern's requests (TRANSIENT ones are retried)
HANG, LIMIT, NOT_JSON = "timeout", "429", "not_json"
CUT_JSON, NOT_A_LIST, TEXT, BAD_ITEMS = "cut_json", "not_a_list", "text", "bad_items"
TRANSIENT = frozenset({HANG, LIMIT, NOT_JSON})


@dataclass(frozen=True)
class Pattern:
    """The requests of one reading of a turn: ``faults`` then, unless the design hands
    the turn to the rule extractor (``fallback``), the correct answer."""

    name: str
    faults: tuple[str, ...]
    fallback: str | None
    retries: Mapping[str, int] = field(default_factory=dict)


#: One burst: each pattern once, in this order (``make faults`` repeats it).
PATTERNS: tuple[Pattern, ...] = (
    Pattern("times out twice, then answers", (HANG, HANG), None, {"timeout": 2}),
    Pattern(f"429 twice (retry-after {RETRY_AFTER_S} s), then answers", (LIMIT, LIMIT), None,
            {"rate_limited": 2}),
    Pattern("a body that is not JSON, then answers", (NOT_JSON,), None,
            {"malformed_payload": 1}),
    Pattern("times out, 429, not JSON, then answers", (HANG, LIMIT, NOT_JSON), None,
            {"timeout": 1, "rate_limited": 1, "malformed_payload": 1}),
    Pattern("times out on every attempt", (HANG,) * ATTEMPTS, "unavailable:timeout",
            {"timeout": ATTEMPTS - 1}),
    Pattern("429 on every attempt", (LIMIT,) * ATTEMPTS, "unavailable:rate_limited",
            {"rate_limited": ATTEMPTS - 1}),
    Pattern("tool output is cut-off JSON", (CUT_JSON,), "invalid:malformed_json"),
    Pattern("429, then a tool output whose facts are not a list", (LIMIT, NOT_A_LIST),
            "invalid:malformed_json", {"rate_limited": 1}),
    Pattern("text instead of the tool call", (TEXT,), "invalid:no_tool_use"),
    Pattern("every item fails the schema", (BAD_ITEMS,), "invalid:no_valid_item"),
)  # fmt: skip

#: the reference's stand-in for a turn the design hands to the rule extractor
READ_BY_RULES = Pattern("a tool output that cannot be used", (NOT_A_LIST,),
                        "invalid:malformed_json")  # fmt: skip


def check_patterns(patterns: Iterable[Pattern]) -> None:
    """Each pattern's stated outcome is the design's (a check of this table, not of the
    product): transient faults are retried up to ATTEMPTS requests, anything else ends
    the reading."""
    for p in patterns:
        *before, last = p.faults or ("",)
        assert all(f in TRANSIENT for f in before), p.name
        exhausted = len(p.faults) == ATTEMPTS and last in TRANSIENT
        assert len(p.faults) <= ATTEMPTS, p.name
        assert (p.fallback is not None) == (exhausted or (last != "" and last not in TRANSIENT))
        kinds = {HANG: "timeout", LIMIT: "rate_limited", NOT_JSON: "malformed_payload"}
        retried = [kinds[f] for f in p.faults if f in TRANSIENT]
        if exhausted:
            retried = retried[:-1]
        assert dict(Counter(retried)) == dict(p.retries), p.name


# ------------------------------------------------------------------ the turns


def sensitive_turns(after: Sequence[TurnEvent], tenant: str, user: str = "zoe") -> list[TurnEvent]:
    """Four turns carrying a secret or PII, one user of ``tenant``, timed just after the
    turns in ``after`` (one each)."""
    return [
        TurnEvent(tenant_id=tenant, user_id=user, session_id="s-zoe", turn_id=f"zoe-{i}",
                  role="user", content=text, ts=prev.ts + timedelta(seconds=1))
        for i, (text, prev) in enumerate(zip(_SENSITIVE, after, strict=True))
    ]  # fmt: skip


def interleave(turns: list[TurnEvent], extra: list[TurnEvent], every: int) -> list[TurnEvent]:
    """``turns`` with ``extra[i]`` after turn ``(i + 1) * every``."""
    out = list(turns)
    for i, t in enumerate(extra):
        out.insert((i + 1) * every + i, t)
    return out


def unmasked_scan(detector: Detector | None = None) -> Any:
    """The stand-in's scan: what the detectors still find in a message's text."""
    d = detector or Detector()

    def scan(text: str) -> list[str]:
        return [f.kind for f in d.scan(text)]

    return scan


# ------------------------------------------------------------------ the oracle


def correct_answers(
    turns: Iterable[TurnEvent], extractor: AnthropicExtractor
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, str]]:
    """The correct answer to each user turn's request (by its rendered message) and the
    turn id each rendered message stands for; two turns rendered alike are refused."""
    hybrid = HybridExtractor()
    answers: dict[str, list[dict[str, Any]]] = {}
    ids: dict[str, str] = {}
    for t in turns:
        if t.role.value != "user" or not t.content.strip():
            continue
        rendered = extractor.render_turn(t)
        if rendered in ids:
            raise ValueError(f"turns {ids[rendered]} and {t.turn_id} render alike")
        ids[rendered] = t.turn_id
        masked = t.model_copy(update={"content": extractor.mask(t.content)})
        answers[rendered] = [_item(f) for f in hybrid.extract(masked) if _fits(f)][:MAX_FACTS]
    return answers, ids


def _fits(f: Any) -> bool:
    return (
        clean_subject(f.subject) is not None
        and valid_predicate(f.predicate)
        and clean_value(f.object, _MAX_OBJECT_CHARS) is not None
    )


def _item(f: Any) -> dict[str, Any]:
    return {
        "type": f.type.value,
        "subject": f.subject,
        "predicate": f.predicate,
        "object": f.object,
        "confidence": min(f.confidence, MAX_CONFIDENCE),
        "valid_from": f.valid_from.astimezone(UTC).isoformat() if f.valid_from else None,
        "rationale": "stated by the user",
    }


# ------------------------------------------------------------------ the script


@dataclass(frozen=True)
class Seen:
    """One request the stand-in answered: the turn, which of its requests, when, what."""

    turn_id: str
    attempt: int
    at: float
    fault: str  # a fault kind, or "answer"


class BurstScript:
    """The stand-in's ``respond``: answers by the turn a request carries.

    ``plan`` fixes the pattern of some turns (by turn id); otherwise the ``start``-th
    distinct turn asked about and the next ``len(burst) - 1`` meet ``burst`` in order.
    Requests that break the script's expectations (another model, a turn not in the
    input) are listed in :attr:`problems` and answered 400."""

    def __init__(
        self,
        answers: Mapping[str, list[dict[str, Any]]],
        ids: Mapping[str, str],
        *,
        model: str = MODEL,
        burst: Sequence[Pattern] = (),
        start: int = 0,
        plan: Mapping[str, Pattern] | None = None,
        hang_s: float = 6.0,
    ) -> None:
        self.answers, self.ids, self.model = answers, ids, model
        self.burst, self.start, self.hang_s = tuple(burst), start, hang_s
        self.assigned: dict[str, Pattern] = dict(plan or {})
        self.order: list[str] = []  # turn ids in the order first asked about
        self.seen: list[Seen] = []
        self.problems: list[str] = []
        self._count: Counter[str] = Counter()

    def __call__(self, body: Any) -> Reply:
        if body.get("model") != self.model:
            self.problems.append(f"model {body.get('model')!r}, expected {self.model!r}")
            return bad_request("unexpected model")
        content = body["messages"][0]["content"]
        rendered = content if isinstance(content, str) else ""
        turn_id = self.ids.get(rendered)
        if turn_id is None:
            self.problems.append(f"a request for no turn of the input: {rendered[:80]!r}")
            return bad_request("no such turn")
        if self._count[turn_id] == 0:
            self.order.append(turn_id)
            n = len(self.order) - 1
            if turn_id not in self.assigned and self.start <= n < self.start + len(self.burst):
                self.assigned[turn_id] = self.burst[n - self.start]
        attempt = self._count[turn_id]
        self._count[turn_id] += 1
        pattern = self.assigned.get(turn_id)
        steps = [*pattern.faults, *([] if pattern.fallback else ["answer"])] if pattern else []
        step = steps[attempt % len(steps)] if steps else "answer"
        self.seen.append(Seen(turn_id, attempt, time.monotonic(), step))
        return self._reply(step, self.answers[rendered])

    def _reply(self, step: str, items: list[dict[str, Any]]) -> Reply:
        if step == HANG:
            return slow(tool_use_reply(items), self.hang_s)
        if step == LIMIT:
            return rate_limited(retry_after=RETRY_AFTER_S)
        if step == NOT_JSON:
            return malformed_payload()
        if step == CUT_JSON:
            return tool_use_reply(tool_input={"facts": '[{"type": "fact", "subject": "us'})
        if step == NOT_A_LIST:
            return tool_use_reply(tool_input={"facts": {"not": "a list"}})
        if step == TEXT:
            return text_reply()
        if step == BAD_ITEMS:
            return malformed_items_reply([{"type": "nonsense"}, "not an object"])
        return tool_use_reply(items)

    # -- what the design says comes of it
    def fallbacks(self) -> dict[str, str]:
        """Turn id -> the fallback reason the design gives it."""
        return {t: p.fallback for t, p in self.assigned.items() if p.fallback}

    def retries(self) -> dict[str, dict[str, int]]:
        """Turn id -> its retried requests by kind (once read)."""
        return {t: dict(p.retries) for t, p in self.assigned.items() if p.retries}

    def totals(self) -> tuple[dict[str, int], dict[str, int]]:
        """The fallbacks by reason and the retries by kind the metrics must count."""
        reasons = Counter(self.fallbacks().values())
        kinds: Counter[str] = Counter()
        for r in self.retries().values():
            kinds.update(r)
        return dict(reasons), dict(kinds)

    def pacing_problems(self, timeout_s: float) -> list[str]:
        """A retry sooner than the 429's ``retry-after`` or than the client's timeout."""
        out = []
        last: dict[str, Seen] = {}
        for s in self.seen:
            prev = last.get(s.turn_id)
            last[s.turn_id] = s
            if prev is None or s.attempt != prev.attempt + 1:
                continue
            gap = s.at - prev.at
            need = {LIMIT: RETRY_AFTER_S, HANG: timeout_s}.get(prev.fault)
            if need is not None and gap < need * 0.95:
                out.append(f"{s.turn_id}: request {s.attempt + 1} came {gap:.2f} s after a "
                           f"{prev.fault} (at least {need} s expected)")  # fmt: skip
        return out


def reference_script(faulted: BurstScript, **kw: Any) -> BurstScript:
    """The reference run's script: the correct answer throughout, but the turns the design
    hands to the rule extractor in ``faulted`` get an answer that cannot be used."""
    plan = {t: READ_BY_RULES for t in faulted.fallbacks()}
    return BurstScript(faulted.answers, faulted.ids, model=faulted.model, plan=plan, **kw)


# ------------------------------------------------------------------ the audit


def extract_decisions(audit_path: Path) -> dict[str, tuple[str, dict[str, str]]]:
    """Turn id -> (verdict, details) of every extract decision in an embedded audit store."""
    from memgate.sinks.audit import ClickHouseAudit

    audit = ClickHouseAudit.embedded(audit_path)
    try:
        _, rows = audit.query(
            "SELECT turn_id, any(verdict), any(details), count() FROM memgate.decisions FINAL "
            "WHERE stage = 'extract' GROUP BY turn_id"
        )
    finally:
        audit.close()
    out: dict[str, tuple[str, dict[str, str]]] = {}
    for turn_id, verdict, details, n in rows:
        key = str(turn_id) if int(n) == 1 else f"{turn_id} (x{n})"
        out[key] = (str(verdict), {str(k): str(v) for k, v in dict(details).items()})
    return out


def outcome_problems(
    decided: Mapping[str, tuple[str, dict[str, str]]],
    script: BurstScript,
    want_turns: Iterable[str],
) -> list[str]:
    """How the extract decisions differ from the design: a turn without its decision or
    with two, an extraction error, a fallback or a retry count the script did not plan."""
    problems: list[str] = []
    want = set(want_turns)
    if set(decided) != want:
        problems.append(f"extract decisions: missing {sorted(want - set(decided))[:10]}, "
                        f"unexpected {sorted(set(decided) - want)[:10]}")  # fmt: skip
    fallbacks, retries = script.fallbacks(), script.retries()
    for turn_id, (verdict, details) in sorted(decided.items()):
        if verdict not in ("facts", "none"):
            problems.append(f"{turn_id}: verdict {verdict}")
        if details.get("fallback") != fallbacks.get(turn_id):
            problems.append(f"{turn_id}: fallback {details.get('fallback')!r}, "
                            f"designed {fallbacks.get(turn_id)!r}")  # fmt: skip
        answered = "rules" if turn_id in fallbacks else "anthropic"
        if details.get("answered_by") != answered:
            problems.append(f"{turn_id}: answered by {details.get('answered_by')!r}")
        got = {k.removeprefix("retries."): int(v) for k, v in details.items()
               if k.startswith("retries.")}  # fmt: skip
        if got != retries.get(turn_id, {}):
            problems.append(f"{turn_id}: retries {got}, designed {retries.get(turn_id, {})}")
    return problems


_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def labelled(text: str, name: str, label: str) -> dict[str, float]:
    """One metric's values by one label, summed over the other labels, from the text of
    a /metrics page."""
    out: Counter[str] = Counter()
    for line in text.splitlines():
        if not line.startswith(name + "{"):
            continue
        labels, _, value = line[len(name) + 1 :].rpartition("} ")
        found = dict(_LABEL.findall(labels))
        if label in found:
            out[found[label]] += float(value.split()[0])
    return dict(out)
