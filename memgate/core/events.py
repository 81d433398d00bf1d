"""Typed events that flow between the stages (and over Kafka topics).

Every event is a frozen pydantic v2 model with a ``schema_version`` so that a
consumer can tell which shape it reads. Invalid input raises
:class:`pydantic.ValidationError`, whose message names the field and the
problem; :func:`parse_turn` turns that into a :class:`memgate.core.errors.InvalidEvent`
with one line per problem.

>>> t = parse_turn({"tenant_id": "acme", "user_id": "u1", "session_id": "s1",
...                 "turn_id": "t1", "role": "user", "content": "hi",
...                 "ts": "2024-05-01T10:00:00Z"})
>>> t.partition_key
'acme/u1'
"""

from __future__ import annotations

import hashlib
import hmac
import re
import unicodedata
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Final, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
)

from memgate.core.errors import InvalidEvent

SCHEMA_VERSION: Final[Literal[1]] = 1

# Identifiers (tenant, user, session, turn): 1-200 ASCII characters, letters, digits
# and . _ : @ + -, starting with a letter or digit. They build keys, document ids and
# partition keys, so no separator ('/'), space or control character. They are taken
# exactly as given, never normalised: a look-alike from another script (a Cyrillic
# 'а' for a Latin 'a') or a full-width letter is refused, not folded into the id it
# resembles, so two ids that print alike are never two different users.
ID_MAX_CHARS: Final = 200
_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+\-]{0,199}")
_ID_CHARS = "ASCII letters, digits and . _ : @ + -"
#: The prefix of the pseudonyms an erasure leaves in the audit store's skeleton rows
#: (``erased:<keyed digest>``, :mod:`memgate.receipts`): reserved, never an input id, so
#: no turn joins an erased user's skeletons and no command reaches them by that id.
ERASED_ID_PREFIX: Final = "erased:"


def _describe_char(c: str) -> str:
    """A character for an error message. A C0/C1 control is one even where Python calls it
    space (CR, LF, tab: ``'\\r'.isspace()``); a CR was "a space character" (attack20)."""
    code = f"U+{ord(c):04X}" + (f" {unicodedata.name(c)}" if unicodedata.name(c, "") else "")
    if unicodedata.category(c) == "Cc":
        return f"a control character ({code})"
    if c.isspace():
        return f"a space character ({code})"
    if not c.isprintable():
        return f"a control character ({code})"
    return f"{c!r} ({code})"


def id_problem(v: str) -> str | None:
    """Why ``v`` is not a valid id, in one sentence; ``None`` when it is one.

    >>> id_problem("alice") is None
    True
    >>> id_problem("\u0430lice").split(":")[0]
    "has 'а' (U+0430 CYRILLIC SMALL LETTER A) at position 1"
    >>> id_problem("al ice").split(":")[0]
    'has a space character (U+0020 SPACE) at position 3'
    >>> id_problem("erased:63d165a0").split(",")[0]
    "starts with 'erased:'"
    """
    if _ID_RE.fullmatch(v):
        if v.startswith(ERASED_ID_PREFIX):
            return (
                f"starts with {ERASED_ID_PREFIX!r}, which is reserved for the pseudonyms of "
                "erased users in the audit store"
            )
        return None
    if not v:
        return "must not be empty"
    if (problem := text_problem(v)) is not None:  # not "a control character"
        return problem
    if len(v) > ID_MAX_CHARS:
        return f"is {len(v)} characters long; at most {ID_MAX_CHARS}"
    for i, c in enumerate(v, start=1):
        if c.isascii() and (c.isalnum() or (i > 1 and c in "._:@+-")):
            continue
        if i == 1 and c.isascii() and c in "._:@+-":
            return f"starts with {c!r}: an id starts with an ASCII letter or digit"
        extra = " (a look-alike of another letter is refused)" if c.isalpha() else ""
        return f"has {_describe_char(c)} at position {i}: ids are {_ID_CHARS} only{extra}"
    return f"must be 1-{ID_MAX_CHARS} {_ID_CHARS}"  # pragma: no cover - unreachable


def _check_id(v: str) -> str:
    problem = id_problem(v)
    if problem is not None:
        raise ValueError(problem)
    return v


