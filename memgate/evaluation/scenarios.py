"""Scenarios: multi-turn histories with queries and the answers they must give.

Each line of the corpus is one scenario::

    {"id": "contradiction-editor", "description": "...", "covers": ["contradiction"],
     "turns": [{...TurnEvent...}, ...],
     "checks": [{"type": "search_top", "tenant": "acme", "user": "alice",
                 "query": "which editor do I use", "expect_contains": "Neovim"}, ...]}

Every scenario runs on its own fresh gate. Turns are processed in the order
listed (a turn may be listed twice: a redelivery); a check runs after the
turn named by its ``after`` field, or after the last turn. Check types (all
take ``tenant`` and ``user``, matching is case-insensitive on a fact's text,
which holds its subject, predicate and value):

``search_top``
    hybrid search (with decay, and ``as_of`` when given) for ``query``, ``k``
    hits (default 5). ``expect_contains``: the top hit's text contains it;
    ``expect_top_from``: the top hit has this turn among its source turns;
    ``expect_not_contains``: no hit's text contains it; ``expect_none_from``:
    no hit comes from this turn.
``no_results``
    the search returns nothing.
``active_count`` / ``fact_count``
    how many facts (ACTIVE for ``active_count``; the listed ``statuses`` for
    ``fact_count``, default all) match the optional ``text_contains``,
    ``key_contains`` and ``from_turn`` filters: must equal ``equals``.
``fact_status``
    a fact matching ``text_contains`` / ``from_turn`` has ``status``
    (``active``, ``pending``, ``superseded``, or ``absent``: no matching fact
    at all), with ``occurrences`` (exact) or ``min_occurrences`` when given.
``no_secret``
    ``secret`` occurs in no store of the scenario (same scan as the leak check).

``search_top`` takes ``now``: the instant decay is measured at (default: a day
after the last turn). Two more actions, ``replay_shadow`` and ``replay_apply``,
replay the journal through another policy and check the diff, the versions
recorded and idempotence (:mod:`memgate.evaluation.replay_checks`). Three
*actions* run where they are listed and pass when they run: ``consolidate``
(the lifecycle jobs at ``now``; with ``expect``, its decisions by verdict must
be those), ``forget_fact`` (erase the one current fact matching the filters)
and ``forget_user``. A scenario's
``tenant_policies`` (decay, retention, preset per tenant) apply to its gate.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memgate.core.embedding import Embedder
from memgate.core.events import AwareDatetime, FactStatus, Ident, StoredFact, TurnEvent
from memgate.core.settings import Settings
from memgate.core.stores import SearchHit, SearchQuery
from memgate.core.tenant_policy import TenantPolicy
from memgate.evaluation.common import (
    CorpusError,
    PipelineFactory,
    Workspace,
    embedder_name,
    read_jsonl,
)
from memgate.evaluation.leaks import scan_workspace
from memgate.evaluation.replay_checks import (
    ReplayApply,
    ReplayShadow,
    ReplayState,
    run_replay_check,
)
from memgate.evaluation.trace import turn_path, user_summary
from memgate.lifecycle import consolidate
from memgate.recall import Recall, tenant_decay
from memgate.receipts import erase_fact, erase_user

__all__ = [
    "Check",
    "CheckResult",
    "Scenario",
    "ScenarioReport",
    "ScenarioResult",
    "evaluate",
    "load",
]


class _Check(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    after: Ident | None = Field(
        default=None, description="Run after this turn id (default: after the last turn)."
    )


class _Scoped(_Check):
    tenant: Ident
    user: Ident


class SearchTop(_Scoped):
    type: Literal["search_top"]
    query: str = Field(min_length=1)
    as_of: AwareDatetime | None = None
    now: AwareDatetime | None = Field(
        default=None,
        description="The instant decay is measured at (default: a day after the last turn).",
    )
    k: int = Field(default=5, ge=1, le=100)
    expect_contains: str | None = None
    expect_not_contains: str | None = None
    expect_top_from: Ident | None = None
    expect_none_from: Ident | None = None

    @model_validator(mode="after")
    def _some_expectation(self) -> SearchTop:
        if not (
            self.expect_contains
            or self.expect_not_contains
            or self.expect_top_from
            or self.expect_none_from
        ):
            raise ValueError("search_top needs at least one expect_* field")
        return self


class NoResults(_Scoped):
    type: Literal["no_results"]
    query: str = Field(min_length=1)
    as_of: AwareDatetime | None = None


class _Filtered(_Scoped):
    text_contains: str | None = None
    key_contains: str | None = None
    from_turn: Ident | None = None

    def matches(self, f: StoredFact) -> bool:
        if self.text_contains and self.text_contains.casefold() not in f.text.casefold():
            return False
        if self.key_contains and self.key_contains.casefold() not in f.key.casefold():
            return False
        return not (self.from_turn and self.from_turn not in f.source_turn_ids)

    def describe(self) -> str:
        parts = [f"{self.tenant}/{self.user}"]
        if self.text_contains:
            parts.append(f"text~{self.text_contains!r}")
        if self.key_contains:
            parts.append(f"key~{self.key_contains!r}")
        if self.from_turn:
            parts.append(f"from {self.from_turn}")
        return " ".join(parts)


class ActiveCount(_Filtered):
    type: Literal["active_count"]
    equals: int = Field(ge=0)


class FactCount(_Filtered):
    type: Literal["fact_count"]
    statuses: list[FactStatus] = Field(default_factory=lambda: list(FactStatus), min_length=1)
    equals: int = Field(ge=0)


class FactStatusCheck(_Filtered):
    type: Literal["fact_status"]
    status: Literal["active", "pending", "superseded", "absent"]
    occurrences: int | None = Field(default=None, ge=1)
    min_occurrences: int | None = Field(default=None, ge=1)


class NoSecret(_Check):
    type: Literal["no_secret"]
    secret: str = Field(min_length=6)


class Consolidate(_Check):
    """An action: run ``memgate consolidate`` at ``now``; ``expect``: its decisions by
    verdict (e.g. ``{"fold": 3}``; ``{}``: nothing changed)."""

    type: Literal["consolidate"]
    now: AwareDatetime
    expect: dict[str, int] | None = None


class ForgetFact(_Filtered):
    """An action: erase the user's one fact matching the filters (it must match one)."""

    type: Literal["forget_fact"]


