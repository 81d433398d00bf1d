"""Sentence filters (hypothetical, session-only, unsure, remember requests) and
object clean-up of the rule extractor."""

from __future__ import annotations

import re

from memgate.stages.extract_lexicon import MAX_OBJECT_CHARS, _ws

# ============================================================== sentence filters

_HYPO_RE = re.compile(
    r"^\s*(?:if|suppose|supposing|imagine|assuming|hypothetically|let's say|say we)\b|"
    r"\b(?:what if|if i were|if we were|if i was|if i had|if we had|if i could|"
    r"suppose|supposing|imagine|imagining|hypothetically|would you|wouldn't it|"
    r"let's say|in theory|pretend|i wish|i would(?! (?:rather|prefer|like|love)\b)|"
    r"i'd (?!rather|prefer|love|like)|"
    r"could you|can you|will you|would it)\b"
)
_HYPO_TRIGGERS = _ws(
    "if suppose supposing imagine imagining assuming hypothetically let's say what would "
    "wouldn't theory pretend wish i'd could can will"
)
_SESSION_RE = re.compile(
    r"\b(?:for this (?:one|answer|question|reply|response|task|message|conversation|chat|"
    r"session|time|request|turn)|(?:just|only) this (?:time|once|one)|this time only|"
    r"(?:just |only )?for now|right now|for the moment|for today|in this (?:answer|reply|"
    r"response|chat)|nur (?:dieses mal|diesmal|jetzt)|pour cette fois|juste cette fois|"
    r"solo esta vez|por ahora|só desta vez|por enquanto)\b"
)
# "I'm really into jazz right now": a taste of these days, not a one-off
_CURRENT_TASTE_RE = re.compile(
    r"^(?:(?:oh|yeah|and|so|also|honestly|well)[,\s]+)*(?:i'm|i am|we're|we are) "
    r"(?:(?:really|totally|so|super|just|also)\s+)*(?:into|loving|obsessed with|hooked on|"
    r"addicted to|binging|binge-watching)\s+(?!it\b|this\b|that\b|you\b)[^,;:!?]+? right now"
    r"[\s.!]*$"
)
_SESSION_TRIGGERS = _ws(
    "this now moment today nur pour juste solo ahora desta enquanto"
)
_UNSURE_RE = re.compile(
    r"\b(?:not sure|unsure|not certain|maybe|perhaps|possibly|probably|might|i may|we may|"
    r"i guess|don't know if|do not know if|not decided|undecided|i wonder|wondering|"
    r"vielleicht|peut-être|quizás|quizá|tal vez|talvez)\b"
)
_UNSURE_TRIGGERS = _ws(
    "not unsure maybe perhaps possibly probably might may guess don't do undecided wonder "
    "wondering vielleicht peut-être quizás quizá tal talvez"
)
_REMEMBER_RE = re.compile(
    r"^(?:(?:hey|ok|okay|so|also|btw|oh|by the way)[,\s]+)*"
    r"(?:(?:(?:can|could|will|would) you (?:please )?|please |pls )"
    r"(?:remember|note|keep in mind|don't forget|do not forget|save|store|make a note)"
    r"(?: (?:that|this))?|(?:remember|note|keep in mind|don't forget|do not forget) that|"
    r"make a note(?: that)?|for the record|fyi|just so you know|for future reference)"
    r"[,:]?\s+(?:that\s+)?(?P<rest>.+)$"
)
_REMEMBER_TRIGGERS = _ws(
    "remember note keep forget record fyi know save store"
)

# ============================================================== object clean-up

_CUT_RE = re.compile(
    r"\s+[-–—]\s+|[;:!?()\[\]]|\.(?:\s|$)|,\s*(?:but|and|so|because|which|who|where|"
    r"since|though|although|as|while|it|i|we|they|he|she|that|plus|especially|like)\b|"
    r"\s(?:but|because|since|so that|so|which|although|though|while|cause|'cause|"
    r"whereas|until|unless)\s|"
    r"\sand (?:i|we|it|that|they|he|she|then|so|was|it's|i'm|we're|had|have|my|now|"
    r"also|really|loved|love|felt|got)\b|\s(?:it was|it's been|was so|were so)\b|"
    r"\s[:;]-?[()DPp]|[\U0001F300-\U0001FAFF\u2600-\u27BF]"
)
_TRAIL_RE = re.compile(
    r"(?:\s+(?:lately|recently|these days|nowadays|a lot|so much|too|as well|anymore|"
    r"any more|again|though|actually|now|currently|at the moment|right now|already|"
    r"at all|haha|lol|and stuff|and all|ever since|since then|for sure|really|"
    r"myself|together|finally|just|yet|here|there|eh|btw|tho|again|today|"
    r"with you|with u|to you|every day|everyday|all the time|a bit|a little|"
    r"more and more|for a while|for a bit|right|then|one day|someday|soon|on|in|at|since|"
    r"by|from|of|with|and|or|the|please|pls|plz|thanks|thank you|thx|cheers|"
    r"por favor|bitte|danke|s'il te plaît|s'il vous plaît|stp|svp|merci|gracias|"
    r"obrigad[oa]|per favore|grazie))+$"
)
_LEAD_RE = re.compile(r"^(?:that|to|that i|about|really|also|just|so|even|,|\s)+\s+")
_PUNCT_END_RE = re.compile(r"[\s.,!?;:'\"…)\]*~-]+$")
_PUNCT_START_RE = re.compile(r"^[\s,:;'\"(\[*~-]+")
_WS_RE = re.compile(r"\s+")
_STOP = _ws(
    """a an the it that this these those them they he she him her his its my your our
    me i we you so too very really just some something anything everything one thing
    things stuff lot lots bit more much all of to for in on at with by up out about
    there here and or but now then again well time times day way what how who it's
    that's fun great good nice cool awesome amazing blast"""
)
_BAD_OBJ_START = re.compile(
    r"^(?:it|that|this|those|these|them|you|your|yours|how you|what you|when you|the way you|"
    r"hearing|seeing|talking to you|chatting|to hear|to see|to know|to chat|to talk|"
    r"it when|that you|so much|him|her|ya|u|em|something|anything|everything|nothing)\b"
)
# "dive into it", "try it out": a plan whose only object is a pronoun
_PRONOUN_END_RE = re.compile(r"^(?:\S+\s+){0,2}(?:it|this|that|them|one|there)(?:\s+\S+)?$")


