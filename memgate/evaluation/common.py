"""Shared plumbing of the evaluation harness: corpus files, fresh stores, scores.

Every evaluation runs the real gate (triage → extract → redact → dedupe →
persist, :class:`memgate.streams.runner.InProcessRunner`) on *fresh* embedded stores
in a temporary folder (:class:`Workspace`): an SQLite retrieval index and an
in-process ClickHouse (chDB) audit store, whatever the backends named in the
settings. The embedder is passed in, so one loaded model serves every run (the
CLI passes MiniLM, the unit tests the hashing embedder), and so is the
pipeline, through a :data:`PipelineFactory` (default:
:func:`memgate.backends.build_pipeline`): the harness tests swap in a gate that
keeps everything, keeps nothing or skips redaction to prove the scores can
fail.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from memgate.core.closing import Closing
from memgate.core.embedding import Embedder
from memgate.core.errors import MemgateError
from memgate.core.events import FactStatus, StoredFact, TurnEvent
from memgate.core.settings import Settings
from memgate.keys import keyed_in_memory
from memgate.sinks.audit import ClickHouseAudit
from memgate.sinks.embedded import EmbeddedIndex
from memgate.streams.pipeline import Pipeline
from memgate.streams.runner import InProcessRunner, RunSummary

__all__ = [
    "BUNDLED_FILES",
    "DEV_EXTRA_FILES",
    "Confusion",
    "CorpusError",
    "PipelineFactory",
    "Workspace",
    "default_pipeline",
    "embedder_name",
    "read_jsonl",
    "safe_ratio",
]

#: The bundled development corpus, in ``memgate/data/eval/``.
BUNDLED_FILES: dict[str, str] = {
    "labelled": "labelled_turns.jsonl",
    "leaks": "leaks.jsonl",
    "scenarios": "scenarios.jsonl",
}
#: Further development files read with a suite's bundled file, as one corpus.
DEV_EXTRA_FILES: dict[str, tuple[str, ...]] = {
    # issue 9 item 5: the fail-closed classes, six languages (dev2); e-mail shapes,
    # national ids of many countries and look-alikes (dev3)
    "leaks": ("leaks_dev2.jsonl", "leaks_dev3.jsonl"),
    # durable facts versus states of the moment, requests and chatter in de fr es (dev2);
    # the keep decision on unseen wording, half German, six languages, facts about the
    # speaker and the things they work with, hard negatives (dev3); long turns, one durable
    # fact among sentences of the moment, and long turns of the moment (dev4); Spanish and
    # Portuguese first person marked on the verb alone, with hard negatives (dev5, keepemb)
    "labelled": (
        "labelled_turns_dev2.jsonl",
        "labelled_turns_dev3.jsonl",
        "labelled_turns_dev4.jsonl",
        "labelled_turns_dev5.jsonl",
        # irony, fiction, irrealis, strangers' facts, states of the moment, with durable
        # look-alikes (the user's own preferences, clubs, family), six languages (written
        # for keep30, which was not kept; keep31 narrowed it: README)
        "labelled_turns_dev30k.jsonl",
        # written for noise33 before reading triage: durable facts said casually or with a
        # time-of-now word, versus moments, one-off requests, questions with a personal word,
        # hypotheticals and chatter with a detail, ten per language, half keep (dev33n)
        "labelled_turns_dev33n.jsonl",
        # written for noise35 before its design: durable facts said in chit-chat, as a
        # complaint or as a dated plan, versus long turns of moods, one-off requests with a
        # personal word, strangers' stories, thanks and hypotheticals, six per language,
        # half keep (dev35n)
        "labelled_turns_dev35n.jsonl",
    ),
    # issue 9 item 3: semantic resolution, eight classes, three domains, six languages (dev2);
    # deletion, as_of, supersede, retraction, dedupe, noise in the frozen failure shapes (dev3);
    # supersede, as_of, dedupe in new words, moves, near-repeats, hard negatives (dev4);
    # changes through a slot family, household moves, retractions by reference, an
    # instruction replacing a preference (dev5);
    # supersede by role and tool words, paraphrase dedupe, as-of, in five languages (dev6);
    # supersede in new words (jobs, bosses, cities with their time zone, tools), retraction
    # and deletion by reference, paraphrase dedupe, noise, confirmation, en de fr es (dev7);
    # retraction and deletion by a broader word or a pronoun, paraphrase dedupe with near
    # misses, confirmation, noise, six languages (dev8);
    # dedupe, deletion by a broader word, noise, confirmation with implied updates,
    # supersede in new words, six languages, three domains (dev9);
    # the weak frozen classes again: dedupe with near misses, noise, deletion with the search
    # after it, confirmation with implied updates, supersede with the search after it,
    # retraction by reference, as_of, six languages (dev10);
    # dedupe, confirmation (guess then check, a repeat, implied updates), deletion by a topic
    # word, noise, supersede in new words, as_of; personal, work, travel (dev11);
    # dedupe in other words, order, register, hedges and detail with hard negatives,
    # confirmation, deletion by a topic word, noise of the moment, supersede (dev12);
    # dedupe across word order, synonyms and six languages with a third hard negatives,
    # confirmation (guess then check, a repeat, implied updates), supersede in new words (dev13);
    # noise (moments with and without a time word, one-off requests, questions, chatter)
    # mixed with one durable fact, deletion by topic, category, what was said, across
    # languages, with hard negatives of both, six languages (dev14);
    # the tune half of one fresh batch of 80 (dedupe, confirmation, deletion, noise,
    # supersede; six languages, three domains): its other half,
    # scenarios_dev15_holdout.jsonl, is left out of this run on purpose and scored alone
    # with --scenarios, as the held-out measure of the rules written on this half (dev15);
    # the tune file of one fresh batch of 32 (24 dedupe, 8 supersede; six languages,
    # personal, work, health and hobbies): its held-out file, scenarios_dev22_holdout.jsonl,
    # is left out of this run on purpose and scored alone with --scenarios (dev22);
    # the tune file of one fresh batch of 32 (16 supersede, 16 confirmation; six languages,
    # personal, work, health and hobbies): its held-out file,
    # scenarios_dev23a_holdout.jsonl, is left out of this run on purpose and scored alone
    # with --scenarios, counts only (dev23a);
    # the tune file of one fresh batch of 32 (16 deletion, 16 noise; six languages,
    # personal, work, health and hobbies): its held-out file, scenarios_dev23b_holdout.jsonl,
    # is left out of this run on purpose and scored alone with --scenarios (dev23b);
    # retraction by reference (team facts, a withdrawal of something never stored),
    # deletion by a topic or category word (and a "forget it" about a passing request),
    # confirmation of a hedge (and a hedge never confirmed), six languages (dev29r);
    # issue 12: replay through another policy, shadow diff, apply, idempotence (dev_replay);
    # the fold by activity in en de fr es, another activity kept apart (dev_fold);
    # dedupe: a restatement in other words (idiom, the value first, another verb, a tail)
    # folds, two facts of one owner with another qualifier stay two, six languages (dev29d)
    # issue 9 supersede: a single-valued fact changed in new words, with and without a cue,
    # the slot named differently, two per language, and hard negatives (a second value,
    # another person's change, a plan) (dev29s);
    # supersede of a single-valued slot (boss, commute, home city, where the code lives) in
    # new words: another slot noun, no cue, the old value named as past, a move; hard
    # negatives (a second value, another person's move, another thing's slot, a week's
    # exception), six languages (dev30s)
    # confirmation: a hedge, plan or offer confirmed in other words (signed, booked, done, a
    # bare yes, a pronoun, a later session with other content), and a hedge never confirmed,
    # reversed, or followed by a confirmation of something else, six languages (dev30c; its
    # design, confirm30, was not kept: README, Session 30)
    # dedupe written for fold30: a restatement by another verb, word order, a nominal
    # sentence, a pronoun, a reason, 'still', or inside a longer turn, six languages; hard
    # negatives of another value, another owner, another qualifier, a related fact (dev30f)
    # dedupe written blind for fold31, before reading the resolvers: a restatement by a
    # pronoun, an abbreviation, 'as I said', a synonym, a reason, the value first, inside a
    # longer turn with a request, six languages; hard negatives of another person, another
    # value, a related habit (dev31f)
    # retraction and deletion by reference written blind for retr32, before reading the
    # resolvers: another owner ("that wasn't me, my sister"), "I was wrong", "ignore the bit
    # about", a broader word or a pronoun, a category, what was said; each with an unrelated
    # fact of the user that must survive as the top hit of its search, and hard negatives
    # (reported speech, "I forgot to ...", deleting a file or spam as a task), six
    # languages (dev32r)
    # supersede in new words written for super32 before the design: no slot noun, another
    # verb, a move said by the flat, a switch of provider, employer, gym or hospital, with
    # the search after it; hard negatives of a second value of a multi-valued slot (a
    # language, a sport, a hobby) and of another person's change (a friend's company, a
    # mother's doctor, a wife's dentist, a sister's move), six languages (dev32s)
    # dedupe written for fold32, before its design: a restatement that yields no fact of its
    # own (a question or recall tag, a request after it, a bare noun phrase, an aside); hard
    # negatives of another person, another value, a negation, a wish, six languages (dev32f)
    # noise written for noise33 before reading triage: two or three durable facts (some said
    # casually, in passing) among moods and states of the moment, one-off requests, questions,
    # hypotheticals and chatter with a detail; the exact active count and a search per fact,
    # six languages, three domains (dev33n)
    # dedupe written for fold33 before its design: a restatement by another verb, another
    # name of the value, a noun for an adjective, the value first, another language of the
    # same user, a confirmation of a hedge or a brief repeat; hard negatives of a second
    # value, another person, a related fact, a change of employer or city, six languages
    # (dev33f)
    # confirmation written for conf34 before its design: the assistant's question or offer
    # about the user answered by a brief yes (alone or with a short addition), a hedge of
    # the user's confirmed later (through the assistant's check or in other words); hard
    # negatives of a no or a correction, a yes to a one-off task, to a question about
    # someone else, chit-chat, an unconfirmed suggestion, an old session's question, an
    # answer on another topic, six languages (dev34c)
    # supersede in new words written for sup34 before its read-path design: a new employer,
    # dentist, doctor, home, airport, car, gym, editor or phone said with no cue shared with
    # the old fact, checked by the top hit of a natural question (and, for five, as of a day
    # between the two turns: the old value); hard negatives of a second value of a
    # multi-valued slot (a language, a child, a sport, an allergy), another person's change,
    # a week away and a plan, six languages, three domains (dev34s)
    # dedupe written for rel34 before reading the resolver: a restatement in a later session
    # by synonyms, another construction, more or less detail, another register, a number in
    # digits or words; a tentative statement confirmed in other words; hard negatives of two
    # facts of one family (a second sport, a second language, a sister's job and the user's,
    # a past employer and the current one, a liking and a dislike), six languages (dev34p)
    # supersede in new words written for sup35 before its write-path design: a team lead,
    # home town, ticket tracker, family doctor, code editor, airline, database, code host,
    # favourite restaurant or superior replaced, checked by the old fact's status, the top
    # hit and the top hit as of a day between; hard negatives of an added instrument, sport,
    # pet, child or language, a brother's or wife's fact, a week away, a plan and a past
    # event, six languages, three domains (dev35s)
    # dedupe written for fold35 before its design: a restatement in a later session in
    # other words (another construction, a short name, a duration, two sentences, another
    # language of the same user); hard negatives of another value of the slot, two
    # colleagues, sons or pets, a liking and an allergy, a brother's employer, a plan and a
    # done fact, six languages, three domains (dev35f)
    # confirmation written for conf35 before its design: a hedge of the user's confirmed
    # briefly in the same session (after an assistant's remark or question) or in full words
    # later, one of two hedges confirmed by naming it; the assistant's proposition about the
    # user inside a longer turn, answered by a brief yes; hard negatives of a hedge then a
    # no, a 'maybe' to the assistant's check, a yes to a one-off task, to a question about a
    # stranger, a confirmation of another topic, six languages (dev35c)
    # noise written for noise35 before its design: moods and states of the moment, one-off
    # requests (a task verb with its pronoun joined, a pasted error after the request),
    # strangers' stories, thanks, hypotheticals and long anecdotes, around durable facts said
    # in passing, as a complaint or as a dated plan; a search per fact and the exact active
    # count, six languages, three domains (dev35n)
    # deletion written for del35 before its design: a request naming a category or a
    # paraphrase of the stored fact (prescriptions, job details, diet, hobbies, health, the
    # place one lives), in another language than the fact; each with an unrelated fact of
    # the user that must survive as the top hit of its search; hard negatives of a one-off
    # (a typo, a draft, a passing question), a question about deletion, a topic the user
    # holds no fact about, another user's fact, an old phone number beside the new one,
    # six languages, three domains (dev35d)
    # confirmation written for conf36 before its design: a hedge (dropped by triage or
    # stored pending) confirmed later by a turn that names nothing or restates the value in
    # a few words ("confirmed: lactose", "Terraform it is", "Toulouse, c'est confirmé"), in
    # the same session or a later one; hard negatives of a hedge then a denial, a hedge
    # never confirmed, a confirmation of another topic, a 'not yet', another user's
    # confirmation, six languages (dev36c)
    "scenarios": (
        "scenarios_dev2.jsonl",
        "scenarios_dev3.jsonl",
        "scenarios_dev4.jsonl",
        "scenarios_dev5.jsonl",
        "scenarios_dev6.jsonl",
        "scenarios_dev7.jsonl",
        "scenarios_dev8.jsonl",
        "scenarios_dev9.jsonl",
        "scenarios_dev10.jsonl",
        "scenarios_dev11.jsonl",
        "scenarios_dev12.jsonl",
        "scenarios_dev13.jsonl",
        "scenarios_dev14.jsonl",
        "scenarios_dev15.jsonl",
        "scenarios_dev22.jsonl",
        "scenarios_dev23a.jsonl",
        "scenarios_dev23b.jsonl",
        "scenarios_dev29r.jsonl",
        "scenarios_dev_replay.jsonl",
        "scenarios_dev_fold.jsonl",
        "scenarios_dev29d.jsonl",
        "scenarios_dev29s.jsonl",
        "scenarios_dev30s.jsonl",
        "scenarios_dev30c.jsonl",
        "scenarios_dev30f.jsonl",
        "scenarios_dev31f.jsonl",
        "scenarios_dev32r.jsonl",
        "scenarios_dev32s.jsonl",
        "scenarios_dev32f.jsonl",
        "scenarios_dev33n.jsonl",
        "scenarios_dev33f.jsonl",
        "scenarios_dev34c.jsonl",
        "scenarios_dev34s.jsonl",
        "scenarios_dev34p.jsonl",
        "scenarios_dev35s.jsonl",
        "scenarios_dev35f.jsonl",
        "scenarios_dev35c.jsonl",
        "scenarios_dev35n.jsonl",
        "scenarios_dev35d.jsonl",
        "scenarios_dev36c.jsonl",
    ),
}

PipelineFactory = Callable[[Settings, Embedder], Pipeline]
M = TypeVar("M", bound=BaseModel)


class CorpusError(MemgateError):
    """A corpus file is missing or has invalid lines (each named with its line number)."""


def default_pipeline(settings: Settings, embedder: Embedder) -> Pipeline:
    """The gate as the settings configure it (extractor, policy, regulated)."""
    from memgate.backends import build_pipeline

    return build_pipeline(settings, embedder)


def embedder_name(embedder: Embedder) -> str:
    name = getattr(embedder, "name", None)
    return str(name) if name else type(embedder).__name__


def read_jsonl(path: Path, model: type[M]) -> list[M]:
    """Every line of a JSONL corpus file, validated; all bad lines reported at once (a
    line that is not UTF-8, not JSON, nested too deeply or invalid is one problem each)."""
    if not path.is_file():
        raise CorpusError(f"{path} does not exist or is not a file")
    items: list[M] = []
    problems: list[str] = []
    with path.open("rb") as f:  # each line decoded on its own: a bad byte is that line's error
        for lineno, raw in enumerate(f, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                bad, at = raw[exc.start], exc.start + 1  # counted from 1, as `memgate ingest` does
                problems.append(
                    f"{path.name}:{lineno}: not UTF-8 (byte 0x{bad:02x} at byte {at} of the line); "
                    "save the file as UTF-8"
                )
                continue
            if not line.strip():
                continue
            try:
                items.append(model.model_validate(json.loads(line)))
            except json.JSONDecodeError as exc:
                problems.append(f"{path.name}:{lineno}: not JSON ({exc.msg})")
            except RecursionError:
                problems.append(f"{path.name}:{lineno}: not JSON (nested too deeply)")
            except ValidationError as exc:
                for e in exc.errors(include_url=False, include_input=False):
                    loc = ".".join(str(p) for p in e["loc"]) or "(line)"
                    problems.append(f"{path.name}:{lineno}: {loc}: {e['msg']}")
    if problems:
        shown = "\n  ".join(problems[:20])
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise CorpusError(f"{path}: {len(problems)} invalid line(s):\n  {shown}{more}")
    ids = [getattr(i, "id", None) for i in items]
    dupes = sorted({i for i in ids if i is not None and ids.count(i) > 1})
    if dupes:
        raise CorpusError(f"{path}: duplicate ids: {', '.join(dupes)}")
    return items


def safe_ratio(num: float, den: float) -> float | None:
    return num / den if den else None


@dataclass(frozen=True)
class Confusion:
    """Stored versus labelled "keep": true/false positives and negatives."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def add(self, *, keep: bool, stored: bool) -> Confusion:
        return Confusion(
            tp=self.tp + (keep and stored),
            fp=self.fp + (not keep and stored),
            fn=self.fn + (keep and not stored),
            tn=self.tn + (not keep and not stored),
        )

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def precision(self) -> float | None:
        """None when nothing was stored (undefined)."""
        return safe_ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        """None when nothing is labelled keep (undefined)."""
        return safe_ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float | None:
        """Harmonic mean of precision and recall; 0.0 when nothing was stored or found."""
        if self.tp + self.fn == 0:
            return None
        denom = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / denom if denom else 0.0

    @property
    def accuracy(self) -> float | None:
        return safe_ratio(self.tp + self.tn, self.n)

    def as_dict(self) -> dict[str, Any]:
        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {
            "n": self.n,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "tn": self.tn,
            "precision": r(self.precision),
            "recall": r(self.recall),
            "f1": r(self.f1),
            "accuracy": r(self.accuracy),
        }