class ForgetUser(_Scoped):
    """An action: erase the user from every store."""

    type: Literal["forget_user"]


Check = Annotated[
    SearchTop
    | NoResults
    | ActiveCount
    | FactCount
    | FactStatusCheck
    | NoSecret
    | Consolidate
    | ForgetFact
    | ForgetUser
    | ReplayShadow
    | ReplayApply,
    Field(discriminator="type"),
]


class Scenario(BaseModel):
    """One line of ``scenarios.jsonl``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: Ident
    description: str = Field(min_length=1)
    covers: list[str] = Field(default_factory=list)
    turns: list[TurnEvent] = Field(min_length=1)
    checks: list[Check] = Field(min_length=1)
    tenant_policies: dict[Ident, TenantPolicy] = Field(
        default_factory=dict, description="Per-tenant policy of the scenario's gate."
    )

    @model_validator(mode="after")
    def _after_refers_to_a_turn(self) -> Scenario:
        ids = {t.turn_id for t in self.turns}
        for i, c in enumerate(self.checks):
            if c.after is not None and c.after not in ids:
                raise ValueError(f"check {i}: after={c.after!r} is not a turn of the scenario")
            for name in ("from_turn", "expect_top_from", "expect_none_from"):
                ref = getattr(c, name, None)
                if ref is not None and ref not in ids:
                    raise ValueError(f"check {i}: {name}={ref!r} is not a turn of the scenario")
        return self


def load(path: Path | Sequence[Path]) -> list[Scenario]:
    """The scenarios of one corpus file, or of several read as one corpus (ids unique across
    them)."""
    items: list[Scenario] = []
    seen: dict[str, Path] = {}
    for p in [path] if isinstance(path, Path) else path:
        got = read_jsonl(p, Scenario)
        if not got:
            raise CorpusError(f"{p} holds no scenario")
        for sc in got:
            if sc.id in seen:
                raise CorpusError(f"{p}: id {sc.id} is also in {seen[sc.id]}")
            seen[sc.id] = p
            items.append(sc)
    if not items:
        raise CorpusError("no scenario file given")
    return items


@dataclass(frozen=True)
class CheckResult:
    index: int
    type: str
    passed: bool
    message: str
    label: str = ""
    """The check's type and what it expects, as harness words only (``fact_status:absent``,
    ``search_top:as_of``): what the frozen split's summary may count."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "type": self.type,
            "passed": self.passed,
            "message": self.message,
        }


