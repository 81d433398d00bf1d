"""LoCoMo: the gate against a store-every-turn baseline, measured in the same run.

Per conversation (tenant = ``sample_id``, users = its two speakers):

* **gated**: the turns go through the real pipeline (triage → extract →
  redact → dedupe → persist, :class:`memgate.streams.runner.InProcessRunner`) under a
  write policy, into an :class:`memgate.sinks.embedded.EmbeddedIndex`, with the audit
  in chDB (one database per run); each fact is searched with its masked
  source context (:mod:`memgate.stages.context`), as in production;
* **baseline**: every turn is stored verbatim as one active
  :class:`memgate.core.events.StoredFact` (text = the turn's content, provenance =
  its turn id, embedding from the same embedder), no pipeline.

What is measured (questions of categories 1-4 only, with at least one usable
evidence id):

* **evidence recall@k**: the question text is searched for each of the two
  speakers (``k`` = the largest k), the two hit lists are merged by their
  fused (RRF) score and cut to k; the question is a hit when the
  ``source_turn_ids`` of one of those facts intersect its ``evidence``.
  Decay is off (``Recall(decay=None)``): the questions span the whole history
  (temporal questions ask about the first sessions), the baseline's rows
  would decay by an arbitrary type, and the comparison is about *what was
  stored*, not about the read path's ageing.
* **write amplification**: new servable fact rows (dedupe verdicts ADD and
  SUPERSEDE, promotions from pending included; :attr:`RunSummary.stored`)
  per turn ingested. ``rows_per_turn`` also counts pending and superseded
  rows. The baseline stores one row per turn: 1.0.
* **coverage**: the share of distinct ``dia_id``s cited by ``observation``
  from which at least one active or superseded fact was stored (pending
  facts are not served, so they do not count). The baseline's is 1.0 by
  construction.
* **answer-token recall@k** ("with memory versus without", offline proxy):
  the share of the gold answer's content tokens (lower case, stop words and
  the question's own words removed) found in the texts of the top-k facts
  (their statements, not their contexts: what an agent is served).
  Without memory the context is empty, so it is 0 by construction. This is a
  retrieval-side proxy, not an LLM judge.
* **context rot**: the same conversations with ``r`` × (number of real
  turns) trivial synthetic turns interleaved (:func:`pollute`); the gated
  store gets them through the full pipeline, the baseline stores every one.
  ``rot_cost[r] = recall@10(clean) - recall@10(r:1)``.

Evidence and provenance ids are compared in one canonical form
(:func:`canonical_id`): LoCoMo's ``evidence`` holds a few malformed entries
(``"D8:6; D9:17"``, ``"D:11:26"``, ``"D"``), which are split, repaired or
dropped.
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from memgate.bench.figures import BenchResult, Figures, VariantResult
from memgate.core.embedding import Embedder, FloatArray
from memgate.core.errors import ConfigError
from memgate.core.events import FactStatus, FactType, StoredFact, TurnEvent, stable_id
from memgate.inputs import LocomoConversation, _ident, load_locomo

if TYPE_CHECKING:
    from memgate.core.settings import Settings
    from memgate.core.stores import RetrievalStore
    from memgate.stages.extract import Extractor
    from memgate.streams.pipeline import Pipeline

__all__ = [
    "ANSWER_STOPWORDS",
    "QA_CATEGORIES",
    "BenchProgress",
    "BenchResult",
    "Figures",
    "Question",
    "VariantResult",
    "answer_tokens",
    "baseline_facts",
    "canonical_id",
    "evidence_ids",
    "observation_ids",
    "pollute",
    "questions_of",
    "run_locomo",
]

#: LoCoMo categories scored: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop.
QA_CATEGORIES: frozenset[int] = frozenset({1, 2, 3, 4})
EMBED_CHUNK = 64
BASELINE = "baseline"

# ------------------------------------------------------------------ ids and questions

_DIA_RE = re.compile(r"^D:?0*(\d+):0*(\d+)$")
_SPLIT_RE = re.compile(r"[;,\s]+")


def canonical_id(raw: str) -> str | None:
    """One form for evidence, observation and provenance ids; ``None`` if unusable.

    >>> canonical_id("D:11:26"), canonical_id("D3:07"), canonical_id("P2:5"), canonical_id("D")
    ('D11:26', 'D3:7', 'P2:5', None)
    """
    s = raw.strip()
    m = _DIA_RE.match(s)
    if m:
        return _ident(f"D{int(m.group(1))}:{int(m.group(2))}")
    if not any(ch.isdigit() for ch in s):
        return None
    return _ident(s)


def evidence_ids(raw: object) -> frozenset[str]:
    """Canonical ids from an ``evidence`` list (or string), split on ``;``/``,``/spaces.

    >>> sorted(evidence_ids(["D8:6; D9:17", "D", "D:11:26"]))
    ['D11:26', 'D8:6', 'D9:17']
    """
    items: list[object] = [raw] if isinstance(raw, str) else list(_iter(raw))
    out: set[str] = set()
    for item in items:
        if not isinstance(item, str):
            continue
        for piece in _SPLIT_RE.split(item):
            cid = canonical_id(piece) if piece else None
            if cid is not None:
                out.add(cid)
    return frozenset(out)


def _iter(raw: object) -> Iterable[object]:
    return raw if isinstance(raw, list | tuple) else ()


def observation_ids(observation: dict[str, Any]) -> frozenset[str]:
    """Every turn id cited by LoCoMo's ``observation``.

    Shape: ``{"session_N_observation": {speaker: [[text, dia_id or [dia_ids]], ...]}}``.
    """
    out: set[str] = set()
    for per_session in observation.values():
        if not isinstance(per_session, dict):
            continue
        for items in per_session.values():
            for item in items or []:
                if isinstance(item, list | tuple) and len(item) >= 2:
                    out |= evidence_ids(item[1])
    return frozenset(out)


_WORD_RE = re.compile(r"[a-z0-9]+")

#: Stop words removed from gold answers (and from the pollution word pool).
_STOPWORDS_TEXT = """
a an the and or but if of to in on at by for with from into about as is are was were
be been being am do does did done have has had having i me my mine we our ours you your
yours he him his she her hers it its they them their theirs this that these those there
here what which who whom whose when where why how not no yes so than then too very can
could would should will shall might must just also only some any all each both more
most other such own same s t d ll m re ve don didn doesn isn wasn weren won wouldn
one ones up out over again once still really like get got go went going
"""
ANSWER_STOPWORDS: frozenset[str] = frozenset(_STOPWORDS_TEXT.split())


def _tokens(text: str) -> set[str]:
    return {_stem(w) for w in _WORD_RE.findall(text.lower())}


def _stem(w: str) -> str:
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


def answer_tokens(answer: object, question: str) -> frozenset[str]:
    """The content tokens of a gold answer that the question does not already contain.

    >>> sorted(answer_tokens("Psychology, counseling certification", "What fields?"))
    ['certification', 'counseling', 'psychology']
    >>> sorted(answer_tokens("7 May 2023", "When did Caroline go to the support group?"))
    ['2023', '7', 'may']
    """
    q = _tokens(question)
    words = _WORD_RE.findall(str(answer).lower())
    return frozenset(_stem(w) for w in words if w not in ANSWER_STOPWORDS and _stem(w) not in q)


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: frozenset[str]
    answer_tokens: frozenset[str]


def questions_of(conv: LocomoConversation) -> tuple[list[Question], int]:
    """The scored questions (categories 1-4, usable evidence) and how many were skipped."""
    out: list[Question] = []
    skipped = 0
    for qa in conv.qa:
        try:
            cat = int(qa.get("category", 0))
        except (TypeError, ValueError):
            continue
        if cat not in QA_CATEGORIES:
            continue
        text = str(qa.get("question", "")).strip()
        ev = evidence_ids(qa.get("evidence"))
        if not text or not ev:
            skipped += 1
            continue
        out.append(
            Question(
                text=text,
                category=cat,
                evidence=ev,
                answer_tokens=answer_tokens(qa.get("answer", ""), text),
            )
        )
    return out, skipped


# ------------------------------------------------------------------ pollution

TRIVIAL_FIXED: tuple[str, ...] = ("haha yeah", "ok cool", "lol true", "hmm okay", "yeah totally")
TRIVIAL_TEMPLATES: tuple[str, ...] = (
    "I was just thinking about {w1} and {w2} again, no big deal",
    "You asked me about {w1} last week",
    "Not sure, maybe {w1}?",
    "Just checking in about {w1}",
    "We talked about {w1} before, right?",
    "Funny how {w1} keeps coming up lately",
    "I mentioned {w1} earlier, I think",
    "Anyway, {w1} and {w2}, you know how it is",
)
_POOL_RE = re.compile(r"[A-Za-z]{4,}")


def _word_pool(turns: Sequence[TurnEvent]) -> list[str]:
    seen: dict[str, None] = {}
    for t in turns:
        for w in _POOL_RE.findall(t.content):
            lw = w.lower()
            if lw not in ANSWER_STOPWORDS:
                seen.setdefault(lw, None)
    return list(seen) or ["things", "stuff"]


def _session_no(session_id: str) -> str:
    m = re.search(r"(\d+)$", session_id)
    return m.group(1) if m else _ident(session_id)


def pollute(turns: Sequence[TurnEvent], ratio: int, *, seed: int = 0) -> list[TurnEvent]:
    """The turns with ``ratio`` × len(turns) trivial synthetic turns interleaved.

    Per session: synthetic turns are said by the session's speakers, use words
    sampled from the session's own turns (so they are lexically and
    semantically close to real content), and get ids ``P<session>:<n>`` and a
    timestamp between their neighbours. Deterministic for a seed, and nested:
    the synthetic turns of ratio 1 are the first ones of ratio 5.
    """
    if ratio <= 0:
        return list(turns)
    sessions: dict[str, list[TurnEvent]] = {}
    for t in turns:
        sessions.setdefault(t.session_id, []).append(t)
    out: list[TurnEvent] = []
    for session_id, real in sessions.items():
        tenant = real[0].tenant_id
        rng = random.Random(f"memgate-bench:{seed}:{tenant}:{session_id}")
        speakers = sorted({t.user_id for t in real})
        pool = _word_pool(real)
        slots: dict[int, list[TurnEvent]] = {}
        n = len(real)
        for j in range(ratio * n):
            slot = rng.randrange(n + 1)
            speaker = rng.choice(speakers)
            if rng.random() < 0.25:
                text = rng.choice(TRIVIAL_FIXED)
            else:
                text = rng.choice(TRIVIAL_TEMPLATES).format(
                    w1=rng.choice(pool), w2=rng.choice(pool)
                )
            anchor = real[slot - 1] if slot > 0 else real[0]
            base = anchor.ts if slot > 0 else anchor.ts - timedelta(seconds=1)
            k = len(slots.setdefault(slot, []))
            slots[slot].append(
                TurnEvent(
                    tenant_id=tenant,
                    user_id=speaker,
                    session_id=session_id,
                    turn_id=f"P{_session_no(session_id)}:{j + 1}",
                    role=anchor.role,
                    content=text,
                    ts=base + timedelta(milliseconds=k + 1),
                    metadata={"source": "bench-pollution"},
                )
            )
        for i in range(n + 1):
            out.extend(slots.get(i, []))
            if i < n:
                out.append(real[i])
    return out


# ------------------------------------------------------------------ baseline


def baseline_facts(turns: Sequence[TurnEvent], vectors: FloatArray) -> list[StoredFact]:
    """One active fact per turn: the turn verbatim, provenance = its turn id."""
    out = []
    for t, vec in zip(turns, vectors, strict=True):
        key = f"{t.tenant_id}/{t.user_id}/turn/{t.turn_id}"
        out.append(
            StoredFact(
                fact_id=stable_id(BASELINE, t.tenant_id, t.turn_id),
                tenant_id=t.tenant_id,
                user_id=t.user_id,
                key=key,
                type=FactType.FACT,
                subject=t.user_id,
                predicate="said",
                value=t.content,
                text=t.content,
                status=FactStatus.ACTIVE,
                confidence=1.0,
                valid_from=t.ts,
                recorded_at=t.ts,
                session_ids=[t.session_id],
                first_seen=t.ts,
                last_seen=t.ts,
                source_turn_ids=[t.turn_id],
                extractor=BASELINE,
                extractor_version="1",
                policy_version="store-every-turn",
                embedding=[float(x) for x in vec],
            )
        )
    return out


# ------------------------------------------------------------------ embedder


class _Memo:
    """The run's embedder with an unbounded cache (texts recur across runs and ratios)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self._cache: dict[str, FloatArray] = {}

    def embed(self, texts: Sequence[str]) -> FloatArray:
        items = list(texts)
        missing = list(dict.fromkeys(t for t in items if t not in self._cache))
        if missing:
            vecs = self.inner.embed(missing)
            for t, v in zip(missing, vecs, strict=True):
                self._cache[t] = v
        out = np.empty((len(items), self.dim), dtype=np.float32)
        for i, t in enumerate(items):
            out[i] = self._cache[t]
        return out

    def warm(self, texts: Iterable[str], progress: BenchProgress, label: str) -> None:
        """Embed the texts not cached yet in chunks of :data:`EMBED_CHUNK`, with progress."""
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if not todo:
            return
        progress.start(label, len(todo))
        for s in range(0, len(todo), EMBED_CHUNK):
            chunk = todo[s : s + EMBED_CHUNK]
            self.embed(chunk)
            progress.advance(len(chunk))


