"""Operations by reference read from a clause's roles (when no phrase pattern matched).

Two shapes, in the six supported languages, with their words as data
(``memgate/data/clause_roles.json`` and the delete verbs and negations of
``memgate/data/resolution.json``):

- a *deletion request*: a clause headed by an imperative verb of deleting
  ("apague ...", "forget everything about ...", "vergiss bitte, dass ...",
  "请把...删掉"); its topic is the rest of the clause without the request's frame;
- a *stop*: a clause whose subject is the speaker holding a negation and a
  "no longer" word ("I don't drive X anymore", "ich trinke keinen X mehr");
  its topic is the clause's object.

>>> [(op, topic) for op, topic, _ in clause_references("Forget everything about our CI.")]
[('delete', 'our CI')]
>>> [(op, topic) for op, topic, _ in clause_references("Ich trinke keinen Kaffee mehr.")]
[('stop', 'Kaffee')]
>>> clause_references("I always forget my keys.")
[]
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Final

from memgate.core.text import bounded_alternation

__all__ = ["clause_references"]

_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")
_CLAUSE_SPLIT_RE: Final = re.compile(r"\s*(?:[,;:，；：]|\s[—–-]\s)\s*")
_TOKEN_RE: Final = re.compile(r"[\w'’-]+", re.UNICODE)
#: What follows one of these words is the old thing's qualifier, not the thing.
_OBJECT_CUT_RE: Final = re.compile(
    r"\s+(?:for|to|because|since|at|in|on|with|für|weil|seit|pour|parce que|depuis|para|porque"
    r"|desde|com|em|no|na)\s+"
)
_COMPLEMENTIZERS: Final = frozenset({"that", "que", "dass", "daß"})
_VERB_FINAL: Final = frozenset({"dass", "daß"})


def _phrases(words: list[str]) -> re.Pattern[str]:
    parts = [
        (re.escape(w), not _CJK_RE.search(w)) for w in sorted(set(words), key=len, reverse=True)
    ]
    return re.compile(bounded_alternation(parts))


@dataclass(frozen=True)
class _Roles:
    lead: tuple[str, ...]
    zh_marks: tuple[str, ...]
    first_person: frozenset[str]
    pro_drop: tuple[str, ...]
    no_longer: re.Pattern[str]
    frame: frozenset[str]
    object_frame: frozenset[str]
    delete_verbs: frozenset[str]
    zh_delete: tuple[str, ...]
    negations: re.Pattern[str]
    negation_words: frozenset[str]
    markers: frozenset[str]
    change: re.Pattern[str]
    frames: tuple[tuple[frozenset[str], frozenset[str]], ...]
    zh_frames: tuple[tuple[str, ...], tuple[str, ...]]
    swaps: tuple[tuple[frozenset[str], frozenset[str]], ...]
    request_leads: tuple[str, ...]
    infinitives: frozenset[str]
    nominal_stops: tuple[tuple[str, str], ...]
    not_topics: frozenset[str]
    prepositions: frozenset[str]


@lru_cache(maxsize=1)
def _roles() -> _Roles:
    base = resources.files("memgate") / "data"
    d: dict[str, Any] = json.loads((base / "clause_roles.json").read_text("utf-8"))
    r: dict[str, Any] = json.loads((base / "resolution.json").read_text("utf-8"))
    verbs = [v for vs in r["delete_verbs"].values() for v in vs]
    negs = [n for ns in r["negations"].values() for n in ns]
    return _Roles(
        lead=tuple(sorted(d["lead_words"], key=len, reverse=True)),
        zh_marks=tuple(d["zh_request_marks"]),
        first_person=frozenset(w for ws in d["first_person"].values() for w in ws),
        pro_drop=tuple(d["pro_drop_negations"]),
        no_longer=_phrases([w for ws in d["no_longer"].values() for w in ws]),
        frame=frozenset(d["frame_words"]),
        object_frame=frozenset(d["object_frame_words"]),
        delete_verbs=frozenset(
            v for v in [*verbs, *d["more_delete_verbs"]] if not _CJK_RE.search(v)
        ),
        zh_delete=tuple(v for v in [*verbs, *d["more_delete_verbs"]] if _CJK_RE.search(v)),
        negations=_phrases(negs),
        negation_words=frozenset(negs),
        markers=frozenset(d["request_markers"]),
        change=_phrases([w for ws in r["change_cues"].values() for w in ws]),
        frames=tuple(
            (frozenset(f["from"]), frozenset(f["to"]))
            for f in d["change_frames"]
            if f["lang"] != "zh"
        ),
        zh_frames=next(
            (tuple(f["from"]), tuple(f["to"])) for f in d["change_frames"] if f["lang"] == "zh"
        ),
        swaps=tuple((frozenset(f["verbs"]), frozenset(f["to"])) for f in d["swap_frames"]),
        request_leads=tuple(sorted(d["request_leads"], key=len, reverse=True)),
        infinitives=frozenset(d["request_infinitives"]),
        nominal_stops=tuple((f["open"], f["close"]) for f in d.get("nominal_stops", ())),
        not_topics=frozenset(d.get("nominal_stop_not_topics", ())),
        prepositions=frozenset(w for ws in d["topic_prepositions"].values() for w in ws),
    )


def _strip_lead(low: str, roles: _Roles) -> str:
    """The clause without the discourse and politeness words before its head."""
    changed = True
    while changed and low:
        changed = False
        for w in roles.lead:
            if low.startswith(w) and (
                _CJK_RE.search(w) or len(low) == len(w) or not low[len(w)].isalnum()
            ):
                low = low[len(w) :].lstrip(" ,!")
                changed = True
                break
    return low


def _span(orig: str, low: str, sub: str) -> str:
    """``sub`` (a piece of ``low``) in the original case when the lengths agree."""
    i = low.find(sub)
    return orig[i : i + len(sub)] if i >= 0 and len(orig) == len(low) else sub


def _asked(head: str, roles: _Roles) -> str | None:
    """The rest of a clause opened by a request lead ("could you ..."), else None."""
    for w in roles.request_leads:
        if head.startswith(w) and (len(head) == len(w) or not head[len(w)].isalnum()):
            return head[len(w) :].lstrip(" ,")
    return None


def _object(tokens: list[str], roles: _Roles, *, verb_final: bool = False) -> list[str]:
    """A clause's object: without the subject pronoun, negations and its (first) verb."""
    rest = [t for t in tokens if t not in roles.first_person and t not in roles.negation_words]
    if not rest:
        return []
    rest = rest[:-1] if verb_final else rest[1:]
    return [t for t in rest if t not in roles.object_frame]


