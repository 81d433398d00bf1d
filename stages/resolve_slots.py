"""Slots and anchors: what a free statement is about, read from the fact's own shape.

Extractors that keep a whole sentence ("user's plan statement Mi plan es el
Básico") leave a fact whose key holds the sentence, so a later statement about
the same thing never meets it by key. Two structural readings of a fact let
resolution compare such statements without a rule per phrasing:

- its **slot**: what the fact is a value of, from its subject's possessed noun
  ("user's plan": ``plan``, "team's backend": ``backend``) or its predicate's
  qualifier (``contact:dentist``: ``dentist``, ``uses_tool:database``:
  ``database``);
- its **anchors**: the distinctive tokens of its value: a whole short value
  (``works_at: Stripe``), or in a sentence the tokens that carry a name or a
  number (capitalised inside the sentence, with a digit or a dot, a Latin token
  in Chinese text): "Mon opérateur mobile est Orange": ``orange``.

:func:`slot_update_target`: a candidate that carries a change cue ("now",
"switched", "ne ... plus") and names an active fact's slot or one of its anchors
updates that fact (the best one: slot before anchor, then nearest in meaning).
:func:`same_clause`: two statements of one owner are one fact when their
anchors agree and their content terms overlap (paraphrase: "Ich trinke meinen
Kaffee schwarz" / "Meinen Kaffee trinke ich immer schwarz"), compared on the
normalised clause rather than on the raw sentence's embedding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Final

import numpy as np

from memgate.core.events import CandidateFact, FactStatus, FactType, StoredFact, normalise
from memgate.core.memo import reading_cache
from memgate.core.stores import FactView
from memgate.stages.resolution_lexicon import LEXICON, READING_CACHE, Lexicon

__all__ = [
    "SlotMatch",
    "a_person",
    "anchors",
    "changed_clause",
    "changed_value",
    "cjk_swap",
    "clause_terms",
    "named_tokens",
    "same_clause",
    "slot_terms",
    "slot_update_target",
    "substitution",
    "two_things",
]

_CJK_RE: Final = re.compile(r"[\u3400-\u9fff]")
_CJK_RUN_RE: Final = re.compile(r"[\u3400-\u9fff]+")
_TOKEN_RE: Final = re.compile(r"[^\W_](?:[\w.+#-]*[^\W_])?", re.UNICODE)
_WORD_RE: Final = re.compile(r"\w+", re.UNICODE)
#: Where Chinese meets another script with no space between them.
_SCRIPT_EDGE_RE: Final = re.compile(
    r"(?<=[\u3400-\u9fff])(?=[^\u3400-\u9fff\s])|(?<=[^\u3400-\u9fff\s])(?=[\u3400-\u9fff])"
)
_OWNER_RE: Final = re.compile(r"^(user|team)s?\b\s*(.*)$")
#: The extractors whose values are the user's whole sentences (stages/statements.py).
_SENTENCE_EXTRACTORS: Final = frozenset({"statements", "hybrid"})
#: Predicate qualifiers that name no slot.
_NO_SLOT: Final = frozenset({"other", "statement", "misc", "general"})
#: Content terms shared at this share of the smaller clause make a paraphrase.
CLAUSE_OVERLAP: Final = 0.75


@dataclass(frozen=True)
class SlotMatch:
    fact: StoredFact
    similarity: float
    why: str  # slot or anchor


@reading_cache(READING_CACHE)
def _owner_and_rest(subject: str) -> tuple[str, str]:
    """``("user", "plan")`` for "user's plan"; ``("user", "")`` for "user"; else ``("", s)``."""
    n = normalise(subject)
    m = _OWNER_RE.match(n)
    if m is None or (m.group(2) and not n.startswith(m.group(1) + "s ")):
        return "", n
    return m.group(1), m.group(2)


def _content(words: Iterable[str], lex: Lexicon) -> list[str]:
    out: list[str] = []
    for w in words:
        if (
            w in lex.stopwords
            or w in lex.clause_stopwords
            or (len(w) < 2 and not _CJK_RE.search(w))
        ):
            continue
        if w not in out:
            out.append(w)
    return out


def slot_terms(f: StoredFact | CandidateFact, lex: Lexicon = LEXICON) -> list[str]:
    """The words naming what the fact is a value of (empty when it names none)."""
    return _slot_terms(f.subject, f.predicate, lex)


def _slot_terms(subject: str, predicate: str, lex: Lexicon) -> list[str]:
    _, rest = _owner_and_rest(lex.unelide(subject))
    words = _WORD_RE.findall(rest)
    if ":" in predicate:
        qualifier = predicate.split(":", 1)[1]
        if qualifier not in _NO_SLOT:
            words += qualifier.replace("_", " ").split()
    elif predicate not in _NO_SLOT and rest:
        words += predicate.replace("_", " ").split()
    return _content((normalise(w) for w in words), lex)


def anchors(value: str, *, sentence: bool) -> set[str]:
    """The distinctive tokens of a value, normalised.

    >>> sorted(anchors("Mon opérateur mobile est Orange", sentence=True))
    ['orange']
    >>> sorted(anchors("Stripe", sentence=False)), sorted(anchors("data engineer", sentence=False))
    (['stripe'], ['data', 'engineer'])
    >>> sorted(anchors("all my code in Emacs", sentence=False))
    ['emacs']
    >>> sorted(anchors("我们用 Travis CI 做持续集成", sentence=True))
    ['ci', 'travis']
    >>> sorted(anchors("我们的后端是用Go写的", sentence=True))
    ['go']
    """
    return set(_anchors(value, sentence))


@reading_cache(READING_CACHE)
def _anchors(value: str, sentence: bool) -> frozenset[str]:
    """:func:`anchors`, kept per value: resolution reads every stored value again for each
    candidate of its speaker."""
    text = value.strip()
    if not text:
        return frozenset()
    cjk = bool(_CJK_RE.search(text))
    if not sentence and not cjk:
        # a typed value's names, when it has any ("all my code in Emacs", "Enterprise
        # tier": the words around a name are the slot's, not the value); else its words
        names = {
            normalise(t)
            for t in _TOKEN_RE.findall(text)
            if any(ch.isupper() or ch.isdigit() for ch in t)
        } - {"i", "im", "ive", "id", ""}
        if names:
            return frozenset(names)
        lex = LEXICON
        return frozenset(
            w
            for w in normalise(text).split()
            if len(w) > 1 and w not in lex.stopwords and w not in lex.clause_stopwords
        )
    spaced, tokens = named_tokens(text)
    return frozenset(normalise(spaced[a:b]) for a, b, named in tokens if named)


@reading_cache(READING_CACHE)
def named_tokens(value: str) -> tuple[str, tuple[tuple[int, int, bool], ...]]:
    """The tokens of a sentence, each with whether it carries a name or a number (the
    sentence's :func:`anchors`): capitalised and not first, with a digit, dotted, or a
    Latin token in Chinese text. Chinese text is returned with a space where it meets
    another script ("用 Go 写的"), the offsets are into that text.

    >>> text, toks = named_tokens("I drive a Toyota Corolla.")
    >>> [text[a:b] for a, b, named in toks if named]
    ['Toyota', 'Corolla']
    """
    text = value.strip()
    cjk = bool(_CJK_RE.search(text))
    if cjk:
        # no spaces in Chinese: a Latin name inside it is a token of its own ("用Go写的")
        text = _SCRIPT_EDGE_RE.sub(" ", text)
    out: list[tuple[int, int, bool]] = []
    for i, m in enumerate(_TOKEN_RE.finditer(text)):
        tok = m.group(0)
        if _CJK_RE.search(tok):
            out.append((m.start(), m.end(), False))
            continue
        named = (i > 0 and any(ch.isupper() for ch in tok)) or any(ch.isdigit() for ch in tok)
        dotted = any(ch in ".+#" for ch in tok[1:-1])
        n = normalise(tok)
        keep = bool(cjk or named or dotted) and bool(n) and n not in {"i", "im", "ive", "id"}
        out.append((m.start(), m.end(), keep))
    return text, tuple(out)


def head_terms(value: str, lex: Lexicon = LEXICON) -> set[str]:
    """The nouns a name in a sentence fills, read from a noun phrase: a determiner, then a
    noun and a name in either order ("la formule Basique", "the Starter plan").

    >>> sorted(head_terms("Mon abonnement est la formule Basique"))
    ['formule']
    >>> sorted(head_terms("I am on the Starter plan")), sorted(head_terms("We use Jenkins"))
    (['plan'], [])
    """
    if lex is LEXICON:
        return set(_kept_head_terms(value))
    return _head_terms(value, lex)


@reading_cache(READING_CACHE)
def _kept_head_terms(value: str) -> frozenset[str]:
    return frozenset(_head_terms(value, LEXICON))


def _head_terms(value: str, lex: Lexicon) -> set[str]:
    if _CJK_RE.search(value):
        return _cjk_head(value, lex)
    toks = [m.group(0) for m in _TOKEN_RE.finditer(value)]
    named = {i for i, t in enumerate(toks) if i > 0 and (t[:1].isupper() or t[:1].isdigit())}
    out: set[str] = set()
    for i in range(1, len(toks) - 1):
        if normalise(toks[i - 1]) not in lex.determiners:
            continue
        for noun, name in ((i, i + 1), (i + 1, i)):
            n = normalise(toks[noun])
            if name in named and noun not in named and len(n) > 2 and n not in lex.stopwords:
                out.add(n)
    return out


#: A Chinese clause this long (characters) at least has a head noun to read.
CJK_HEAD_MIN_CHARS: Final = 4


def _cjk_head(value: str, lex: Lexicon) -> set[str]:
    """The head noun of a Chinese clause: its last two characters, its closing particles
    (``final_particles``) left out; Chinese puts the head last ("小米手机", "华为手机").

    >>> _cjk_head("我换成华为手机了", LEXICON), _cjk_head("我用的是小米手机", LEXICON)
    ({'手机'}, {'手机'})
    >>> _cjk_head("我住在成都", LEXICON), _cjk_head("用Go", LEXICON)
    ({'成都'}, set())
    """
    clause = re.split(r"[，,。；;！？!?]", value.strip())
    last = next((c for c in reversed(clause) if c.strip()), "").strip()
    last = last.rstrip(lex.final_particles + " ")
    if len(_CJK_RE.findall(last)) < CJK_HEAD_MIN_CHARS or not _CJK_RE.fullmatch(last[-2:-1]):
        return set()
    head = last[-2:]
    return {head} if all(_CJK_RE.match(ch) for ch in head) else set()


def _val(f: StoredFact | CandidateFact) -> str:
    return f.value if isinstance(f, StoredFact) else f.object


#: A fact whose value is longer than this many words is a sentence of its own: a name or
#: number it shares with a later remark is no sign that the remark replaces it (on
#: LoCoMo's chat, 86 of 90 slot updates came that way, names of the other speaker above
#: all, and recall@10 fell from 0.92x to 0.81x of the baseline).
ANCHOR_MAX_WORDS = 6


def _is_sentence(f: StoredFact | CandidateFact) -> bool:
    """Whether the value is a sentence (its anchors are its names): a statement with no
    slot, or what a statement extractor says with the turn's sentence: an episode (the
    hybrid's ``event``) or a statement its family typed ("team's frontend stack Nuestro
    frontend está escrito en TypeScript": a sentence with a verb, not a value)."""
    if f.predicate == "statement" or f.predicate.endswith(":other"):
        return True
    if f.extractor not in _SENTENCE_EXTRACTORS:
        return False
    return f.type is FactType.EVENT or len(_val(f).split()) > _SENTENCE_MIN_WORDS


#: A value a statement extractor typed with more words than this is the turn's sentence.
_SENTENCE_MIN_WORDS: Final = 3


def _mentions(words: set[str], flat: str, term: str) -> bool:
    if _CJK_RE.search(term):
        return term in flat
    if term in words:
        return True
    stem = term[: max(5, len(term) - 2)]
    return len(term) >= 5 and any(w.startswith(stem) for w in words)


def _cos(a: Iterable[float] | None, b: np.ndarray) -> float:
    if a is None:
        return 0.0
    return float(np.dot(np.asarray(list(a), dtype=np.float32), b))


def slot_update_target(
    c: CandidateFact,
    key: str,
    view: FactView,
    vec: np.ndarray,
    lex: Lexicon = LEXICON,
) -> SlotMatch | None:
    """The active fact of the speaker (user or team) that ``c``, a statement of change,
    updates by naming its slot or one of its anchors; None when it names none."""
    if not (lex.has_change_cue(c.object) or lex.has_change_cue(c.context)):
        return None
    subject = lex.canonical_subject(c.subject).replace("\u2019", "'")
    owner, rest = _owner_and_rest(subject)
    if owner == "" or a_person(subject.partition("'s ")[2] or rest, lex):
        return None  # no owner, or another person's change ("my sister left X for Y")
    said = normalise(c.object)
    words = set(said.split()) | set(normalise(lex.unelide(c.object)).split())
    flat = said.replace(" ", "")
    value_n = said
    # a cue only in the turn around the statement ("..., la synchro ne marche plus") does
    # not make a statement that says a stored value again a change of it
    cue_said = lex.has_change_cue(c.object)
    best: tuple[int, float, str, SlotMatch] | None = None
    for root in ("user", "team"):
        for f in view.by_subject(
            c.tenant_id, c.user_id, root, statuses=(FactStatus.ACTIVE,), qualified=True
        ):
            if f.key == key or normalise(f.value) == value_n or f.last_seen >= c.turn_ts:
                continue
            if not cue_said and _says_value(f.value, said):
                continue  # "des réponses en français uniquement" after "français"
            fam = lex.family(f.predicate, f.value)
            if fam is not None and fam.additive:
                continue
            if two_things(f.subject, c.subject, lex):
                continue  # "our customer portal ..." -> "our new admin tool ...": another thing
            if _about_another(f, c, lex):
                continue  # "le médecin de ma mère, c'est maintenant ...": the mother's slot
            slot = slot_terms(f, lex)
            if any(_mentions(words, flat, t) for t in slot):
                rank, why = 2, "slot"
            elif head_terms(f.value, lex) & head_terms(c.object, lex):
                rank, why = 2, "head"  # "la formule Basique" -> "la formule Premium"
            elif len(f.value.split()) <= ANCHOR_MAX_WORDS and any(
                _mentions(words, flat, a) for a in anchors(f.value, sentence=_is_sentence(f))
            ):
                rank, why = 1, "anchor"
            elif changed_clause(f, c, lex):
                rank, why = 1, "clause"
            else:
                continue
            sim = _cos(f.embedding, vec)
            cand = (rank, sim, f.fact_id, SlotMatch(f, sim, why))
            if best is None or cand[:3] > best[:3]:
                best = cand
    return None if best is None else best[3]


def _says_value(value: str, said: str) -> bool:
    """``said`` (normalised) holds the short value ``value`` whole, as words.

    >>> _says_value("français", "chez nous il faut des réponses en français uniquement")
    True
    >>> _says_value("Vue 3", "we moved off vue 30 last year")
    False
    """
    v = normalise(value)
    if not v or len(v.split()) > ANCHOR_MAX_WORDS:
        return False
    return re.search(rf"(?<!\w){re.escape(v)}(?!\w)", said) is not None


def _about_another(f: StoredFact, c: CandidateFact, lex: Lexicon) -> bool:
    """``c`` names a person ``f`` does not, other than a role a single-valued family holds
    as the speaker's slot ("my new boss"), or each names another person: a subject the
    extractor left as the user's while the sentence names whose slot it is ("le médecin de
    ma mère", "我老婆的牙医").

    >>> from memgate.core.events import StoredFact, CandidateFact
    >>> doc = StoredFact.model_construct(subject="user's médecin traitant",
    ...     value="Mon médecin traitant est le docteur Lefèvre")
    >>> mother = CandidateFact.model_construct(subject="user",
    ...     object="Le médecin de ma mère, c'est maintenant le docteur Garnier")
    >>> boss = StoredFact.model_construct(subject="user", value="Priya")
    >>> new_boss = CandidateFact.model_construct(subject="user's new boss", object="Daniel")
    >>> _about_another(doc, mother, LEXICON), _about_another(boss, new_boss, LEXICON)
    (True, False)
    """
    # resolve_paraphrase reads this module: its person words are read when first asked
    from memgate.stages.resolve_paraphrase import FOLD, other_persons

    if other_persons(f.value, c.object, FOLD, lex):
        return True
    roles = lex.single_words

    def persons(text: str, subject: str) -> frozenset[str]:
        rest = _owner_and_rest(lex.canonical_subject(subject))[1]
        return FOLD.persons_in(text) | FOLD.persons_in(rest)

    about_f = persons(f.value, f.subject)
    about_c = {p for p in persons(c.object, c.subject) if not any(g.search(p) for g in roles)}
    return bool(about_c) and not about_c & about_f


def a_person(rest: str, lex: Lexicon = LEXICON) -> bool:
    """The possessed noun of a subject names another person ("user's sister"), not one
    a single-valued family holds as a slot of the speaker ("user's new boss": the
    manager). The first link of a chain is whose it is ("user's friend's company": the
    friend's; a friend is of a family too, the additive one of people).

    >>> a_person("sister", LEXICON), a_person("new boss", LEXICON), a_person("", LEXICON)
    (True, False, False)
    >>> a_person("friend's company", LEXICON), a_person("company", LEXICON)
    (True, False)
    """
    # resolve_paraphrase reads this module: its person words are read when first asked
    from memgate.stages.resolve_paraphrase import FOLD

    head = rest.split("'s ", 1)[0]
    if not head or not FOLD.is_person(head):
        return False
    return not any(fam.single for fam in lex.families_of("statement", head))


#: A substituted span longer than this many content words is a new clause, not a value.
SUBSTITUTION_MAX_SPAN: Final = 2


def _frame_tokens(text: str, lex: Lexicon) -> tuple[str, ...]:
    if lex is LEXICON:
        return _kept_frame_tokens(text)
    return _read_frame_tokens(text, lex)


@reading_cache(READING_CACHE)
def _kept_frame_tokens(text: str) -> tuple[str, ...]:
    """:func:`_frame_tokens` under the default lexicon, kept per text (a stored value is
    compared again with each candidate of its speaker)."""
    return _read_frame_tokens(text, LEXICON)


def _read_frame_tokens(text: str, lex: Lexicon) -> tuple[str, ...]:
    return tuple(
        w
        for w in _WORD_RE.findall(normalise(text))
        if w not in lex.stopwords and w not in lex.clause_stopwords and not lex.has_change_cue(w)
    )


def substitution(a: str, b: str, lex: Lexicon = LEXICON) -> bool:
    """``b`` is ``a``'s clause with another value in one place: their content words align
    except for short spans replaced in the same position, neither an inflection of the
    other ("... invoices emailed monthly" -> "... invoices emailed quarterly"); cue words
    ("now", "from now on") and function words do not count. A paraphrase moves or adds
    words, it does not swap one value for another; the swapped value follows a word the
    two share (the frame comes first).

    >>> substitution("I want my invoices sent monthly", "I want my invoices sent quarterly")
    True
    >>> substitution("Ich trinke meinen Kaffee schwarz", "Meinen Kaffee trinke ich immer schwarz")
    False
    >>> substitution("We run production on Kubernetes", "Our production runs on Kubernetes")
    False
    """
    if _CJK_RE.search(a) or _CJK_RE.search(b):
        return False
    ta, tb = _frame_tokens(a, lex), _frame_tokens(b, lex)
    if not ta or not tb:
        return False
    ops = SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes()
    equal = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal")
    if any(tag == "replace" and (i1 == 0 or j1 == 0) for tag, i1, _, j1, _ in ops):
        return False  # the head of the clause itself differs ("prefer" / "indentation")
    swaps = [(ta[i1:i2], tb[j1:j2]) for tag, i1, i2, j1, j2 in ops if tag == "replace"]
    moved = sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag in ("insert", "delete"))
    if not swaps or equal < 2 or equal < 0.6 * min(len(ta), len(tb)) or moved > 2:
        return False
    for old, new in swaps:
        if max(len(old), len(new)) > SUBSTITUTION_MAX_SPAN:
            return False
        if any(x[:5] == y[:5] for x in old for y in new):
            return False  # an inflection ("run" / "runs"), not another value
    return True


