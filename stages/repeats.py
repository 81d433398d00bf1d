"""Repeats by reference: a sentence the speaker says is a repeat ("as I told you ...").

"Just so you have it: Tomasz is my partner", "Zur Erinnerung: für CI nutzen wir GitLab",
"Je te le redis : toute notre production tourne sur Kubernetes", "Como ya te dije, vivo
en Sevilla", "我说过，我住在杭州": the speaker points at something already said, as a
retraction by reference points at what it withdraws. The marker (per language, data:
``memgate/data/repeat_markers.json``) is discourse, not content:

* it is cut from the sentence before anything reads it: a past saying verb ("I told you",
  "te lo dije") never makes the sentence an episode, and its "you" no remark about the
  listener;
* the sentence is read alone (not merged with its neighbours in a narrated turn), and
  every fact read from it carries :attr:`~memgate.core.events.CandidateFact.repeats`:
  resolution looks for the active fact of the same owner it repeats and folds it there
  (:mod:`memgate.stages.resolve_repeat`); with none, it is stored as a first saying.

A sentence that corrects ("... not MySQL, like I said", "actually", "ya no") is no repeat:
its marker stays and nothing is flagged.

Beside the fixed phrases, a marker is read by structure: the ``grammar`` of the data holds,
per language, small word classes (an "as" word, a first-person subject, clitics, an
auxiliary, an adverb of "already", the saying verbs, the remind family) and sequences of
them ("AS SUBJ YOU? IT? AUX ADV? PART": "comme je te l'ai déjà dit", "como ya te lo había
dicho"), compiled into the same patterns. Opening a sentence, such a marker counts only
before punctuation or a complementizer ("Reminding you that ...", "Recuerda que ..."), never
in a question: "Recuerda comprar pan" is a request, "Como decía mi abuela ..." a third
person's words.

>>> cut_marker("Just so you have it: Tomasz is my partner.")
'Tomasz is my partner.'
>>> cut_marker("Our billing contact is Maria Lopez, as I said before.")
'Our billing contact is Maria Lopez.'
>>> cut_marker("Correction: our database is Postgres 15, not MySQL like I said earlier.")
>>> cut_marker("Remove what I told you about my car.")
>>> cut_marker("Comme je te l'ai déjà dit, je suis végétarienne.")
'Je suis végétarienne.'
>>> cut_marker("Recuerda comprar pan.")
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import pairwise
from typing import Any, Final

from memgate.core.events import CandidateFact, TurnEvent, stable_id
from memgate.core.text import is_question
from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.statement_text import (
    lexicon,
    normalise_text,
    split_statements,
    starts_with_correction,
)

__all__ = [
    "REPEATS",
    "RepeatMarkers",
    "as_said",
    "cut_marker",
    "extract_with_repeats",
    "without_tag",
]

_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")
_PUNCT: Final = r"[,:;，：；\u2013\u2014-]"
_END: Final = r"[\s.!?。！？…]*$"


def _alt(phrases: list[str]) -> str:
    """One regex alternation of ``phrases``, longest first, a space matching any spacing
    and an apostrophe either one."""
    out = []
    for p in sorted({p.strip() for p in phrases if p.strip()}, key=len, reverse=True):
        esc = re.escape(p.lower()).replace(r"\ ", r"\s+").replace("'", "['\u2019]")
        out.append(esc)
    return "|".join(out)


def _word(alt: str) -> str:
    """``alt`` as a whole word (Latin) or as it is (Chinese: no spaces between words)."""
    return rf"(?<![\w'])(?:{alt})(?![\w'])"


#: what may follow a marker of the grammar opening a sentence: punctuation ("Remind you: ...",
#: "Como decía, ...": "Como decía mi abuela ..." is no marker); a dash only as punctuation
#: ("Rappelle-moi ..." is a request)
_FOLLOW: Final = r"\s*(?:[,:;，：；\u2013\u2014]|-(?!\w))"


def _class(words: list[str]) -> str:
    """A word class of the grammar as one alternation: whole words (Latin; a word ending in
    an apostrophe, "l'", joins the next, and one opening with it, "'ve", the one before;
    "rappelle-moi" is not "rappelle"), Chinese as substrings."""
    out = []
    for w in sorted({w.strip().lower() for w in words if w.strip()}, key=len, reverse=True):
        w = w.replace("\u2019", "'")
        esc = re.escape(w).replace(r"\ ", r"\s+").replace("'", "['\u2019]")
        if not _CJK_RE.search(w):
            esc = (r"(?<!\w)" if w[0].isalnum() else "") + esc
            esc += r"(?!\w|-\w)" if w[-1].isalnum() else ""
        out.append(esc)
    return "(?:" + "|".join(out) + ")"


def _sequence(tokens: list[str], classes: dict[str, list[str]]) -> str:
    """A sequence of the grammar ("AS I AUX? ADV? SAY") as a regex: each token a class (an
    upper-case name) or a literal word, optional with a '?', any spacing between."""
    out = []
    for tok in tokens:
        name = tok.rstrip("?")
        words = classes[name] if name.isupper() else [name]
        out.append(rf"(?:\s*{_class(words)})" + ("?" if tok.endswith("?") else ""))
    return "".join(out)


def _grammar(data: dict[str, Any], tail: str) -> tuple[str, str]:
    """The markers of ``grammar`` (``memgate/data/repeat_markers.json``): (anywhere, opening).
    Anywhere: its ``markers`` sequences, each with a tail, for between commas and closing a
    sentence. Opening: those and the ``openers`` (the remind family), before punctuation or,
    for a sequence ending in THAT, with the complementizer after them; never in a question."""
    anywhere: list[str] = []
    plain: list[str] = []
    that: list[str] = []
    for lang in (v for k, v in data.items() if k != "about"):
        classes = lang["classes"]
        # "Ich hab dir schon gesagt, dass ...": a clause the cut would leave verb-final
        stop = rf"(?!{_FOLLOW}\s*{_class(lang['not_before'])})" if lang.get("not_before") else ""
        for kind in ("markers", "openers"):
            for seq in lang.get(kind, []):
                tokens = seq.split()
                ends = tokens[-1].rstrip("?") == "THAT"
                body = tokens[:-1] if ends else tokens
                if ends:
                    that.append(rf"{_sequence(body, classes)}{tail}\s*{_class(classes['THAT'])}")
                if not ends or tokens[-1].endswith("?"):
                    plain.append(_sequence(body, classes) + tail + stop)
                    if kind == "markers":
                        anywhere.append(plain[-1])
    # the complementizer first: "..., dass ich Vegetarier bin" loses its "dass" too
    opening = rf"(?![^?？]*[?？])(?:{'|'.join(that)}|(?:{'|'.join(plain)})(?={_FOLLOW}))"
    return "|".join(anywhere), opening


#: a word of a sentence, for the keys test (:func:`may_mark`)
_KEY_WORD_RE: Final = re.compile(r"\w+")


def _entry_key(entry: str, weak: frozenset[str] = frozenset()) -> str:
    """What every saying of ``entry`` (a phrase, a class word) holds, as a key of
    :func:`may_mark`: its longest Latin word not among ``weak`` (the words of the grammar's
    function classes: "have", "been", "like") when that word is long enough to be rare;
    else two of its words that stand next to each other ("so you", "you know"); a Chinese
    entry as it is (a substring)."""
    low = entry.strip().lower().replace("\u2019", "'")
    if _CJK_RE.search(low):
        return low
    words: list[str] = _KEY_WORD_RE.findall(low)
    if not words:
        return ""
    strong = [w for w in words if w not in weak] or words
    best = max(strong, key=len)
    if len(best) >= _RARE_LENGTH or len(words) < 2:
        return best
    i = words.index(best)
    return " ".join(words[i : i + 2]) if i + 1 < len(words) else " ".join(words[i - 1 : i + 1])


#: a key word at least this long is rare enough alone; a shorter one is paired
_RARE_LENGTH: Final = 6


#: the grammar's classes of function words (a subject, an auxiliary, an adverb, ...): a
#: word of theirs is a poor key when a phrase holds another
_WEAK_CLASSES: Final = ("AS", "I", "SUBJ", "YOU", "IT", "OBJ", "AUX", "ADV", "WHEN", "THAT")


def _marker_keys(data: dict[str, Any]) -> frozenset[str]:
    """Words one of which every marker holds (fixed phrases and grammar sequences alike): a
    sentence with none of them has no marker, and the patterns need not run on it. Of each
    sequence, its last required token (most often the saying verb) stands for it."""
    grammar = [v for k, v in data.get("grammar", {}).items() if k != "about"]
    weak = frozenset(
        w
        for lang in grammar
        for name in _WEAK_CLASSES
        for entry in lang["classes"].get(name, [])
        for w in _KEY_WORD_RE.findall(entry.lower())
    )
    keys = {_entry_key(w, weak) for ws in data["markers"].values() for w in ws}
    for lang in grammar:
        classes = lang["classes"]
        for seq in (*lang.get("markers", []), *lang.get("openers", [])):
            best: set[str] | None = None
            for tok in seq.split():
                if tok.endswith("?"):
                    continue
                words = classes[tok] if tok.isupper() else [tok]
                got = {_entry_key(w, weak) for w in words}
                if "" in got:
                    continue
                best = got  # the last required token: most often the saying verb
            if best is None:
                raise ValueError(f"repeat_markers.json: the sequence {seq!r} requires no word")
            keys |= best
    keys.discard("")
    return frozenset(keys)


@dataclass(frozen=True)
class RepeatMarkers:
    """The data of repeats by reference (``memgate/data/repeat_markers.json``)."""

    version: str
    usem_anchored: float
    usem_unanchored: float
    minilm_anchored: float
    minilm_unanchored: float
    opening: re.Pattern[str]
    """A marker opening the sentence, after at most one lead word ("Anyway, as you know")."""
    inner: re.Pattern[str]
    """A marker between commas ("Tomasz, as I said, is my partner")."""
    closing: re.Pattern[str]
    """A marker closing the sentence after a comma ("..., as I said before.")."""
    contrast: re.Pattern[str]
    negation: re.Pattern[str]
    keys: frozenset[str] = frozenset()
    """Latin words one of which every Latin marker holds (:func:`may_mark`)."""
    cjk_keys: tuple[str, ...] = ()
    """Chinese strings one of which every Chinese marker holds."""

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> RepeatMarkers:
        every = [w for ws in data["markers"].values() for w in ws]
        latin = [w for w in every if not _CJK_RE.search(w)]
        cjk = [w for w in every if _CJK_RE.search(w)]
        tails = _alt([w for ws in data["tails"].values() for w in ws])
        leads = _alt([w for ws in data["leads"].values() for w in ws])
        # a marker of one word ("reminder", "rappel", "repito") opens a sentence only with
        # punctuation after it: "Reminder: ..." is one, "Rappel de la réunion" is not
        many = _alt([w for w in latin if len(w.split()) > 1])
        one = _alt([w for w in latin if len(w.split()) == 1])
        tail = rf"(?:\s*(?:{tails}))?" if tails else ""
        m_latin = rf"(?:{_word(many)}{tail})" + (
            rf"|(?:{_word(one)}{tail}(?=\s*(?:{_PUNCT}|[?!.。？！]|$)))"
        )
        m_cjk = rf"(?:(?:{_alt(cjk)})(?:{tails})?)" if cjk else "(?!)"
        g_any, g_open = _grammar(data["grammar"], tail) if "grammar" in data else ("(?!)",) * 2
        marker = rf"(?:{m_latin}|{m_cjk}|{g_any})"
        lead = rf"(?:(?:{leads})\s*[,，]?\s*)?" if leads else ""
        opening = re.compile(
            rf"^\s*(?P<lead>{lead})[¿¡]?(?:{g_open}|{m_latin}|{m_cjk})\s*[?!]?\s*{_PUNCT}?\s*",
            re.IGNORECASE,
        )
        inner = re.compile(rf"\s*[,，]\s*[¿¡]?{marker}\s*[?!]?\s*[,，]\s*", re.IGNORECASE)
        closing = re.compile(rf"\s*[,，;；]\s*[¿¡]?{marker}(?={_END})", re.IGNORECASE)
        contrast = _word(_alt([w for ws in data["contrasts"].values() for w in ws]))
        negation = _alt([w for ws in data["negations"].values() for w in ws])
        keys = _marker_keys(data)
        return cls(
            version=str(data["version"]),
            usem_anchored=float(data["usem_anchored"]),
            usem_unanchored=float(data["usem_unanchored"]),
            minilm_anchored=float(data["minilm_anchored"]),
            minilm_unanchored=float(data["minilm_unanchored"]),
            opening=opening,
            inner=inner,
            closing=closing,
            contrast=re.compile(contrast, re.IGNORECASE),
            negation=re.compile(rf"(?<![\w'])(?:{negation})(?![\w'])|n't|不|没", re.IGNORECASE),
            keys=frozenset(k for k in keys if not _CJK_RE.search(k)),
            cjk_keys=tuple(sorted(k for k in keys if _CJK_RE.search(k))),
        )


def _load() -> RepeatMarkers:
    text = resources.files("memgate.data").joinpath("repeat_markers.json").read_text("utf-8")
    return RepeatMarkers.from_data(json.loads(text))


REPEATS: Final = _load()


def may_mark(sentence: str, data: RepeatMarkers = REPEATS) -> bool:
    """Whether ``sentence`` may hold a repeat marker: False only when it holds none of the
    markers' keys (:func:`_marker_keys`: a word, or two words side by side), so no marker
    pattern can match it. Most
    sentences hold none, and the patterns (some thousand alternatives) cost ten times a
    word set's test (issue 14).

    >>> may_mark("Like I told you, we deploy on Fridays"), may_mark("We deploy on Fridays")
    (True, False)
    >>> may_mark("我之前说过，我对花生过敏"), may_mark("我对花生过敏")
    (True, False)
    """
    low = sentence.lower()
    words = _KEY_WORD_RE.findall(low)
    if not data.keys.isdisjoint(words):
        return True
    if not data.keys.isdisjoint(f"{a} {b}" for a, b in pairwise(words)):
        return True
    if not data.cjk_keys or not _CJK_RE.search(low):
        return False
    return any(k in low for k in data.cjk_keys)


def cut_marker(sentence: str, data: RepeatMarkers = REPEATS) -> str | None:
    """The sentence without its repeat marker; None when it has none, or when it corrects
    (a contrast, a correction lead, a change cue: "..., not MySQL, like I said")."""
    text = sentence.strip()
    if not may_mark(text, data):
        return None
    cut: str | None = None
    m = data.opening.match(text)
    if m is not None and m.end() < len(text):
        lead, rest = m.group("lead") or "", text[m.end() :]
        cut = lead + rest if lead else rest[:1].upper() + rest[1:]
    elif (m := data.inner.search(text)) is not None:
        cut = text[: m.start()] + " " + text[m.end() :]
    elif (m := data.closing.search(text)) is not None and m.start() > 0:
        if data.negation.search(text[: m.start()]):
            return None  # "... not MySQL, like I said": what was said is denied
        # the sentence keeps its closing mark: "I asked you about it, remember?" stays a
        # question (a statement about the conversation), "我对猫毛过敏，这个你应该记得。" not
        cut = text[: m.start()] + text[m.end() :].strip()
    if cut is None or not cut.strip(" ,.;:，。"):
        return None
    if data.contrast.search(cut) or starts_with_correction(text) or LEXICON.has_change_cue(cut):
        return None
    return cut.strip()


@cache
def _listener() -> re.Pattern[str]:
    """A second-person word (``second_person`` of ``memgate/data/statements.json``): whole
    words, Chinese as a substring, on a normalised sentence."""
    words = sorted({normalise_text(w) for w in lexicon()["second_person"]}, key=len, reverse=True)
    return re.compile(
        "|".join(re.escape(w) if _CJK_RE.search(w) else rf"(?<![\w']){re.escape(w)}(?![\w'])"
                 for w in words)
    )  # fmt: skip


def without_tag(sentence: str, data: RepeatMarkers = REPEATS) -> str:
    """The sentence without a closing repeat marker asked as a tag ("..., remember?", "...,
    tu te souviens ?", "..., lembra?", "...，记得吗？"): its question mark asks about the
    listener's memory, not about the content, so the sentence before the tag is a statement
    when it asks nothing itself (a question before the tag, "what was it called,
    remember?", stays one), and so does a remark that names the listener ("I asked you
    about it last week, remember?": about the conversation, not a fact; the second-person
    words of ``memgate/data/statements.json``). Any other sentence, a correction too, is
    returned as it is.

    >>> without_tag("Julien, c'est mon mari, tu te souviens ?")
    "Julien, c'est mon mari."
    >>> without_tag("我对青霉素过敏，记得吗？")
    '我对青霉素过敏。'
    >>> without_tag("What was the name of that place, remember?")
    'What was the name of that place, remember?'
    >>> without_tag("I asked you about it last week, remember?")
    'I asked you about it last week, remember?'
    >>> without_tag("Wie gesagt, die Staging-Umgebung läuft auf K8s 1.29.")
    'Wie gesagt, die Staging-Umgebung läuft auf K8s 1.29.'
    """
    text = sentence.strip()
    if not may_mark(text, data):
        return sentence
    m = data.closing.search(text)
    if m is None or m.start() == 0 or data.opening.match(text) or cut_marker(text, data) is None:
        return sentence
    body, tail = text[: m.start()].strip().rstrip(" ,，"), text[m.end() :].strip()
    if tail[:1] not in ("?", "？") or re.search(r"[?？]", body) or is_question(body):
        return sentence
    if _listener().search(normalise_text(body)):
        return sentence  # a remark about the listener or the talk: "I asked you about it, ..."
    return body + ("。" if _CJK_RE.search(body) else ".")


def as_said(sentence: str, data: RepeatMarkers = REPEATS) -> str:
    """The sentence as the speaker states it: its repeat marker cut (:func:`cut_marker`),
    a tag question's with its question mark (:func:`without_tag`). A sentence with no
    marker, or one that corrects, is returned as it is.

    >>> as_said("A Mia e o Tom são os meus gatos, lembra?")
    'A Mia e o Tom são os meus gatos.'
    >>> as_said("Wie gesagt, die Staging-Umgebung läuft auf K8s 1.29.")
    'Die Staging-Umgebung läuft auf K8s 1.29.'
    >>> as_said("Do you remember?")
    'Do you remember?'
    """
    tagless = without_tag(sentence, data)
    if tagless != sentence:
        return tagless
    return cut_marker(sentence, data) or sentence


def extract_with_repeats(
    turn: TurnEvent,
    extract: Callable[[TurnEvent], list[CandidateFact]],
    data: RepeatMarkers = REPEATS,
) -> list[CandidateFact]:
    """``extract`` of ``turn`` with each sentence that says it is a repeat read alone, its
    marker cut, and its facts flagged :attr:`~memgate.core.events.CandidateFact.repeats`;
    the turn's other sentences are read together as before. A turn with no marker is read
    as it is."""
    sentences = split_statements(turn.content)
    # a tag question's mark goes with its marker: "..., tu te souviens ?" is said, not asked
    cuts = [cut_marker(s, data) and as_said(s, data) for s in sentences]
    if not any(cuts):
        return extract(turn)
    rest = " ".join(s for s, c in zip(sentences, cuts, strict=True) if not c)
    out = extract(turn.model_copy(update={"content": rest})) if rest.strip() else []
    for i, c in enumerate(cuts):
        if not c:
            continue
        for j, f in enumerate(extract(turn.model_copy(update={"content": c}))):
            if f.retracts:
                continue  # an operation on stored facts is no repeat, nor stored
            cid = stable_id(turn.tenant_id, turn.turn_id, "repeat", str(i), str(j))
            out.append(f.model_copy(update={"repeats": True, "candidate_id": cid}))
    return out
