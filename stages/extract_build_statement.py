"""The fallback statement builder of the rule extractor: a substantive first-person
statement no other rule read, scored by how concrete it is."""

from __future__ import annotations

import re

from memgate.core.events import FactType
from memgate.stages.extract_dates import parse_event_date
from memgate.stages.extract_lexicon import _MONTHS, _RELATIVE_ALT, C_STATED, _ws
from memgate.stages.extract_rule_kit import _ED_END_RE, _IRREGULAR_PAST_SET, _Ctx, _Hit
from memgate.stages.extract_text import (
    _ABOUT_US_RE,
    _PUNCT_END_RE,
    _PUNCT_START_RE,
    _TOKEN_RE,
    _TRIVIAL_EVENT_RE,
    _WS_RE,
    _meaningful,
)

# ---------------------------------------------------------------- fallback statement

_MAX_STATEMENT_WORDS = 30
_STATEMENT_MIN_WORDS = 5  # content words of a clause with no concrete marker
_STATEMENT_NEGATED_RE = re.compile(
    r"\b(?:not|never|no|don't|doesn't|didn't|haven't|hasn't|isn't|aren't|wasn't|can't|won't)\b"
)
_STATEMENT_ANY_PERSON_RE = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|we|we're|we've|"
                                      r"us|our|ours)\b")
_STATEMENT_LEAD_RE = re.compile(
    r"^(?:(?:hey|hi|hello|oh|ooh|wow|whoa|yeah|yes|yep|yup|no|nope|well|so|and|but|also|"
    r"btw|anyway|anyways|honestly|actually|haha+|lol|ha|hmm+|um+|ah|aw+|ok|okay|thanks|"
    r"thank you|omg|man|dude|gosh|sure|right|totally|absolutely|definitely|cool|nice|"
    r"great|awesome|true|lately|recently)(?:\s+[A-Z][a-z]+)?[\s,!.:;-]+)+"
)
# about the listener, reported speech, advice, troubleshooting, the chat itself
_STATEMENT_BAD_RE = re.compile(
    r"\b(?:you|your|yours|yourself|u|ya|ur)\b|"
    r"\b(?:says|said|thinks|thought|told me|tells me|swears|reckons|suggested|claims|"
    r"should|could|would|shall|must|ought|gotta)\b|"
    r"\b(?:error|errors|bug|bugs|crash|crashes|crashed|crashing|fails?|failing|failed|"
    r"traceback|exception|segfault|stack trace|broken|doesn't work|does not work|"
    r"won't (?:load|start|work|open)|greyed out|logged out|log in|login|password|"
    r"still (?:hasn't|haven't|isn't|aren't|doesn't|don't|won't|can't|not)|hasn't arrived|"
    r"(?:number|id|code|reference) is)\b|"
    r"\b(?:forget|forgot|remember|mentioned|asked|chat|chatted|conversation|talked|"
    r"last time we)\b"
)
# the chatter that opens a reaction: "that's ...", "it's ...", "what a ...", "glad to ..."
_STATEMENT_REACTION_RE = re.compile(
    r"^(?:that|this|it|that's|thats|this is|it's|its|what|how|glad|happy|sorry|so|"
    r"good|great|nice|cool|awesome|amazing|congrats|congratulations|same|me too|"
    r"sounds|looks|seems|(?:i|we)(?:'d| would)? (?:[\w%]+ )?(?:like to|love to|rather|agree|"
    r"can't wait|cannot wait|hope|bet|guess|"
    r"mean|think|believe|feel like|know|understand|get it|appreciate|wish|admire|want|"
    r"wanna|need|needed|'d like|would like|'d love|would love|'d rather|was wondering|"
    r"love (?:that|it|this|how|the way)))\b"
)
# a platitude or a pledge, not a fact about the speaker: "we can make a difference
# together", "we all have our own paths", "I'll keep pushing", "I'm sure we'll make it"
_STATEMENT_PLATITUDE_RE = re.compile(
    r"^(?:together )?we (?:all |really |truly |)(?:can|could|will|'ll|should|must)\b|"
    r"^we all\b|^(?:i|we)(?:'ll| will|'m gonna| am gonna|'m going to| am going to|'re gonna|"
    r" are gonna| won't)(?: \w+){0,2}? (?:keep|continue|never|always|do (?:my|our) best|"
    r"make (?:my|our) dreams|give up|let (?:anything|anyone|it|this))\b|"
    r"^(?:i'm|we're|i am|we are) (?:\w+ )?(?:sure|glad|lucky|blessed|happy|grateful|"
    r"thankful) (?:that )?we\b|^(?:i'm|i am|we're|we are) sure\b|"
    r"^(?:our|my) (?:loved ones|stories|struggles|differences|journeys?|paths?) "
    r"(?:can|give|make|show|are|is)\b|"
    # musing aloud: "I was just thinking about pottery and trains again"
    r"^(?:i was|i've been|i have been|i'm|i am) (?:just |)(?:thinking|wondering) (?:about|of)\b"
)
# a promise to the listener: "I'll ask around", "I'll bring some snacks"
_STATEMENT_PROMISE_RE = re.compile(r"^(?:i'll|i will|we'll|we will)\b")
_STATEMENT_NUMBER_RE = re.compile(
    r"\d|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
    r"thirty|forty|fifty|hundred|thousand|dozen|first|second|third)\b"
)
_STATEMENT_TIME_RE = re.compile(
    r"\b(?:" + "|".join(m for m in _MONTHS if len(m) > 3) + r"|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday|weekend|summer|winter|spring|autumn|yesterday|"
    r"ago|last (?:week|month|year|night)|when (?:i|we) was|when (?:i|we) were|"
    r"growing up|as a kid|as a child|since)\b"
)
_STATEMENT_KIN_RE = re.compile(
    r"\b(?:my|our)\s+(?:(?:\w+)\s+)?(?:" + _RELATIVE_ALT + r"|kids?|children|family|parents|"
    r"friends?|pets?|dogs|cats|husband|wife|partner|grandparents|siblings)\b"
)
_NOT_NAMES = _ws(
    "I I'm I've I'd I'll Im Ive OK Okay Oh Yeah Yes No Wow Hey Hi Thanks Thank God Lol"
)
# a capitalised word inside the clause, not after a sentence end, not a vocative
# ("I agree, Maria")
_CAP_WORD_RE = re.compile(r"(?<![.!?,]\s)(?<=\s)([A-Z][\w'&-]*)")
_STATEMENT_SUBJECT_RE = re.compile(
    r"^(?:[\w'-]+\s+){0,3}?(?:i|i'm|i've|i'd|i'll|we|we're|we've|we'd|we'll)\b|"
    r"^(?:my|our)\b"
)