@dataclass
class ScenarioResult:
    id: str
    description: str
    covers: list[str]
    checks: list[CheckResult] = field(default_factory=list)
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.error is None and all(c.passed for c in self.checks)

    @property
    def first_failure(self) -> str:
        if self.error is not None:
            return f"error: {self.error}"
        for c in self.checks:
            if not c.passed:
                return f"check {c.index} ({c.type}): {c.message}"
        return ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "description": self.description,
            "covers": self.covers,
            "passed": self.passed,
            "first_failure": self.first_failure or None,
            "error": self.error,
            "checks": [c.as_dict() for c in self.checks],
        }


@dataclass
class ScenarioReport:
    path: str
    policy: str
    extractor: str
    embedder: str
    results: list[ScenarioResult] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.results)

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def failed(self) -> list[ScenarioResult]:
        return [r for r in self.results if not r.passed]

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "policy": self.policy,
            "extractor": self.extractor,
            "embedder": self.embedder,
            "total": self.total,
            "passed": self.passed,
            "failed": [r.id for r in self.failed],
            "results": [r.as_dict() for r in self.results],
        }


# ------------------------------------------------------------------ running


def _brief(hits: list[SearchHit]) -> str:
    if not hits:
        return "no hits"
    return "; ".join(
        f"{h.fact.text!r} [{h.fact.status.value}, from {','.join(h.fact.source_turn_ids)}]"
        for h in hits[:3]
    )


#: a redaction placeholder in a fact's text ("[ADDRESS]", "[PHONE]")
_MASK = re.compile(r"\[[A-Z_]+\]")