# ------------------------------------------------------------------ progress


class BenchProgress(Protocol):
    def start(self, label: str, total: int) -> None: ...

    def advance(self, n: int = 1) -> None: ...


class _Quiet:
    def start(self, label: str, total: int) -> None:
        return None

    def advance(self, n: int = 1) -> None:
        return None


# ------------------------------------------------------------------ scoring


def _retrieve(
    search: Callable[[str, str, str, int], list[tuple[float, StoredFact]]],
    tenant: str,
    users: Sequence[str],
    text: str,
    k: int,
) -> list[StoredFact]:
    """The top k of both speakers' hits, merged by fused score.

    Each speaker's search asks for 2k so that a tie at the store's cut cannot
    decide the merged top k; ties are broken by the first source turn id, then
    the fact id, so two stores holding the same texts for the same turns
    (the harness's honesty property) rank them identically.
    """
    hits: list[tuple[float, StoredFact]] = []
    for u in users:
        hits.extend(search(tenant, u, text, 2 * k))
    hits.sort(key=lambda h: (-h[0], h[1].source_turn_ids[0], h[1].fact_id))
    return [f for _, f in hits[:k]]


def _score(
    store: RetrievalStore,
    embedder: _Memo,
    conv: LocomoConversation,
    users: Sequence[str],
    questions: Sequence[Question],
    obs: frozenset[str],
    ks: Sequence[int],
    fig: Figures,
    progress: BenchProgress,
) -> None:
    """Add recall, answer-token recall and coverage of one conversation's store to ``fig``."""
    from memgate.core.stores import SearchQuery
    from memgate.recall import Recall

    recall = Recall(store, embedder, decay=None)

    def search(tenant: str, user: str, text: str, k: int) -> list[tuple[float, StoredFact]]:
        q = SearchQuery(tenant_id=tenant, user_id=user, text=text, k=k)
        return [(h.score, h.fact) for h in recall.search(q)]

    kmax = max(ks)
    for q in questions:
        facts = _retrieve(search, conv.sample_id, users, q.text, kmax)
        fig.questions += 1
        fig.cat_questions[q.category] += 1
        if q.answer_tokens:
            fig.answer_questions += 1
        for k in ks:
            top = facts[:k]
            cited = {canonical_id(t) for f in top for t in f.source_turn_ids}
            if cited & q.evidence:
                fig.hits[k] += 1
                fig.cat_hits[(q.category, k)] += 1
            if q.answer_tokens:
                context: set[str] = set()
                for f in top:
                    context |= _tokens(f.text)
                share = len(q.answer_tokens & context) / len(q.answer_tokens)
                fig.answer_token_sum[k] = fig.answer_token_sum.get(k, 0.0) + share
        progress.advance(1)

    produced: set[str] = set()
    rows = 0
    for u in users:
        for f in store.list_facts(conv.sample_id, u, include_inactive=True):
            rows += 1
            if f.status is not FactStatus.PENDING:
                produced |= {c for c in map(canonical_id, f.source_turn_ids) if c}
    fig.rows += rows
    fig.observed += len(obs)
    fig.covered += len(obs & produced)


