"""Rule builders for events, decisions, plans, goals, habits, notes, likes and
subjectless activities."""

from __future__ import annotations

import re
from datetime import datetime

from memgate.core.events import FactType
from memgate.stages.extract_build_statement import _NOT_NAMES, _STATEMENT_BAD_RE, _STATEMENT_LEAD_RE
from memgate.stages.extract_dates import parse_event_date
from memgate.stages.extract_lexicon import (
    _HOBBY_GERUNDS,
    _HOBBY_NOUNS,
    _MONTHS,
    _NOT_ACTIVITY,
    _WEEKDAYS,
    C_STATED,
    _ws,
)
from memgate.stages.extract_lookup import _language, _pref_topic
from memgate.stages.extract_rule_kit import Builder, _Ctx, _Hit, _subject
from memgate.stages.extract_text import (
    _ABOUT_US_RE,
    _BAD_OBJ_START,
    _PRONOUN_END_RE,
    _PUNCT_END_RE,
    _TALK_VERBS,
    _TRIVIAL_EVENT_RE,
    _clean,
    _meaningful,
)


def _b_event(conf_dated: float, conf_undated: float, require_date: bool) -> Builder:
    def build(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
        verb = m.group("verb")
        found = ctx.date()
        just = m.groupdict().get("adv") or ""
        tail = ctx.low[m.end("verb"):m.end("verb") + 30]
        # "got"/"had"/"saw"/"did" are events only when dated, "just ...", or a
        # well-known phrase ("got back from", "got a new job")
        if verb in _NOT_EVENT_VERBS and (verb not in _WEAK_EVENT_VERBS or not (
            found is not None or "just" in just or "recently" in just
            or _GOT_PHRASE_RE.match(tail)
            # "I saw the impact a small donation can make": something witnessed, told
            or (verb == "saw" and _meaningful(tail, 3) and not _SAW_BAD_RE.match(tail))
        )):
            return []
        if m.start("subj") == 0 and m.group("subj") == "" and (
            verb in _ED_ADJECTIVES or verb == "set up" or _SUBJECTLESS_BAD_RE.match(tail)
        ):
            return []  # "Excited for the future", "Took a bit of work"
        if found is None and require_date and not re.search(r"\b(?:just|recently|finally)\b",
                                                            just):
            return []
        raw = ctx.orig[m.start("verb"):m.end("obj")]
        when: datetime | None = None
        if found is not None:
            when, (ds, de) = found
            s0 = m.start("verb")
            if s0 <= ds < m.end("obj"):
                raw = raw[: ds - s0] + " " + raw[de - s0:]
        obj = _clean(raw, comma=True)
        rest = obj[len(verb):] if obj.lower().startswith(verb) else obj
        rest_low = rest.strip().lower()
        if _YOU_RE.search(rest_low):
            # "I took your advice and joined a gym": the listener's part is a preamble to
            # an event of the speaker's own
            am = _AND_PAST_RE.search(obj.lower())
            if am is not None and am.group("v") not in _NOT_EVENT_VERBS \
                    and not _YOU_RE.search(obj.lower(), am.end()) \
                    and _meaningful(obj[am.end():]):
                verb = am.group("v")
                obj = obj[am.start("v"):]
                rest = obj[len(verb):]
                rest_low = rest.strip().lower()
        if verb in _CREATION_VERBS:
            # "I made this bowl in my class": a demonstrative plus a noun is fine
            rest_low = re.sub(r"^(?:this|these|that|those) (?=[a-z]{3,})", "", rest_low)
        else:
            # "we played this board game": so it is after any verb, unless the noun is a
            # time ("this week") or a stand-in ("this one")
            rest_low = re.sub(r"^(?:this|these) (?!(?:time|week|weekend|morning|evening|"
                              r"afternoon|year|month|one|ones|way|stuff|thing|things|kind|"
                              r"sort|far|much|many|is|was)\b)(?=[a-z]{3,})", "", rest_low)
        made_in = verb in _CREATION_VERBS and found is not None and re.match(
            r"^(?:it|them|one) (?:in|at|during) ", rest_low) is not None
        if made_in:
            # "I made it in my pottery class yesterday": where it was made is the content
            rest_low = rest_low.split(" ", 1)[1]
        bare = not rest_low and found is not None and verb.endswith("ed") and len(verb) >= 6
        if not obj or (not bare and (not _meaningful(rest) or _BAD_OBJ_START.match(rest_low))):
            return []
        if _TRIVIAL_EVENT_RE.match(obj.lower()) and not re.search(
                r"\b(?:with|together)\b|\band i\b", ctx.low):
            return []  # everyday trivia, nothing durable (a shared meal is kept)
        if verb in _TALK_VERBS and _ABOUT_US_RE.search(ctx.low):
            return []  # "last time I chatted with you we talked about ...": about the chat
        if verb in _TRANSITIVE_PAST and not made_in and _RELATIVE_TAIL_RE.match(rest_low) \
                and not _GOT_PHRASE_RE.match(" " + rest_low):
            return []  # "the help I got from friends": a relative clause, not an event
        if _YOU_RE.search(rest_low):
            return []  # about the listener ("I made this for you")
        conf = conf_dated if (found is not None or just) else conf_undated
        return [_Hit(FactType.EVENT, _subject(m), "event", obj, conf, "", when)]

    return build


_SAW_BAD_RE = re.compile(r"^ (?:an? |the |some |)(?:error|bug|message|warning|crash|issue|"
                         r"problem|post|tweet|video|ad|article|news|pic|photo)s?\b")
_AND_PAST_RE = re.compile(r"\band (?:then |also |finally |even |)(?P<v>[a-z]{2,}ed|"
                          r"went|got|made|met|bought|found|took|saw|read|wrote|ran|began)\b")
_NOT_EVENT_VERBS = _ws(
    """felt thought wanted needed meant guessed figured knew said told asked mentioned
    hoped wondered loved liked enjoyed hated noticed realized realised agreed appreciated
    was were did used seemed looked sounded supposed tried expected imagined believed
    forgot remembered missed wished decided planned saw heard need feed proceed succeed
    exceed speed bleed breed heed seed shed embed indeed bred red bed shared loved
    reminded liked called named meant included involved tended managed happened"""
)
_CREATION_VERBS = _ws(
    "made painted drew built bought wrote baked cooked knitted sewed crafted designed "
    "created took found got picked finished completed"
)
_ED_ADJECTIVES = _ws(
    """mixed impressed excited blessed tired stressed amazed surprised interested pleased
    thrilled honored honoured inspired touched moved relieved bored worried scared obsessed
    stoked overwhelmed exhausted delighted determined dedicated committed motivated
    pumped psyched convinced confused disappointed frustrated annoyed amused shocked
    grounded focused balanced used supposed glad"""
)
_SUBJECTLESS_BAD_RE = re.compile(
    r"^ (?:a (?:bit|while|lot|long|little|ton|few)|some (?:time|work|effort|trial|getting)|"
    r"time|forever|ages|me|us|you|my breath)\b"
)
_WEAK_EVENT_VERBS = frozenset({"got", "had", "saw", "did", "tried", "decided", "shared"})
_TRANSITIVE_PAST = _ws(
    """got had made bought found took saw read wrote lost kept gave brought built picked
    learned learnt received earned won sold chose held spent used needed wanted"""
)
_RELATIVE_TAIL_RE = re.compile(
    r"^(?:from|as|for|at|when|and|with|in|on|by|was|were|is|are|made|makes|there|here|"
    r"before|so far|back then|since|while|growing|over|during|after|through|of|about|"
    r"never|ever|in the past|together|both|all(?! (?:my|our|the|of)\b)|up|so|yet|already|too|there|"
    r"it (?:a while|ages|years|months|weeks|days|long)|it at|it from|it when|it for)\b|^$"
)
_YOU_RE = re.compile(r"\b(?:you|your|yours|u|ya)\b")
_GOT_PHRASE_RE = re.compile(
    r"^ (?:back from|back home|done|into (?!it\b|that\b)|a new|my first|my own|accepted|promoted|"
    r"hired|engaged|married|divorced|a job|a puppy|a dog|a cat|a kitten|a tattoo|"
    r"a chance to|to (?:visit|see|meet|go|try|play|attend|travel)|out (?!of)|"
    r"a (?:baby|promotion|raise|scholarship|degree|certificate|award)|certified|"
    r"my (?:degree|license|licence|certificate|diploma)|an? \w+ (?:party|trip|class|"
    r"lesson|session|game|concert|show|vacation)|through)"
)


def _b_decided(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj or _BAD_OBJ_START.match(obj.lower()) or not _meaningful(obj):
        return []
    return [_Hit(FactType.FACT, _subject(m), "decided", obj, C_STATED, "")]


def _b_plan(pred: str, conf: float) -> Builder:
    def build(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
        obj = _clean(ctx.text(m, "obj"))
        if not obj or _BAD_OBJ_START.match(obj.lower()) or not _meaningful(obj):
            return []
        first = obj.split()[0].lower()
        if (first in _NOT_PLAN_VERBS and not obj.lower().startswith("check out ")) \
                or _PRONOUN_END_RE.match(obj.lower()):
            return []
        p = pred
        if p == "plans_to" and first in ("become", "be"):
            p = "goal"
        return [_Hit(FactType.FACT, _subject(m), p, obj, conf, "")]

    return build


# "can't wait for the party": a reference to something just mentioned, with no date and
# nothing of its own; "can't wait for my sister's wedding in May" is kept
_ANTICIPATED_REF_RE = re.compile(
    r"^(?!.*\b(?:tomorrow|tonight|today|weekend|next|birthday|wedding|anniversary)\b)"
    r"(?:(?:the|our|their|some|that|this|your)\s+)?(?:[\w'-]+\s+){0,2}?[\w'-]+$"
)


_NOT_PLAN_VERBS = _ws(
    """know ask say see hear share thank check tell show talk let get help make it have
    keep do go hang catch read chat text call give send look find meet be"""
) - frozenset({"be"})


def _b_goal_want(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj or not _meaningful(obj):
        return []
    first = obj.split()[0].lower()
    if first == "use":
        # "I want to use my savings to open a bakery": the aim is what follows
        um = _USE_TO_RE.match(obj.lower())
        if um is None or um.group(1) not in _GOAL_VERBS | {"help", "inspire", "support"}:
            return []
    elif first not in _GOAL_VERBS:
        return []
    if _VAGUE_GOAL_RE.match(obj.lower()) or len(obj.split()) == 1 \
            or _PRONOUN_END_RE.match(obj.lower()):
        return []  # "make it work"; "the places I want to visit"; "I need to try that"
    return [_Hit(FactType.FACT, _subject(m), "goal", obj, C_STATED, "")]


_USE_TO_RE = re.compile(r"^use (?:my|our) [a-z' -]{2,40}? to (\w+)")
# an aim with no content of its own: "make it work", "make a difference", "improve"
_VAGUE_GOAL_RE = re.compile(
    r"^(?:make (?:it|this|that|things|them|this \w+|it all) (?:work|happen|count)|"
    r"make (?:a|an|some) (?:\w+ )?(?:difference|impact)(?: (?:on|in) (?:the|this) world)?|"
    r"make (?:the|this) world a better place|make sure\b.*|improve|do (?:it|this|that|"
    r"my best|better|well|good)|keep (?:going|it up|at it|trying)|get (?:better|there|"
    r"through (?:it|this))|try (?:it|harder|my best)|be (?:better|happy|okay|ok))$"
)


_GOAL_VERBS = _ws(
    """become be learn start open build write publish travel visit run finish get adopt
    move buy own create launch study pursue go work teach compete win climb complete
    return retire improve save raise graduate earn explore make try"""
)


def _b_habit(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj or not _meaningful(obj, 1):
        return []
    first = obj.split()[0].lower()
    if first in ("prefer", "like", "love", "hate", "enjoy", "try", "feel", "think", "say",
                 "want", "wanted", "have", "get", "appreciate", "find", "do", "make", "been",
                 "was", "knew", "know", "wonder", "look", "loved", "thought", "felt", "forget",
                 "forgot", "struggle", "mess", "mix", "confuse", "misspell", "lose", "end"):
        return []
    if _HABIT_BAD_RE.match(obj.lower()) or obj.split()[0].lower().endswith("ed"):
        return []
    adv = m.group("adv")
    return [_Hit(FactType.FACT, _subject(m), "habit", f"{adv} {obj}", C_STATED, "")]


_HABIT_BAD_RE = re.compile(
    r"^(?:(?:down|up) for|looking (?:for|to)|on the (?:lookout|hunt)|open to|keen|eager|worry|"
    r"worried|here|there|around|proud|in awe|so|glad|happy|grateful|thankful|amazed|impressed|"
    r"a fan|rooting|cheering|thinking of you|on your side|by your side|in your corner|"
    r"available|ready to (?:help|listen|chat|talk))\b|.*\b(?:you|your)\b"
)


def _b_note(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj or not _meaningful(obj):
        return []
    return [_Hit(FactType.FACT, "user", "note", obj, C_STATED, "")]


_BAD_LIKE_OBJ = re.compile(
    r"^(?:their|his|her|its|the (?:way|thought|idea|color|colou?rs|pic|photo|picture|vibe|"
    r"look|sound|energy|name|message|detail|details|feeling|result|shot|view|design)s?\b|"
    r"what|how|where|when|why|who|being able|having you|talking|chatting|that|such|all of)"
)


def _b_likes(neg: bool) -> Builder:
    def build(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
        obj = _DEMONSTRATIVE_RE.sub("", _clean(ctx.text(m, "obj"), comma=True))
        low0 = obj.lower()
        if not obj or _BAD_OBJ_START.match(low0) or _BAD_LIKE_OBJ.match(low0) \
                or not _meaningful(obj) or _ONLY_TIME_RE.match(low0):
            return []
        low = obj.lower()
        if low.startswith("to "):
            obj = obj[3:]
            low = low[3:]
            if low.split()[0] in _NOT_PLAN_VERBS | {"hear", "see", "help", "know"}:
                return []
        pred = "dislikes" if neg else "likes"
        if not neg and m.groupdict().get("verb") == "prefer":
            pred = _pref_topic(obj)
        return [_Hit(FactType.PREFERENCE, _subject(m), pred, obj, C_STATED, "")]

    return build


# "a job I enjoy every day": the object is elsewhere, only a time is left
_ONLY_TIME_RE = re.compile(r"^(?:every|each|all) (?:single )?(?:day|morning|night|evening|week|"
                           r"weekend|time|minute|second)$")
_DEMONSTRATIVE_RE = re.compile(r"(?i)^(?:this|that|these|those)\s+(?=[a-z]{3,})")


def _b_liked_thing(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """A named thing the speaker says moves them ("eagles fascinate me")."""
    g = next(g for g in ("obj", "obj2", "obj3", "obj4") if m.groupdict().get(g) is not None)
    obj = _clean(ctx.text(m, g), comma=True)
    obj = _DEMONSTRATIVE_RE.sub("", obj)
    low = obj.lower()
    if not obj or _BAD_OBJ_START.match(low) or _BAD_LIKE_OBJ.match(low) \
            or _YOU_RE.search(low) or not _meaningful(obj) or len(obj.split()) > 10 \
            or low.split()[0] in _NOT_A_THING or _MODAL_RE.search(low):
        return []
    return [_Hit(FactType.PREFERENCE, _subject(m), "likes", obj, C_STATED, "")]


_MODAL_RE = re.compile(r"\b(?:can|could|would|should|will|might|may|must)\b")
# the start of a reaction or a vague pointer, not a named thing
_NOT_A_THING = _ws(
    """he she they we i it's its there here his her their our my everyone everybody
    everything nothing something people life which who what all both each"""
)


def _b_hobby_inv(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """ "Knitting and baking are my main hobbies": one hobby fact for the list."""
    obj = _clean(ctx.text(m, "obj"))
    low = obj.lower()
    if not obj or _BAD_OBJ_START.match(low) or not _meaningful(obj) \
            or low.split()[0] in _NOT_A_THING:
        return []
    return [_Hit(FactType.FACT, _subject(m), "hobby", obj, C_STATED, "")]


# "Researching adoption agencies." / "Still working on my thesis.": the ongoing activity
# of a clause without a subject; a gerund that is the subject of a verb ("Taking care of
# ourselves is vital") is not one
_GERUND_SUBJECT_VERB_RE = re.compile(
    r"'s\b|'ve\b|'m\b|'re\b|\b[a-z]{3,}ed\b|\b(?:is|was|are|were|has|have|had|helps?|helped|makes?|made|keeps?|kept|"
    r"gives?|gave|sounds?|seems?|looks?|feels?|can|will|would|could|should|must|brings?|"
    r"takes?|means?|meant|needs?|requires?|isn't|wasn't|doesn't|does|lets?|pays?|builds?|"
    r"opens?|reminds?|inspired|inspires|gets?|got|pushes|fascinates)\b"
)
_NOT_ACTIVITY_SUBJECTLESS = _ws(
    """wishing rooting cheering praying hugging congratulating thanking talking speaking
    kidding joking nothing something anything everything morning evening thing
    sending trying seeing hearing reading judging adding spreading supporting chasing
    appreciating missing assuming considering speaking regarding checking catching
    following"""
)


def _b_subjectless_activity(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    g = "obj" if m.groupdict().get("obj") is not None else "obj2"
    ger = m.group("ger" if g == "obj" else "ger2")
    # the rest of the sentence up to a dash: a finite verb or a new subject there makes
    # the gerund the subject of a clause ("Painting's a fun way to ...")
    tail = _DASH_RE.split(ctx.low[m.end("ger" if g == "obj" else "ger2"):], 1)[0]
    if ger in _NOT_ACTIVITY_SUBJECTLESS or ger in _ING_NOT_GERUND or ger in _NOT_ACTIVITY \
            or _GERUND_SUBJECT_VERB_RE.search(tail) or _YOU_RE.search(tail):
        return []
    if _REACTION_AFTER_RE.match(ctx.low, m.end("ger" if g == "obj" else "ger2")):
        return []  # "Combining art and a good cause - that's so cool!": about the listener
    obj = _clean(ctx.text(m, g), comma=True)
    if not obj or obj.count(" ") > 10:
        return []
    pred = "hobby" if ger in _HOBBY_GERUNDS else "activity"
    if pred == "activity" and not _meaningful(obj[len(ger):]):
        return []
    return [_Hit(FactType.FACT, "user", pred, obj, C_STATED, "")]


_REACTION_AFTER_RE = re.compile(
    r"[^.!?;\u2013\u2014]*?(?:\s[-\u2013\u2014]+|[\u2013\u2014]|,)\s*(?:that's|that is|thats|so|"
    r"sounds|how|what|such|must)\b"
)
_DASH_RE = re.compile(r"\s*[-\u2013\u2014]+\s|\u2014")


# -ing words that are adjectives or nouns, not an activity ("Amazing work!")
_ING_NOT_GERUND = _ws(
    """amazing interesting exciting inspiring boring stunning charming relaxing refreshing
    exhausting overwhelming encouraging surprising fascinating satisfying touching
    heartwarming breathtaking rewarding fulfilling challenging frustrating disappointing
    annoying terrifying thrilling astonishing striking pleasing calming soothing uplifting
    motivating promising loving caring willing outstanding compelling entertaining
    intriguing captivating mesmerizing mesmerising tempting welcoming amusing depressing
    embarrassing shocking confusing alarming upsetting fitting matching morning evening
    king ring spring string wedding meaning during ceiling sibling pudding
    darling clothing ending beginning thing something anything nothing everything
    nice-looking good-looking awaiting according including regarding concerning depending
    barring excluding notwithstanding
    following pending lasting incoming outgoing ongoing upcoming everlasting
    heartbreaking eye-opening life-changing mind-blowing jaw-dropping nerve-wracking
    nerve-racking"""
)


def _b_gerund_subject(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """ "Knitting helps me unwind", "Running the school fair with my class was great"."""
    ger = m.group("ger")
    if ger in _ING_NOT_GERUND or ger in _NOT_ACTIVITY_SUBJECTLESS or ger in _NOT_ACTIVITY \
            or _GERUND_SUBJECT_VERB_RE.search(ctx.low.replace("'s", "  "), m.end("ger"),
                                              m.end("obj")):
        return []
    obj = _clean(ctx.text(m, "obj"))
    low = obj.lower()
    if not obj or _YOU_RE.search(low) or not _meaningful(obj) or re.search(
            r"\b(?:can|could|would|should|will|might|may|must|yourself|ourselves|"
            r"themselves)\b", low):
        return []
    if m.group("past"):
        # "Exploring the old town was amazing": the speaker's own experience
        dated = parse_event_date(low, ctx.ts)
        return [_Hit(FactType.EVENT, "user", "event", obj, C_STATED, "",
                     dated[0] if dated is not None else None)]
    pred = "hobby" if ger in _HOBBY_GERUNDS else "likes"
    kind = FactType.FACT if pred == "hobby" else FactType.PREFERENCE
    subj = "team" if m.group("who") == "us" else "user"
    return [_Hit(kind, subj, pred, obj, C_STATED, "")]


def _b_love_gerund(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """ "Love experimenting with spices!" (no subject): a taste, when it is an activity."""
    if m.group("ger") in _ING_NOT_GERUND or _YOU_RE.search(ctx.low[m.start("obj"):]):
        return []
    return _b_likes(False)(m, ctx)


def _b_doing_hobby(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"), comma=True)
    head = obj.lower().split()[0] if obj else ""
    if not obj or head in _ING_NOT_GERUND or not (
            head in _HOBBY_NOUNS or head in _HOBBY_GERUNDS or head.endswith("ing")):
        return []
    return [_Hit(FactType.FACT, _subject(m), "hobby", obj, C_STATED, "")]


def _b_shares_own(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """ "Here's a pic of my family at the beach", "here's a photo of me at the finish line",
    "here's one I painted last week": the speaker shows something of theirs."""
    g = "obj" if m.group("obj") is not None else "obj2"
    obj = _clean(ctx.text(m, g), comma=True)
    low = obj.lower()
    if not obj or not _meaningful(obj) or _STATEMENT_BAD_RE.search(low) \
            or _SHARED_TECH_RE.search(low) or re.search(r"\d", low):
        return []
    lead = _STATEMENT_LEAD_RE.match(ctx.low, m.start())
    raw = _clean(ctx.orig[lead.end() if lead else m.start():m.end(g)], comma=True)
    if len(raw.split()) > 16:
        return []
    subj = "team" if m.group("subj") == "our" else "user"
    return [_Hit(FactType.FACT, subj, "statement", raw[:1].upper() + raw[1:], C_STATED, "")]


# a support case's evidence, not something the speaker owns
_SHARED_TECH_RE = re.compile(
    r"\b(?:screenshot|log|logs|output|code|config|file|files|traceback|stack|order|invoice|"
    r"receipt|account|number|id|ticket|settings|query|script|function|schema|table|data)\b"
)


def _b_gives_time(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """ "I volunteer at the food bank", "I donate to an animal shelter": an ongoing activity."""
    obj = _clean(ctx.text(m, "obj"))
    rest = obj.split(" ", 1)[1] if " " in obj else ""
    dated = parse_event_date(rest.lower(), ctx.ts)
    if dated is not None:
        rest = rest[: dated[1][0]] + rest[dated[1][1]:]
    if not _meaningful(rest) or _YOU_RE.search(rest.lower()):
        return []  # "the shelter I volunteer at yesterday": the object is elsewhere
    return [_Hit(FactType.FACT, _subject(m), "activity", obj, C_STATED, "")]


def _b_named_answer(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """ "Her name is Bella." / "They're called Fire Lilies." / "It was Nina Simone!": a
    named thing, kept whole."""
    name = ctx.orig[m.start("obj"):m.end("obj")]
    if not name[:1].isupper() or name.split("'")[0] in _NOT_NAMES \
            or name.lower() in _MONTHS or name.lower() in _WEEKDAYS:  # "It's Monday"
        return []
    raw = _PUNCT_END_RE.sub("", _STATEMENT_LEAD_RE.sub("", ctx.orig.strip())).strip()
    raw = _clean(raw)
    if not raw or len(raw.split()) > 12:
        return []
    return [_Hit(FactType.FACT, "user", "statement", raw, C_STATED, "")]


def _b_learning(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj or not _meaningful(obj):
        return []
    lang = _language(obj.split()[0]) if obj else ""
    if lang:
        return [_Hit(FactType.FACT, _subject(m), "goal", f"learn {lang}", C_STATED, "")]
    pred = "hobby" if (set(obj.lower().split()) & (_HOBBY_NOUNS | _HOBBY_GERUNDS)) \
        else "activity"
    to = m.group("to") or ""
    return [_Hit(FactType.FACT, _subject(m), pred, f"learning {to}{obj}", C_STATED, "")]


def _b_timezone(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj:
        return []
    return [_Hit(FactType.FACT, "user", "timezone", obj, C_STATED, "")]