#: A Chinese value swapped in one frame: this many characters at least on each side (one
#: character differs in synonyms as often as in values: 早上 / 早晨), at most this many.
CJK_SWAP_CHARS: Final = (2, 4)


def cjk_swap(a: str, b: str) -> bool:
    """Two Chinese clauses of one frame, one value swapped for another after the shared
    frame, nothing else moved (:func:`substitution` reads words, which Chinese does not
    separate): the characters align except for one replaced span of
    :data:`CJK_SWAP_CHARS`.

    >>> cjk_swap("我每天早上喝一杯豆浆", "我每天早上喝一杯牛奶")
    True
    >>> cjk_swap("我每天早上喝一杯豆浆", "我每天早上都喝一杯豆浆")
    False
    >>> cjk_swap("我每天早上喝咖啡", "我每天早晨喝咖啡")
    False
    """
    ca, cb = "".join(_CJK_RUN_RE.findall(a)), "".join(_CJK_RUN_RE.findall(b))
    if not ca or not cb:
        return False
    ops = SequenceMatcher(None, ca, cb, autojunk=False).get_opcodes()
    swaps = [(i1, i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag == "replace"]
    equal = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal")
    moved = sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag in ("insert", "delete"))
    if len(swaps) != 1 or swaps[0][0] == 0 or moved > 1 or equal < 0.6 * min(len(ca), len(cb)):
        return False
    lo, hi = CJK_SWAP_CHARS
    return lo <= min(swaps[0][1:]) and max(swaps[0][1:]) <= hi