# ------------------------------------------------------------------ the run


@dataclass(frozen=True)
class _Conv:
    conv: LocomoConversation
    users: list[str]
    questions: list[Question]
    obs: frozenset[str]
    streams: dict[int, list[TurnEvent]]


def _audit_db(name: str, ratio: int) -> str:
    safe = re.sub(r"[^A-Za-z0-9_]", "_", name)[:60]
    return f"bench_{safe}_r{ratio}"


def run_locomo(
    data: Path,
    *,
    policies: Sequence[str] = ("balanced",),
    embedder: Embedder,
    workdir: Path,
    ks: Sequence[int] = (5, 10),
    pollution: Sequence[int] = (0, 1, 5),
    seed: int = 0,
    limit_conversations: int | None = None,
    conversations: Sequence[str] | None = None,
    settings: Settings | None = None,
    extractor: Extractor | None = None,
    pipeline_factory: Callable[[str], Pipeline] | None = None,
    progress: BenchProgress | None = None,
) -> BenchResult:
    """Run LoCoMo through each write policy and the store-every-turn baseline.

    ``workdir`` must be empty or missing; it receives one SQLite retrieval
    store per (variant, pollution ratio) and the chDB audit (one database per
    gated run, e.g. ``bench_balanced_r0``), and is left in place for
    inspection. ``pipeline_factory(policy)`` replaces
    :func:`memgate.backends.build_pipeline` (tests inject extractors that
    keep everything or nothing); otherwise ``settings`` (default: from the
    environment) and ``extractor`` (default: the settings' extractor) build
    it. Pollution ratio 0 (the clean run) always runs. ``conversations``
    keeps only those sample ids (in file order; each must be in ``data``),
    before ``limit_conversations`` cuts.
    """
    from memgate.core.settings import Settings
    from memgate.keys import keyed_in_memory
    from memgate.sinks.audit import ClickHouseAudit
    from memgate.sinks.embedded import EmbeddedIndex
    from memgate.streams.runner import InProcessRunner

    t_start = time.perf_counter()
    prog: BenchProgress = progress or _Quiet()
    ks = sorted({int(k) for k in ks})
    if not ks or ks[0] < 1:
        raise ConfigError("every k must be a positive integer")
    ratios = sorted({int(r) for r in pollution if int(r) > 0})
    if any(int(r) < 0 for r in pollution):
        raise ConfigError("pollution ratios must be >= 0")
    if not policies:
        raise ConfigError("at least one write policy is needed")
    policies = list(dict.fromkeys(policies))
    if not data.is_file():
        raise ConfigError(f"LoCoMo data file not found: {data}")
    if workdir.exists() and any(workdir.iterdir()):
        raise ConfigError(f"work directory {workdir} is not empty; give an empty or new one")
    workdir.mkdir(parents=True, exist_ok=True)

    memo = _Memo(embedder)
    base = settings if settings is not None else Settings()
    # the gate writes throwaway stores (in workdir): it is keyed in memory, with workdir
    # as its data dir, so that no key file is made for them and nothing is written in the
    # settings' data dir; the Claude extractor's answer cache stays there, under its key
    # (a re-run reads it)
    gate = keyed_in_memory(base, workdir)

    def default_factory(policy: str) -> Pipeline:
        from memgate.backends import build_pipeline, make_extractor

        own = base.model_copy(update={"policy": policy})
        return build_pipeline(
            gate.model_copy(update={"policy": policy}), memo, extractor or make_extractor(own)
        )

    factory = pipeline_factory or default_factory
    loaded = load_locomo(data)
    if conversations is not None:
        wanted = {_ident(x) for x in conversations}
        missing = sorted(wanted - {c.sample_id for c in loaded})
        if missing:
            raise ConfigError(f"{data} holds no conversation {', '.join(missing)}")
        loaded = [c for c in loaded if c.sample_id in wanted]
    if limit_conversations is not None:
        loaded = loaded[: max(0, limit_conversations)]
    if not loaded:
        raise ConfigError(f"{data} holds no conversation")

    convs: list[_Conv] = []
    skipped = 0
    for lc in loaded:
        qs, skip = questions_of(lc)
        skipped += skip
        convs.append(
            _Conv(
                conv=lc,
                users=sorted({t.user_id for t in lc.turns}),
                questions=qs,
                obs=observation_ids(lc.observation),
                streams={0: list(lc.turns), **{r: pollute(lc.turns, r, seed=seed) for r in ratios}},
            )
        )
    n_questions = sum(len(c.questions) for c in convs)
    all_ratios = [0, *ratios]

    t_embed = time.perf_counter()
    memo.warm((q.text for c in convs for q in c.questions), prog, "embed questions")
    embed_s = time.perf_counter() - t_embed

    # ---- baseline: every turn verbatim
    baseline = VariantResult(name=BASELINE)
    for r in all_ratios:
        t_embed = time.perf_counter()
        memo.warm(
            (t.content for c in convs for t in c.streams[r]), prog, f"embed turns (ratio {r})"
        )
        embed_s += time.perf_counter() - t_embed
        fig = Figures()
        t0 = time.perf_counter()
        with EmbeddedIndex(workdir / f"{BASELINE}-r{r}.sqlite3", dim=memo.dim) as store:
            prog.start(f"baseline ratio {r}", sum(len(c.streams[r]) for c in convs))
            for c in convs:
                turns = c.streams[r]
                for i in range(0, len(turns), EMBED_CHUNK):
                    chunk = turns[i : i + EMBED_CHUNK]
                    vecs = memo.embed([t.content for t in chunk])
                    store.upsert(baseline_facts(chunk, vecs))
                    prog.advance(len(chunk))
            baseline.ingest_s[r] = time.perf_counter() - t0
            t1 = time.perf_counter()
            prog.start(f"score baseline ratio {r}", n_questions)
            for c in convs:
                cf = Figures(turns=len(c.streams[r]), stored=len(c.streams[r]))
                cf.kept = cf.turns
                _score(store, memo, c.conv, c.users, c.questions, c.obs, ks, cf, prog)
                fig.add(cf)
                if r == 0:
                    baseline.per_conversation[c.conv.sample_id] = cf
            baseline.eval_s[r] = time.perf_counter() - t1
        if r == 0:
            baseline.clean = fig
        else:
            baseline.pollution[r] = fig

    # ---- gated: the real pipeline under each policy
    gated: dict[str, VariantResult] = {}
    extractor_name = extractor_sha = ""
    source_changed = False
    audit_path = workdir / "audit"
    for policy in policies:
        vr = VariantResult(name=policy)
        for r in all_ratios:
            pipeline = factory(policy)
            ex = pipeline.extract.extractor
            extractor_name = f"{ex.name}-{ex.version}"
            sha = _source_sha(ex)
            if not extractor_sha:
                extractor_sha = sha  # read when the extractor is first built (and imported)
            elif sha != extractor_sha:
                source_changed = True
            fig = Figures()
            audit = ClickHouseAudit.embedded(audit_path, database=_audit_db(policy, r))
            try:
                with EmbeddedIndex(workdir / f"{_audit_db(policy, r)}.sqlite3", dim=memo.dim) as st:
                    runner = InProcessRunner(pipeline, st, audit)
                    t0 = time.perf_counter()
                    prog.start(f"{policy} ratio {r}", sum(len(c.streams[r]) for c in convs))
                    per_conv: list[tuple[_Conv, Figures]] = []
                    for c in convs:
                        before_turns, before_stored = runner.summary.turns, runner.summary.stored
                        before_kept = runner.summary.kept
                        summ = runner.run(c.streams[r], progress=prog.advance)
                        per_conv.append(
                            (
                                c,
                                Figures(
                                    turns=summ.turns - before_turns,
                                    stored=summ.stored - before_stored,
                                    kept=summ.kept - before_kept,
                                ),
                            )
                        )
                    runner.close()
                    vr.ingest_s[r] = time.perf_counter() - t0
                    t1 = time.perf_counter()
                    prog.start(f"score {policy} ratio {r}", n_questions)
                    for c, cf in per_conv:
                        _score(st, memo, c.conv, c.users, c.questions, c.obs, ks, cf, prog)
                        fig.add(cf)
                        if r == 0:
                            vr.per_conversation[c.conv.sample_id] = cf
                    vr.eval_s[r] = time.perf_counter() - t1
                    if r == 0:
                        vr.actions = Counter(runner.summary.actions)
                        vr.drops = _audit_counts(audit, "drop-reasons")
                        vr.redactions = _audit_counts(audit, "redactions")
            finally:
                audit.close()
            if r == 0:
                vr.clean = fig
            else:
                vr.pollution[r] = fig
        gated[policy] = vr

    return BenchResult(
        data=str(data),
        policies=policies,
        ks=ks,
        ratios=ratios,
        seed=seed,
        gated=gated,
        baseline=baseline,
        conversations=[c.conv.sample_id for c in convs],
        turns=sum(len(c.conv.turns) for c in convs),
        questions=n_questions,
        skipped_questions=skipped,
        elapsed_s=time.perf_counter() - t_start,
        embedder=memo.name,
        extractor=extractor_name,
        extractor_source_sha256=extractor_sha,
        extractor_source_changed=source_changed,
        embed_s=embed_s,
    )


def _source_sha(obj: object) -> str:
    import hashlib
    import inspect

    try:
        src = Path(inspect.getfile(type(obj))).read_bytes()
    except (TypeError, OSError):
        return ""
    return hashlib.sha256(src).hexdigest()[:12]


def _audit_counts(audit: Any, report: str) -> Counter[str]:
    """``stage:reason`` (drop-reasons) or ``source:kind`` (redactions) -> count."""
    _cols, rows = audit.report(report)
    out: Counter[str] = Counter()
    for row in rows:
        name = f"{row[0]}:{str(row[1]).removeprefix('kind.')}"
        # The extract stage's admitted verdict is "facts" (reason "extracted"), which
        # the report's admitted list does not name: not a drop.
        if report == "drop-reasons" and name == "extract:extracted":
            continue
        out[name] += int(row[2])
    return out