Ident = Annotated[str, AfterValidator(_check_id)]


def _aware(v: datetime) -> datetime:
    if v.tzinfo is None:
        raise ValueError("must carry a time zone (e.g. 2024-05-01T10:00:00Z)")
    return v.astimezone(UTC)


AwareDatetime = Annotated[datetime, AfterValidator(_aware)]


def utcnow() -> datetime:
    return datetime.now(UTC)


def stable_id(*parts: str, length: int = 24) -> str:
    """A deterministic id from its parts (same parts, same id, on every worker).

    Unkeyed: the parts must be identifiers or already-redacted text (fact keys and
    values after the redact stage), never raw content; raw text goes through
    :func:`content_hmac`.
    """
    h = hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()
    return h[:length]


#: What a turn ledger (the embedded index's ``turns``, the audit journal's
#: ``content_hmac``) holds instead of a turn's digest once a fact the turn made was erased
#: (``memgate forget --fact``): the turn was applied, and no keyed digest of its raw text
#: is left to confirm a guess of the erased value. Read as a replay for the same user
#: (:func:`memgate.streams.turns.classify_turn`), so the turn delivered again writes nothing.
ERASED_TURN_DIGEST = "erased"


def content_hmac(key: bytes, text: str) -> str:
    """A keyed digest of raw text (HMAC-SHA256, hex) under one deployment's secret key.

    Equal texts give equal digests under one key, so a replayed turn can be told
    from a different turn reusing its id; without the key, no one can confirm a
    guess of what a masked span held (an unkeyed hash of a short text can be
    inverted by trying candidates). See :mod:`memgate.keys` for the key.

    >>> content_hmac(b"k" * 32, "hi") == content_hmac(b"k" * 32, "hi")
    True
    >>> content_hmac(b"k" * 32, "hi") == content_hmac(b"j" * 32, "hi")
    False
    """
    if not key:
        raise ValueError("content_hmac needs a non-empty key")
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


_PUNCT_RE = re.compile(r"[^\w\s:/\-]+", re.UNICODE)
_WS_RE = re.compile(r"\s+")
#: the ASCII characters :data:`_PUNCT_RE` removes, as a table for str.translate
_ASCII_PUNCT: Final = {c: None for c in range(128) if _PUNCT_RE.match(chr(c))}


#: Upper bound of :attr:`CandidateFact.context` (characters).
MAX_CONTEXT_CHARS = 2_000


def normalise(text: str) -> str:
    """Case-, width- and whitespace-insensitive form used in keys and value comparison.

    >>> normalise("  The  User's   Editor ")
    'the users editor'
    """
    if text.isascii():
        # the same form, read faster (issue 14): NFKC leaves ASCII as it is, upper() then
        # casefold() of ASCII is lower(), the punctuation the pattern removes is the table's
        # and the pattern's white space is str.split()'s (tests/unit/core/test_ascii_forms.py)
        return " ".join(text.lower().translate(_ASCII_PUNCT).split())
    return _normalise_unicode(text)


def _normalise_unicode(text: str) -> str:
    """:func:`normalise` of any text (the reference the ASCII form is tested against)."""
    # upper() before casefold() makes the form stable under case changes even for
    # letters whose lower and upper forms do not round-trip (Turkish dotless i).
    t = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).upper().casefold())
    t = _PUNCT_RE.sub("", t)
    return _WS_RE.sub(" ", t).strip()


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=False)
    schema_version: Literal[1] = SCHEMA_VERSION


# --------------------------------------------------------------------------- turn


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