def _statement_score(obj: str) -> int:
    """How much concrete content a statement carries (0: none, not worth storing)."""
    low = obj.lower()
    score = 0
    if _STATEMENT_NUMBER_RE.search(low):
        score += 1
    if _STATEMENT_TIME_RE.search(low):
        score += 1
    if _STATEMENT_KIN_RE.search(low):
        score += 1
    if any(w not in _NOT_NAMES and w.split("'")[0] not in _NOT_NAMES
           for w in _CAP_WORD_RE.findall(obj)):
        score += 1  # a named thing: a place, a person, a title, a brand
    return score


def _b_statement(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """A substantive first-person statement no specific rule read (fallback).

    "I've known these friends for 4 years, since I moved from my home country":
    the whole clause, trimmed, when it is about the speaker (I / we / my / our),
    carries something concrete (a number, a date or period, a relative, a named
    thing) and is neither a reaction ("that's awesome"), about the listener,
    reported speech, advice, troubleshooting of the moment nor about the chat.
    """
    raw = _WS_RE.sub(" ", ctx.orig).strip()
    raw = _STATEMENT_LEAD_RE.sub("", raw)
    raw = _PUNCT_START_RE.sub("", raw)
    raw = re.sub(r"[\U0001F300-\U0001FAFF\u2600-\u27BF]", "", raw)
    raw = _PUNCT_END_RE.sub("", raw).strip()
    words = raw.split(" ")
    if len(words) > _MAX_STATEMENT_WORDS:
        raw = " ".join(words[:_MAX_STATEMENT_WORDS]).rstrip(" ,;:-")
    low = raw.lower()
    if not raw or len(words) < 4 or not _meaningful(raw, 3):
        return []
    if _STATEMENT_BAD_RE.search(low) or _TRIVIAL_EVENT_RE.search(low) \
            or _ABOUT_US_RE.search(low) or _STATEMENT_PLATITUDE_RE.match(low):
        return []
    score = _statement_score(raw)
    if score == 0 and _STATEMENT_PROMISE_RE.match(low):
        return []  # "I'll ask around": a promise of the moment, nothing dated
    if _STATEMENT_SUBJECT_RE.match(low) and not _STATEMENT_REACTION_RE.match(low):
        # "I'm ..." / "my ...": something concrete, or a substantial clause
        if score == 0 and (not _meaningful(raw, _STATEMENT_MIN_WORDS)
                           or _STATEMENT_NEGATED_RE.search(low)):
            return []
    elif score < 2 or not _STATEMENT_ANY_PERSON_RE.search(low):
        # "this was my Rocky Mountains trip last year": about the speaker's own things,
        # with at least two kinds of concrete content
        return []
    dated = parse_event_date(low, ctx.ts)
    when = dated[0] if dated is not None else None
    past = _ED_END_RE.search(low) is not None or bool(
        frozenset(_TOKEN_RE.findall(low)) & _IRREGULAR_PAST_SET)
    kind = FactType.EVENT if (when is not None or past) else FactType.FACT
    subj = "team" if re.match(r"^(?:we|our)\b", low) else "user"
    return [_Hit(kind, subj, "statement", raw, C_STATED, "", when)]