def changed_value(a: StoredFact | CandidateFact, b: StoredFact | CandidateFact) -> bool:
    """The two statements are one frame with two values: each names a name or number the
    other does not ("Tarif Flex M" / "Tarif Flex L"), or one value is swapped for another
    in the same place (:func:`substitution`). Near in meaning as they are, they are no
    repeat of each other."""
    if _anchors_differ(a, b):
        return True
    return substitution(_val(a), _val(b))


def _anchors_differ(a: StoredFact | CandidateFact, b: StoredFact | CandidateFact) -> bool:
    return not _anchors_within(a, b) and not _anchors_within(b, a)


def two_things(subject_a: str, subject_b: str, lex: Lexicon = LEXICON) -> bool:
    """Both subjects name a thing of the speaker ("team's kundenportal", "team's neues
    admin-tool") and the two names share no content word (change cues such as "new"
    aside): statements about two things, and one cannot update the other.

    >>> two_things("team's kundenportal", "team's neues admin-tool")
    True
    >>> two_things("team's backend", "team's new backend"), two_things("team", "team's api")
    (False, False)
    """
    (_, rest_a), (_, rest_b) = _owner_and_rest(subject_a), _owner_and_rest(subject_b)
    if not rest_a or not rest_b or rest_a == rest_b:
        return False
    wa = {w for w in _content(rest_a.split(), lex) if not lex.has_change_cue(w)}
    wb = {w for w in _content(rest_b.split(), lex) if not lex.has_change_cue(w)}
    return bool(wa) and bool(wb) and not (wa & wb)