def _delete_topic(tokens: list[str], roles: _Roles) -> list[str]:
    if not roles.markers & set(tokens):
        return []  # "delete line three of the file": an instruction, not about memory
    for i, t in enumerate(tokens):
        # "... about that client": after a preposition, a demonstrative
        after_preposition = i > 0 and tokens[i - 1] in roles.prepositions
        if t in _COMPLEMENTIZERS and i + 1 < len(tokens) and not after_preposition:
            # "... the information that we use Sentry": the subordinate clause's object
            return _object(tokens[i + 1 :], roles, verb_final=t in _VERB_FINAL)
    return [t for t in tokens if t not in roles.frame]


def _zh_delete(low: str, roles: _Roles) -> str | None:
    verb = next((v for v in roles.zh_delete if v in low), None)
    if verb is None:
        return None
    at = low.find(verb)
    if (
        low[max(0, at - 1) : at] == "我"
        or not (at == 0 or any(m in low[:at] for m in roles.zh_marks))
        or not any(m in low for m in roles.markers if _CJK_RE.search(m))
    ):
        return None  # "我忘记..." is a statement, not a request
    topic = low.replace(verb, "")
    for w in sorted((f for f in roles.frame if _CJK_RE.search(f)), key=len, reverse=True):
        topic = topic.replace(w, "")
    return topic.strip(" 。！？.!?") or None


def _changed_from(low: str, roles: _Roles) -> str | None:
    """The old value of a change clause ("moved ... from X to Y": X), or None."""
    if _CJK_RE.search(low):
        zh_from, zh_to = roles.zh_frames
        for f in zh_from:
            a = low.find(f)
            if a < 0:
                continue
            rest = low[a + len(f) :]
            ends = [i for i in (rest.find(t) for t in zh_to) if i > 0]
            if ends:
                return rest[: min(ends)].strip() or None
        return None
    if roles.change.search(low) is None:
        return None
    return _between(low, roles.frames, roles)