class Outcome(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"


MetaValue = str | int | float | bool | None


def text_problem(text: str) -> str | None:
    r"""Why ``text`` is not Unicode text a store can hold, or ``None``: a lone surrogate
    (a JSON escape ``\ud800`` without its pair, or a Python string holding one) has no
    UTF-8 form, so the keyed digest of the turn and every store would fail on it.

    >>> text_problem("caf\u00e9") is None
    True
    >>> text_problem("I use \ud800 Vim").split(":")[0]
    'has a lone surrogate U+D800 at position 7'
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return (
            f"has a lone surrogate U+{ord(text[exc.start]):04X} at position {exc.start + 1}: "
            "not Unicode text (a \\ud800-\\udfff escape must be one of a pair)"
        )
    return None


def utf8_problem(text: str) -> str | None:
    r"""Why ``text`` from outside Python's own strings (a command-line argument, an
    environment variable, a path) has no UTF-8 form, or ``None``. Python reads a byte that
    is not UTF-8 there as a lone surrogate U+DC80-U+DCFF (``surrogateescape``), which no
    store, digest or driver takes; the reason names the byte and says what to do.

    >>> utf8_problem("caf\u00e9") is None
    True
    >>> utf8_problem("caf\udce9").split(": ")[0]
    'not valid UTF-8 (the lone surrogate U+DCE9 at position 4 is the byte 0xE9)'
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        byte = f" is the byte 0x{code - 0xDC00:02X}" if 0xDC80 <= code <= 0xDCFF else ""
        return (
            f"not valid UTF-8 (the lone surrogate U+{code:04X} at position {exc.start + 1}"
            f"{byte}): pass it as UTF-8 text"
        )
    return None


def _unicode_text(v: object) -> object:
    """A string with a lone surrogate is refused with :func:`text_problem`'s reason."""
    if isinstance(v, str) and (problem := text_problem(v)) is not None:
        raise ValueError(problem)
    if isinstance(v, dict):  # metadata: its names and values
        for k, item in v.items():
            for part in (k, item):
                if isinstance(part, str) and (problem := text_problem(part)) is not None:
                    raise ValueError(f"{k!r}: {problem}" if part is item else problem)
    return v


#: Event times a turn may carry, in UTC: from the Unix epoch to the end of 2199. The
#: audit store keeps times as DateTime64 (1900-2299); the margin leaves room for the
#: dates an extractor derives from a turn ("last year", "in two weeks").
TURN_TS_MIN: Final = datetime(1970, 1, 1, tzinfo=UTC)
TURN_TS_MAX: Final = datetime(2199, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)


def bounded_utc(v: datetime, lo: datetime, hi: datetime) -> datetime:
    """``v`` (aware) in UTC, or ``ValueError`` when it lies outside ``lo..hi``.

    Converting to UTC can overflow at the ends of the calendar (year 1 at +05:00);
    that is reported as out of range too, never raised as ``OverflowError``.
    """
    if v.tzinfo is None or v.utcoffset() is None:
        raise ValueError("must carry a time zone (e.g. 2024-05-01T10:00:00Z)")
    span = f"{lo:%Y-%m-%d} and {hi:%Y-%m-%d} (UTC)"
    try:
        utc = v.astimezone(UTC)
    except OverflowError:
        raise ValueError(f"is out of range: it must lie between {span}") from None
    if not lo <= utc <= hi:
        raise ValueError(f"{utc:%Y-%m-%dT%H:%M:%SZ} is out of range: it must lie between {span}")
    return utc


def _turn_ts(v: datetime) -> datetime:
    return bounded_utc(v, TURN_TS_MIN, TURN_TS_MAX)


class TurnEvent(_Event):
    """One conversation turn as a platform emits it (the input topic)."""

    tenant_id: Ident
    user_id: Ident
    session_id: Ident
    turn_id: Ident = Field(description="Idempotency key: the same turn twice is one turn.")
    role: Role
    content: Annotated[str, BeforeValidator(_unicode_text)] = Field(max_length=100_000)
    ts: Annotated[datetime, AfterValidator(_turn_ts)] = Field(
        description="Event time: when the turn was said; aware, 1970-01-01..2199-12-31 UTC."
    )
    outcome: Outcome | None = Field(
        default=None, description="Result of the task this turn belongs to (save-after-success)."
    )
    confirmed: bool | None = Field(
        default=None, description="The user explicitly confirmed what this turn states."
    )
    metadata: Annotated[dict[str, MetaValue], BeforeValidator(_unicode_text)] = Field(
        default_factory=dict
    )

    @property
    def partition_key(self) -> str:
        return f"{self.tenant_id}/{self.user_id}"


# ------------------------------------------------------------------------ triage


class TriageVerdict(StrEnum):
    KEEP = "keep"
    DROP = "drop"


