"""Rule builders about the speaker: preferences, instructions, tools, work, place,
identity, names, languages, possessions, favourites and hobbies."""

from __future__ import annotations

import re
from typing import Final

from memgate.core.events import FactType
from memgate.stages.extract_lexicon import (
    _CATEGORY_ALIASES,
    _DIETS,
    _HOBBY_GERUNDS,
    _IDENTITY_WORDS,
    _JOB_SUFFIX_RE,
    _NOT_ACTIVITY,
    _OCCUPATIONS,
    _TOOL_RE,
    C_STATED,
    _ws,
)
from memgate.stages.extract_lookup import _language, _pref_topic, _tool_predicate
from memgate.stages.extract_person_name import never_a_name, whole_name
from memgate.stages.extract_rule_kit import Builder, _Ctx, _Hit, _subject
from memgate.stages.extract_text import _BAD_OBJ_START, _STOP, _clean, _meaningful
from memgate.stages.resolution_lexicon import LEXICON

# ---------------------------------------------------------------- builders


def _b_prefer(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj or _BAD_OBJ_START.match(obj.lower()) or not _meaningful(obj):
        return []
    if obj.split()[0].lower() in ("wait", "not", "stay", "go", "skip", "do", "be", "keep",
                                  "just", "see", "die", "pass", "leave", "hear"):
        return []  # "I'd rather wait": a choice of the moment
    low = obj.lower()
    lang = re.match(r"^(?:(?:answers?|responses?|replies|to be answered) )?in (\w+)$", low)
    if lang and _language(lang.group(1)):
        return [_Hit(FactType.PREFERENCE, _subject(m), "answer_language",
                     _language(lang.group(1)), C_STATED, "")]
    return [_Hit(FactType.PREFERENCE, _subject(m), _pref_topic(obj), obj, C_STATED, "")]


_LANG_IN_RE = re.compile(
    r"\b(?:in|auf|en|em)\s+(?P<lang>[^\W\d_]+)\b"
)


_COURTESY = _ws("please pls plz thanks thx bitte merci gracias obrigado obrigada danke")


def _b_instruction(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    return _instruction_hits(ctx.text(m, "obj"))


def _instruction_hits(raw: str) -> list[_Hit]:
    """The instruction ``raw`` (an instruction's clause) says, if it says one."""
    obj = _clean(raw)
    if not obj or not _meaningful(obj) or obj.lower() in _COURTESY:
        return []
    low = obj.lower()
    for lm in _LANG_IN_RE.finditer(low):
        lang = _language(lm.group("lang"))
        if lang and re.search(
            r"\b(?:answer|reply|respond|write|talk|speak|communicate|antworte|antworten|"
            r"schreib|schreibe|réponds|répondez|répondre|écris|parle|responde|responda|"
            r"contesta|escribe|escreva|fale|habla)", low
        ):
            return [_Hit(FactType.INSTRUCTION, "user", "answer_language", lang, C_STATED, "")]
    topic = _pref_topic(obj)
    if topic in ("prefers:answer_style", "prefers:answer_format", "prefers:indentation",
                 "prefers:naming_style"):
        return [_Hit(FactType.INSTRUCTION, "user", topic, obj, C_STATED, "")]
    return [_Hit(FactType.INSTRUCTION, "user", "instruction", obj, C_STATED, "")]


def _b_imperative(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    # keep the polarity word in the object: "never suggest jQuery"
    start = m.start("pol")
    obj = _clean(ctx.orig[start:])
    obj = re.sub(r"(?i)^(?:don't|do not) ever\b", "never", obj)
    obj = re.sub(r"(?i)^(?:please )", "", obj)
    if not obj or not _meaningful(obj, 2):
        return []
    low = obj.lower()
    lm = re.search(r"\b(?:answer|reply|respond|write|talk)\w* (?:to me )?in (\w+)$", low)
    if lm and _language(lm.group(1)) and not low.startswith(("never", "don't", "do not")):
        return [_Hit(FactType.INSTRUCTION, "user", "answer_language", _language(lm.group(1)),
                     C_STATED, "")]
    return [_Hit(FactType.INSTRUCTION, "user", "instruction", obj, C_STATED, "")]


def _b_switch(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    old = _clean(ctx.text(m, "old"))
    new = _clean(ctx.text(m, "new"))
    if not new or not old or _BAD_OBJ_START.match(new.lower()):
        return []
    verb = m.group("verb")
    pred = _tool_predicate(new) or _tool_predicate(old)
    subj = _subject(m)
    if not pred:
        if verb.startswith(("mov", "relocat")) and subj == "user":
            pred = "lives_in"
        elif verb.startswith(("mov", "migrat", "switch")) and subj == "team":
            pred = "stack"
        else:
            pred = "uses_tool:other"
    return [_Hit(FactType.CORRECTION, subj, pred, new, C_STATED, "")]


def _b_not_anymore(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    old = _clean(ctx.text(m, "old"))
    new = _clean(ctx.text(m, "new"))
    if not new or not _meaningful(new):
        return []
    pred = _tool_predicate(new) or _tool_predicate(old)
    if not pred:
        return []
    subj = "team" if re.search(r"\b(?:we|our)\b", ctx.low) else "user"
    return [_Hit(FactType.CORRECTION, subj, pred, new, C_STATED, "")]


def _b_use(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    """'I use X' / 'we run X': only for a tool the lexicon knows."""
    obj = _clean(ctx.text(m, "obj"))
    if not obj or _BAD_OBJ_START.match(obj.lower()):
        return []
    pred = _tool_predicate(obj)
    if not pred:
        return []
    tm = _TOOL_RE.search(obj.lower())
    if tm is not None and len(obj) > len(tm.group(1)) + 25:
        obj = obj[tm.start(1):tm.end(1)]
    fm = re.search(r"\s+for (?:our |my |the |all |)([a-z/ -]+)$", obj.lower())
    if fm is not None and _CATEGORY_ALIASES.get(fm.group(1).strip()) is not None and (
            _tool_predicate("", fm.group(1).strip()) == pred):
        obj = obj[: fm.start()]  # "Jenkins for CI": the category adds nothing
    return [_Hit(FactType.FACT, _subject(m), pred, obj, C_STATED, "")]


def _b_deploy(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj or _BAD_OBJ_START.match(obj.lower()):
        return []
    return [_Hit(FactType.FACT, _subject(m), "deploys_with", obj, C_STATED, "")]


def _b_stack(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj:
        return []
    return [_Hit(FactType.FACT, _subject(m), "stack", obj, C_STATED, "")]


def _is_job(phrase: str) -> bool:
    words = phrase.lower().split()
    if not words:
        return False
    head = words[-1]
    return head in _OCCUPATIONS or head.rstrip("s") in _OCCUPATIONS or (
        len(words) >= 2 and _JOB_SUFFIX_RE.search(head) is not None
    )


def _b_i_am_a(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    phrase = _clean(ctx.text(m, "obj"))
    low = phrase.lower()
    words = low.split()
    if not words:
        return []
    subj = _subject(m)
    idents = [w for w in words if w in _IDENTITY_WORDS]
    if idents and len(words) <= 4:
        return [_Hit(FactType.FACT, subj, "identity", phrase, C_STATED, "")]
    if words[0] in _DIETS and len(words) <= 2:
        return [_Hit(FactType.FACT, subj, "diet", words[0], C_STATED, "")]
    # "I'm a nurse", "I'm a senior data engineer at Acme", "the tech lead of the payments team"
    jm = re.match(r"^(?:(?:only|sole|main|new)\s+)?((?:[\w-]+ ){0,3}?[\w-]+?)"
                  r"(?: (at|for|in|with|on|of) (.+))?$", phrase)
    if jm is not None and _is_job(jm.group(1)) and len(jm.group(1).split()) <= 4:
        role = jm.group(1)
        prep, rest = jm.group(2), jm.group(3)
        if prep in ("on", "of") and rest and _meaningful(rest) and len(rest.split()) <= 6:
            role = f"{role} {prep} {rest}"  # "backend engineer on the payments team"
        out = [_Hit(FactType.FACT, subj, "works_as", role, C_STATED, "")]
        if prep == "at" and rest:
            org = _clean(rest)
            if org and _meaningful(org):
                out.append(_Hit(FactType.FACT, subj, "works_at", org, C_STATED, ""))
        return out
    mm = re.match(r"^(?:mom|mother|dad|father|parent) (?:of|to) (\w+)", low)
    if mm is not None:
        return [_Hit(FactType.FACT, subj, "has_child", f"{mm.group(1)} children", C_STATED, "")]
    return []


def _b_as_a(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    phrase = _clean(ctx.text(m, "obj"))
    low = phrase.lower()
    if any(w in _IDENTITY_WORDS for w in low.split()) and len(low.split()) <= 4:
        return [_Hit(FactType.FACT, "user", "identity", phrase, C_STATED, "")]
    if _is_job(phrase) and len(low.split()) <= 4:
        return [_Hit(FactType.FACT, "user", "works_as", phrase, C_STATED, "")]
    return []


def _b_i_am_adj(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    word = m.group("adj")
    subj = _subject(m)
    if word in _DIETS:
        return [_Hit(FactType.FACT, subj, "diet", word, C_STATED, "")]
    if word in ("married", "engaged", "single", "divorced", "separated", "widowed"):
        return [_Hit(FactType.FACT, subj, "relationship_status", word, C_STATED, "")]
    if word in _IDENTITY_WORDS:
        # "I'm trans", "I'm a trans man and proud of it" -> "trans man"
        nxt = re.match(r"\s+(woman|man|person|guy|girl|boy|kid|teen|parent|mom|dad|mother|"
                       r"father|latina|latino|latinx)\b", ctx.low[m.end("adj"):])
        obj = ctx.orig[m.start("adj"):m.end("adj") + (nxt.end() if nxt else 0)]
        return [_Hit(FactType.FACT, subj, "identity", obj, C_STATED, "")]
    return []


def _b_lives(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    obj = re.sub(r"(?i)\s+(?:with|since|for|desde|seit|depuis|há|hace)\b.*$", "", obj)
    if not obj or _BAD_OBJ_START.match(obj.lower()) or not _meaningful(obj):
        return []
    if _SWITCH_RE.search(m.group(0)) and _names_a_thing(obj):
        return []  # "I've moved over to Hilton": a switch to a hotel chain, no place to live
    return [_Hit(FactType.FACT, _subject(m), "lives_in", obj, C_STATED, "")]


#: "moved over to": said of a switch as much as of a move ("moved over to GitLab").
_SWITCH_RE: Final = re.compile(r"(?i)\bover to\b")
#: Families whose members are places: a value naming a member of another family is none.
_PLACE_FAMILIES: Final = frozenset({"lives_in", "workplace", "timezone"})


def _names_a_thing(value: str) -> bool:
    """The value names a member of a family that is not a place (a hotel chain, an airline,
    an editor: ``families`` in ``memgate/data/resolution.json``)."""
    fams = LEXICON.families_of("statement", value)
    return any(f.name not in _PLACE_FAMILIES and f.single for f in fams)


def _b_from(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    obj = _clean(ctx.text(m, "obj"))
    if not obj or not obj[:1].isupper() or not _meaningful(obj):
        return []
    return [_Hit(FactType.FACT, _subject(m), "comes_from", obj, C_STATED, "")]


def _b_name(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    name = ctx.text(m, "obj").strip(" .,!?;:'\"")
    if not name or name.lower() in _STOP or name.lower() in ("not", "actually"):
        return []
    if never_a_name(name):
        return []  # "call me Monday" names a day, not the speaker
    cased = any(ch.isupper() for ch in ctx.orig[1:]) and ctx.orig != ctx.low
    if cased and name[:1].islower():
        return []  # the writer capitalises names: "call me every Friday" names no one
    # "My name is Ines Carvalho": the whole name, not its first word
    name = whole_name(ctx.orig, m.start("obj"), m.start("obj") + len(name))
    corr = re.search(r"\b(?:actually|spelled|spelt|written|not|correct|eigentlich|en fait|"
                     r"en realidad|na verdade)\b", ctx.low) is not None
    return [_Hit(FactType.CORRECTION if corr else FactType.FACT, "user", "name_is", name,
                 C_STATED, "")]


def _b_speaks(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    out: list[_Hit] = []
    for w in re.findall(r"[^\W\d_]+", ctx.text(m, "obj")):
        lang = _language(w)
        if lang:
            out.append(_Hit(FactType.FACT, _subject(m), "speaks_language", lang, C_STATED, ""))
    return out


def _b_has(kind: str) -> Builder:
    def build(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
        obj = _clean(ctx.text(m, "obj"))
        if not obj:
            return []
        return [_Hit(FactType.FACT, _subject(m), kind, obj, C_STATED, "")]

    return build


def _b_values(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    g = "obj" if m.group("obj") else "obj2" if m.group("obj2") else "obj3"
    obj = _clean(ctx.text(m, g))
    low = obj.lower()
    if not obj or _BAD_OBJ_START.match(low) or low in ("you", "this", "that", "it", "they") \
            or low.startswith(("your ", "you ", "all of ", "those ", "these ")) \
            or not _meaningful(obj):
        return []
    subj = "team" if m.group(0).endswith(" us") else "user"
    return [_Hit(FactType.FACT, subj, "values", obj, C_STATED, "")]


def _b_possessive(kind: str, conf: float) -> Builder:
    def build(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
        obj = _clean(ctx.text(m, "obj"))
        if not obj:
            return []
        if kind == "relationship_status":
            w = m.group("obj").lower()
            obj = ("married" if w in ("wife", "husband", "spouse", "hubby")
                   else "engaged" if w.startswith("fianc") else "in a relationship")
        return [_Hit(FactType.FACT, "user", kind, obj, conf, "")]

    return build


def _b_their_likes(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    who = _clean(ctx.text(m, "who")).lower()
    obj = _clean(ctx.text(m, "obj"))
    if not obj or _BAD_OBJ_START.match(obj.lower()) or not _meaningful(obj):
        return []
    pred = "dislikes" if m.group("verb").startswith(("hate", "dislike")) else "likes"
    return [_Hit(FactType.FACT, f"user's {who}", pred, obj, C_STATED, "")]


def _b_favorite(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
    thing = re.sub(r"\W+", "_", m.group("thing").strip().lower()).strip("_")
    obj = _clean(ctx.text(m, "obj"), comma=True)
    obj = re.sub(r"(?i)^(?:this|that|these|those)\s+(?=\w)", "", obj)
    if not thing or not obj or _BAD_OBJ_START.match(obj.lower()) or not _meaningful(obj):
        return []
    thing = re.sub(r"(?<=[^s])s$", "", thing) if thing not in ("series", "news") else thing
    return [_Hit(FactType.PREFERENCE, _subject(m), f"favorite:{thing}", obj, C_STATED, "")]


def _b_hobby_or_activity(conf: float, dated: bool = False) -> Builder:
    def build(m: re.Match[str], ctx: _Ctx) -> list[_Hit]:
        ger = m.group("ger")
        if ger in _NOT_ACTIVITY:
            return []
        obj = _clean(ctx.text(m, "obj"), comma=True)
        if not obj:
            return []
        pred = "hobby" if ger in _HOBBY_GERUNDS else "activity"
        if pred == "activity" and not _meaningful(obj[len(ger):] if obj.lower().startswith(
                ger) else obj):
            return []
        if pred == "hobby" and ger != "playing":
            obj = re.sub(r"(?i)\s+(?:a lot|so much|more|every \w+|lately|recently)$", "", obj)
        return [_Hit(FactType.FACT, _subject(m), pred, obj, conf, "")]

    return build