class Workspace(Closing):
    """A fresh gate on fresh embedded stores in a temporary folder, removed on close.

    The settings are copied with ``data_dir`` set to the folder and the
    embedded backends forced (SQLite retrieval, chDB audit), so an evaluation
    never touches a user's stores or a server. chDB runs one engine per
    process: close a workspace before opening another one (it is a context
    manager).
    """

    def __init__(
        self,
        settings: Settings,
        embedder: Embedder,
        pipeline_factory: PipelineFactory | None = None,
    ) -> None:
        self._tmp = Path(tempfile.mkdtemp(prefix="memgate-eval-"))
        # a throwaway data dir: a key of its own, in memory, so that no key file made for
        # it (memgate.keys) is left behind outside it
        self.settings = keyed_in_memory(settings, self._tmp).model_copy(
            update={"retrieval_backend": "embedded", "audit_backend": "chdb"}
        )
        self.embedder = embedder
        self.scopes: dict[tuple[str, str], None] = {}
        self.retrieval: EmbeddedIndex | None = None
        self.audit: ClickHouseAudit | None = None
        try:
            self.retrieval = EmbeddedIndex(self.settings.retrieval_path, dim=embedder.dim)
            self.audit = ClickHouseAudit.embedded(self.settings.audit_path)
            self.pipeline = (pipeline_factory or default_pipeline)(self.settings, embedder)
            self.runner = InProcessRunner(self.pipeline, self.retrieval, self.audit)
        except BaseException:
            self.close()
            raise

    @property
    def data_dir(self) -> Path:
        return self._tmp

    @property
    def store(self) -> EmbeddedIndex:
        if self.retrieval is None:
            raise MemgateError("the evaluation workspace is closed")
        return self.retrieval

    @property
    def audit_store(self) -> ClickHouseAudit:
        if self.audit is None:
            raise MemgateError("the evaluation workspace is closed")
        return self.audit

    # ------------------------------------------------------------------ ingest

    def process(self, turn: TurnEvent) -> None:
        """One turn through the gate; its audit events are flushed at once."""
        self.scopes[(turn.tenant_id, turn.user_id)] = None
        self.runner.process(turn)
        self.runner.flush()

    def ingest(self, turns: Iterable[TurnEvent]) -> RunSummary:
        for turn in turns:
            self.scopes[(turn.tenant_id, turn.user_id)] = None
            self.runner.process(turn)
        self.runner.flush()
        return self.runner.summary

    @property
    def summary(self) -> RunSummary:
        return self.runner.summary

    # ------------------------------------------------------------------- reads

    def facts(self, statuses: Sequence[FactStatus] | None = None) -> list[StoredFact]:
        """Every fact of every tenant and user ingested so far (any status by default)."""
        out: list[StoredFact] = []
        for tenant, user in self.scopes:
            for f in self.store.list_facts(tenant, user, include_inactive=True):
                if statuses is None or f.status in statuses:
                    out.append(f)
        return out

    def decisions_by_turn(self) -> dict[tuple[str, str], list[tuple[str, str, str]]]:
        """(tenant, turn id) -> [(stage, verdict, reason)] in pipeline order."""
        _, rows = self.audit_store.query(
            "SELECT tenant_id, turn_id, stage, verdict, reason FROM decisions "
            "ORDER BY tenant_id, turn_id, indexOf(['ingest', 'triage', 'extract', 'redact', "
            "'dedupe', 'persist'], stage), decided_at"
        )
        out: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
        for tenant, turn_id, stage, verdict, reason in rows:
            out.setdefault((str(tenant), str(turn_id)), []).append(
                (str(stage), str(verdict), str(reason))
            )
        return out

    def journal_text(self) -> dict[tuple[str, str], str]:
        """(tenant, turn id) -> the journal's redacted text."""
        _, rows = self.audit_store.query("SELECT tenant_id, turn_id, redacted_text FROM journal")
        return {(str(t), str(i)): str(x) for t, i, x in rows}

    def files(self) -> Iterator[Path]:
        """Every file under the workspace folder (both stores' on-disk data)."""
        for p in sorted(self._tmp.rglob("*")):
            if p.is_file():
                yield p

    # --------------------------------------------------------------- lifecycle

    def close(self) -> None:
        """Close both stores and remove the folder (idempotent)."""
        retrieval, self.retrieval = self.retrieval, None
        audit, self.audit = self.audit, None
        try:
            if retrieval is not None:
                retrieval.close()
        finally:
            if audit is not None:
                audit.close()
            shutil.rmtree(self._tmp, ignore_errors=True)
