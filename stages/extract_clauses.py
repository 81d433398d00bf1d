"""Clauses, retractions, cuts and event merging of the rule extractor."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

from memgate.core.events import FactType, normalise
from memgate.stages.extract_lexicon import _CATEGORY_ALIASES, C_STATED, MAX_OBJECT_CHARS, _ws
from memgate.stages.extract_lookup import _tool_predicate
from memgate.stages.extract_rule_kit import _Hit
from memgate.stages.extract_text import _clean, _meaningful

_KEEP_TIME_PREDICATES = frozenset({"plans_to", "goal", "instruction", "habit", "note"})
_REMEMBER_ONLY = frozenset({"remember_note"})


# "everyone we love", "the things I enjoy": a relative clause, not a statement
_RELATIVE_HEADS = _ws(
    """everyone everybody everything something anything nothing things thing people ones
    one stuff what whatever whoever those all"""
)
_LAST_WORD_RE = re.compile(r"([\w']+)\s*$")


def _relative(low: str, start: int) -> bool:
    if start == 0:
        return False
    m = _LAST_WORD_RE.search(low, 0, start)
    return m is not None and m.group(1) in _RELATIVE_HEADS


_CLAUSE_SEP_RE = re.compile(r",\s*|;\s*|\s+[-–—]+\s+|\s+but\s+")


def _clause_starts(low: str) -> list[int]:
    """Where each clause after the first one starts."""
    return [m.end() for m in _CLAUSE_SEP_RE.finditer(low) if m.end() < len(low)]


def _clause_spans(low: str) -> list[tuple[int, int]]:
    """Spans of the comma / dash / "but" separated clauses of a sentence."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for m in _CLAUSE_SEP_RE.finditer(low):
        if m.start() > pos:
            spans.append((pos, m.start()))
        pos = m.end()
    if pos < len(low):
        spans.append((pos, len(low)))
    return spans


# ---------------------------------------------------------------- retractions
# "forget that I like jazz", "ignore what I said about my editor", "we no longer use
# Jenkins", "I'm not vegetarian anymore", "we stopped using Jenkins": the withdrawn
# statement is rebuilt in its positive form, read by the ordinary rules, and every fact
# found is emitted with ``retracts=True`` (same subject / predicate / object as the fact
# it withdraws, so the resolver can close it).

_RETRACT_TRIGGERS = _ws(
    """forget disregard ignore scratch delete erase remove longer anymore more stopped quit
    ditched dropped abandoned gave rid away off"""
)
_FORGET_RE = re.compile(
    r"(?:^|[,;:]\s*|\b(?:please|pls|and|also|so|oh|actually|ok|okay|just|kindly)[,\s]+)"
    r"(?:(?:can|could|would|will) you (?:please )?)?"
    r"(?:forget|disregard|ignore|scratch|delete|erase|remove)\s+"
    r"(?:(?P<that>(?:about )?(?:the (?:fact|part|bit) )?(?:that|where) )|"
    r"(?P<about>(?:about )?(?:what|everything|anything|all|whatever) (?:i|we) (?:said|told you|"
    r"mentioned|wrote|shared|say|tell you)(?: earlier| before| last time| previously)? "
    r"(?:about|regarding|on|re|concerning) |(?:my|the|your|any) (?:notes?|memory|memories|"
    r"info|information|fact) (?:about|on|regarding|that says) ))"
    r"(?P<rest>[^.!?;]+)"
)
@lru_cache(maxsize=1)
def _clause_subjects() -> frozenset[str]:
    """Words that open a clause as its subject (``clause_roles.json``: ``first_person`` and
    ``subject_words``, every language)."""
    d = json.loads((resources.files("memgate") / "data" / "clause_roles.json").read_text("utf-8"))
    words = [w for k in ("first_person", "subject_words") for ws in d[k].values() for w in ws]
    return frozenset(w.lower() for w in words)


_COMMA_WORD_RE = re.compile(r",\s*([^\W\d_][\w']*)")


def forget_topic_end(low: str, start: int, end: int) -> int:
    """Where the topic of "forget what I said about <topic>" ends: at a comma that opens a
    clause with a subject of its own ("... about Jenkins, we actually deploy with Argo CD":
    the new clause is a statement, not part of what is withdrawn), else at ``end``.

    >>> t = "ignore what i said about jenkins, we deploy with argo cd"
    >>> t[25:forget_topic_end(t, 25, len(t))]
    'jenkins'
    >>> t = "forget what i said about my brother, tom"
    >>> t[25:forget_topic_end(t, 25, len(t))]
    'my brother, tom'
    """
    for m in _COMMA_WORD_RE.finditer(low, start, end):
        if m.group(1) in _clause_subjects():
            return m.start()
    return end