class _Runner:
    def __init__(
        self, ws: Workspace, embedder: Embedder, now: datetime, turns: Sequence[TurnEvent] = ()
    ) -> None:
        self.ws = ws
        self.embedder = embedder
        self.recall = Recall(ws.store, embedder, tenant_decay=tenant_decay(ws.settings))
        self.now = now
        self.replays = ReplayState()
        #: each user's turn ids in the scenario's order (a fact's origin, by position)
        self.turn_ids: dict[tuple[str, str], list[str]] = {}
        for t in turns:
            ids = self.turn_ids.setdefault((t.tenant_id, t.user_id), [])
            if t.turn_id not in ids:
                ids.append(t.turn_id)

    def search(
        self,
        tenant: str,
        user: str,
        text: str,
        k: int,
        as_of: datetime | None,
        now: datetime | None = None,
    ) -> list[SearchHit]:
        q = SearchQuery(tenant_id=tenant, user_id=user, text=text, k=k, as_of=as_of)
        return self.recall.search(q, now=now or self.now)

    def facts(self, tenant: str, user: str) -> list[StoredFact]:
        return self.ws.store.list_facts(tenant, user, include_inactive=True)

    def run(self, c: Check) -> tuple[bool, str]:
        if isinstance(c, SearchTop):
            return self._search_top(c)
        if isinstance(c, NoResults):
            hits = self.search(c.tenant, c.user, c.query, 5, c.as_of)
            if hits:
                return False, f"expected no results for {c.query!r}, got {_brief(hits)}"
            return True, "no results"
        if isinstance(c, ActiveCount | FactCount):
            statuses = [FactStatus.ACTIVE] if isinstance(c, ActiveCount) else list(c.statuses)
            found = [f for f in self.facts(c.tenant, c.user) if f.status in statuses]
            found = [f for f in found if c.matches(f)]
            ok = len(found) == c.equals
            which = ", ".join(s.value for s in statuses)
            msg = f"{len(found)} {which} fact(s) for {c.describe()}, expected {c.equals}" + (
                ": " + "; ".join(repr(f.text) for f in found[:4]) if found and not ok else ""
            )
            if len(found) > c.equals:  # too many: where each came from (category words)
                msg += f"; trace: {self._origins(c.tenant, c.user, found)}"
            return ok, msg
        if isinstance(c, FactStatusCheck):
            return self._fact_status(c)
        if isinstance(c, Consolidate | ForgetFact | ForgetUser):
            return self._lifecycle(c)
        if isinstance(c, ReplayShadow | ReplayApply):
            return run_replay_check(c, self.ws, self.embedder, self.replays)
        return self._no_secret(c)

    def _lifecycle(self, c: Consolidate | ForgetFact | ForgetUser) -> tuple[bool, str]:
        ws = self.ws
        if isinstance(c, Consolidate):
            done = consolidate(ws.store, ws.audit_store, self.embedder, ws.settings, now=c.now)
            ok = c.expect is None or done.decisions == c.expect
            want = "" if ok else f", expected {c.expect}"
            return ok, f"consolidate at {c.now.isoformat()}: {done.decisions or 'no change'}{want}"
        if isinstance(c, ForgetUser):
            r = erase_user(ws.settings, ws.store, ws.audit_store, None, c.tenant, c.user)
            return True, f"forgot {c.tenant}/{c.user}: {r.removed}"
        matching = [
            f for f in self.facts(c.tenant, c.user)
            if f.status is not FactStatus.SUPERSEDED and c.matches(f)
        ]  # fmt: skip
        if len(matching) != 1:
            return False, f"{len(matching)} facts match {c.describe()}, expected one to forget"
        done_fact = erase_fact(
            ws.settings, ws.store, ws.audit_store, c.tenant, c.user, matching[0].fact_id
        )
        return done_fact is not None, f"erased {matching[0].fact_id} ({c.describe()})"

    def _search_top(self, c: SearchTop) -> tuple[bool, str]:
        hits = self.search(c.tenant, c.user, c.query, c.k, c.as_of, c.now)
        where = f"search {c.query!r} ({c.tenant}/{c.user}" + (
            f", as of {c.as_of.isoformat()})" if c.as_of else ")"
        )
        top = hits[0].fact if hits else None
        # no hit at all: what the user holds and what became of their turns (category words)
        got = _brief(hits) + ("" if hits else f"; trace: {self._summary(c.tenant, c.user)}")
        if c.expect_contains is not None and (
            top is None or c.expect_contains.casefold() not in top.text.casefold()
        ):
            want = c.expect_contains.casefold()
            got += self._ranked_trace(c, hits, lambda f: want in f.text.casefold())
            return False, f"{where}: top hit lacks {c.expect_contains!r}; got {got}"
        if c.expect_top_from is not None and (
            top is None or c.expect_top_from not in top.source_turn_ids
        ):
            turn = c.expect_top_from
            got += self._ranked_trace(c, hits, lambda f: turn in f.source_turn_ids)
            return False, f"{where}: top hit is not from {c.expect_top_from}; got {got}"
        if c.expect_not_contains is not None:
            bad = [h for h in hits if c.expect_not_contains.casefold() in h.fact.text.casefold()]
            if bad:
                why = self._served_trace(c, hits, bad)
                said = f"a hit contains {c.expect_not_contains!r}"
                return False, f"{where}: {said}: {_brief(bad)}{why}"
        if c.expect_none_from is not None:
            bad = [h for h in hits if c.expect_none_from in h.fact.source_turn_ids]
            if bad:
                why = self._served_trace(c, hits, bad)
                return False, f"{where}: a hit comes from {c.expect_none_from}: {_brief(bad)}{why}"
        return True, f"{where}: {_brief(hits)}"

    def _trace(self, c: FactStatusCheck) -> str:
        """What the gate decided for the check's turn, or whether the user's turns asked for
        a deletion or retraction (:mod:`memgate.evaluation.trace`): category words only."""
        summary = self._summary(c.tenant, c.user)
        if c.from_turn:
            return turn_path(self.ws.audit_store, c.tenant, c.user, c.from_turn) + f"; {summary}"
        return summary

    def _ranked_trace(
        self, c: SearchTop, hits: list[SearchHit], wanted: Callable[[StoredFact], bool]
    ) -> str:
        """A search whose top hit is wrong (it found something): where the top hit came from,
        and where the wanted fact is: at which rank, or only in the store (with its status),
        or nowhere. Category words only."""
        if not hits:
            return ""
        top = hits[0].fact
        words = f"; trace: top hit {self._whence(c.tenant, c.user, top)}"
        rank = next((i for i, h in enumerate(hits, 1) if wanted(h.fact)), None)
        if rank is not None:
            return words + f"; the wanted fact ranked {rank} of {len(hits)}"
        stored = [f for f in self.facts(c.tenant, c.user) if wanted(f)]
        if stored:
            held = ", ".join(self._whence(c.tenant, c.user, f) for f in stored[:3])
            return words + f"; the wanted fact not among the hits, stored {held}"
        return words + "; the wanted fact in no stored fact"

    def _served_trace(self, c: SearchTop, hits: list[SearchHit], bad: list[SearchHit]) -> str:
        """A hit that should not be served: its rank and where it came from, then the
        user's summary (deletions or retractions resolved). Category words only."""
        first = bad[0]
        rank = next(i for i, h in enumerate(hits, 1) if h is first)
        whence = self._whence(c.tenant, c.user, first.fact)
        return f"; trace: ranked {rank} of {len(hits)}, {whence}; {self._summary(c.tenant, c.user)}"

    def _whence(self, tenant: str, user: str, f: StoredFact) -> str:
        """A fact in category words: its status and its first turn's position."""
        order = self.turn_ids.get((tenant, user), [])
        first = next((t for t in order if t in f.source_turn_ids), None)
        at = f"turn {order.index(first) + 1} of {len(order)}" if first else "no turn of it"
        return f"{f.status.value} from {at}"

    def _origins(self, tenant: str, user: str, found: list[StoredFact]) -> str:
        """Where each counted fact came from: its first turn's position among the user's
        turns and that turn's way through the gate (category words), then the summary."""
        order = self.turn_ids.get((tenant, user), [])
        seen: Counter[str] = Counter()
        for f in found:
            first = next((t for t in order if t in f.source_turn_ids), None)
            if first is None:
                seen["from no turn of the scenario"] += 1
                continue
            path = turn_path(self.ws.audit_store, tenant, user, first)
            seen[f"turn {order.index(first) + 1} of {len(order)} ({path})"] += 1
        words = ", ".join(w if n == 1 else f"{w} x{n}" for w, n in sorted(seen.items()))
        return f"from {words}; {self._summary(tenant, user)}"

    def _summary(self, tenant: str, user: str) -> str:
        """The user's turns and facts in counts (:func:`user_summary`, then what they hold)."""
        facts = self.facts(tenant, user)
        held = Counter(f.status.value for f in facts)
        masked = sum(1 for f in facts if _MASK.search(f.text))
        return (
            user_summary(self.ws.audit_store, tenant, user)
            + "; the user holds "
            + (", ".join(f"{n} {s}" for s, n in sorted(held.items())) or "no fact")
            + (f" ({masked} with a masked value)" if masked else "")
        )

    def _fact_status(self, c: FactStatusCheck) -> tuple[bool, str]:
        matching = [f for f in self.facts(c.tenant, c.user) if c.matches(f)]
        seen = (
            "; ".join(f"{f.text!r} [{f.status.value}, x{f.occurrences}]" for f in matching[:4])
            or "none"
        )
        if c.status == "absent":
            return (not matching), f"facts for {c.describe()}: {seen} (expected none)"
        with_status = [f for f in matching if f.status.value == c.status]
        if not with_status:
            return False, f"no {c.status} fact for {c.describe()}; found: {seen}" + (
                "" if matching else f"; trace: {self._trace(c)}"
            )
        for f in with_status:
            if c.occurrences is not None and f.occurrences != c.occurrences:
                continue
            if c.min_occurrences is not None and f.occurrences < c.min_occurrences:
                continue
            return True, f"{f.text!r} is {c.status} with {f.occurrences} occurrence(s)"
        want = (
            f"exactly {c.occurrences}" if c.occurrences is not None else f">= {c.min_occurrences}"
        )
        return False, f"{c.status} fact for {c.describe()} has occurrences {seen}, want {want}"

    def _no_secret(self, c: NoSecret) -> tuple[bool, str]:
        where = scan_workspace(self.ws).find(c.secret)
        if where:
            return False, "the secret is stored in " + ", ".join(sorted(set(where)))
        return True, "not found in any store"