def clause_terms(f: StoredFact | CandidateFact, lex: Lexicon = LEXICON) -> set[str]:
    """The content terms of a fact's clause: slot and value words (Chinese: character
    pairs), without function words, cue words or the speaker's pronouns."""
    if lex is LEXICON:
        return set(_kept_clause_terms(f.subject, f.predicate, _val(f)))
    return _clause_terms(f.subject, f.predicate, _val(f), lex)


@reading_cache(READING_CACHE)
def _kept_clause_terms(subject: str, predicate: str, value: str) -> frozenset[str]:
    return frozenset(_clause_terms(subject, predicate, value, LEXICON))


def _clause_terms(subject: str, predicate: str, value: str, lex: Lexicon) -> set[str]:
    text = normalise(f"{' '.join(_slot_terms(subject, predicate, lex))} {value}")
    terms: set[str] = set()
    for w in _content(text.split(), lex):
        for run in _CJK_RUN_RE.findall(w) or [w]:
            if _CJK_RE.search(run):
                for stop in sorted(lex.clause_stopwords | lex.stopwords, key=len, reverse=True):
                    if _CJK_RE.search(stop):
                        run = run.replace(stop, "")
                if not run:
                    continue
                terms |= {run[i : i + 2] for i in range(max(1, len(run) - 1))}
            else:
                terms.add(run[:6] if len(run) > 6 else run)  # a crude stem: inflections agree
    return terms