_MAX_NARRATIVE_WORDS = 12
_SUBORDINATE_RE = re.compile(r" (?:to|that|who|where|when|which|because|after|before|while) ")


def _clean(obj: str, comma: bool = False) -> str:
    """Trim an object to its clause; ``comma=True`` also cuts at the first comma."""
    obj = _WS_RE.sub(" ", obj)
    m = _CUT_RE.search(obj)
    if m is not None:
        obj = obj[: m.start()]
    if comma and "," in obj:
        obj = obj[: obj.index(",")]
    if comma and obj.count(" ") >= _MAX_NARRATIVE_WORDS:
        # keep the core of a long narrative clause: cut at a subordinate clause after
        # the first few words, else at a word limit
        words = obj.split(" ")
        head = " ".join(words[:4])
        m2 = _SUBORDINATE_RE.search(obj, len(head))
        obj = obj[: m2.start()] if m2 else " ".join(words[:_MAX_NARRATIVE_WORDS])
    obj = _PUNCT_START_RE.sub("", obj)
    obj = _LEAD_RE.sub("", obj)
    for _ in range(2):
        obj = _PUNCT_END_RE.sub("", obj)
        obj = _TRAIL_RE.sub("", obj)
    obj = _PUNCT_END_RE.sub("", obj).strip()
    if len(obj) > MAX_OBJECT_CHARS:
        obj = obj[:MAX_OBJECT_CHARS].rsplit(" ", 1)[0].rstrip(" ,.;:")
    return obj


def _meaningful(obj: str, min_words: int = 1) -> bool:
    words = [w for w in re.findall(r"[^\W\d_]{2,}|\d+", obj.lower()) if w not in _STOP]
    return len(words) >= min_words

# everyday trivia narrated as an event: "had lunch outside", "walked into a glass door"
_TRIVIAL_EVENT_RE = re.compile(
    r"^(?:had|ate|grabbed|got|made|skipped|cooked) (?:a |an |some |my |the |our )?(?:quick |late |"
    r"early |big |nice |lovely |good |great |light |huge |small |)(?:lunch|dinner|breakfast|"
    r"brunch|snack|coffee|tea|nap|shower|bath|drink|bite|sandwich|meal)\b|"
    r"^(?:walked|ran|bumped|crashed|tripped|slipped|stumbled|fell|banged) (?:straight |right |"
    r"head ?first |)(?:into|over|on) (?:a |the |my |some )?(?:glass |)(?:door|wall|pole|chair|"
    r"table|desk|lamp ?post|sign|curb|kerb|stairs|step|ice|puddle)s?\b|"
    r"^(?:spilled|dropped|burned|burnt) (?:coffee|tea|my (?:coffee|tea|phone|keys|toast)|"
    r"the (?:toast|rice|milk))\b|^(?:overslept|stubbed my toe|locked myself out|"
    r"missed the (?:bus|train))\b"
)


_TALK_VERBS = _ws("talked chatted discussed spoke covered went")
_ABOUT_US_RE = re.compile(
    r"\b(?:chatted|talked|spoke|spoken|chatting|talking|speaking|conversation|chat) "
    r"(?:with|to) you\b|\b(?:our|this|the) (?:last |previous )?(?:chat|conversation|session)\b|"
    r"\b(?:we|i) (?:\w+ )?(?:talked|chatted|spoke|discussed|covered)\b[^.!?]{0,60}?"
    r"\b(?:before|earlier|last time|previously|already)\b"
)

_TOKEN_RE = re.compile(r"[\w'-]+")
_INNER_DOT_RE = re.compile(r"(?<=\w)\.(?=\w)")