class TriagedTurn(_Event):
    """A turn that survived triage, on its way to extraction (or, ``probe``, a turn triage
    dropped that may still restate a stored fact: memgate.stages.resolve_probe)."""

    turn: TurnEvent
    reason: str
    probe: bool = Field(
        default=False,
        description="Dropped by triage: no extractor reads it; it is carried on only to be "
        "read as a restatement of one of the user's stored facts (memgate.stages."
        "resolve_probe).",
    )

    @property
    def partition_key(self) -> str:
        return self.turn.partition_key


# ----------------------------------------------------------------------- extract


class FactType(StrEnum):
    PREFERENCE = "preference"
    FACT = "fact"
    EVENT = "event"
    CORRECTION = "correction"
    INSTRUCTION = "instruction"


class CandidateFact(_Event):
    """A typed fact an extractor proposes from one turn; not yet admitted."""

    candidate_id: str
    tenant_id: Ident
    user_id: Ident
    session_id: Ident
    type: FactType
    subject: str = Field(min_length=1, max_length=200)
    predicate: str = Field(min_length=1, max_length=120)
    object: str = Field(min_length=1, max_length=2_000)
    confidence: float = Field(ge=0.0, le=1.0)
    valid_from: AwareDatetime | None = None
    valid_to: AwareDatetime | None = None
    rationale: str = Field(default="", max_length=1_000)
    source_turn_ids: list[Ident] = Field(min_length=1)
    extractor: str
    extractor_version: str
    turn_ts: AwareDatetime
    outcome: Outcome | None = None
    confirmed: bool | None = None
    multi_valued: bool = Field(
        default=False,
        description="The predicate can hold several values at once (e.g. 'likes'); "
        "each value then has its own key and nothing is superseded.",
    )
    retracts: bool = Field(
        default=False,
        description="The user withdraws this fact ('I no longer use Jenkins', 'forget that "
        "I like jazz'): the current fact under the key is closed with no successor.",
    )
    repeats: bool = Field(
        default=False,
        description="The user says this repeats something said before ('as I told you', "
        "'reminder:'): resolution folds it into the active fact of the same owner it "
        "repeats, at a lower bar than an unmarked restatement (memgate.stages.resolve_repeat).",
    )
    probe: bool = Field(
        default=False,
        description="The text of a turn that yielded no fact: resolution may only reinforce a "
        "stored fact it says again, never write a new one (memgate.stages.resolve_probe).",
    )
    source: str = Field(
        default="",
        max_length=64,
        description="The source the turn claims (``metadata.source``). A claim only: the "
        "write policy alone decides whether it is trusted (memgate.stages.policy).",
    )
    context: str = Field(
        default="",
        max_length=MAX_CONTEXT_CHARS,
        description="The words of the source turn around the statement (the sentence it "
        "was read from, widened by its neighbours up to a budget). Masked by the redact "
        "stage like the fact itself; indexed with the fact for retrieval, never used for "
        "keys, duplicates or supersession.",
    )

    @classmethod
    def from_turn(cls, turn: TurnEvent, **fields: Any) -> CandidateFact:
        """A candidate read from ``turn``: the turn's tenant, user, session, id, time,
        outcome and confirmation, then what the extractor read (``fields``)."""
        return cls(
            tenant_id=turn.tenant_id,
            user_id=turn.user_id,
            session_id=turn.session_id,
            source_turn_ids=[turn.turn_id],
            turn_ts=turn.ts,
            outcome=turn.outcome,
            confirmed=turn.confirmed,
            **fields,
        )

    @model_serializer(mode="wrap")
    def _unflagged_as_before(self, handler: SerializerFunctionWrapHandler) -> Any:
        """A candidate that is no repeat is written without ``repeats``, as before the field
        existed: events forbid unknown fields, so a worker of an older version still reads
        every message but a repeat's (which it dead-letters with its reason, replayable)."""
        data = handler(self)
        if not self.repeats and isinstance(data, dict):
            data.pop("repeats", None)
        return data

    @field_validator("subject", "predicate", "object")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be blank")
        return v

    @property
    def partition_key(self) -> str:
        return f"{self.tenant_id}/{self.user_id}"

    def text(self) -> str:
        """The sentence that is indexed and embedded for this fact."""
        return render_fact_text(self.subject, self.predicate, self.object)