def same_clause(a: StoredFact | CandidateFact, b: StoredFact | CandidateFact) -> bool:
    """Two facts say the same thing in other words: same anchors, no change or negation
    cue on one side only, and most content terms of the shorter clause in the longer."""
    lex = LEXICON
    (_, rest_a), (_, rest_b) = _owner_and_rest(a.subject), _owner_and_rest(b.subject)
    if rest_a and rest_b and rest_a != rest_b:
        return False  # about two things of the speaker ("user's sister", "user's brother")
    # each side read once (resolution asks this of every active fact of the speaker for
    # each candidate: issue 14)
    va, vb = _val(a), _val(b)
    if lex.has_change_cue(va) != lex.has_change_cue(vb):
        return False
    if lex.has_negation(va) != lex.has_negation(vb):
        return False
    sa, sb = _is_sentence(a), _is_sentence(b)
    anchors_a, anchors_b = _anchors(va, sa), _anchors(vb, sb)
    if anchors_a ^ anchors_b and not (_within(anchors_a, b, vb) and _within(anchors_b, a, va)):
        return False
    fa, fb = lex.family(a.predicate, va), lex.family(b.predicate, vb)
    if fa is not None and fa is fb and not fa.additive and (anchors_a or anchors_b):
        # one family (an employer said as ``works_at`` and as a sentence): the same value
        # when the names agree; without names the clauses are compared below
        return _within(anchors_a, b, vb) and _within(anchors_b, a, va)
    if substitution(va, vb, lex) or cjk_swap(va, vb):
        return False  # one value swapped for another in the same frame
    ta, tb = clause_terms(a, lex), clause_terms(b, lex)
    small = min(len(ta), len(tb))
    if small < 2:
        return False
    if (ta - tb) and (tb - ta) and (_context_cue(a, lex) or _context_cue(b, lex)):
        return False  # the sentence says something changed and each side has its own value
    return len(ta & tb) / small >= CLAUSE_OVERLAP