def _label(c: Any) -> str:
    if isinstance(c, FactStatusCheck):
        return f"{c.type}:{c.status}"
    if isinstance(c, SearchTop):
        return f"{c.type}:as_of" if c.as_of is not None else c.type
    if isinstance(c, ReplayApply) and c.expect == {}:
        return f"{c.type}:no_change"
    return str(c.type)


def _run_one(
    sc: Scenario,
    settings: Settings,
    embedder: Embedder,
    factory: PipelineFactory | None,
    report: ScenarioReport,
) -> ScenarioResult:
    result = ScenarioResult(id=sc.id, description=sc.description, covers=list(sc.covers))
    if sc.tenant_policies:
        settings = settings.model_copy(update={"tenant_policies": dict(sc.tenant_policies)})
    now = max(t.ts for t in sc.turns) + timedelta(days=1)
    pending = list(enumerate(sc.checks))
    try:
        with Workspace(settings, embedder, factory) as ws:
            runner = _Runner(ws, embedder, now, sc.turns)
            ex = ws.pipeline.extract.extractor
            report.extractor = f"{ex.name}-{ex.version}"

            def run_checks(after: str | None) -> None:
                nonlocal pending
                due = [(i, c) for i, c in pending if c.after == after]
                pending = [(i, c) for i, c in pending if c.after != after]
                for i, c in due:
                    ok, msg = runner.run(c)
                    result.checks.append(
                        CheckResult(index=i, type=c.type, passed=ok, message=msg, label=_label(c))
                    )

            done: set[str] = set()
            for turn in sc.turns:
                ws.process(turn)
                if turn.turn_id not in done:
                    done.add(turn.turn_id)
                    run_checks(turn.turn_id)
            run_checks(None)
    except Exception as exc:  # a scenario that crashes the gate fails, the others still run
        result.error = f"{type(exc).__name__}: {exc}"
    result.checks.sort(key=lambda c: c.index)
    return result


def evaluate(
    path: Path | Sequence[Path],
    settings: Settings,
    embedder: Embedder,
    *,
    pipeline_factory: PipelineFactory | None = None,
) -> ScenarioReport:
    """Run every scenario on its own fresh gate; pass or fail per scenario."""
    scenarios = load(path)
    report = ScenarioReport(
        path=str(path) if isinstance(path, Path) else ", ".join(map(str, path)),
        policy=settings.policy,
        extractor="",
        embedder=embedder_name(embedder),
    )
    for sc in scenarios:
        report.results.append(_run_one(sc, settings, embedder, pipeline_factory, report))
    return report