_NO_LONGER_RE = re.compile(
    r"\b(?P<subj>i|we)(?P<be>'m|'re| am| are)?\s+(?:(?:just|also|really|actually|simply)\s+)?"
    r"(?P<neg>no longer\s+)"
)
_NOT_ANYMORE_RE = re.compile(
    r"\b(?P<subj>i|we)(?P<be>'m|'re| am| are)?\s+"
    r"(?P<neg>(?:don't|do not|not|aren't|am not|are not)\s+)(?:(?:really|even|actually)\s+)?"
    r"(?P<mid>[^,;.!?]{1,60}?)\s*\b(?:any ?more|any longer)\b"
)
_STOPPED_RE = re.compile(
    r"\b(?P<subj>i|we)(?:'ve| have)?\s+(?:(?:just|also|finally|recently|actually)\s+)?"
    r"(?:stopped|quit|ditched|dropped|abandoned|gave up(?: on)?|got rid of|moved away from|"
    r"moved off(?: of)?|phased out)\s+(?!off\b|by\b|out\b|in\b|down\b)(?:using\s+)?"
    r"(?P<obj>[^,;.!?]{1,60})"
)
_SWITCH_WORDS_RE = re.compile(r"\b(?:to|for|now|instead|in favou?r of|replaced|with)\b")
_TOPIC_PREDICATES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), pred) for p, pred in (
        (r"\b(?:where i live|my (?:home )?address|my city|where i'm based|where i am based|"
         r"my move|moving)\b", "lives_in"),
        (r"\b(?:my (?:job|role|title|position|occupation|profession)|what i do)\b", "works_as"),
        (r"\b(?:my (?:employer|company|workplace)|where i work)\b", "works_at"),
        (r"\bmy name\b", "name_is"),
        (r"\bmy time ?zone\b", "timezone"),
        (r"\b(?:my diet|diet|vegetarian|vegan|pescatarian|keto|gluten-free)\b", "diet"),
        (r"\b(?:my (?:partner|wife|husband|relationship)|being (?:married|single|engaged))\b",
         "relationship_status"),
    )
)


def _topic_retractions(topic: str, subj: str) -> list[_Hit]:
    """What "ignore what I said about <topic>" withdraws, judged from the topic alone."""
    obj = _clean(topic)
    low = obj.lower()
    if not obj or not _meaningful(obj):
        return []
    pred = _tool_predicate(obj)
    if not pred:
        for alias in sorted(_CATEGORY_ALIASES, key=len, reverse=True):
            if re.search(r"(?<![\w-])" + re.escape(alias) + r"(?![\w-])", low):
                cat = _CATEGORY_ALIASES[alias]
                pred = "deploys_with" if cat == "deploy" else f"uses_tool:{cat}"
                break
    if not pred:
        for rx, p in _TOPIC_PREDICATES:
            if rx.search(low):
                pred = p
                break
    if pred:
        return [_Hit(FactType.CORRECTION, subj, pred, obj, C_STATED, "retraction", None, True)]
    bare = re.sub(r"(?i)^(?:my|our|the|that|how much i (?:like|love|hate)|liking|loving)\s+",
                  "", obj)
    if len(bare.split()) > 4 or not _meaningful(bare):
        return []
    # a taste withdrawn: whichever of likes / dislikes was said
    return [_Hit(FactType.CORRECTION, subj, p, bare, C_STATED, "retraction", None, True)
            for p in ("likes", "dislikes")]


def _cut(orig: str, low: str, pieces: list[tuple[int, int] | str]) -> tuple[str, str]:
    """Rebuild a text from spans of (orig, low) and literal lower-case strings."""
    o: list[str] = []
    lo: list[str] = []
    for piece in pieces:
        if isinstance(piece, str):
            o.append(piece)
            lo.append(piece)
        else:
            o.append(orig[piece[0]:piece[1]])
            lo.append(low[piece[0]:piece[1]])
    return "".join(o), "".join(lo)


_CORRECTION_LEAD_RE = re.compile(
    r"^(?:(?:small|quick|minor|petite|kleine|pequeña|pequena)\s+)?(?:correction|korrektur|"
    r"corrección|correccion|correção|correcao|erratum|berichtigung)\b"
)


def _merge_events(hits: list[_Hit]) -> list[_Hit]:
    """The events narrated in one turn become one event ("went to a fair; got some leads").

    They are one story told in steps; one fact per step would spend the write budget on
    the same source turn. The first event's date is kept, else the first stated one.
    """
    events = [h for h in hits if h.predicate == "event" and not h.retracts]
    if len(events) < 2:
        return hits
    seen: list[str] = []
    for h in events:
        if normalise(h.object) not in (normalise(x) for x in seen):
            seen.append(h.object)
    first = events[0]
    obj = "; ".join(seen)
    if len(obj) > MAX_OBJECT_CHARS:
        obj = obj[:MAX_OBJECT_CHARS].rsplit(" ", 1)[0].rstrip(" ,.;:")
    when = next((h.valid_from for h in events if h.valid_from is not None), None)
    merged = _Hit(first.type, first.subject, "event", obj, max(h.confidence for h in events),
                  first.rule, when, False)
    out: list[_Hit] = []
    for h in hits:
        if h is first:
            out.append(merged)
        elif h not in events:
            out.append(h)
    return out
