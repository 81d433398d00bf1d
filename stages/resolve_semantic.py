"""Semantic resolution: what a candidate updates, retracts or makes stale, beyond its key.

The dedupe stage (:mod:`memgate.stages.dedupe`) resolves by key first. This
module adds three readings, each over the facts of the same tenant, user and
subject (read through :meth:`memgate.core.stores.FactView.by_subject`):

- **an update in new words**: "my new boss is Tom" after "my manager is Ana"
  (``contact:manager``) is a new value of the same single-valued family
  (``manager``), so it supersedes the old fact although the keys differ. A free
  statement with no family supersedes a fact of the same subject only when it
  carries a change cue ("now", "switched", "no longer", "新") and is near in
  meaning (cosine at or above the policy's consolidation band). Families that
  hold several values at once (pets, colleagues, tastes) never supersede by
  similarity: a second dog is not a new dog.
- **an operation by reference** (:mod:`memgate.stages.references`): a
  retraction, deletion request or stop closes the facts its topic points at:
  the topic's content words in the fact, a predicate or placeholder the topic
  names ("my address": ``lives_in``, ``[ADDRESS]``), or a fact near the topic in
  meaning. Only facts last seen before the reference are closed (a later
  statement stands, as for retractions by key).
- **an implied update**: a new value of a predicate that implies others (a move
  makes the stored time zone stale: ``implies`` in the data) marks the active
  facts of those predicates, last seen before the change, as pending: they
  need confirmation and are no longer served.

Word lists, families, topics and the implication table: ``memgate/data/resolution.json``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

import numpy as np

from memgate.core.embedding_use import Meaning
from memgate.core.events import CandidateFact, FactStatus, StoredFact, normalise
from memgate.core.stores import SUBJECT_SCAN_LIMIT, FactView
from memgate.stages.context import said_in
from memgate.stages.reference_topics import TopicReach, family_reach, speaker_owned
from memgate.stages.references import is_previous, reference_op
from memgate.stages.resolution_lexicon import LEXICON, Family, Lexicon, Topic
from memgate.stages.resolve_meaning import BARS, meaning_text, usem_similarity
from memgate.stages.resolve_paraphrase import FOLD, Fold

__all__ = [
    "REFERENCE_MIN_SIMILARITY",
    "SemanticMatch",
    "changed_predicate",
    "implied_stale",
    "referenced_facts",
    "said_before",
    "semantic_target",
    "slot_owner",
]

#: The owners a fact of the speaker belongs to.
_OWNERS: Final = ("user", "team")
#: A fact near a reference topic at least this much (cosine) is referred to even
#: without a shared word ("my workouts" for "the gym").
REFERENCE_MIN_SIMILARITY: Final = 0.6
_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")
#: A word: a run of letters or digits of one script (Chinese has no spaces, so a Latin
#: name inside Chinese text is a word of its own: "我们用Jenkins做": "jenkins").
_WORD_RE: Final = re.compile(r"[\u3400-\u9fff]+|[^\W\u3400-\u9fff]+", re.UNICODE)
_ACTIVE: Final = (FactStatus.ACTIVE,)
_CURRENT: Final = (FactStatus.ACTIVE, FactStatus.PENDING)


@dataclass(frozen=True)
class SemanticMatch:
    fact: StoredFact
    similarity: float
    why: str  # family:<name> or cue


def cosine(a: Sequence[float] | None, b: np.ndarray) -> float:
    if a is None:
        return 0.0
    return float(np.dot(np.asarray(a, dtype=np.float32), b))


def _subject_facts(
    view: FactView, c: CandidateFact, statuses: Sequence[FactStatus], *, qualified: bool
) -> list[StoredFact]:
    return view.by_subject(
        c.tenant_id, c.user_id, c.subject, statuses=statuses, qualified=qualified
    )


def semantic_target(
    c: CandidateFact,
    key: str,
    view: FactView,
    vec: np.ndarray,
    band: float,
    lex: Lexicon = LEXICON,
    meaning: Meaning | None = None,
) -> SemanticMatch | None:
    """The active fact of the same owner that ``c`` updates in other words, if any.

    ``band``: the similarity at which a free statement with a change cue updates.
    A family read from the candidate's words (not its predicate) needs a change cue.
    ``meaning`` (usem, :mod:`memgate.stages.resolve_meaning`): a free statement below the
    band is near too at usem's ``change`` bar; with it on, the nearest by usem is the one
    updated.
    """
    fam, by_predicate = lex.family_of(c.predicate, c.object)
    if fam is not None and fam.additive:
        return None
    cue = lex.has_change_cue(c.object) or lex.has_change_cue(c.context)
    single = fam is not None and fam.single
    if not cue and not (single and by_predicate):
        return None
    owner = lex.owner(c.subject, fam)
    owners = {owner}
    if single and fam is not None and fam.speaker and owner in ("user", "team"):
        owners = {"user", "team"}
    pool: list[StoredFact] = []
    for o in sorted(owners):
        subject = o if o in ("user", "team") else c.subject
        pool += view.by_subject(
            c.tenant_id, c.user_id, subject, statuses=_ACTIVE, qualified=o in ("user", "team")
        )
    value_n = normalise(c.object)
    best: SemanticMatch | None = None
    text_c = ""
    for f in pool:
        if f.key == key or normalise(f.value) == value_n:
            continue
        ffams = lex.families_of(f.predicate, f.value)
        # a fact whose words name several families is met through any of them
        ffam = fam if fam is not None and fam in ffams else (ffams[0] if ffams else None)
        if slot_owner(f, ffam, lex) not in owners:
            continue
        sim = cosine(f.embedding, vec)
        if single and fam is not None:
            if ffam is None or ffam.name != fam.name:
                continue
            why = f"family:{fam.name}"
        else:
            if ffam is not None or f.type != c.type:
                continue
            use = None
            if meaning is not None:
                text_c = text_c or meaning_text(c)
                use = usem_similarity(meaning, meaning_text(f), text_c)
            if sim < band and (use is None or use < BARS.change):
                continue
            why = "change_cue" if sim >= band else "change_cue:usem"
            if use is not None:  # usem asked: its cosine ranks
                sim = use
        if best is None or (sim, f.fact_id) > (best.similarity, best.fact.fact_id):
            best = SemanticMatch(f, sim, why)
    return best


def slot_owner(f: StoredFact, fam: Family | None, lex: Lexicon = LEXICON, fold: Fold = FOLD) -> str:
    """Whose fact ``f`` is when a change of the family ``fam`` is read against it:
    :meth:`~memgate.stages.resolution_lexicon.Lexicon.owner`, and also the owner's
    possessed thing, however the user calls it, when ``fam`` (single-valued) is read from
    the fact's own predicate or value: "team's ticketsystem" holding "Jira" is the team's
    tracker, so "we switched to Linear" changes it. Never another person's fact ("user's
    sister works_at Siemens" is the sister's employer, not the user's).

    >>> from memgate.core.events import StoredFact
    >>> jira = StoredFact.model_construct(subject="team's ticketsystem",
    ...     predicate="statement", value="Unser Ticketsystem ist Jira")
    >>> slot_owner(jira, LEXICON.family("statement", jira.value))
    'team'
    >>> sister = StoredFact.model_construct(
    ...     subject="user's sister", predicate="works_at", value="Siemens")
    >>> slot_owner(sister, LEXICON.family("works_at", "Siemens"))
    'users sister'
    """
    owner = lex.owner(f.subject, fam)
    if owner in _OWNERS or fam is None or not fam.single:
        return owner
    if fam not in lex.families_of(f.predicate, f.value):
        return owner  # the family is not the fact's own: its subject alone named it
    n = normalise(f.subject)
    for root in _OWNERS:
        rest = n[len(root) + 2 :] if n.startswith(root + "s ") else ""
        if rest and not fold.is_person(rest):
            return root
    return owner


def _words(text: str) -> set[str]:
    return set(_WORD_RE.findall(normalise(text)))


def _mentions(f: StoredFact, terms: Sequence[str], *, said: bool = False) -> bool:
    """A topic term names the fact: one of its words, a word of the same stem, the head
    of a compound ("Flughafen" in "Heimatflughafen"), the same word in the singular or
    plural ("hotel", "hotéis"), or, in Chinese, every two-character word of the term
    ("缺陷管理": "缺陷" and "管理", in either order). ``said``: the sentence the fact was
    read from counts too (a deletion request is about what the user said: "forget
    everything about our DNS" erases "team uses Cloudflare", said of the DNS)."""
    text = normalise(f"{f.subject} {f.predicate.replace('_', ' ')} {f.value}")
    if said and f.context:
        # the sentence the fact was read from, not the turn's others ("tengo el plan
        # Premium. quiero las facturas a nombre de Olmedo": the plan is not said of them)
        text = f"{text} {normalise(said_in(f.context, f.value))}"
    return _names(text, terms)


def topic_namer(
    c: CandidateFact, ignore: frozenset[str] = frozenset(), lex: Lexicon = LEXICON
) -> Callable[[str], bool]:
    """Whether a piece of text names the topic a reference ``c`` points at: one of its
    terms (as :func:`_mentions` reads them, but those of ``ignore``) or a word of one of
    its topics."""
    terms = tuple(t for t in lex.topic_terms(c.object) if t not in ignore)
    topics = lex.topic_of(c.object)
    return lambda piece: _names(normalise(piece), terms) or any(
        t.words.search(piece.lower()) for t in topics
    )


def _names(text: str, terms: Sequence[str]) -> bool:
    words = _words(text)
    for t in terms:
        if _CJK_RE.search(t):
            if t in text.replace(" ", "") or _cjk_words_in(t, text.replace(" ", "")):
                return True
        elif t in words or (len(t) >= 5 and any(_same_word(w, t) for w in words)):
            return True
    return False


def _cjk_words_in(term: str, text: str) -> bool:
    """Every two-character piece of a Chinese term of two pieces or more is in ``text``.

    >>> _cjk_words_in("缺陷管理", "我们用禅道管理缺陷"), _cjk_words_in("缺陷管理", "我们管理项目")
    (True, False)
    """
    pieces = [term[i : i + 2] for i in range(0, len(term) - 1, 2)]
    return len(pieces) >= 2 and all(_CJK_RE.search(p) and p in text for p in pieces)


def _same_word(word: str, term: str) -> bool:
    """The same stem, a compound's head, or the other number of the same noun.

    >>> _same_word("heimatflughafen", "flughafen"), _same_word("hotel", "hotéis")
    (True, True)
    >>> _same_word("server", "service"), _same_word("flug", "flughafen")
    (False, False)
    >>> _same_word("model", "modem"), _same_word("hotel", "hostel")
    (False, False)
    """
    if _same_stem(word, term):
        return True
    if len(word) >= len(term) + 3 and word.endswith(term) and not _CJK_RE.search(word):
        return True  # a compound's head: "heimatflughafen", "smartphone"
    a, b = _fold(word), _fold(term)
    if min(len(a), len(b)) < 5:
        return False
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    # at most the last letter of the shorter word left, a plural ending on the longer one
    # ("hotel", "hoteis"; "papel", "papeis"; "reunion", "reuniones"): not "model", "modem"
    short, long_ = sorted((a, b), key=len)
    return n >= 4 and len(short) - n <= 1 and long_[n:] in _PLURAL_ENDINGS


#: Endings of a plural after the stem it shares with the singular (en de fr es pt).
_PLURAL_ENDINGS: Final = frozenset({"s", "es", "is", "ns", "en", "n", "e", "er", "x", "ux"})


def _fold(word: str) -> str:
    return "".join(
        ch for ch in unicodedata.normalize("NFKD", word) if not unicodedata.combining(ch)
    )


def _same_stem(word: str, term: str) -> bool:
    """One word is the other with an ending ("deploys", "deployment"): a shared start of
    at least five letters that leaves at most four letters of the shorter word.

    >>> _same_stem("deploys", "deployment"), _same_stem("server", "service")
    (True, False)
    """
    n = 0
    for a, b in zip(word, term, strict=False):
        if a != b:
            break
        n += 1
    return n >= 5 and n >= min(len(word), len(term)) - 4 if not word.startswith(term) else True


#: The tombstone predicate of a fact erased at the user's request (no content left).
DELETED_PREDICATE: Final = "deleted"
_ANY_STATUS: Final = (FactStatus.ACTIVE, FactStatus.PENDING, FactStatus.SUPERSEDED)
#: What parts a predicate's words ("works_at", "contact:manager").
_PRED_SEP_RE: Final = re.compile(r"[_:]+")


def referenced_facts(
    c: CandidateFact,
    view: FactView,
    topic_vec: np.ndarray,
    lex: Lexicon = LEXICON,
    meaning: Meaning | None = None,
) -> list[tuple[StoredFact, str]]:
    """The current facts a reference candidate points at, with why, oldest recorded first.

    ``meaning`` (usem, :mod:`memgate.stages.resolve_meaning`): a fact no word names is
    near the topic at usem's ``reference`` bar too, and the nearest by usem is meant."""
    terms = lex.topic_terms(c.object)
    topics = lex.topic_of(c.object)
    predicates = {p for t in topics for p in t.predicates}
    placeholders = [p for t in topics for p in t.placeholders]
    op = reference_op(c)
    pool: dict[str, StoredFact] = {}
    deleting = op == "delete"
    statuses = _ANY_STATUS if deleting else _CURRENT
    for subject in ("user", "team") if c.subject in ("user", "team") else (c.subject,):
        for f in view.by_subject(
            c.tenant_id,
            c.user_id,
            subject,
            statuses=statuses,
            qualified=deleting or subject in ("user", "team"),
        ):
            pool[f.fact_id] = f
    if deleting:
        # a deletion is about the topic, whoever the fact's subject is ("Tomasz lives in
        # Austin"), current or superseded: every fact of the user is a candidate
        for f, _sim in view.nearest(
            c.tenant_id, c.user_id, topic_vec, k=SUBJECT_SCAN_LIMIT, statuses=_ANY_STATUS
        ):
            pool[f.fact_id] = f
        pool = {k: f for k, f in pool.items() if f.predicate != DELETED_PREDICATE}
    if is_previous(c):
        # "scratch that": whatever the latest turn was about, whoever its subject is
        for f, _sim in view.nearest(
            c.tenant_id, c.user_id, topic_vec, k=SUBJECT_SCAN_LIMIT, statuses=_CURRENT
        ):
            pool[f.fact_id] = f
        return _latest_said(pool.values(), c)
    reach = family_reach(c.object)
    out: list[tuple[StoredFact, str]] = []
    near: list[tuple[float, StoredFact]] = []
    for f in sorted(pool.values(), key=lambda f: (f.recorded_at, f.fact_id)):
        if not said_before(f, c):
            continue  # said at or after the reference: it stands
        if _someone_elses(f, c, terms, topics, reach):
            continue  # "where I work" is not where the user's wife works
        text = f"{f.subject} {f.predicate.replace('_', ' ')} {f.value}".lower()
        if _mentions(f, terms, said=deleting) or any(t.words.search(text) for t in topics):
            out.append((f, "topic_words"))  # a topic's word or one of its synonyms
        elif f.predicate in predicates or any(p in f.value for p in placeholders):
            out.append((f, "topic_predicate"))
        elif predicates & _family_predicates(f, lex):
            out.append((f, "topic_family_words"))  # a statement of the topic's slot
        elif reach.search(text):
            out.append((f, "topic_family"))  # a member of the kind the topic names
        elif op != "stop" and f.status is not FactStatus.SUPERSEDED:
            sim = cosine(f.embedding, topic_vec)
            use = None if meaning is None else usem_similarity(meaning, meaning_text(f), c.object)
            if sim >= REFERENCE_MIN_SIMILARITY or (use is not None and use >= BARS.reference):
                near.append((sim if use is None else use, f))  # usem asked: its cosine ranks
    if not out and near:
        # no fact names the topic: the one nearest in meaning is meant, not every near one
        out.append((max(near, key=lambda x: (x[0], x[1].fact_id))[1], "similarity"))
    return out


def _someone_elses(
    f: StoredFact,
    c: CandidateFact,
    terms: Sequence[str],
    topics: Sequence[Topic],
    reach: TopicReach,
) -> bool:
    """``f`` is said of another person than the speaker or the team, and the topic, the
    speaker's own ("where I work", "mon travail"), does not name that person: it would
    reach the fact only by what the person does (its predicate: "user's wife works at
    Bosch" for "forget where I work"). A topic naming them ("my wife", "mi hermana": a
    word of the fact besides its predicate's, a topic's synonym, a kind of its subject)
    still reaches it."""
    if normalise(f.subject) in ("user", "team") or not speaker_owned(c.object):
        return False
    verb = f.model_copy(
        update={"subject": "", "predicate": "", "value": _PRED_SEP_RE.sub(" ", f.predicate)}
    )
    named = [t for t in terms if not _mentions(verb, [t])]
    if named and _mentions(f.model_copy(update={"predicate": "", "context": ""}), named):
        return False
    text = f"{f.subject} {f.value}".lower()
    if any(t.words.search(text) for t in topics if f.predicate not in t.predicates):
        return False
    return not reach.search(f.subject)


def _family_predicates(f: StoredFact, lex: Lexicon) -> frozenset[str]:
    """The predicates of a fact's single-valued family, read from its words when its own
    predicate names none ("user statement Ich arbeite als Pflegerin bei ..."): a topic
    about those predicates ("mein Job") refers to it."""
    fam = lex.family(f.predicate, f"{f.subject} {f.value}")
    return frozenset(fam.predicates) if fam is not None and fam.single else frozenset()


def said_before(f: StoredFact, c: CandidateFact) -> bool:
    """``f`` was said before ``c``: last seen at an earlier instant.

    A fact of the reference's own instant stands: two turns of one instant cannot be
    ordered by what they carry, and the order they arrive in is not theirs (a redelivery
    after a crash, or a producer sending a turn again before the journal holds it, brings
    an earlier turn after a later one). Counting a fact stored at the same instant from
    another turn as said before made a replayed "I no longer like X" withdraw the "I like
    X" said after it (found by the replay property of ``tests/unit/streams``).

    >>> from datetime import UTC, datetime, timedelta
    >>> t = datetime(2024, 5, 3, tzinfo=UTC)
    >>> f = StoredFact.model_construct(last_seen=t, source_turn_ids=["t1"])
    >>> c = CandidateFact.model_construct(turn_ts=t, source_turn_ids=["t3"])
    >>> later = c.model_copy(update={"turn_ts": t + timedelta(seconds=1)})
    >>> said_before(f, c), said_before(f, later)
    (False, True)
    """
    return f.last_seen < c.turn_ts


def _latest_said(pool: Iterable[StoredFact], c: CandidateFact) -> list[tuple[StoredFact, str]]:
    """The current facts last said in the user's latest turn before ``c``, a reference by
    a bare anaphor ("scratch that"): what was just said is what is meant, nothing older."""
    before = [f for f in pool if f.last_seen < c.turn_ts and f.status is not FactStatus.SUPERSEDED]
    if not before:
        return []
    latest = max(f.last_seen for f in before)
    return [
        (f, "previous_turn")
        for f in sorted(before, key=lambda f: (f.recorded_at, f.fact_id))
        if f.last_seen == latest
    ]


def implied_stale(
    c: CandidateFact,
    changed_predicate: str,
    view: FactView,
    since: datetime,
    lex: Lexicon = LEXICON,
) -> list[StoredFact]:
    """Active facts of the subject that a change of ``changed_predicate`` makes stale.

    Only facts last seen before ``since`` (the change): one stated after the change
    already takes it into account.
    """
    implied = set(lex.implied(changed_predicate))
    if not implied:
        return []
    out: list[StoredFact] = []
    owner = normalise(c.subject)
    pool = _subject_facts(view, c, _ACTIVE, qualified=owner in ("user", "team"))
    changed = lex.family(changed_predicate, "")
    if changed is not None and changed.speaker and owner in ("user", "team"):
        # a household's change (a move said by "we") is the user's too, and the team's
        other = "team" if owner == "user" else "user"
        pool += view.by_subject(c.tenant_id, c.user_id, other, statuses=_ACTIVE, qualified=True)
    for f in pool:
        if f.last_seen > since or (f.last_seen == since and not said_before(f, c)):
            continue
        if f.predicate in implied:
            out.append(f)
            continue
        # a statement of the subject's thing ("user's zeitzone statement ...") by its family
        fam = lex.family(f.predicate, f"{f.subject} {f.value}")
        if fam is not None and fam.single and fam.predicates & implied:
            out.append(f)
    return out


def changed_predicate(f: StoredFact, lex: Lexicon = LEXICON) -> str:
    """The predicate a change is of: its own, or for a statement its family's
    (an implication table is keyed by predicate)."""
    if lex.implied(f.predicate):
        return f.predicate
    fam = lex.family(f.predicate, f"{f.subject} {f.value}")
    if fam is not None and fam.single:
        for p in sorted(fam.predicates):
            if lex.implied(p):
                return p
    return f.predicate


def stale_on_arrival(c: CandidateFact, view: FactView, lex: Lexicon = LEXICON) -> StoredFact | None:
    """The change, stated after ``c`` but applied before it, that makes ``c`` stale.

    The same outcome in either arrival order: a time zone said before a move is
    pending whether the move arrives after it (:func:`implied_stale`) or before it
    (here). A change is a fact that superseded an earlier value.
    """
    implying = {p for p, implied in lex.implies.items() if c.predicate in implied}
    if not implying:
        return None
    for f in _subject_facts(view, c, _ACTIVE, qualified=False):
        if f.predicate in implying and f.supersedes is not None and f.first_seen > c.turn_ts:
            return f
    return None
