"""Language-independent text helpers of the statement extractor and of triage's moment check.

One sentence splitter for the six supported languages (Chinese has no spaces: it splits
after 。！？；), word-class look-ups over the lists in ``memgate/data/statements.json``
(a Latin-script entry matches whole words, an entry with Chinese characters matches as
a substring), and the structural cues the keep classifier reads beside its character
n-grams: first person, a question, a state of the moment, a one-off request, a standing
instruction, a hypothetical, an opinion, chatter about the conversation.

>>> split_statements("Long day. I go to yoga on Thursdays! Any tips?")
['Long day.', 'I go to yoga on Thursdays!', 'Any tips?']
>>> split_statements("今天好累。我们每周四发布。好了")
['今天好累。', '我们每周四发布。', '好了']
>>> cues("I'm swamped this week.")["moment"], cues("我这周忙死了。")["moment"]
(True, True)
>>> cues("Translate this paragraph into Italian.")["one_off"]
True
>>> cues("From now on, always write comments in English.")["one_off"]
False
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cache
from importlib import resources
from typing import Any, Final

from memgate.core.memo import TextMemo
from memgate.core.text import ordinal_dots
from memgate.stages.confirm_leads import lead_end
from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.word_trie import bounded_words

__all__ = [
    "CUE_NAMES", "clean_statement", "cues", "family", "is_single_valued", "lexicon",
    "normalise_text", "rules_read", "said_of_another", "split_statements", "subject_of",
    "without_agreement_lead", "without_confirmation_leads", "word_class", "word_pattern",
]

_CJK: Final = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_RE: Final = re.compile(f"[{_CJK}]")
# after sentence punctuation and white space; after Chinese sentence punctuation; line breaks
_SPLIT_RE: Final = re.compile(r"(?<=[.!?…])\s+|(?<=[。！？；])|\n+")


def normalise_text(text: str) -> str:
    """NFKC, case-folded, typographic apostrophes made plain, white space single."""
    if text.isascii():  # NFKC leaves ASCII as it is; its casefold() is lower() (issue 14)
        return " ".join(text.lower().replace("`", "'").split())
    t = unicodedata.normalize("NFKC", text).casefold().replace("’", "'").replace("`", "'")
    return " ".join(t.split())


def split_statements(text: str) -> list[str]:
    """Split a turn into sentences; an abbreviation ("Mr.", "z.B.") does not end one."""
    out: list[str] = []
    for piece in _SPLIT_RE.split(text):
        piece = piece.strip()
        if not piece:
            continue
        if out and out[-1][-1:] == "." and _ends_with_abbrev(out[-1], piece):
            out[-1] = f"{out[-1]} {piece}"  # "z.B.", "seit dem 1. mai": no sentence ends
        else:
            out.append(piece)
    return out


def _ends_with_abbrev(sentence: str, following: str) -> bool:
    last = (sentence[:-1].rsplit(None, 1) or [""])[-1].casefold()
    day = last.isdigit() and len(last) <= 2 and bool(ordinal_dots(f"{last}. {following[:16]}"))
    return last in _abbreviations() or (len(last) == 1 and last.isalpha()) or day


@cache
def _abbreviations() -> frozenset[str]:
    """``sentence_abbreviations``: a full stop after one ends no statement ("Mr.", "z.B.")."""
    return frozenset(lexicon()["sentence_abbreviations"])


@cache
def lexicon() -> dict[str, Any]:
    raw = (resources.files("memgate") / "data" / "statements.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


def word_pattern(entries: list[str]) -> re.Pattern[str]:
    """One regex for a word class: Latin entries as whole words, Chinese ones as substrings."""
    return _pattern(entries)


def _pattern(entries: list[str]) -> re.Pattern[str]:
    entries = [normalise_text(e) for e in entries]  # "heißt" matches the case-folded "heisst"
    latin = {e for e in entries if not _CJK_RE.search(e)}
    cjk = {e for e in entries if _CJK_RE.search(e)}
    # (?<![\w'])(?:latin, longest first)(?![\w])|(?:cjk, longest first), as a prefix tree
    # (issue 14: the same matches, tests/unit/stages/test_word_trie.py)
    return re.compile(bounded_words(latin, cjk, r"[\w']", r"[\w]"))


@cache
def _matcher(name: str) -> re.Pattern[str]:
    return _pattern(list(lexicon()[name]))


def word_class(name: str) -> re.Pattern[str]:
    """The word class ``name`` of ``statements.json`` as one regex (see
    :func:`word_pattern`), compiled once per process."""
    return _matcher(name)


def _has(name: str, norm: str) -> bool:
    return _matcher(name).search(norm) is not None


def uncertain(sentence: str) -> bool:
    """The cue ``uncertain`` of :func:`cues` alone (a clause read for its doubt only)."""
    return _has("uncertain", _without_month_names(sentence))


def _starts(name: str, norm: str) -> bool:
    return _matcher(name).match(norm) is not None


_LEAD_PUNCT_RE: Final = re.compile(r"^[\s,;:¿¡\"'(«“-]+")
_Q_END_RE: Final = re.compile(r"[?？][\s\"'”)»]*$")

#: The structural cues, in the order the classifier reads them.
CUE_NAMES: Final = (
    "first_person",
    "first_person_plural",
    "question",
    "moment",
    "one_off",
    "standing",
    "hypothetical",
    "opinion",
    "chatter",
    "uncertain",
    "session_only",
    "digit",
    "named_thing",
    "cjk",
    "long",
    "social",
    "second_person",
    "anaphoric",
    "first_person_verb",
)


def _strip_request_lead(norm: str) -> str:
    rest = _LEAD_PUNCT_RE.sub("", norm)
    for _ in range(2):
        m = _matcher("request_lead").match(rest)
        if m is None:
            break
        rest = _LEAD_PUNCT_RE.sub("", rest[m.end() :])
    return rest


#: The cues of the sentences read last: triage, the moment check, the keep classifier and
#: the extractors ask about the same sentences of a turn (issue 14).
CUES_MEMO: Final[TextMemo[dict[str, bool]]] = TextMemo(1024)


def cues(sentence: str) -> dict[str, bool]:
    """The structural cues of one sentence (see :data:`CUE_NAMES`)."""
    return dict(CUES_MEMO.get(sentence, _read_cues))


def _read_cues(sentence: str) -> dict[str, bool]:
    norm = normalise_text(sentence)
    body = _LEAD_PUNCT_RE.sub("", norm)
    # a standing word inside a hypothetical opening ("si jamais": if ever) is no standing cue
    hypo = _matcher("hypothetical").match(body)
    standing = _has("standing", norm if hypo is None else body[hypo.end() :])
    question = (
        bool(_Q_END_RE.search(norm))
        or norm.startswith("¿")
        or (not norm.endswith((".", "!", "。", "！")) and _starts("question_words", body))
    )
    plural = _has("first_person_plural", norm)
    one_off = (
        not standing
        and not plural
        and _starts("task_verbs", _strip_request_lead(norm))
        and len(norm.split()) <= 14
    )
    words = sentence.split()
    first = _has("first_person_singular", norm)
    named = any(w[:1].isupper() for w in words[1:]) or bool(
        re.search(r"[A-Za-z]", sentence) and _CJK_RE.search(sentence)
    )
    return {
        "first_person": first,
        # a Spanish or Portuguese verb of the first person opens the sentence ("Treino na
        # Smart Fit"): a feature of its own, beside the pronouns of ``first_person``
        "first_person_verb": first_person_verb(body),
        "first_person_plural": plural,
        "question": question,
        "moment": _has("moment_time", norm) and _has("moment_state", norm) and not standing,
        # a disruption of the moment ("delayed", "de retard", "登机") said with a state of
        # the moment ("stuck") or a time of the moment ("mein Zug hat heute Verspätung",
        # "我现在在机场等登机"): read by triage's moment check, not a feature of the keep
        # classifier (its weights were fitted without it)
        "moment_event": _has("moment_event", norm)
        and (_has("moment_state", norm) or _has("moment_time", norm))
        and not standing,
        # a slip or breakdown of the moment ("I accidentally deleted my photos", "j'ai oublié
        # mes clés au bureau", "my battery is about to die"), said in one clause (a clause
        # joined to it may say something durable): read by the moment check only
        "mishap": _has("mishap", norm)
        and not standing
        and _CLAUSE_MARK_RE.search(norm.rstrip(" .!?。！？")) is None
        and not starts_with_correction(sentence),
        # a state of the moment with a reply said to come later ("I'm waiting for the
        # plumber, so I'll be slow to reply", ``moment_later``): read by the moment check
        # only (the keep and triage classifiers' "moment" feature is left as it was fitted)
        "moment_later": _has("moment_later", norm) and _has("moment_state", norm) and not standing,
        # a state of one of the classes of ``moment_state_classes`` (hunger, being late, a
        # meeting, the weather, waiting) said with a time of the moment or a stage of a
        # journey: read by the moment check and the extractors, no feature of the keep
        # classifier either
        "moment_class": _moment_class(norm) and not standing,
        "one_off": one_off,
        "standing": standing,
        "hypothetical": hypo is not None or (_has("hypothetical", norm) and question),
        "opinion": _has("opinion", norm),
        "chatter": _has("chatter", norm) and not starts_with_correction(sentence),
        "uncertain": uncertain(sentence),
        "session_only": _has("session_only", norm) and not standing,
        "digit": any(c.isdigit() for c in norm),
        "named_thing": named,
        "cjk": bool(_CJK_RE.search(norm)),
        "long": len(norm) > 60,
        # agreement, thanks, support, praise of the other, wishes: a short sentence only
        "social": _has("social", norm) and _word_count(norm) <= SOCIAL_MAX_WORDS,
        # a comment on something said before ("it was so much fun", "sounds great"): its
        # subject is a pronoun that only the conversation resolves
        "anaphoric": _starts("anaphoric_lead", _strip_interjections(body)),
        # the same after thanks ("merci beaucoup, c'est parfait"): read by the moment
        # check only, no feature of the keep classifier
        "thanked_comment": _thanked_comment(body),
        # about the other person only ("you're always so creative"): a second-person word
        # among the first words, no first person
        "second_person": _has("second_person", _lead_words(norm))
        and not first
        and not plural
        and not standing,
    }


@cache
def _pro_drop() -> tuple[dict[str, Any], dict[str, frozenset[str]]]:
    rule: dict[str, Any] = lexicon().get("pro_drop_first_person", {})
    sets = {
        k: frozenset(map(normalise_text, rule.get(k, ())))
        for k in ("leads", "not_verbs", "third_person_next", "context_words", "foreign_words")
    }
    sets["foreign"] = sets["foreign_words"] | frozenset(lexicon()["rule_language_words"])
    return rule, sets


def first_person_verb(body: str) -> bool:
    """Spanish or Portuguese first person singular marked on the verb alone: the first word
    of the normalised sentence (after ``leads``) has the shape of ``pro_drop_first_person``
    (statements.json: endings, exceptions, a Spanish or Portuguese function word elsewhere).

    >>> first_person_verb("juego al pádel los martes."), first_person_verb("nasci em recife.")
    (True, True)
    >>> first_person_verb("nuevo día, nuevo lunes."), first_person_verb("pedro vive en lima.")
    (False, False)
    """
    rule, sets = _pro_drop()
    if not rule:
        return False
    words = re.findall(r"[^\W\d_]+", _strip_interjections(body))
    at = 0
    while at < min(2, len(words) - 1) and words[at] in sets["leads"]:
        at += 1
    if not words or len(words) < at + 2:
        return False
    verb, rest = words[at], words[at + 1 :]
    shaped = len(verb) >= int(rule["min_length"]) and any(
        verb.endswith(e) and (e != "o" or verb[-2] not in rule["not_before_o"])
        for e in rule["endings"]
    )
    return (
        shaped
        and verb not in sets["not_verbs"]
        and not verb.endswith(tuple(rule["not_endings"]))
        and rest[0] not in sets["third_person_next"]
        and any(w in sets["context_words"] for w in rest)
        and not any(w in sets["foreign"] for w in words)
    )


_CLAUSE_MARK_RE: Final = re.compile(
    r"[,;:，；：]|\s(?:and|but|so|und|aber|et|mais|donc|y|pero|e|mas|então)\s|然后|而且|所以"
)

#: A sentence longer than this (words; Chinese characters count two to a word) is not
#: taken for a social formula even when it holds one.
SOCIAL_MAX_WORDS: Final = 16


_INTERJECTION_RE: Final = re.compile(
    r"^(?:(?:wow|oh|ooh|yeah|yes|yep|haha\w*|lol|aw+|omg|hey|well|and|but|so|ok|okay|oui|ja|"
    r"sí|sim|ah|hmm|还有|哇|嗯|哈哈)[\s,!.，！]+)+"
)


def _without_month_names(sentence: str) -> str:
    """The normalised sentence with the month names that are also words of doubt taken
    out (``month_homographs``: English "May"): one after a word of ``month_leads`` ("in
    May", "since May"), before a number ("May 3"), or capitalised inside the sentence.

    >>> _without_month_names("He took over in May, so he's my boss now")
    "he took over in , so he's my boss now"
    >>> _without_month_names("I may move to Oslo"), _without_month_names("May I ask?")
    ('i may move to oslo', 'may i ask?')
    """
    lex = lexicon()
    months = lex.get("month_homographs", ())
    if not months:
        return normalise_text(sentence)
    leads = set(lex.get("month_leads", ()))
    alt = "|".join(re.escape(m) for m in months)
    out: list[str] = []
    pos = 0
    for m in re.finditer(rf"(?i)(?<!\w)(?:{alt})(?!\w)", sentence):
        before = sentence[: m.start()].split()
        after = sentence[m.end() :].lstrip()
        month = (
            (before and before[-1].lower().strip(",") in leads)
            or after[:1].isdigit()
            or (m.start() > 0 and m.group(0)[:1].isupper() and bool(before))
        )
        if month:
            out += [sentence[pos : m.start()]]
            pos = m.end()
    out.append(sentence[pos:])
    return normalise_text("".join(out))


def _alternation(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


@cache
def _persons() -> str:
    raw = (resources.files("memgate") / "data" / "paraphrase.json").read_text("utf-8")
    return _alternation([w for ws in json.loads(raw)["persons"].values() for w in ws])


@cache
def _person_re() -> re.Pattern[str]:
    """A person's noun at the start ("irmã mudou-se ...": ``persons`` of paraphrase.json)."""
    return re.compile(rf"(?:{_persons()})(?!\w)")


@cache
def _reported_re(verbs_key: str = "saying_verbs") -> re.Pattern[str]:
    """Another person of the speaker (a possessive lead, at most two words, a person noun,
    at most two words), then a verb of ``verbs_key``."""
    lex = lexicon()
    leads = "|".join(re.escape(w) for w in lex["possessive_lead"])
    says = _alternation(list(lex.get(verbs_key, ())))
    word = r"[^\s,;:]+"
    return re.compile(
        rf"^(?:(?:one|some|a few|several) of )?(?:{leads})\s*(?:{word}\s+){{0,2}}?"
        rf"(?:{_persons()})\w{{0,2}}(?:,?\s+{word}){{0,2}}?,?\s*(?:{says})(?!\w)"
    )


@cache
def _attributed_re() -> re.Pattern[str]:
    """An attribution lead, then a person noun within three words ("laut meiner Chefin")."""
    word = r"[^\s,;:]+"
    leads = _alternation(list(lexicon().get("attribution_leads", ())))
    if not leads:
        return re.compile(r"(?!x)x")
    return re.compile(rf"^(?:{leads})\s+(?:{word}\s+){{0,2}}?(?:{_persons()})\w{{0,2}}(?!\w)")


def hedged(sentence: str) -> bool:
    """The sentence opens with a hedge (``hedge_leads``: "ich glaube, ...", "je crois que",
    "我好像") or holds a Chinese adverb of seeming (``hedge_adverbs``: "我们的数据库好像是"):
    what it says is believed, not stated.

    >>> hedged("Ich glaube, wir nutzen Terraform."), hedged("我好像是用安卓手机的。")
    (True, True)
    >>> hedged("We use Terraform, I think."), hedged("I thinkpad daily")
    (False, False)
    """
    body = _strip_interjections(_LEAD_PUNCT_RE.sub("", normalise_text(sentence)))
    # a Chinese adverb of seeming stands inside the clause ("我们的数据库好像是 ...")
    if any(a in body for a in lexicon().get("hedge_adverbs", ())):
        return True
    for lead in map(normalise_text, lexicon().get("hedge_leads", ())):
        after = body[len(lead) : len(lead) + 1]
        if body.startswith(lead) and (
            _CJK_RE.search(lead) or lead.endswith("'") or after in ("", " ", ",")
        ):
            return True
    return False


def reported_speech(sentence: str) -> bool:
    """Another person of the speaker says, thinks or claims something: "my colleague Tom
    swears by Emacs", "Meine Mutter meint, ich sollte ...", "mon collègue dit que ..."
    (``saying_verbs`` of statements.json, ``persons`` of paraphrase.json).

    >>> reported_speech("My colleague Tom swears by Emacs"), reported_speech("My dad says hi")
    (True, True)
    >>> reported_speech("My colleague Tom uses Emacs"), reported_speech("I said no")
    (False, False)
    """
    body = _strip_interjections(_LEAD_PUNCT_RE.sub("", normalise_text(sentence)))
    return _reported_re().match(body) is not None


def said_of_another(sentence: str) -> bool:
    """What another person of the speaker says (:func:`reported_speech`, or said after an
    attribution lead: "Laut meiner Chefin ...", "según mi jefe ...") or plans
    (``intention_verbs``: "Meine Schwester will im Sommer umziehen", "my friend wants to
    ..."): no fact of the speaker's.

    >>> said_of_another("Laut meiner Chefin sollen wir bis Freitag fertig sein.")
    True
    >>> said_of_another("Mi hermano quiere abrir un bar."), said_of_another("My sister is a vet")
    (True, False)
    >>> said_of_another("Mein Kollege meinte, das sei zu teuer."), said_of_another("Laut lachen")
    (True, False)
    """
    body = _strip_interjections(_LEAD_PUNCT_RE.sub("", normalise_text(sentence)))
    return (
        _reported_re().match(body) is not None
        or _reported_re("intention_verbs").match(body) is not None
        or _attributed_re().match(body) is not None
    )


@cache
def _language_words() -> tuple[frozenset[str], frozenset[str]]:
    lex = lexicon()
    return frozenset(lex["rule_language_words"]), frozenset(lex["other_language_words"])


def rules_read(text: str) -> bool:
    """Whether the rule extractor, which reads English, reads this text: more English
    function words than German, French, Spanish or Portuguese ones, and not mostly Chinese
    (``rule_language_words``, ``other_language_words``).

    >>> rules_read("Sorry, long day. We run all our batch jobs on Airflow.")
    True
    >>> rules_read("Puh, endlich Feierabend. Ich wohne übrigens in Darmstadt.")
    False
    >>> rules_read("刚开完会。我们的代码都放在GitLab上。"), rules_read("Ok!")
    (False, True)
    """
    norm = normalise_text(text)
    words = re.findall(r"[^\W\d_]+(?:'[^\W\d_]*)?", norm)
    latin = [w for w in words if not _CJK_RE.search(w)]
    if len(_CJK_RE.findall(norm)) > 2 * len(latin):
        return False
    english, other = _language_words()
    return sum(w in english for w in latin) >= sum(w in other for w in latin)


def _strip_interjections(body: str) -> str:
    return _INTERJECTION_RE.sub("", body)


@cache
def _class_matcher() -> re.Pattern[str]:
    classes: dict[str, list[str]] = lexicon().get("moment_state_classes", {})
    return _pattern([w for ws in classes.values() for w in ws])


def _moment_class(norm: str) -> bool:
    """A state of a class of the moment with a time of the moment or a stage of a journey
    under way ("I'm starving today", "esperando el embarque").

    >>> _moment_class("je suis en réunion jusqu'à 15h"), _moment_class("we meet in meetings")
    (True, False)
    """
    # a place of an errand ("beim Friseur", "no dentista"), unless the speaker works there
    place = _has("moment_places", norm) and not _has("work_verbs", norm)
    if _class_matcher().search(norm) is None and not place:
        return False
    return _has("moment_time", norm) or _has("moment_event", norm) or _has("moment_later", norm)


_THANKS_SEP_RE: Final = re.compile(r"^[\s,!.，！]+")


def _thanked_comment(body: str) -> bool:
    """Thanks, then a comment on what was said ("merci beaucoup, c'est parfait").

    >>> _thanked_comment("merci beaucoup, c'est parfait !"), _thanked_comment("thanks, i moved")
    (True, False)
    """
    lead = _strip_interjections(body)
    m = _matcher("thanks_leads").match(lead)
    if m is None:
        return False
    rest = _THANKS_SEP_RE.sub("", lead[m.end() :])
    return bool(rest) and _starts("anaphoric_lead", _strip_interjections(rest))


def _lead_words(norm: str, n: int = 4) -> str:
    """The first ``n`` words (Chinese: the first ``2 n`` characters) of a normalised sentence."""
    if _CJK_RE.search(norm[:2]):
        return norm[: 2 * n]
    return " ".join(norm.split()[:n])


def _word_count(norm: str) -> int:
    return len(norm.split()) + len(_CJK_RE.findall(norm)) // 2


def clean_statement(sentence: str) -> str:
    """The sentence as a statement: discourse openers ("anyway", "by the way") and the
    closing punctuation cut; everything else, the whole value included, kept.

    >>> clean_statement("Oh and for the record I'm allergic to penicillin.")
    "I'm allergic to penicillin"
    >>> clean_statement("顺便说一下，我们每周四发布。")
    '我们每周四发布'
    """
    s = without_agreement_lead(sentence.strip())
    for _ in range(3):
        m = _matcher("discourse_lead").match(s.casefold())
        if m is None:
            break
        rest = s[m.end() :]
        # "and" in "Andes": a lead must be followed by a pause or a space
        if (
            not re.match(r"^[\s,:;，：]", rest)
            and not _CJK_RE.search(m.group(0))
            and rest[:1].isalnum()
        ):
            break
        s = re.sub(r"^[\s,:;，：、]+", "", rest)
    end = lead_end(s, _confirmation_re())
    if end is not None and s[end:].strip():
        s = s[end:].strip()  # "Double-checked: ..." says how the speaker knows
    s = re.sub(r"[\s.!。！…;；,，]+$", "", s)
    return s or sentence.strip()


_AGREEMENT_PAUSE_RE: Final = re.compile(r"^\s*[,:;，：、!！.。—–-]")


def without_agreement_lead(sentence: str) -> str:
    """The sentence without an opening of agreement before a pause (``agreement_lead``:
    "Isso mesmo,", "Oui voilà,", "Genau,", "没错，"): the speaker agrees and says the fact
    again, and the fact is what follows.

    >>> without_agreement_lead("Isso mesmo, continuo usando o VS Code como editor.")
    'continuo usando o VS Code como editor.'
    >>> without_agreement_lead("没错，我们用飞书。"), without_agreement_lead("Yesterday I left.")
    ('我们用飞书。', 'Yesterday I left.')
    """
    s = sentence.strip()
    low = s.casefold()
    m = _matcher("agreement_lead").match(low) if len(low) == len(s) else None
    if m is None or not _AGREEMENT_PAUSE_RE.match(s[m.end() :]):
        return s  # "Yes" must stand apart: "Yesterday", "Sim Card", "对面" are no agreement
    rest = re.sub(r"^[\s,:;，：、!！.。—–-]+", "", s[m.end() :])
    return rest if rest.strip() else s


@cache
def _confirmation_re() -> re.Pattern[str]:
    """A ``confirmation_lead``, then a colon or a comma; a short phrase opened by one of
    ``confirmation_lead_links`` may stand between ("Confirmed with the team:")."""
    lead = _matcher("confirmation_lead").pattern
    link = _matcher("confirmation_lead_links").pattern
    return re.compile(
        rf"^(?:{lead})(?:\s+(?:{link})(?:\s+[^\s,:;，：]+){{0,3}})?\s*[:,;，：—–-]\s*"
    )


def without_confirmation_leads(text: str) -> tuple[str, bool]:
    """The turn with each sentence's confirmation opening cut (``confirmation_lead``:
    "Double-checked:", "确认过了，"; or one read by its shape: :mod:`.confirm_leads`), and
    whether one was cut: the speaker says they checked what follows, so the turn confirms
    what it states.

    >>> without_confirmation_leads("Confirmed with the team: the services run on Node 18.")
    ('the services run on Node 18.', True)
    >>> without_confirmation_leads("确认过了，脚本是用Python跑的。")
    ('脚本是用Python跑的。', True)
    >>> without_confirmation_leads("Checked the logs and found nothing.")
    ('Checked the logs and found nothing.', False)
    >>> without_confirmation_leads("Checked out the library there, it was cool.")[1]
    False

    The opening is read after an opening of agreement (``agreement_lead``: "Oui,", "Yes,",
    "是的，"): the speaker agrees, then says it was checked.

    >>> without_confirmation_leads("Oui, c'est confirmé : mon vol part à 9h.")
    ('mon vol part à 9h.', True)
    """
    out: list[str] = []
    found = False
    for sentence in split_statements(text):
        said = without_agreement_lead(sentence)
        end = lead_end(said, _confirmation_re())
        rest = said[end:].strip() if end is not None else ""
        if rest:
            out.append(rest)
            found = True
        else:
            out.append(sentence)
    return (" ".join(out), True) if found else (text, False)


def subject_of(statement: str) -> str:
    """Who or what the statement is about: ``user``, ``team``, ``user's dog``, or the
    leading noun phrase of a statement about a thing ("checkout service").

    >>> subject_of("My sister lives in Lisbon"), subject_of("We settled on Kafka")
    ("user's sister", 'team')
    >>> subject_of("The checkout service is written in Go"), subject_of("Our team uses Jira")
    ('checkout service', 'team')
    >>> subject_of("Nos casamos en Granada"), subject_of("Nos enfants sont à Nantes")
    ('team', "team's enfants")
    >>> subject_of("我们用Jenkins做持续集成"), subject_of("我和我们团队都用Slack")
    ('team', 'user')
    >>> subject_of("Ahora la base de datos es PostgreSQL"), subject_of("Now the team uses Linear")
    ('base de datos', 'team')
    """
    norm = _without_time_lead(normalise_text(statement))
    lead = _matcher("possessive_lead").match(norm)
    if lead is not None and " " in lead.group(0).strip():
        # an article and a possessive before a person ("a minha irmã"); before a thing
        # ("a nossa casa fica em Aveiro") the speaker's own slot, read as before
        lead = lead if _person_re().match(norm[lead.end() :].lstrip()) else None
    if lead is not None:
        owner = "team" if _has("first_person_plural", lead.group(0)) else "user"
        rest = norm[lead.end() :].lstrip()
        first = rest.split(" ", 1)[0]
        if first.endswith(tuple(lexicon().get("pronoun_verb_endings", ()))):
            return owner  # "nos mudamos": a pronoun before a verb, not "our mudamos"
        noun = _noun_phrase(rest)
        # "our team uses Jira" is about the team itself, not about "team's team"
        return f"{owner}'s {noun}" if noun and noun != owner else owner
    we = _matcher("first_person_plural")
    # "我" is inside "我们": the singular is looked for outside the plural's words
    if we.search(norm) and not _has("first_person_singular", we.sub(" ", norm)):
        return "team"
    if _has("first_person_singular", norm):
        return "user"
    if norm.startswith("on ") and norm[3:].split(" ")[0] in lexicon()["plural_openers"]["on"]:
        return "team"  # "on a l'offre Pro": French 'on' before a verb is the speaker's 'we'
    if norm.split(" ", 1)[0] in lexicon()["pro_drop_first_person"].get("irregular", ()):
        return "user"  # "(ahora los sábados) voy a clases ...": a verb of the speaker
    noun = _noun_phrase(norm)
    if noun and _CJK_RE.search(noun) and (
        LEXICON.has_change_cue(noun) or LEXICON.family_of("statement", noun)[0] is not None
    ):
        noun = ""  # "三月底搬到苏州了": a clause with no subject (Chinese drops "我")
    if noun and _matcher("team_nouns").fullmatch(noun):
        return "team"  # "a equipe só usa o Discord": the team itself
    if noun:
        return noun
    # no pronoun (Spanish, Portuguese): a first-person plural verb says "we"
    # ("todo el frontend lo escribimos en TypeScript")
    plural = tuple(lexicon().get("pronoun_verb_endings", ()))
    if plural and any(len(w) > 5 and w.endswith(plural) for w in re.findall(r"\w+", norm)):
        return "team"
    return "user"


def _without_time_lead(norm: str) -> str:
    """The normalised sentence without a word of the present that opens it before its
    subject ("ahora la base de datos ...", "现在我们用 ..."; ``subject_time_leads``), and
    without a phrase of a recurring time before it ("aos sábados é ...": ``habit_times``)."""
    for name in ("subject_time_leads", "habit_times", "habit_times"):
        m = _matcher(name).match(norm)
        if m is None:
            continue
        rest = norm[m.end() :]
        if not _CJK_RE.search(m.group(0)) and rest[:1].isalnum():
            continue
        norm = re.sub(r"^[\s,:;，：、]+", "", rest) or norm
    return norm


def _noun_phrase(text: str) -> str:
    """The words before the clause's verb, its subject; the verb is one of ``verbs``, or
    the first word after the subject's first word that is one of ``clause_adverbs`` or an
    English past form ("my sister just moved", "my sister moved": ``sister``).

    >>> _noun_phrase("sister just moved to glasgow"), _noun_phrase("brother relocated to oslo")
    ('sister', 'brother')
    >>> _noun_phrase("car is a toyota"), _noun_phrase("moved to berlin")
    ('car', '')
    """
    verb = _matcher("verbs").search(text)
    end = verb.start() if verb is not None else -1
    if end > 0 and text[end - 1] == "-":
        end = text.rfind(" ", 0, end) + 1  # "mudou-se": the pronoun joined to its verb
    adverbs = set(lexicon().get("clause_adverbs", ()))
    at = 0
    for i, m in enumerate(re.finditer(r"[\w'-]+", text)):
        if end >= 0 and m.start() >= end:
            break
        w = m.group(0)
        if i > 0 and (w in adverbs or (len(w) > 4 and w.endswith("ed") and w.isascii())):
            end = at
            break
        at = m.end()
    head = text[:end] if end >= 0 else ""
    head = re.sub(r"[^\w\s'-]", " ", head)
    words = [w for w in head.split() if w not in set(lexicon()["articles"])]
    if not words or len(words) > 4:
        return ""
    return " ".join(words)[:60]


def family(statement: str) -> str:
    """The predicate family of a statement from the word lists, ``statement`` otherwise.

    A subject pronoun after the verb (German verb-second: "seit März arbeite ich bei")
    is read in the plain order; a phrase of ``named_phrases`` ("call me", "joined") counts
    only when a name follows it.

    >>> family("I moved to Denver last month"), family("Ich ernähre mich vegan")
    ('lives_in', 'diet')
    >>> family("Seit März arbeite ich bei Bosch"), family("I joined a gym")
    ('works_at', 'statement')
    """
    norm = normalise_text(statement)
    lex = lexicon()
    inverted = [w for w in lex.get("inverted_subjects", ())]
    if inverted:
        alt = "|".join(re.escape(w) for w in inverted)
        plain = re.sub(rf"(?<=\w) (?:{alt})(?= \w)", "", norm)
    else:
        plain = norm
    named = set(lex.get("named_phrases", ()))
    for name, _words in lex["families"]:
        for text in (norm, plain) if plain != norm else (norm,):
            m = _family_matcher(name).search(text)
            if m is None:
                continue
            if m.group(0).strip() in named and not _names_someone(statement, m.group(0)):
                continue  # "call me every Friday": a time, not a name
            return str(name)
    return "statement"


def _names_someone(statement: str, phrase: str) -> bool:
    """In a statement whose writer uses capitals, the word after a naming phrase is
    capitalised (or not Latin): "call me Jon" names, "call me every Friday" does not."""
    low = statement.lower()
    at = low.find(phrase.strip())
    if at < 0 or len(low) != len(statement):
        return True
    nxt = statement[at + len(phrase.strip()) :].lstrip(" ,:")
    first = nxt.split(" ", 1)[0].lower()
    if first in set(lexicon()["articles"]) or first in set(lexicon().get("object_pronouns", ())):
        return False  # "joined a gym", "joined the call", "je suis chez le dentiste, chez moi"
    if not any(ch.isupper() for ch in statement[1:]):
        return True  # a writer who uses no capitals: nothing to read from case
    return not nxt or not nxt[0].isalpha() or not nxt[0].islower()


@cache
def _family_matcher(name: str) -> re.Pattern[str]:
    for fam, words in lexicon()["families"]:
        if fam == name:
            return _pattern(list(words))
    raise KeyError(name)


def is_single_valued(predicate: str) -> bool:
    return predicate in set(lexicon()["single_valued_families"])


def starts_with_correction(statement: str) -> bool:
    return _starts("correction_lead", _LEAD_PUNCT_RE.sub("", normalise_text(statement)))
