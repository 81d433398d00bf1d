"""A brief yes to the assistant's proposition about the user: the user states it.

The assistant asks or offers something about the user ("Du arbeitest doch im Vertrieb,
oder?", "Shall I note that your standup is at 9:30?", "你是在上海工作吧？") and the user
answers with an affirmation alone or with a short addition ("genau", "oui, depuis mars").
The user's turn holds no content of its own; the content is the proposition the yes
adopts. :func:`adopt` reads the pair and returns the proposition turned into the user's
first-person statement (with the addition), or None:

* the reply opens with an affirmation (``affirm``), not a negation (``negate``), and what
  follows it holds no correcting word (``correct``) and is short;
* the proposition is the assistant's last question, and speaks of the user (a word of the
  second person, ``person``); a tag ("…, right?", "…, oder?", "…吧") is cut;
* the assistant offering to act itself ("shall I", "要我") is a proposition only through
  a verb of noting and its clause ("… remember that your team …"); a suggestion or a
  wish asked ("you should try", "quieres que …") never is.

The person is turned by data (``memgate/data/proposals.json``): second-person words to
first-person ones, the verb of a second-person subject by its form (a table of irregular
forms, then regular endings), an English or German inverted question put back in order.
Pure: nothing is held here (the latest assistant turn is kept by
:mod:`memgate.streams.proposals`).

>>> adopt("Yes, exactly.", "So you play the cello in a community orchestra, right?")
'I play the cello in a community orchestra.'
>>> adopt("Ja, genau, seit Mai.", "Programmierst du inzwischen in Kotlin?")
'Ich programmiere inzwischen in Kotlin, seit Mai.'
>>> adopt("No, I eat fish.", "So you're vegetarian now?") is None
True
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final

from memgate.stages.statement_text import cues

__all__ = ["MAX_ADDITION_WORDS", "adopt"]

#: Words after the affirmation at most for the reply to be a confirmation with an addition.
MAX_ADDITION_WORDS: Final = 12
_CJK: Final = re.compile(r"[\u3400-\u9fff]")
_PUNCT: Final = " \t\n,.;:!?¡¿-–—…，。；：！？、"
_SENTENCE: Final = re.compile(r"[^.!?。！？]+[.!?。！？]*")
_LANGS: Final = ("en", "de", "fr", "es", "pt", "zh")


@dataclass(frozen=True)
class _Lang:
    code: str
    affirm: tuple[str, ...]
    negate: tuple[str, ...]
    correct: tuple[str, ...]
    leads: tuple[str, ...]
    tags: frozenset[str]
    offer: tuple[str, ...]
    suggest: tuple[str, ...]
    note: tuple[str, ...]
    complementiser: tuple[str, ...]
    subject: frozenset[str]
    verb_skip: frozenset[str]
    person: dict[str, str]
    verbs: dict[str, str]
    suffix: tuple[tuple[str, str], ...]
    inversion: dict[str, str]
    polite: tuple[str, ...]
    interject: tuple[str, ...] = ()
    echo: frozenset[str] = frozenset()


def _longest(words: list[str]) -> tuple[str, ...]:
    return tuple(sorted((w.casefold() for w in words), key=len, reverse=True))


@cache
def _data() -> tuple[dict[str, _Lang], frozenset[str], frozenset[str]]:
    raw: dict[str, Any] = json.loads(
        resources.files("memgate.data").joinpath("proposals.json").read_text("utf-8")
    )
    langs = {
        code: _Lang(
            code=code,
            affirm=_longest(raw["affirm"][code]),
            negate=_longest(raw["negate"][code]),
            correct=_longest(raw["correct"][code]),
            leads=_longest(raw["leads"][code]),
            tags=frozenset(w.casefold() for w in raw["tags"][code]),
            offer=_longest(raw["offer"][code]),
            suggest=_longest(raw["suggest"][code]),
            note=_longest(raw["note"][code]),
            complementiser=_longest(raw["complementiser"][code]),
            subject=frozenset(raw["subject"][code]),
            verb_skip=frozenset(raw["verb_skip"][code]),
            person={k.casefold(): v for k, v in raw["person"][code].items()},
            verbs={k.casefold(): v for k, v in raw["verbs"][code].items()},
            suffix=tuple((a, b) for a, b in raw["suffix"][code]),
            inversion=dict(raw.get("inversion", {}).get(code, {})),
            polite=_longest(raw["polite"][code]),
            interject=_longest(raw.get("interject", {}).get(code, [])),
            echo=frozenset(w.casefold() for w in raw.get("echo", {}).get(code, [])),
        )
        for code in _LANGS
    }
    return langs, frozenset(raw["pro_drop"]), frozenset(raw["pro_drop_stop"])


def _find(phrase: str, low: str, start: int = 0) -> int:
    """Where ``phrase`` stands in ``low`` from ``start`` (a Latin one as whole words), or -1."""
    if not phrase:
        return start
    if _CJK.search(phrase):
        return low.find(phrase, start)
    m = re.compile(rf"(?<!\w){re.escape(phrase)}(?!\w)").search(low, start)
    return -1 if m is None else m.start()


def _opening(text: str, phrases: tuple[str, ...]) -> str | None:
    """The phrase of ``phrases`` ``text`` opens with (casefolded text), or None."""
    for p in phrases:
        if text.startswith(p):
            rest = text[len(p) :]
            if _CJK.search(p) or not rest or not (rest[0].isalnum() or rest[0] in "'’"):
                return p
    return None


def _reply(reply: str) -> tuple[list[str], str] | None:
    """The languages of the affirmations ``reply`` opens with, and what follows them."""
    langs, _, _ = _data()
    text = reply.strip()
    low = text.casefold()
    if any(_opening(low, lang.negate) for lang in langs.values()):
        return None
    found: list[str] = []
    lead = _interjection(low, langs)  # "Oh yes", "嗯，是的": only before an affirmation
    text, low = text[lead:], low[lead:]
    while True:
        hit = next(((c, p) for c, lang in langs.items() if (p := _opening(low, lang.affirm))), None)
        if hit is None:
            hit = _echo(low, langs)
        if hit is None:
            break
        _, p = hit
        found += [c for c, lang in langs.items() if p in lang.affirm and c not in found]
        found += [c for c, lang in langs.items() if p.split()[-1] in lang.echo and c not in found]
        cut = len(p)
        while cut < len(low) and low[cut] in _PUNCT:
            cut += 1
        text, low = text[cut:], low[cut:]
    if not found:
        return None
    return found, text.strip()


def _echo(low: str, langs: dict[str, _Lang]) -> tuple[str, str] | None:
    """The opening of a reply that says yes by the question's verb said again and a word of
    yes after it ("sou sim", "tenho sim, dois"), with its language; or None."""
    m = re.match(r"^(\w+)\s+(\w+)(?!\w)", low)
    if m is None or cues(m.group(1))["uncertain"]:
        return None  # "talvez sim": a doubt, not the question's verb
    code = next((c for c, lang in langs.items() if m.group(2) in lang.echo), None)
    return None if code is None else (code, m.group(0))


def _interjection(low: str, langs: dict[str, _Lang]) -> int:
    """How much of the reply an interjection before its affirmation takes ("Oh yes", "嗯，
    是的"); 0 when none, or when no affirmation follows it ("嗯，我考虑一下")."""
    for lang in langs.values():
        p = _opening(low, lang.interject)
        if p is None:
            continue
        cut = len(p)
        while cut < len(low) and low[cut] in _PUNCT:
            cut += 1
        rest = low[cut:]
        if any(_opening(rest, other.affirm) for other in langs.values()) or _echo(rest, langs):
            return cut
    return 0


def _tokens(text: str) -> list[str]:
    return text.split()


def _split_punct(word: str) -> tuple[str, str, str]:
    m = re.match(r"^([^\w'’]*)(.*?)([^\w'’]*)$", word)
    assert m is not None
    return m.group(1), m.group(2), m.group(3)


def _turn_verb(word: str, lang: _Lang, pro_drop: bool = False) -> str:
    low = word.casefold()
    if low in lang.verbs:
        return _case_like(word, lang.verbs[low])
    for end, first in lang.suffix:
        if pro_drop and end not in ("as", "es"):
            continue
        if low.endswith(end) and len(low) > len(end) + 2:
            return word[: len(word) - len(end)] + first
    return word


def _case_like(model: str, word: str) -> str:
    return word[:1].upper() + word[1:] if model[:1].isupper() and word else word


def _clause(sentence: str, lang: _Lang) -> str | None:
    """The proposition of the assistant's question ``sentence``, still in the second person;
    None when it is an offer to act without a clause of noting, or a suggestion."""
    s = sentence.strip().strip("¿¡?？ .。!！").strip()
    for _ in range(2):  # a closing tag after a comma ("…, right", "…，对吧")
        head, sep, tail = max(s.rpartition(","), s.rpartition("，"), key=lambda t: len(t[0]))
        if sep and tail.strip().casefold().strip(_PUNCT) in lang.tags:
            s = head.strip()
    if lang.code == "zh":
        tags = sorted(lang.tags, key=len, reverse=True)  # "对吧" before "吧"
        while s and any(s.endswith(t) for t in tags):
            s = s[: -len(next(t for t in tags if s.endswith(t)))].rstrip("，, ")
        s = s.replace("是不是", "是")
    low = s.casefold()
    offered = [i for p in lang.offer if (i := _find(p, low)) >= 0]
    if offered:
        start = min(offered)
        for verb in lang.note:
            at = _find(verb, low, start)
            if at < 0:
                continue
            after = at + len(verb)
            for comp in lang.complementiser:
                c = _find(comp, low, after)
                if c >= 0 and c - after < 24:
                    return s[c + len(comp) :].strip(" ,")
        return None
    if any(_find(p, low) >= 0 for p in lang.suggest):
        return None
    while True:
        lead = _opening(s.casefold(), lang.leads)
        if lead is None:
            break
        s = s[len(lead) :].lstrip(_PUNCT)
    return s


def _first_person(clause: str, lang: _Lang, pro_drop: bool, stop: frozenset[str]) -> str:
    """``clause`` turned from the second person to the first."""
    if lang.code == "zh":
        for you in sorted(lang.person, key=len, reverse=True):
            clause = clause.replace(you, lang.person[you])
        return clause
    words = _tokens(clause)
    lows = [_split_punct(w)[1].casefold() for w in words]
    if len(words) >= 2 and lows[1] in lang.subject:
        if lows[0] in lang.inversion:  # "are you still …" -> "you are still …"
            aux = lang.inversion[lows[0]]
            words = [words[1], *([aux] if aux else []), *words[2:]]
        elif lang.code == "de":  # "Programmierst du …" -> "du programmierst …"
            words = [words[1], words[0].lower(), *words[2:]]
    fr_inverted = re.match(r"^(\w+)-(tu|vous)$", words[0].casefold()) if words else None
    if lang.code == "fr" and fr_inverted:
        words = [fr_inverted.group(2), words[0][: fr_inverted.start(2) - 1], *words[1:]]
    out: list[str] = []
    verb_next = False
    subject_seen = False
    for w in words:
        pre, core, post = _split_punct(w)
        low = core.casefold()
        if verb_next and low not in lang.verb_skip:
            core = _turn_verb(core, lang)
            verb_next = False
        elif low in lang.subject:
            verb_next, subject_seen = True, True
            core = _case_like(core, lang.person[low])
        elif low in lang.person:
            core = _case_like(core, lang.person[low])
        elif low.startswith(("t'", "t’")) and "t'" in lang.person:
            core = "m'" + core[2:]
        out.append(pre + core + post)
    if pro_drop and not subject_seen:  # "¿Trabajas en remoto …?": the verb says the person
        for i, w in enumerate(out[:3]):
            pre, core, post = _split_punct(w)
            low = core.casefold()
            if low in stop or low in lang.verb_skip:
                continue
            turned = _turn_verb(core, lang, pro_drop=True)
            if turned != core:
                out[i] = pre + turned + post
            break
    text = " ".join(out)
    if lang.code == "fr":
        text = re.sub(r"\b([Jj])e ([aeéèêiouhy])", r"\1'\2", text)
    return text[:1].upper() + text[1:]


def _about_user(sentence: str, lang: _Lang, pro_drop: bool, stop: frozenset[str]) -> int:
    """Words of the second person in ``sentence`` (a pro-drop verb form counts)."""
    if lang.code == "zh":
        return sum(sentence.count(w) for w in lang.person)
    lows = [_split_punct(w)[1].casefold() for w in _tokens(sentence)]
    elided = "t'" in lang.person
    hits = sum(1 for w in lows if w in lang.person or (elided and w.startswith(("t'", "t’"))))
    if lang.code == "fr":
        hits += sum(1 for w in lows if re.match(r"^\w+-(tu|vous)$", w))
    if hits == 0 and pro_drop:
        heads = [w for w in lows if w not in lang.leads and w not in lang.verb_skip][:3]
        hits = sum(1 for w in heads if w not in stop and re.search(r"\w{2,}[ae]s$", w) is not None)
    return hits


def adopt(reply: str, proposal: str) -> str | None:
    """The user's statement a brief yes (``reply``) makes of the assistant's proposition
    about them (``proposal``, the assistant's turn), or None.

    >>> adopt("对，没错。", "你不吃香菜，对吧？")
    '我不吃香菜。'
    >>> adopt("Sí, así es.", "¿Trabajas en remoto desde Valencia?")
    'Trabajo en remoto desde Valencia.'
    >>> adopt("Oui.", "Est-ce que Julien travaille encore chez Decathlon ?") is None
    True
    >>> adopt("Sí, por favor.", "¿Quieres que traduzca tu correo al inglés?") is None
    True
    """
    read = _reply(reply)
    if read is None:
        return None
    said, addition = read
    langs, _, _ = _data()
    if addition and _CJK.search(addition):
        if len(addition) > 2 * MAX_ADDITION_WORDS:
            return None
    elif len(addition.split()) > MAX_ADDITION_WORDS:
        return None
    if "?" in addition or "？" in addition:
        return None
    low_add = addition.casefold()
    if any(_find(w, low_add) >= 0 for c in said for w in langs[c].correct):
        return None
    questions = [s.strip() for s in _SENTENCE.findall(proposal) if s.strip().endswith(("?", "？"))]
    if not questions:
        return None
    tail = _without_courtesy(addition, [langs[c] for c in said])
    for sentence in reversed(questions):
        got = _stated(sentence, said, low_add)
        if got is not None:
            break
        if not _acts(sentence) or tail != addition.strip(_PUNCT):
            # a question of its own the yes answers, or a "yes, please" taking the offer:
            # nothing asked before it is answered
            return None
    else:
        return None  # the assistant's offers only
    stated, code = got
    if code == "zh":
        return f"{stated}，{tail}。" if tail else f"{stated}。"
    return f"{stated}, {tail}." if tail else f"{stated}."


def _stated(sentence: str, said: list[str], low_add: str) -> tuple[str, str] | None:
    """The proposition of the question ``sentence`` about the user, in the first person,
    and its language's code; None when it is not about the user or is corrected."""
    langs, pro_drop, stop = _data()
    order = [*said, *(c for c in _LANGS if c not in said)]
    scored = [  # a verb form alone says the person only in the language of the yes
        (_about_user(sentence, langs[c], c in pro_drop and c in said, stop), -i, c)
        for i, c in enumerate(order)
    ]
    hits, _, code = max(scored)
    if hits == 0:
        return None
    lang = langs[code]
    if any(_find(w, low_add) >= 0 for w in lang.correct):
        return None
    clause = _clause(sentence, lang)
    if not clause:
        return None
    if _about_user(clause, lang, code in pro_drop, stop) == 0:
        return None
    stated = _first_person(clause, lang, code in pro_drop, stop)
    if stated.casefold() == clause.casefold():
        return None  # no word of the second person turned: not about the user
    return stated, code


def _acts(sentence: str) -> bool:
    """The question is the assistant offering to act or suggesting an act ("Want me to
    translate it?", "¿Quieres que reserve?", "要我帮你订吗？"): a yes to it may answer the
    question about the user asked before it in the same turn."""
    low = sentence.casefold()
    langs, _, _ = _data()
    phrases = (p for lang in langs.values() for p in (*lang.offer, *lang.suggest))
    # a short function word alone ("que", "quer") is in too many questions to say an act
    return any(_find(p, low) >= 0 for p in phrases if " " in p or len(p) > 4 or _CJK.search(p))


def _without_courtesy(addition: str, langs: list[_Lang]) -> str:
    """The addition with its words of courtesy ("please", "bitte", "谢谢") cut."""
    text = addition.strip(_PUNCT)
    for lang in langs:
        for w in lang.polite:
            at = _find(w, text.casefold())
            if at >= 0:
                text = (text[:at] + text[at + len(w) :]).strip(_PUNCT)
    return text
