"""The last check before anything is written: every record is scanned again and masked.

The redact stage judges candidate facts; the journal masks each turn. This
module is the final gate in front of the stores, independent of how a record
was built: :func:`seal` scans the text fields of a record about to be
persisted (a fact's statement, value, context, rationale and key; a history
row's value and key; the journal's redacted text; a dead letter's payload and
reason) with the detectors and masks what it finds. A record that was masked
already comes out unchanged (masking is idempotent), so the check costs a scan
and changes nothing when the stages upstream did their work.

A fact's value is read in its statement (``user passport number K48213907``,
:func:`mask_statement`), never alone: the words around a value decide what it
is (``order 912345678`` is an identifier, ``mobile 912345678`` a phone), and a
value out of its sentence would be judged without them.

Pure: no I/O; the detector is passed in.
"""

from __future__ import annotations

from collections import Counter
from typing import TypeVar

from memgate.core.events import DeadLetter, FactHistoryRecord, JournalRecord, StoredFact
from memgate.core.events import render_fact_text as _statement
from memgate.stages.detectors import Detector, MaskResult, placeholder
from memgate.stages.redact_health import mask_all, mask_health

__all__ = [
    "DEAD_LETTER_PAYLOAD_CHARS",
    "mask_key",
    "mask_prefix",
    "mask_statement",
    "seal",
    "value_kind_in_context",
]

#: Characters of a dead letter's payload kept (masked): enough to see what was sent; the
#: detectors' cost grows with the text, and a partition waits while they read it.
DEAD_LETTER_PAYLOAD_CHARS = 16_384
#: Read past the cut, so that a value the cut splits is found whole (and masked).
_CUT_MARGIN = 8_192

R = TypeVar("R", JournalRecord, StoredFact, FactHistoryRecord, DeadLetter)


def _masked_spans(text: str, spans: list[tuple[int, int, str]], lo: int, hi: int) -> str:
    """``text[lo:hi]`` with the parts of ``spans`` inside it replaced by placeholders."""
    out: list[str] = []
    pos = lo
    for start, end, kind in spans:
        start, end = max(start, lo), min(end, hi)
        if start >= end or start < pos:
            continue
        out.append(text[pos:start])
        out.append(placeholder(kind))
        pos = end
    out.append(text[pos:hi])
    return "".join(out)


def mask_statement(
    detector: Detector, subject: str, predicate: str, value: str
) -> tuple[str, str, Counter[str]]:
    """Subject and value masked where a scan of their statement finds something.

    Returns the masked subject, the masked value and the kinds found (health
    terms included), counted once per finding."""
    pred = predicate.replace("_", " ")
    text = f"{subject} {pred} {value}"
    v0 = len(subject) + len(pred) + 2
    counts: Counter[str] = Counter()
    spans: list[tuple[int, int, str]] = []
    for f in detector.scan(text):
        if f.start < len(subject) or f.end > v0:
            spans.append((f.start, f.end, f.kind))
            counts[f.kind] += 1
    subject_m, n_s = mask_health(_masked_spans(text, spans, 0, len(subject)))
    value_m, n_v = mask_health(_masked_spans(text, spans, v0, len(text)))
    if n_s + n_v:
        counts["health"] += n_s + n_v
    return subject_m, value_m, counts


def value_kind_in_context(detector: Detector, value: str, context: str) -> str | None:
    """The kind of a finding of ``context`` that covers ``value`` where it occurs
    there (``None`` if none does): a value whose label stayed in the sentence."""
    if len(value) < 4 or not context:
        return None
    at = context.find(value)
    if at < 0:
        return None
    for f in detector.scan(context):
        if f.start < at + len(value) and f.end > at:
            return f.kind
    return None


def mask_key(detector: Detector, key: str) -> str:
    """A fact key (``tenant/user/subject/predicate[/value]``) with what a scan of
    its words finds masked (``/`` read as a space)."""
    if not key:
        return key
    spaced = key.replace("/", " ")
    spans = [(f.start, f.end, f.kind) for f in detector.scan(spaced)]
    return _masked_spans(key, spans, 0, len(key)) if spans else key


def mask_prefix(
    detector: Detector, text: str, limit: int, *, margin: int = _CUT_MARGIN
) -> str:
    """The first ``limit`` characters of ``text``, masked, reading no more than
    ``limit + margin`` of it: a finding the cut splits (up to ``margin`` long) is
    found whole and its kept part replaced by its placeholder, never left half raw.

    >>> from memgate.stages.detectors import Detector
    >>> mask_prefix(Detector(), "mail bob@example.org now", 12)
    'mail [EMAIL]'
    """
    if len(text) <= limit:
        return mask_all(detector, text).text
    window = text[: limit + margin]
    spans = [(f.start, f.end, f.kind) for f in detector.scan(window)]
    return mask_health(_masked_spans(window, spans, 0, limit))[0]


def _text(detector: Detector, text: str) -> MaskResult:
    return mask_all(detector, text) if text else MaskResult(text, {})


def seal(detector: Detector, record: R) -> R:
    """``record`` with every text field that would be stored scanned and masked."""
    update: dict[str, object] = {}
    if isinstance(record, JournalRecord):
        res = _text(detector, record.redacted_text)
        if res.counts:
            merged = Counter(record.redaction_counts)
            merged.update(res.counts)
            update = {"redacted_text": res.text, "redaction_counts": dict(merged)}
    elif isinstance(record, StoredFact):
        subject, value, counts = mask_statement(
            detector, record.subject, record.predicate, record.value
        )
        if counts:
            update = {
                "subject": subject,
                "value": value,
                "text": _statement(subject, record.predicate, value),
            }
        for name in ("context", "rationale"):
            res = _text(detector, getattr(record, name))
            if res.counts:
                update[name] = res.text
        key = mask_key(detector, record.key)
        if key != record.key:
            update["key"] = key
    elif isinstance(record, FactHistoryRecord):
        key = mask_key(detector, record.key)
        if key != record.key:
            update["key"] = key
    else:
        for name in ("payload", "reason"):
            res = _text(detector, getattr(record, name))
            if res.counts:
                update[name] = res.text
    return record.model_copy(update=update) if update else record
