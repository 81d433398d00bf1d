"""A tentative statement of the user, and the later turn that confirms or withdraws it.

The user says something tentatively ("I think I might be lactose intolerant", "Probablemente
me mude a Valencia", "我在考虑搬到上海", "Ich überlege, auf Linux umzusteigen"). Nothing
durable is stated yet: triage drops most such turns, or extraction finds nothing in them
(a clause of doubt is no fact), and the few read as a belief are stored pending. Later the
same user settles it, often in a few words that name nothing of it or only its value
("Back from the GP. Confirmed: lactose.", "Toulouse, c'est confirmé !", "Tá decidido.",
"上海的事确定了。"): the confirming turn holds no fact of its own, and the fact it confirms
was never stored, so there was nothing to promote.

This module reads the three turns, pure (the tentative turn is held outside the fact store
by :mod:`memgate.streams.tentatives`, its masked text only, so a guess never confirmed is
no stored fact and the labelled keep decisions do not move):

* :func:`plain_statement`: the turn is a tentative statement of the speaker; its plain
  form is what it says with the doubt taken out (a hedge cut, a lead of considering
  replaced by what it stands for, the words of doubt cut), or None;
* :func:`answer`: a later brief turn of the same user that confirms one held statement
  (a word of ``settled``: confirmed, decided, approved, official; no negation, doubt,
  hedge or question) when it names it (a word of it) or, in the same session, names
  nothing else (a short addition at most, no possessive lead, no name); or withdraws one
  it names (a word of ``called_off``: "fell through", "取消"). A yes alone confirms
  nothing (it answers the assistant's question: :mod:`memgate.stages.proposal`);
* :func:`stated_fact`: the confirmed statement as one fact when the extractor finds none
  in it (the user confirmed these words of theirs);
* :func:`believed`: a sentence said as only possible ("Il est possible que je ...",
  "Ich könnte ...") is a belief: what the extractor reads from it is stored pending
  (:mod:`memgate.stages.statements`), not served as a current fact.

The triage step (:class:`memgate.streams.pipeline.TriageStep`) reads a confirmation that
names the statement, or whose own words triage drops, as the user stating it
(``confirmed``, reason ``confirmed_tentative``); one that names nothing and says something
triage keeps goes on as itself, and extraction reads the statement only when the turn
yields no fact of its own. A withdrawal is dropped (``withdrawn_tentative``).

Word classes and bounds: ``memgate/data/tentative.json``, six languages.

>>> plain_statement("I think I might be lactose intolerant.")
"I'm lactose intolerant."
>>> plain_statement("Probablemente me mude a Valencia el mes que viene.")
'Me mude a Valencia el mes que viene.'
>>> plain_statement("我在考虑搬到上海。"), plain_statement("I live in Leeds.")
('我搬到上海。', None)
>>> plain_statement("Maybe you could send it tomorrow?") is None
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Any, Final, Literal

from memgate.core.events import CandidateFact, FactType, TurnEvent, stable_id
from memgate.stages.durable_frame import hedge_split
from memgate.stages.policy import claimed_source
from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.resolve_settled import settled_words
from memgate.stages.statement_text import (
    clean_statement,
    cues,
    family,
    first_person_verb,
    hedged,
    is_single_valued,
    lexicon,
    normalise_text,
    split_statements,
    subject_of,
    uncertain,
)

__all__ = [
    "STATED_EXTRACTOR",
    "Answer",
    "HeldStatement",
    "Tentative",
    "answer",
    "believed",
    "data",
    "plain_statement",
    "stated_fact",
]

_CJK: Final = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD: Final = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*", re.UNICODE)
_OPENING: Final = re.compile(r"^[\s,;:¿¡\"'(«“-]+")
_CLAUSE: Final = re.compile(r"(?<=[,;，；])")
_FIRST_CLAUSE: Final = re.compile(r"[,;:，；：]")
_SPACES: Final = re.compile(r"\s+")
_PUNCT_SPACE: Final = re.compile(r"\s+([,.;:!?，。；：！？])")
_LANGS: Final = ("en", "de", "fr", "es", "pt", "zh")
#: The extractor name of a confirmed statement the turn's extractor found nothing in.
STATED_EXTRACTOR: Final = "tentative-confirmed"


@dataclass(frozen=True)
class Tentative:
    """The data of :mod:`memgate.stages.tentative` (``memgate/data/tentative.json``)."""

    version: str
    max_age_days: float
    per_user: int
    total: int
    max_words: int
    max_cjk_chars: int
    max_addition_words: int
    word_min_chars: int
    name_min_chars: int
    max_doubt_clause_words: int
    leads: tuple[tuple[str, str, str], ...]
    impersonal: frozenset[str]
    doubt: re.Pattern[str]
    modal: re.Pattern[str]
    repair: tuple[tuple[re.Pattern[str], str], ...]
    determiners: frozenset[str]
    speaker_forms: frozenset[str]
    called_off: re.Pattern[str]
    trial: re.Pattern[str]
    function: frozenset[str]
    months: frozenset[str]


def _alternation(words: Sequence[str]) -> re.Pattern[str]:
    """Whole Latin words (case-folded) or Chinese substrings, longest first."""
    parts = []
    for w in sorted({w.casefold() for w in words}, key=len, reverse=True):
        esc = re.escape(w)
        parts.append(esc if _CJK.search(w) else rf"(?<![\w'’-]){esc}(?![\w'’-])")
    return re.compile("|".join(parts) or r"(?!x)x", re.IGNORECASE)


@cache
def data() -> Tentative:
    """The word classes and bounds, read once."""
    raw: dict[str, Any] = json.loads(
        resources.files("memgate.data").joinpath("tentative.json").read_text("utf-8")
    )
    leads = [
        (entry[0].casefold(), entry[1], entry[2] if len(entry) > 2 else "")
        for code in _LANGS
        for entry in raw["leads"].get(code, [])
    ]
    return Tentative(
        version=str(raw["version"]),
        max_age_days=float(raw["max_age_days"]),
        per_user=int(raw["per_user"]),
        total=int(raw["total"]),
        max_words=int(raw["max_words"]),
        max_cjk_chars=int(raw["max_cjk_chars"]),
        max_addition_words=int(raw["max_addition_words"]),
        word_min_chars=int(raw["word_min_chars"]),
        name_min_chars=int(raw["name_min_chars"]),
        max_doubt_clause_words=int(raw["max_doubt_clause_words"]),
        leads=tuple(sorted(leads, key=lambda p: len(p[0]), reverse=True)),
        impersonal=frozenset(w.casefold() for w in raw["impersonal_leads"]),
        doubt=_alternation([w for ws in raw["doubt"].values() for w in ws]),
        modal=_alternation([w for ws in raw["modal"].values() for w in ws]),
        repair=tuple(
            (re.compile(rf"(?<!\w){re.escape(a)}(?!\w)", re.IGNORECASE), b)
            for pairs in raw["repair"].values()
            for a, b in pairs
        ),
        determiners=frozenset(w.casefold() for w in raw["determiners"]),
        speaker_forms=frozenset(w.casefold() for ws in raw["speaker_forms"].values() for w in ws),
        called_off=_alternation([w for ws in raw["called_off"].values() for w in ws]),
        trial=_alternation([w for ws in raw["trial"].values() for w in ws]),
        function=frozenset(w.casefold() for ws in raw["function"].values() for w in ws),
        months=frozenset(m.casefold() for m in lexicon().get("month_homographs", ())),
    )


# ------------------------------------------------------------------ the tentative turn

# "no" before a word that is no clitic pronoun: the Portuguese "em o" ("no trabalho"), not
# a negation ("no me trasladan", "No, ...")
_PT_NO: Final = re.compile(
    r"(?i)(?<![\w'])no(?=\s+(?!(?:me|te|se|lo|la|le|les|los|las|nos|os)\b)[^\W\d_])"
)


def _negated(text: str) -> bool:
    """The text holds a negation (:meth:`Lexicon.has_negation`, the Portuguese "no" of a
    place left out)."""
    return LEXICON.has_negation(_PT_NO.sub("em", text))


def _lead(text: str) -> tuple[str, str, str] | None:
    """The lead of considering or possibility ``text`` opens with: (lead, replacement, rest).
    A lead with an ending is replaced only before a word of that ending ("i'm considering
    moving": "i'm moving"), else cut ("i'm considering a move": "a move")."""
    low = text.casefold()
    for lead, repl, ending in data().leads:
        if not low.startswith(lead):
            continue
        after = text[len(lead) : len(lead) + 1]
        if _CJK.search(lead) or lead.endswith(("'", ",")) or after in ("", " ", ","):
            rest = text[len(lead) :].lstrip(" ,")
            first = _WORD.match(rest)
            if ending and (first is None or not first.group(0).casefold().endswith(ending)):
                repl = ""
            return lead, repl, rest
    return None


def _cut_doubt(text: str) -> str:
    """``text`` without its words of doubt (a month name that is one, capitalised inside
    the sentence, stays: "in May")."""

    def keep_month(m: re.Match[str]) -> str:
        word = m.group(0)
        if word.casefold() in data().months and word[:1].isupper() and m.start() > 0:
            return word
        return "" if _CJK.search(word) else " "

    return data().doubt.sub(keep_month, text)


def _without_doubt_clauses(text: str) -> str:
    """``text`` without a short clause after the first that says only a doubt ("..., not
    sure yet", "..., no lo tengo claro")."""
    clauses = _CLAUSE.split(text)
    kept = [clauses[0]] + [
        c
        for c in clauses[1:]
        if not (cues(c)["uncertain"] and len(c.split()) <= data().max_doubt_clause_words)
    ]
    return "".join(kept).rstrip(" ,;，；")


def _tidy(text: str, end: str) -> str:
    text = _PUNCT_SPACE.sub(r"\1", _SPACES.sub(" ", text)).strip(" ,;，；")
    for pattern, repl in data().repair:
        text = pattern.sub(repl, text)
    if text and not text.endswith((".", "!", "。", "！")):
        text += end
    return text[:1].upper() + text[1:]


def _of_speaker(original: str, clause: str, impersonal: bool) -> bool:
    """The clause speaks of the speaker: a word of the first person, a Spanish or Portuguese
    verb of the first person, or, after an impersonal opening ("puede que", "pode ser que"),
    a clause that opens with its verb (no subject of its own)."""
    for c in (cues(original), cues(clause)):
        if c["first_person"] or c["first_person_plural"]:
            return True
    words = {w.casefold() for w in _WORD.findall(clause)}
    if first_person_verb(normalise_text(clause)) or words & data().speaker_forms:
        return True
    if _CJK.search(clause):
        return "我" in clause or "咱们" in clause
    if not impersonal:
        return False
    first = _WORD.search(clause)
    return (
        first is not None
        and first.group(0).casefold() not in data().determiners
        and not (first.group(0)[:1].isupper() and first.start() > 0)
    )


def _read(text: str) -> tuple[str, str, bool, bool] | None:
    """``text`` read for its doubt: (the clause with its hedge cut and its lead replaced,
    its final punctuation, whether it is tentative, whether its lead is impersonal); None
    for an empty text or a question."""
    body = " ".join(text.split())
    if not body or "?" in body or "？" in body:
        return None
    end = "。" if _CJK.search(body[-2:]) or body.endswith("。") else "."
    body = body.rstrip(" .!。！")
    doubtful = impersonal = False
    split = hedge_split(body)
    if split is not None:
        body, doubtful = split[1], True
    opening = _OPENING.match(body)
    body = body[opening.end() :] if opening is not None else body
    lead = _lead(body)
    if lead is not None:
        name, repl, rest = lead
        joint = "" if _CJK.search(name) else " "
        body = f"{repl}{joint}{rest}".strip() if repl else rest
        doubtful, impersonal = True, name in data().impersonal
    main = _main_clause(body)
    if data().doubt.search(main) is not None or uncertain(main):
        doubtful = True  # a doubt of the main clause, not of a clause after it
    return body, end, doubtful, impersonal


def _main_clause(body: str) -> str:
    """The first clause of ``body`` (up to its first comma, semicolon or colon)."""
    return _FIRST_CLAUSE.split(body, maxsplit=1)[0]


def believed(sentence: str) -> bool:
    """The sentence's main clause says something of the speaker as only possible: it opens
    with an impersonal lead of possibility ("Il est possible que je ...", "Puede que ...")
    or holds a modal of possibility (``modal``: "Ich könnte ...", "podría"), words that
    neither the extractor's clauses of doubt nor the hedge leads read. What is read from it
    is a belief. A verb of considering ("I'm considering ...") says a true fact of the
    speaker, and a word of doubt is the extractor's to cut: neither makes a belief here.

    >>> believed("Ich könnte eine Nussallergie haben."), believed("Puede que me operen.")
    (True, True)
    >>> believed("Ich habe eine Nussallergie."), believed("I'm considering a move to Oslo.")
    (False, False)
    """
    read = _read(sentence)
    if read is None:
        return False
    body, _, _, impersonal = read
    if not impersonal and data().modal.search(_main_clause(body)) is None:
        return False
    return _of_speaker(sentence, body, impersonal)


def trial(sentence: str) -> bool:
    """The sentence tries something out (``trial``: "... pra ver se fica mais rápido",
    "换成 pnpm 试试", "to see if it's faster"): what it says may not last; what is read
    from it alone is a belief.

    >>> trial("vou testar rodar com o Bun pra ver se fica mais rápido"), trial("我换成 pnpm 试试")
    (True, True)
    >>> trial("nossos testes rodam no Jest com Node 20")
    False
    """
    return data().trial.search(sentence) is not None


def plain_statement(text: str) -> str | None:
    """The tentative statements of ``text`` said plainly (see the module), its other
    sentences left out; None when it holds none (a sentence not tentative, not of the
    speaker, a question, a negation, or a doubt left after the cuts).

    >>> plain_statement("Ich wohne in Köln. Vielleicht ziehen wir nach Bonn.")
    'Ziehen wir nach Bonn.'
    >>> plain_statement("I went hiking on Sunday, maybe I'll go again.") is None
    True
    """
    said = [p for p in map(_plain_sentence, split_statements(text)) if p is not None]
    return " ".join(said) if said else None


def _plain_sentence(text: str) -> str | None:
    read = _read(text)
    if read is None or not read[2]:
        return None
    body, end, _, impersonal = read
    clause = _without_doubt_clauses(_cut_doubt(body))
    plain = _tidy(clause, end)
    if len(_WORD.findall(plain)) + len(_CJK.findall(plain)) // 2 < 2:
        return None
    if cues(plain)["uncertain"] or cues(plain)["question"] or _negated(plain):
        return None
    if data().modal.search(plain) is not None:
        return None
    return plain if _of_speaker(text, plain, impersonal) else None


# ------------------------------------------------------------------ the later turn


@dataclass(frozen=True)
class HeldStatement:
    """A tentative statement held: its turn, session and time, its plain form (masked)."""

    turn_id: str
    session_id: str
    ts: datetime
    plain: str


@dataclass(frozen=True)
class Answer:
    """What a later turn does to a held statement."""

    kind: Literal["confirms", "withdraws"]
    held: HeldStatement
    named: bool


def _brief(text: str) -> bool:
    d = data()
    return (
        bool(text.strip())
        and "?" not in text
        and "？" not in text
        and len(_CJK.findall(text)) <= d.max_cjk_chars
        and len(text.split()) <= d.max_words
    )


def _bigrams(text: str) -> set[str]:
    out: set[str] = set()
    for run in re.findall(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+", text):
        out.update(run[i : i + 2] for i in range(len(run) - 1))
    return out


def _names(text: str, plain: str) -> set[str]:
    """The words of ``plain`` that ``text`` says again: a name (capitalised in either, at
    least ``name_min_chars`` letters), a word of at least ``word_min_chars`` letters, or a
    Chinese pair of characters; none a function word or a word of confirmation."""
    d = data()
    settled = settled_words()
    said = {w.casefold(): w for w in _WORD.findall(text)}
    found: set[str] = set()
    for w in _WORD.findall(plain):
        low = w.casefold()
        if low not in said or low in d.function or settled.search(low):
            continue
        capital = w[:1].isupper() or said[low][:1].isupper()
        if (capital and len(low) >= d.name_min_chars) or len(low) >= d.word_min_chars:
            found.add(low)
    for pair in _bigrams(text) & _bigrams(plain):
        if not any(ch in d.function for ch in pair) and not settled.search(pair):
            found.add(pair)
    return found


def _addition(text: str, named: set[str]) -> list[str]:
    """The words of ``text`` that are its own: not of confirmation, agreement or function,
    not a word it names of the held statement (a Chinese run counts a word per two
    characters)."""
    d = data()
    rest = settled_words().sub(" ", normalise_text(text))
    rest = d.called_off.sub(" ", rest)
    words = [
        w
        for w in _WORD.findall(rest)
        if not _CJK.search(w) and w not in d.function and w not in named and w not in _agreement()
    ]
    cjk = "".join(_CJK.findall(rest))
    for n in named:
        cjk = cjk.replace(n, "")
    cjk = "".join(ch for ch in cjk if ch not in d.function)
    return words + [cjk[i : i + 2] for i in range(0, len(cjk), 2)]


@cache
def _agreement() -> frozenset[str]:
    return frozenset(w.casefold() for w in lexicon().get("agreement_lead", ()) if " " not in w)


@cache
def _possessive() -> re.Pattern[str]:
    return _alternation(list(lexicon().get("possessive_lead", ())))


def _own_name(text: str, named: set[str]) -> bool:
    """A capitalised word inside a sentence of ``text`` that it does not name of the
    held statement: a name of its own ("Confirmed, Anna got the job")."""
    for sentence in re.split(r"(?<=[.!:;])\s+", text.strip()):
        words = _WORD.findall(sentence)
        if any(w[:1].isupper() and w.casefold() not in named for w in words[1:]):
            return True
    return False


def _confirms(text: str) -> bool:
    """A word of ``settled``, and no negation, doubt or hedge."""
    return (
        settled_words().search(normalise_text(text)) is not None
        and not _negated(text)
        and not hedged(text)
        and not cues(text)["uncertain"]
        and data().called_off.search(text) is None
    )


def _withdraws(text: str) -> bool:
    """A word of ``called_off`` ("fell through", "geplatzt", "取消"): a negation alone says
    something else of the named thing as often ("I don't like Berlin's winters")."""
    return data().called_off.search(text) is not None


def answer(
    text: str, session_id: str, ts: datetime, held: Sequence[HeldStatement]
) -> Answer | None:
    """What the brief user turn ``text`` (its session and time) does to the user's held
    statements, newest last in ``held``: it confirms the latest it names, or, naming
    none, the session's latest when it names nothing else; it withdraws the latest it
    names. None when it is not brief, a question, or neither.

    >>> from datetime import datetime, timezone
    >>> t0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
    >>> h = [HeldStatement("t1", "s1", t0, "Je vais adopter un chat.")]
    >>> answer("C'est décidé !", "s1", t0, h).kind
    'confirms'
    >>> answer("C'est décidé !", "s2", t0, h) is None  # another session, naming nothing
    True
    >>> answer("C'est confirmé, mon frère se marie en septembre.", "s1", t0, h) is None
    True
    """
    if not held or not _brief(text):
        return None
    confirms = _confirms(text)
    withdraws = not confirms and _withdraws(text)
    if not (confirms or withdraws):
        return None
    candidates = [h for h in held if h.ts <= ts]
    for h in reversed(candidates):
        named = _names(text, h.plain)
        if not named:
            continue
        if len(_addition(text, named)) > data().max_addition_words * 2:
            return None
        if _possessive().search(text) is not None and confirms:
            return None
        return Answer("confirms" if confirms else "withdraws", h, True)
    if not confirms:
        return None
    same = [h for h in candidates if h.session_id == session_id]
    if not same:
        return None
    if (
        len(_addition(text, set())) > data().max_addition_words
        or _possessive().search(text) is not None
        or _own_name(text, set())
    ):
        return None
    return Answer("confirms", same[-1], False)


def stated_fact(turn: TurnEvent) -> CandidateFact | None:
    """The confirmed statement ``turn`` says (the plain form of a held tentative statement,
    confirmed later) as one fact, its sentence the value, when the extractor found none in
    it: the user confirmed these words of theirs (confidence 0.9, ``confirmed``)."""
    statement = clean_statement(turn.content)[:2_000].strip()
    if not statement:
        return None
    predicate = family(statement)
    return CandidateFact.from_turn(
        turn,
        candidate_id=stable_id(turn.tenant_id, turn.turn_id, "stated"),
        type=FactType.FACT,
        subject=subject_of(statement)[:200] or "user",
        predicate=predicate,
        object=statement,
        confidence=0.9,
        valid_from=turn.ts,
        rationale="a tentative statement confirmed later",
        extractor=STATED_EXTRACTOR,
        extractor_version=data().version,
        multi_valued=not is_single_valued(predicate),
        source=claimed_source(turn.metadata),
    )