def render_fact_text(subject: str, predicate: str, obj: str) -> str:
    return f"{subject} {predicate.replace('_', ' ')} {obj}".strip()


def render_search_text(text: str, context: str) -> str:
    """What retrieval indexes for a fact: its statement, then its source context.

    >>> render_search_text("user event went to a support group",
    ...                    "I went to a support group yesterday.")
    'user event went to a support group \u2014 I went to a support group yesterday.'
    >>> render_search_text("user editor vim", "")
    'user editor vim'
    """
    context = context.strip()
    return f"{text} \u2014 {context}" if context else text


# ------------------------------------------------------------------------ redact


class RedactionAction(StrEnum):
    CLEAN = "clean"
    REDACTED = "redacted"
    REJECTED = "rejected"


class RedactionResult(_Event):
    """What the redactor found: kinds and counts only, never the values."""

    action: RedactionAction
    counts: dict[str, int] = Field(default_factory=dict)
    reason: str = ""


class RedactedCandidate(_Event):
    candidate: CandidateFact
    redaction: RedactionResult

    @property
    def partition_key(self) -> str:
        return self.candidate.partition_key


# ------------------------------------------------------------------------ resolve


class ResolutionAction(StrEnum):
    ADD = "ADD"
    SUPERSEDE = "SUPERSEDE"
    DUPLICATE = "DUPLICATE"
    PENDING = "PENDING"
    REJECT = "REJECT"


class FactStatus(StrEnum):
    ACTIVE = "active"
    PENDING = "pending"
    SUPERSEDED = "superseded"


class StoredFact(_Event):
    """A fact as the retrieval store holds it (one document per fact id)."""

    fact_id: str
    tenant_id: Ident
    user_id: Ident
    key: str
    type: FactType
    subject: str
    predicate: str
    value: str
    text: str
    status: FactStatus
    confidence: float = Field(ge=0.0, le=1.0)
    # valid time: when it was true in the world
    valid_from: AwareDatetime
    valid_to: AwareDatetime | None = None
    # system time: when we recorded it and when we superseded it
    recorded_at: AwareDatetime
    superseded_at: AwareDatetime | None = None
    superseded_by: str | None = None
    supersedes: str | None = None
    occurrences: int = Field(default=1, ge=1)
    session_ids: list[str] = Field(default_factory=list)
    first_seen: AwareDatetime
    last_seen: AwareDatetime
    source_turn_ids: list[str] = Field(min_length=1)
    extractor: str
    extractor_version: str
    policy_version: str
    rationale: str = ""
    context: str = Field(
        default="",
        description="Masked words of the source turn around the statement; searched with "
        "the fact's text (see :attr:`search_text`).",
    )
    embedding: list[float] | None = Field(
        default=None,
        repr=False,
        description="Vector of ``text``, the statement alone: what dedupe compares.",
    )
    search_embedding: list[float] | None = Field(
        default=None,
        repr=False,
        description="Vector of :attr:`search_text`: what dense retrieval compares. "
        "None means the same as ``embedding`` (a fact with no context).",
    )

    @property
    def partition_key(self) -> str:
        return f"{self.tenant_id}/{self.user_id}"

    @property
    def search_text(self) -> str:
        """The statement followed by its source context: what BM25 and k-NN retrieval see."""
        return render_search_text(self.text, self.context)

    @property
    def retrieval_vector(self) -> list[float] | None:
        """The vector dense retrieval uses: ``search_embedding``, else ``embedding``."""
        return self.search_embedding if self.search_embedding is not None else self.embedding


class Resolution(_Event):
    """The dedupe/resolve verdict for one candidate, with the writes it implies."""

    event_id: str
    action: ResolutionAction
    reason: str
    key: str
    tenant_id: Ident
    user_id: Ident
    candidate_id: str
    source_turn_ids: list[str]
    writes: list[StoredFact] = Field(
        default_factory=list,
        description="Facts to upsert (new, updated or closed) for this verdict.",
    )
    policy_version: str
    decided_at: AwareDatetime

    @property
    def partition_key(self) -> str:
        return f"{self.tenant_id}/{self.user_id}"