def _nominal_stop(head: str, roles: _Roles) -> str | None:
    """The thing of a clause with no verb that says it is to stop ("no more friday calls",
    "keine freitagsanrufe mehr": ``nominal_stops``), or None.

    >>> _nominal_stop("no more friday calls", _roles()), _nominal_stop("no more than two", _roles())
    ('friday calls', None)
    """
    for opening, closing in roles.nominal_stops:
        if not (head.startswith(opening + " ") and (not closing or head.endswith(" " + closing))):
            continue
        rest = head[len(opening) : len(head) - len(closing)].strip()
        tokens = _TOKEN_RE.findall(rest)
        if tokens and tokens[0] not in roles.not_topics:
            return " ".join(t for t in tokens if t not in roles.object_frame) or None
    return None


def _swapped(low: str, roles: _Roles) -> str | None:
    """The old value of a swap ("replaced X with Y", "trocamos o X pelo Y"), or None."""
    return _between(low, roles.swaps, roles)


def _between(
    low: str, frames: tuple[tuple[frozenset[str], frozenset[str]], ...], roles: _Roles
) -> str | None:
    """The words between a frame's opening word and its closing word ("from X to",
    "replaced X with"), less the object frame's words, for the first frame that has
    any; None if none does."""
    tokens = _TOKEN_RE.findall(low)
    for starts, tos in frames:
        for i, t in enumerate(tokens):
            if t not in starts:
                continue
            j = next((k for k in range(i + 1, len(tokens)) if tokens[k] in tos), None)
            if j is not None:
                old = [w for w in tokens[i + 1 : j] if w not in roles.object_frame]
                if old:
                    return " ".join(old)
    return None


def clause_references(sentence: str) -> list[tuple[str, str, str]]:
    """``(op, topic, clause)`` for each deletion request or stop clause of a sentence."""
    roles = _roles()
    out: list[tuple[str, str, str]] = []
    clauses = [c for c in _CLAUSE_SPLIT_RE.split(sentence.strip()) if c]
    question = sentence.rstrip().endswith(("?", "？"))
    pending_delete: str | None = None  # a request whose topic is the next clause
    for orig in clauses:
        low = orig.lower().rstrip(" .!?。！？").lstrip("¿¡ ")
        if pending_delete is not None:
            topic = _delete_topic(_TOKEN_RE.findall(low), roles)
            if topic:
                out.append(("delete", " ".join(topic), pending_delete + " " + low))
            pending_delete = None
            continue
        if _CJK_RE.search(low):
            zh = _zh_delete(low, roles)
            if zh:
                out.append(("delete", zh, low))
                continue
        head = _strip_lead(low, roles)
        asked = _asked(head, roles)
        if asked is not None:
            head = _strip_lead(asked, roles)  # "could you please delete ...": a request
        tokens = _TOKEN_RE.findall(head)
        verbs = roles.delete_verbs | roles.infinitives if asked is not None else roles.delete_verbs
        if asked is not None and len(tokens) > 1 and tokens[-1] in verbs:
            tokens = [tokens[-1], *tokens[:-1]]  # "kannst du meine Adresse löschen"
        if tokens and tokens[0] in verbs and (asked is not None or not question):
            topic = _delete_topic(tokens[1:], roles)
            if topic:
                out.append(("delete", _span(orig, orig.lower(), " ".join(topic)), low))
            elif len(tokens) == 1 or set(tokens[1:]) <= set(roles.lead):
                pending_delete = low  # "vergiss bitte, dass ...": the topic follows
            continue
        nominal = None if question else _nominal_stop(head, roles)
        if nominal:
            out.append(("stop", _span(orig, orig.lower(), nominal), low))
            continue
        old = None if question else (_changed_from(low, roles) or _swapped(low, roles))
        if old:
            # the clause also says the new value: what the extractor read from it stays
            out.append(("stop", _span(orig, orig.lower(), old), ""))
            continue
        if question or not tokens or roles.negations.search(head) is None:
            continue
        cue = roles.no_longer.search(head)
        if cue is None:
            continue
        speaker = tokens[0] in roles.first_person or head.startswith(roles.pro_drop)
        if not speaker:
            continue
        bare = roles.no_longer.sub(" ", head)
        obj = _object(_TOKEN_RE.findall(bare), roles)
        what = _OBJECT_CUT_RE.split(" " + " ".join(obj) + " ", maxsplit=1)[0].strip()
        if what:
            out.append(("stop", _span(orig, orig.lower(), what), low))
    return out