def _context_cue(f: StoredFact | CandidateFact, lex: Lexicon) -> bool:
    return isinstance(f, CandidateFact) and lex.has_change_cue(f.context)


def changed_clause(f: StoredFact, c: CandidateFact, lex: Lexicon = LEXICON) -> bool:
    """``c`` restates ``f``'s clause frame with another value ("... por teléfono" ->
    "... por correo"), a fact of the same type: at least two content terms shared, half
    of the smaller clause, and a term of its own on each side. The caller has checked for
    a change cue."""
    (_, rest_f), (_, rest_c) = _owner_and_rest(f.subject), _owner_and_rest(c.subject)
    if f.type != c.type or (rest_f and rest_c and rest_f != rest_c):
        return False  # an instruction on the words of an event is no new value of it
    tf, tc = clause_terms(f, lex), clause_terms(c, lex)
    shared = tf & tc
    small = min(len(tf), len(tc))
    return bool(
        (tf - tc) and (tc - tf) and len(shared) >= 2 and small and len(shared) / small >= 0.5
    )


def _anchors_within(a: StoredFact | CandidateFact, b: StoredFact | CandidateFact) -> bool:
    """Every anchor of ``a`` occurs in ``b``'s clause (capitalisation may differ)."""
    return _within(_anchors(_val(a), _is_sentence(a)), b, _val(b))


def _within(anchors_a: frozenset[str], b: StoredFact | CandidateFact, value_b: str) -> bool:
    """:func:`_anchors_within` with ``a``'s anchors and ``b``'s value read already."""
    if not anchors_a:
        return True
    words, flat = _clause_words(f"{b.subject} {b.predicate} {value_b}")
    return all(t in words or t in flat for t in anchors_a)


@reading_cache(READING_CACHE)
def _clause_words(clause: str) -> tuple[frozenset[str], str]:
    """The words of a clause, normalised, and the clause without its spaces."""
    text = normalise(clause)
    return frozenset(text.split()), text.replace(" ", "")