# ---------------------------------------------------------------------- audit


class Stage(StrEnum):
    TRIAGE = "triage"
    EXTRACT = "extract"
    REDACT = "redact"
    DEDUPE = "dedupe"
    PERSIST = "persist"
    INGEST = "ingest"
    CONSOLIDATE = "consolidate"
    RETENTION = "retention"
    REPLAY = "replay"


class DecisionRecord(_Event):
    """One decision of one stage, for the audit store. Never carries raw content."""

    event_id: str
    stage: Stage
    tenant_id: str
    user_id: str
    session_id: str = ""
    turn_id: str
    verdict: str
    reason: str
    key: str = ""
    fact_id: str = ""
    policy_version: str
    decided_at: AwareDatetime
    details: dict[str, str | int | float] = Field(default_factory=dict)

    @property
    def partition_key(self) -> str:
        return f"{self.tenant_id}/{self.user_id}"


class JournalRecord(_Event):
    """Every turn, kept or not: ids, time, keyed digest, verdict, redacted text only.

    ``length`` is the length of the redacted text, not of the raw turn: with the
    raw length, a masked value's length could be worked out from the placeholder.
    """

    event_id: str
    tenant_id: str
    user_id: str
    session_id: str
    turn_id: str
    role: Role
    ts: AwareDatetime
    length: int
    content_hmac: str = Field(
        description="HMAC-SHA256 of the raw content under the deployment's key "
        "(:func:`content_hmac`); empty for rows migrated from an unkeyed store."
    )
    verdict: TriageVerdict
    reason: str
    redacted_text: str
    redaction_counts: dict[str, int] = Field(default_factory=dict)
    ingested_at: AwareDatetime

    @property
    def partition_key(self) -> str:
        return f"{self.tenant_id}/{self.user_id}"


class FactHistoryRecord(_Event):
    """One change to one fact: add, duplicate (occurrence), supersede, pending, forget."""

    event_id: str
    tenant_id: str
    user_id: str
    fact_id: str
    key: str
    action: str
    value: str
    confidence: float
    occurrences: int
    superseded_by: str = ""
    supersedes: str = ""
    source_turn_id: str
    policy_version: str
    at: AwareDatetime

    @property
    def partition_key(self) -> str:
        return f"{self.tenant_id}/{self.user_id}"


class DisagreementRecord(_Event):
    """Shadow mode: where the primary and the shadow extractor read one turn differently.

    ``kind`` is the first difference: ``keep`` (one extracted facts, the other none),
    ``key`` (different fact keys) or ``value`` (same keys, a different value).
    ``only_primary`` and ``only_shadow`` list ``subject/predicate = value`` of the
    candidates the other did not find, masked (never raw text)."""

    event_id: str
    tenant_id: str
    user_id: str
    session_id: str = ""
    turn_id: str
    primary: str
    shadow: str
    kind: Literal["keep", "key", "value"]
    primary_keep: bool
    shadow_keep: bool
    only_primary: list[str] = Field(default_factory=list)
    only_shadow: list[str] = Field(default_factory=list)
    decided_at: AwareDatetime

    @property
    def partition_key(self) -> str:
        return f"{self.tenant_id}/{self.user_id}"


class DeadLetter(_Event):
    """An event that failed validation or failed permanently, with where it came from."""

    reason: str
    error_type: str
    source_topic: str
    partition: int = -1
    offset: int = -1
    key: str | None = None
    payload: str = Field(
        description="The payload, masked by the detectors; its first characters only when "
        "``payload_truncated``."
    )
    payload_bytes: int = Field(default=-1, description="Size of the message as received.")
    payload_truncated: bool = False
    failed_at: AwareDatetime


AuditEvent = DecisionRecord | JournalRecord | FactHistoryRecord | DisagreementRecord


def parse_turn(data: dict[str, Any] | str | bytes, *, where: str = "") -> TurnEvent:
    """Validate one input turn; raise :class:`InvalidEvent` naming every bad field."""
    try:
        if isinstance(data, str | bytes):
            return TurnEvent.model_validate_json(data)
        return TurnEvent.model_validate(data)
    except ValidationError as exc:
        raise InvalidEvent.from_validation(exc, where=where) from None
