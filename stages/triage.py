"""Triage: decide in microseconds whether a turn is worth an extraction.

No model call, only precompiled regexes and set look-ups. Every verdict comes
with a named reason (a :class:`TriageReason`), so drop rates can be counted
per reason and the journal says why a turn was skipped. A dropped turn is not
lost: it still goes to the journal, where a better extractor can revisit it.

The checks run in this order; the first that applies decides:

==========================  =====  ==================================================
reason                      verdict  when
==========================  =====  ==================================================
``system_or_tool_role``     drop   the role is in ``policy.skip_roles``
``assistant_turn``          drop   an assistant turn and ``keep_assistant`` is off
``empty``                   drop   nothing but white space
``filler``                  drop   every sentence is filler ("ok", "thanks, got it!",
                                   "Wow, that's great!", emoji only, "merci", "vale")
``clarification_request``   drop   "what do you mean?", "can you explain that again?"
``memory_signal``           keep   "remember", "from now on", "I always", "I prefer",
                                   "my ... is", "ab jetzt", "je préfère", "prefiero"...
``too_short``               drop   fewer than ``min_chars`` characters or ``min_words``
                                   words
``question_only``           drop   only questions (after filler), no first-person
                                   statement in them
``unreal``                  drop   every content sentence states no fact of the speaker's
                                   world: fiction, irrealis, irony, a stranger's words
                                   (:mod:`memgate.stages.unreal`)
``nothing_durable``         drop   no sentence the durable-sentence classifier
                                   (:mod:`memgate.stages.triage_model`) scores at its
                                   threshold: a problem being debugged, what a friend
                                   said, a reaction to the other person
``first_person_statement``  keep   a sentence in which the speaker says something
                                   about themselves (or "we")
``substantive``             keep   anything else long enough
==========================  =====  ==================================================

>>> from memgate.core.events import TurnEvent
>>> def turn(text: str, role: str = "user") -> TurnEvent:
...     return TurnEvent(tenant_id="t", user_id="u", session_id="s", turn_id="1",
...                      role=role, content=text, ts="2024-05-01T10:00:00Z")
>>> triage(turn("thanks, got it!"))
(<TriageVerdict.DROP: 'drop'>, <TriageReason.FILLER: 'filler'>)
>>> triage(turn("Can you remember that I'm vegan?"))
(<TriageVerdict.KEEP: 'keep'>, <TriageReason.MEMORY_SIGNAL: 'memory_signal'>)
>>> triage(turn("What's the capital of Peru?"))
(<TriageVerdict.DROP: 'drop'>, <TriageReason.QUESTION_ONLY: 'question_only'>)
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Final

from memgate.core.events import Role, TriageVerdict, TurnEvent
from memgate.core.text import is_question, split_sentences
from memgate.stages.clauses import after_lead, asked_after, lead_clause
from memgate.stages.durable_frame import durable_own, hedged_fact, sets_a_slot
from memgate.stages.moment import moment_reason, request_material, split_statements
from memgate.stages.reference_topics import says_own_error
from memgate.stages.references import find_references
from memgate.stages.repeats import cut_marker, without_tag
from memgate.stages.statement_text import lexicon, without_confirmation_leads
from memgate.stages.triage_model import TriageModel
from memgate.stages.unreal import standing_condition

__all__ = [
    "DEFAULT_FILLER",
    "TriagePolicy",
    "TriageReason",
    "content_sentences",
    "is_filler_sentence",
    "triage",
]


class TriageReason(StrEnum):
    """Every reason triage can give. Drop reasons first, then keep reasons."""

    SYSTEM_OR_TOOL_ROLE = "system_or_tool_role"
    ASSISTANT_TURN = "assistant_turn"
    EMPTY = "empty"
    FILLER = "filler"
    CLARIFICATION_REQUEST = "clarification_request"
    TOO_SHORT = "too_short"
    QUESTION_ONLY = "question_only"
    MOMENT = "moment"
    ONE_OFF_REQUEST = "one_off_request"
    CHATTER = "chatter"
    UNREAL = "unreal"
    NOTHING_DURABLE = "nothing_durable"
    MEMORY_SIGNAL = "memory_signal"
    FIRST_PERSON_STATEMENT = "first_person_statement"
    SUBSTANTIVE = "substantive"


# Whole sentences (normalised: lower case, no punctuation, single spaces) that
# carry nothing durable. English first, then German, French and Spanish.
DEFAULT_FILLER: frozenset[str] = frozenset(
    {
        # acknowledgements
        "ok", "okay", "k", "kk", "okey", "okie", "ok ok", "okay okay", "alright", "all right",
        "yes", "yeah", "yep", "yup", "yea", "ya", "sure", "sure thing", "of course", "no",
        "nope", "nah", "no problem", "no worries", "np", "fine", "good", "great", "cool",
        "nice", "neat", "awesome", "perfect", "excellent", "amazing", "wonderful", "sweet",
        "right", "exactly", "indeed", "true", "correct", "agreed", "totally", "absolutely",
        "definitely", "makes sense", "that makes sense", "fair enough", "got it", "gotcha",
        "understood", "i see", "i understand", "noted", "roger", "roger that", "will do",
        "sounds good", "sounds great", "sounds fun", "sounds cool", "sounds nice",
        "sounds awesome", "sounds amazing", "sounds like a plan", "that sounds good",
        "that sounds great", "that sounds awesome", "that sounds amazing", "that sounds fun",
        "thats great", "thats awesome", "thats cool", "thats nice", "thats amazing",
        "thats good", "thats fine", "thats ok", "thats okay", "thats right", "thats true",
        "thats so cool", "thats so sweet", "thats wonderful", "thats fantastic",
        "thats great to hear", "good to know", "good to hear", "glad to hear it",
        "glad to hear that", "nice one", "well done", "good job", "great job", "way to go",
        "congrats", "congratulations", "wow", "whoa", "woah", "oh", "oh wow", "oh nice",
        "ah", "aha", "ahh", "hmm", "hm", "huh", "um", "uh", "lol", "lmao", "rofl", "haha",
        "hahaha", "hehe", "xd", "omg", "yay", "yikes", "oops", "aww", "awww", "cheers",
        "bye", "goodbye", "bye bye", "bye for now", "see you", "see ya", "see you soon",
        "see you later", "talk soon", "talk to you soon", "talk to you later", "take care",
        "later", "ttyl", "good night", "goodnight", "good morning", "good evening",
        "have a good one", "have a nice day", "have a great day", "hi", "hello", "hey",
        "hey there", "hi there", "hello there", "hi again", "hello again", "hey again",
        "yo", "sup", "whats up", "how are you",
        "how are you doing", "hows it going", "how r u", "thanks", "thank you", "thx",
        "ty", "tysm", "thanks a lot", "thank you so much", "thanks so much",
        "thanks again", "many thanks", "much appreciated", "appreciate it",
        "i appreciate it", "you too", "same to you", "same here", "me too", "you rock",
        "thanks for the help", "thanks for your help", "thank you for your help",
        "can you repeat that", "could you repeat that", "say that again", "repeat that",
        "please repeat", "never mind", "nevermind", "nvm", "whatever", "go on",
        "continue", "go ahead", "next", "done", "stop", "wait", "sorry", "my bad",
        "no thanks", "no thank you", "ok thanks", "okay thanks", "ok thank you",
        "thanks got it", "got it thanks", "perfect thanks", "great thanks", "cool thanks",
        "nice thanks", "ok cool", "ok great", "ok got it", "ok sounds good",
        "im good", "im fine", "im ok", "im okay", "im doing well", "im doing good",
        "im doing great", "not much", "not bad", "all good", "love it", "love that",
        "i love it", "i love that", "i like it", "i like that", "i agree", "me neither",
        "i know right", "i know", "i hope so", "i think so", "i guess so", "i dont know",
        "no idea", "keep it up", "keep going", "good luck", "you got this", "lets do it",
        # German
        "danke", "danke schön", "danke schon", "dankeschön", "vielen dank", "danke sehr",
        "bitte", "bitte schön", "ja", "nein", "genau", "alles klar", "klar", "gut",
        "super", "prima", "toll", "passt", "okay danke", "ok danke", "verstanden",
        "stimmt", "hallo", "hallo nochmal", "hallo nochmals", "hallo wieder",
        "tschüss", "tschüs", "bis dann", "bis später",
        "guten morgen", "guten tag", "gute nacht", "wiederholen", "wie bitte",
        # French
        "merci", "merci beaucoup", "merci bien", "oui", "non", "daccord", "dac", "ok merci",
        "parfait", "super merci", "bien sûr", "bien sur", "génial", "genial", "cool merci",
        "bonjour", "salut", "re bonjour", "rebonjour", "re salut",
        "bonsoir", "au revoir", "à plus", "a plus", "bonne nuit",
        "entendu", "compris", "très bien", "tres bien", "ça marche", "ca marche",
        "pas de problème", "de rien", "voilà", "voila",
        # Spanish
        "gracias", "muchas gracias", "mil gracias", "vale", "sí", "si", "claro",
        "de acuerdo", "perfecto", "bueno", "bien", "muy bien", "entendido",
        "hola", "hola de nuevo", "hola otra vez",
        "adiós", "adios", "hasta luego", "buenos días", "buenos dias",
        "buenas noches", "buenas tardes", "de nada", "ok gracias", "vale gracias",
        "sin problema", "listo", "dale",
        # Portuguese
        "obrigado", "obrigada", "muito obrigado", "muito obrigada", "valeu", "tudo bem",
        "tá bom", "ta bom", "está bem", "beleza", "certo", "entendi", "combinado",
        "perfeito", "ótimo", "otimo", "legal", "sim", "não", "nao", "olá", "ola", "oi",
        "tchau", "até logo", "ate logo", "até mais", "ate mais", "bom dia", "boa tarde",
        "boa noite", "ok obrigado", "ok obrigada",
    }
)

# A reaction sentence: an interjection or "that's great"-style comment on what
# the other person said, carrying nothing about the speaker.
_REACTION_RE = re.compile(
    r"^(?:(?:wow|whoa|woah|oh|ooh|aw+|omg|yay|haha\w*|lol|hey|hi|hello|yes|yeah|yep|"
    r"sure|ok|okay|thanks|thank you|cool|nice|great|awesome|amazing|congrats|"
    r"congratulations|cheers|sounds \w+|no way|ha|ah|hmm|right|totally|absolutely|"
    r"definitely|well done|good job|way to go|so true|true|exactly)\b[\s,!.]*)+"
    r"(?:(?:that'?s|that is|that sounds|this is|it'?s|it is|sounds|looks|you'?re|"
    r"you are|what an?|so|how|such an?)\s+)?"
    r"(?:(?:so|really|very|super|pretty|totally|absolutely|just)\s+)?"
    r"(?:great|awesome|amazing|cool|nice|wonderful|fantastic|incredible|lovely|sweet|"
    r"beautiful|impressive|exciting|fun|good|inspiring|adorable|cute|neat|brilliant|"
    r"a great idea|a good idea|great news|good news|to hear|to hear that|awesome news|"
    r"stunning|gorgeous|hilarious|funny|interesting|wild|crazy|the best|"
    r"right|true|fair|kind|sweet of you|kind of you)?"
    r"(?:\s+(?:to hear|news|idea|work|job|stuff|pic|photo|picture|one|of you))?"
    r"(?:[\s,!.]*(?:[A-Z][a-z]+|buddy|man|dude|mate|friend|pal))?[\s,!.]*$",
    re.IGNORECASE,
)

_PUNCT_RE = re.compile(r"[^\w\s]+", re.UNICODE)
_WS_RE = re.compile(r"\s+")
_ALNUM_RE = re.compile(r"\w", re.UNICODE)
_WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
# Chinese has no spaces: each character counts as a word for ``min_words``
_CJK_CHAR_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
def _clauses(sentence: str) -> list[str]:
    """The sentence, and the clauses of it judged beside it (memgate.stages.clauses)."""
    asked = asked_after(sentence)
    # a repeat marker is discourse ("como te dije, ..."): the clause after it is judged too
    out = [sentence, after_lead(sentence), asked[0] if len(asked) > 1 else ""]
    out.append(cut_marker(sentence) or "")
    return [c for c in dict.fromkeys(out) if c]


# "what do you mean?" and friends: the turn only asks the assistant to clarify.
_CLARIFY_RE = re.compile(
    r"^(?:sorry[,.]?\s*|um+[,.]?\s*|uh+[,.]?\s*|wait[,.]?\s*|hm+[,.]?\s*|huh[,.]?\s*)*"
    r"(?:what do you mean(?: by (?:that|this|it))?|what did you mean(?: by (?:that|this|it))?|"
    r"what does (?:that|this|it) mean|what(?:'s| is) that supposed to mean|"
    r"(?:can|could|would) you (?:please )?(?:explain|clarify|rephrase|elaborate(?: on)?)"
    r"(?: (?:that|this|it|what you mean|what you said))?(?: again| more| a bit(?: more)?)?"
    r"(?: please)?|"
    r"(?:please )?(?:explain|clarify|rephrase) (?:that|this|it)(?: again)?(?: please)?|"
    r"i don'?t (?:understand|get it|follow)(?: what you mean)?|i'?m (?:confused|lost)|"
    r"come again|pardon(?: me)?|excuse me|what\?*|say what|"
    r"was meinst du(?: damit)?|was meinen sie(?: damit)?|wie meinst du das|"
    r"kannst du das (?:nochmal |noch einmal )?erklären|ich verstehe (?:das )?nicht|"
    r"qu'?est-ce que (?:tu veux|vous voulez) dire|c'?est-à-dire|"
    r"(?:tu peux|pouvez-vous) (?:réexpliquer|expliquer|clarifier)(?: (?:ça|cela))?|"
    r"je ne comprends pas|"
    r"¿?qué quieres decir|¿?(?:puedes|podrías) explicar(?:lo|me)?(?: (?:eso|otra vez|de nuevo))*|"
    r"no entiendo|"
    r"o que (?:você quer|voce quer|queres) dizer|não entendi|nao entendi|não entendo|"
    r"(?:pode|podes|poderia) (?:explicar|repetir)(?: (?:isso|de novo|outra vez))*)"
    r"[\s?!.¿]*$",
    re.IGNORECASE,
)

# Signals that the speaker wants something remembered or states a standing
# preference. Kept even when short.
# Both patterns below are matched against the lower-cased text and compiled
# without re.IGNORECASE: case-insensitive literals defeat the regex engine's
# first-character check, which made these two searches ~10x slower.
_MEMORY_SIGNAL_RE = re.compile(
    r"\b(?:remember|don'?t forget|keep in mind|make a note|note that|for the record|"
    r"from now on|going forward|in (?:the )?future|starting (?:now|today)|"
    r"i (?:always|never|usually|generally|prefer|would rather|hate|love|dislike)|"
    r"i'd rather|i'd prefer|"
    r"my (?:name|favou?rite|preferred|pronouns|timezone|time zone|birthday|job|role|"
    r"title|wife|husband|partner|editor|stack|team|company|\w+'s name)\b|"
    r"(?:always|never) (?:use|answer|reply|respond|write|suggest|recommend|format|"
    r"include|call|address|add|avoid|show|give|explain|mention)|"
    r"merk dir|merken sie sich|denk daran|denken sie daran|ab jetzt|ab sofort|"
    r"von nun an|in zukunft|künftig|ich bevorzuge|mein name ist|ich heiße|"
    r"souviens-toi|rappelle-toi|retiens|n'oublie pas|à partir de maintenant|"
    r"a partir de maintenant|désormais|dorénavant|je préfère|je m'appelle|"
    r"recuerda|no olvides|a partir de ahora|de ahora en adelante|desde ahora|"
    r"prefiero|me llamo|mi nombre es|"
    r"lembre-se|lembra-te|não esqueça|nao esqueca|a partir de agora|daqui para frente|"
    r"de agora em diante|eu prefiro|prefiro|meu nome é|me chamo)\b",
    )

# First person, as subject of a statement. Checked with the word before it
# (_PREV_WORD_RE) so that inverted questions ("can I", "should we") do not count.
_FIRST_PERSON_RE = re.compile(
    r"\b(?P<fp>i|i'm|im|i've|i'd|i'll|me|my|mine|we|we're|"
    r"we've|our|ours|ich|mein|meine|meinen|meinem|meiner|wir|unser|unsere|je|j'\w+|"
    r"moi|mon|ma|mes|nous|notre|nos|yo|mi|mis|nosotros|nosotras|nuestro|nuestra|"
    r"me gusta|me encanta|trabajo|vivo|tengo|soy|estoy|prefiero|uso|hablo|"
    r"eu|meu|minha|meus|minhas|nós|nosso|nossa|moro|trabalho|tenho|sou|estou|falo)\b"
)
_PREV_WORD_RE = re.compile(r"([\w'’]+)[\s,]+$")
_CHUNK_SPLIT_RE = re.compile(r"[,;:!.]+|\s+-\s+")
_SUBJECT_PRONOUNS = frozenset(
    {"i", "i'm", "im", "i've", "i'd", "i'll", "we", "we're", "we've", "ich", "wir",
     "je", "nous", "yo", "nosotros", "nosotras", "eu", "nós"}
)
# Words that, right before a first-person pronoun in a question, make it an
# inverted question ("can I ...?") or a hypothetical ("what if we ...?").
_INVERTING = frozenset(
    {"can", "could", "do", "does", "did", "should", "shall", "will", "would", "am", "are",
     "is", "was", "were", "have", "has", "had", "may", "might", "must", "if", "what",
     "how", "why", "where", "when", "who", "which", "whats", "what's", "hows", "how's",
     "where's", "who's", "don't", "didn't", "can't", "won't", "shouldn't", "wouldn't",
     "isn't", "aren't", "kann", "soll", "sollte", "darf", "muss", "habe", "bin", "werde",
     "würde", "wenn", "falls", "peux", "dois", "puis", "suis", "si", "puedo", "debo",
     "for", "to", "with", "about", "tell", "show", "give", "help", "let", "remind", "ask"}
)
#: the ASCII characters :data:`_PUNCT_RE` removes, as a table for str.translate
_ASCII_PUNCT: Final = {c: None for c in range(128) if _PUNCT_RE.match(chr(c))}


def _norm(text: str) -> str:
    if text.isascii():  # the same form, read faster: tests/unit/core/test_ascii_forms.py
        return " ".join(text.lower().translate(_ASCII_PUNCT).split())
    return _norm_unicode(text)


def _norm_unicode(text: str) -> str:
    t = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    t = _PUNCT_RE.sub("", t)
    return _WS_RE.sub(" ", t).strip()


def is_filler_sentence(sentence: str, filler: frozenset[str] = DEFAULT_FILLER) -> bool:
    """True if the sentence carries nothing durable on its own.

    >>> is_filler_sentence("Wow, that's great, Maria!")
    True
    >>> is_filler_sentence("I moved to Berlin.")
    False
    """
    n = _norm(sentence)
    if not n:
        return True  # emoji, punctuation
    if n in filler:
        return True
    # "ok, thanks, got it" / "thanks Maria": every comma-separated chunk is filler
    any_chunk = any_filler = False
    for part in _CHUNK_SPLIT_RE.split(sentence):
        c = _norm(part)
        if not c:
            continue
        any_chunk = True
        if c in filler:
            any_filler = True
        elif not _is_vocative(c, sentence):
            break
    else:
        if any_chunk:
            return any_filler
    return len(n.split()) <= 9 and _REACTION_RE.match(sentence.strip()) is not None


def _is_vocative(chunk: str, original: str) -> bool:
    """A lone name after a filler ("thanks, Maria"): one word, capitalised in the original."""
    if " " in chunk:
        return False
    m = re.search(rf"\b({re.escape(chunk)})\b", original, re.IGNORECASE)
    return bool(m and m.group(1)[:1].isupper())


def _as_stated(sentence: str) -> str:
    """``sentence`` as triage reads it: without a recall tag (its question mark is the
    tag's); without a repeat marker ("wie gesagt", "like I said": discourse, not content)
    when what is left speaks of the speaker ("Wie gesagt, unser Monorepo liegt auf Gitea").
    What is left with no first person keeps its marker: "As I said, the first draft was
    better" is talk about the conversation."""
    sentence = without_greeting(sentence)
    tagless = without_tag(sentence)
    if tagless != sentence:
        return tagless
    cut = cut_marker(sentence)
    if cut is None or not _has_first_person_statement(cut, is_question(cut)):
        return sentence
    return cut


_OPENING_RE: Final = re.compile(r"^\s*([^,:;!–—]+?)\s*(?:[,:;!]+|\s[–—-])\s*")


@cache
def _greetings() -> frozenset[str]:
    return frozenset(_norm(g) for g in lexicon()["greetings"])


def without_greeting(sentence: str) -> str:
    """The sentence without a greeting that opens it ("Hallo nochmal – wie gesagt, ...",
    "re bonjour, on a changé de formule"): what follows is read as said. Only a greeting
    (``greetings`` of ``memgate/data/statements.json``): an apology ("Sorry, chaotic
    morning, …") says the moment, and cutting any word of filler ("Lol, I just ran …",
    "Wow, …") changed what the classifiers read (LoCoMo development recall 0.013 lower)."""
    m = _OPENING_RE.match(sentence)
    if m is None or m.end() >= len(sentence) or _norm(m.group(1)) not in _greetings():
        return sentence
    return sentence[m.end() :]


def _has_first_person_statement(sentence: str, question: bool) -> bool:
    lowered = sentence.lower()
    for m in _FIRST_PERSON_RE.finditer(lowered):
        fp = m.group("fp")
        pm = _PREV_WORD_RE.search(lowered, 0, m.start())
        prev = pm.group(1).replace("’", "'") if pm else ""
        if not question:
            if fp == "me":
                continue  # "that reminds me" says little about the speaker
            return True
        # Inside a question only a subject pronoun that is not inverted counts:
        # "do you know I'm vegan?" yes; "can I ask you something?" no.
        if (fp in _SUBJECT_PRONOUNS or fp.startswith(("i'", "we'", "j'"))) and (
            prev not in _INVERTING
        ):
            return True
    return False


@dataclass(frozen=True)
class TriagePolicy:
    """What triage drops. Frozen; build variants with :func:`dataclasses.replace`.

    ``min_chars`` is 8, not more, so that "I'm vegan" (9) and "I use vim" survive;
    shorter turns that matter ("vegan") carry too little context to extract anyway.
    """

    min_chars: int = 8
    min_words: int = 2
    filler_phrases: frozenset[str] = DEFAULT_FILLER
    skip_roles: frozenset[Role] = frozenset({Role.SYSTEM, Role.TOOL})
    keep_assistant: bool = False
    drop_questions: bool = True
    """Drop turns that are only questions with no first-person statement."""
    durable_model: bool = True
    """Drop turns in which the durable-sentence classifier finds no durable sentence."""
    durable_threshold: float | None = None
    """The classifier's keep threshold; ``None``: the one in its model file."""
    durable_min_words: int = 9
    """The classifier judges user turns of at least this many words (Chinese: two
    characters a word); a shorter turn ("I'm vegan", "I use vim, any tips?") holds too few
    n-grams for it, and the rules above decide."""
    version: str = "triage-2"


def content_sentences(text: str, filler: frozenset[str] = DEFAULT_FILLER) -> list[str]:
    """The sentences of a turn that are not filler, as the moment check and the
    classifier read them (Chinese split on 。！？ too)."""
    content = [s for s in split_sentences(text) if not is_filler_sentence(s, filler)]
    return [p for s in content for p in split_statements(s)]


_DEFAULT_POLICY = TriagePolicy()


def _checked(part: str, filler: frozenset[str]) -> str:
    """A part read after an opening that says the speaker checked it ("C'est confirmé, la
    réunion a lieu le jeudi"), as the extractor reads it: the opening's pronoun is no
    comment on something said before. A part left with filler only ("It's confirmed,
    thanks!") is judged as said."""
    rest = without_confirmation_leads(part)[0]
    return part if rest == part or is_filler_sentence(rest, filler) else rest


def triage(
    turn: TurnEvent, policy: TriagePolicy = _DEFAULT_POLICY
) -> tuple[TriageVerdict, str]:
    """Keep or drop one turn, with the reason (a :class:`TriageReason` value)."""
    if turn.role in policy.skip_roles:
        return TriageVerdict.DROP, TriageReason.SYSTEM_OR_TOOL_ROLE
    if turn.role is Role.ASSISTANT and not policy.keep_assistant:
        return TriageVerdict.DROP, TriageReason.ASSISTANT_TURN

    text = turn.content.strip()
    if not text:
        return TriageVerdict.DROP, TriageReason.EMPTY
    if not _ALNUM_RE.search(text):
        # emoji, punctuation, "👍🙏"
        return TriageVerdict.DROP, TriageReason.FILLER

    # a statement with a recall tag ("..., tu te souviens ?", "..., lembra?") is said, not
    # asked: the tag's question mark is the tag's; a repeat marker before a statement of the
    # speaker is discourse, not content (memgate.stages.repeats; _as_stated)
    sentences = [_as_stated(s) for s in split_sentences(text)]
    content = [s for s in sentences if not is_filler_sentence(s, policy.filler_phrases)]
    if not content:
        return TriageVerdict.DROP, TriageReason.FILLER
    if all(_CLARIFY_RE.match(s) for s in content):
        return TriageVerdict.DROP, TriageReason.CLARIFICATION_REQUEST

    if _MEMORY_SIGNAL_RE.search(text.lower()):
        return TriageVerdict.KEEP, TriageReason.MEMORY_SIGNAL
    references = find_references(text)  # read once: the durable check below asks again
    if any(r.op == "delete" for r in references):
        # "could you delete my phone number?": a request about memory, not a question
        return TriageVerdict.KEEP, TriageReason.MEMORY_SIGNAL

    words = _WORD_RE.findall(text)
    n_cjk = len(_CJK_CHAR_RE.findall(text))
    if (len(text) < policy.min_chars and n_cjk < 3) or len(words) + n_cjk < policy.min_words:
        return TriageVerdict.DROP, TriageReason.TOO_SHORT

    # states of the moment, one-off requests, chatter, questions (memgate.stages.moment)
    # a statement that leads a question ("j'ai la Freebox Pop …, vous pouvez regarder ?")
    # is read as said: the question is the rest (memgate.stages.clauses.asked_after)
    parts = [
        q
        for s in content
        for p in split_statements(s)
        for q in asked_after(_checked(p, policy.filler_phrases))
    ]
    if turn.role is Role.USER and says_own_error(text) and not all(map(is_question, content)):
        # "Perdona, me equivoqué antes: no es Django, es Flask": a correction of a fact
        # said before, whatever the words around it
        return TriageVerdict.KEEP, TriageReason.MEMORY_SIGNAL
    moment = moment_reason(parts)
    if moment is not None and policy.drop_questions:
        return TriageVerdict.DROP, TriageReason(moment)
    if policy.drop_questions and not references and request_material(parts):
        return TriageVerdict.DROP, TriageReason.ONE_OFF_REQUEST

    first_person = False
    all_questions = True
    for s in content:
        # "我们公司生产环境用的是 OceanBase，分区表该怎么建？": a statement, then the question
        q = is_question(s) and len(asked_after(s)) == 1
        all_questions = all_questions and q
        if not first_person and _has_first_person_statement(s, q):
            first_person = True
    if all_questions and not first_person and policy.drop_questions:
        return TriageVerdict.DROP, TriageReason.QUESTION_ONLY
    if (
        policy.durable_model
        and policy.drop_questions
        and turn.role is Role.USER
        and len(words) + n_cjk // 2 >= policy.durable_min_words
    ):
        model = TriageModel.load()
        bar = model.threshold if policy.durable_threshold is None else policy.durable_threshold
        # a retraction, deletion request or change by reference is an operation on
        # stored facts, not a statement: never the classifier's to drop
        # a durable statement of the speaker or a hedged fact (memgate.stages.durable_frame)
        # is read by its structure: too few n-grams for the classifier to be sure of it; so
        # is a real condition with a standing instruction (memgate.stages.unreal)
        # a clause of a sentence is judged beside it: the fact a request or a lead hides
        # from the classifier ("quick thing so you have it: my manager is Dana Whitfield")
        clauses = [c for p in parts for c in _clauses(p)]
        if (
            model.turn_score(clauses) < bar
            and not references
            and not any(durable_own(c) or durable_own(lead_clause(c)) for c in clauses)
            and not any(
                hedged_fact(p) or standing_condition(p) or sets_a_slot(p) for p in parts
            )
        ):
            return TriageVerdict.DROP, TriageReason.NOTHING_DURABLE
    if first_person:
        return TriageVerdict.KEEP, TriageReason.FIRST_PERSON_STATEMENT
    return TriageVerdict.KEEP, TriageReason.SUBSTANTIVE
