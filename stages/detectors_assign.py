"""Credentials by format or assignment: provider API keys (their prefixes), generic
secrets assigned to a secret-like name, AWS secret keys, passwords and PINs in
assignments and in prose.

Split from :mod:`memgate.stages.detectors`, which routes text to these finders.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Final

from memgate.stages import detectors_labelled as _labelled
from memgate.stages.detector_kinds import (
    API_KEY,
    PASSWORD,
    Cand,
    char_classes,
    looks_like_placeholder,
    looks_random,
)
from memgate.stages.detector_text import occurrences, segment_starts

__all__ = [
    "PASSWORD_HINTS",
    "PROSE_STOPWORDS",
    "PROVIDER_HINTS",
    "SECRET_NAME_HINTS",
    "TRAILING_PUNCT",
    "find_generic_secrets",
    "find_passwords",
    "find_provider_keys",
]


PROVIDER_HINTS: Final = (
    "sk-", "sk_", "rk_", "pk_", "AKIA", "ASIA", "ABIA", "ACCA", "ghp_", "gho_", "ghu_",
    "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "xapp-", "AIza", "SK", "SG.", "npm_",
    "hf_",
)  # fmt: skip
SECRET_NAME_HINTS: Final = ("key", "token", "secret", "auth", "credential")
PASSWORD_HINTS: Final = (
    "pass", "pw", "pwd", "pin", "mot de", "mdp", "contrase", "senha", "wachtwoord",
    "kennwort", "salasana", "hasło", "haslo",
)  # fmt: skip


_DOTTED_IDENT_RE: Final = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")

# --------------------------------------------------------------------------
# Provider API keys (format is enough, anywhere in the text)
# --------------------------------------------------------------------------

_KEY_END: Final = r"(?![A-Za-z0-9_\-])"
_PROVIDER_KEY_RE: Final = re.compile(  # used with .match() at a hint position
    r"(?<![A-Za-z0-9])(?:"
    r"(?P<anthropic>sk-ant-[A-Za-z0-9_\-]{20,300})"
    r"|(?P<openai>sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,300})"
    r"|(?P<aws>(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})"
    r"|(?P<github>gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,255})"
    r"|(?P<gitlab>glpat-[A-Za-z0-9_\-]{20,300})"
    r"|(?P<slack>xox[baprs]-[A-Za-z0-9\-]{10,300}|xapp-\d-[A-Za-z0-9\-]{10,300})"
    r"|(?P<stripe>(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,300})"
    r"|(?P<google>AIza[0-9A-Za-z_\-]{35})"
    r"|(?P<twilio>SK[0-9a-fA-F]{32})"
    r"|(?P<sendgrid>SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64})"
    r"|(?P<npm>npm_[A-Za-z0-9]{36})"
    r"|(?P<huggingface>hf_[A-Za-z0-9]{30,300})"
    r")" + _KEY_END
)
# Formats whose prefix is short or common enough that the body must look random.
_NEEDS_MIXED_BODY: Final = frozenset({"openai", "huggingface", "twilio", "slack"})
_PROVIDER_PREFIX_RE: Final = re.compile(
    r"sk-ant-|sk-(?:proj-|svcacct-|admin-)?|gh[pousr]_|github_pat_|glpat-|xox[baprs]-"
    r"|xapp-|(?:sk|rk|pk)_(?:live|test)_|AIza|SK|SG\.|npm_|hf_|AKIA|ASIA|ABIA|ACCA"
)


def find_provider_keys(text: str, lower: str) -> Iterator[Cand]:
    del lower  # provider prefixes are case-sensitive
    last_end = -1
    for i in occurrences(text, PROVIDER_HINTS):
        if i < last_end:
            continue
        m = _PROVIDER_KEY_RE.match(text, i)
        if m is None:
            continue
        provider = m.lastgroup or ""
        value = m.group()
        prefix = _PROVIDER_PREFIX_RE.match(value)
        body = value[prefix.end() :] if prefix else value
        if looks_like_placeholder(body):
            continue
        if provider in _NEEDS_MIXED_BODY and char_classes(body) < 2:
            continue
        last_end = m.end()
        yield Cand(m.start(), m.end(), API_KEY)


# --------------------------------------------------------------------------
# Assignments: generic secrets, AWS secret keys, passwords
# --------------------------------------------------------------------------

_QUOTED_OR_BARE: Final = (
    r"(?:(?P<q>[\"'`])(?P<qval>[^\"'`\n]{1,512})(?P=q)"
    r"|[“«‘](?P<cval>[^”»’\n]{1,512})[”»’]"
    r"|(?P<val>[^\s\"'`,;<>]{1,512}))"
)
_ASSIGN_OP: Final = r"[\"']?[ \t]*(?:=>|:=|==?|:)[ \t]*"

_SECRET_NAME: Final = (
    r"(?:api[_\-]?key|apikey|api[_\-]?secret|api[_\-]?token|access[_\-]?key(?:[_\-]?id)?"
    r"|secret[_\-]?access[_\-]?key|secret[_\-]?key|client[_\-]?secret|private[_\-]?key"
    r"|signing[_\-]?key|encryption[_\-]?key|master[_\-]?key|access[_\-]?token"
    r"|auth[_\-]?token|refresh[_\-]?token|id[_\-]?token|session[_\-]?token"
    r"|bearer[_\-]?token|token|secret|credentials?|auth)"
)
# The assignment patterns are matched (re.match) at identifier-segment starts
# found by _anchored_matches, so they need no prefix or boundary of their own.
_NAME_PREFIX: Final = r"(?:--?)?"

_GENERIC_ASSIGN_RE: Final = re.compile(
    _NAME_PREFIX
    + _SECRET_NAME
    + r"(?:"
    + _ASSIGN_OP
    + r"|(?<=[a-z])[ \t]+(?=[A-Za-z0-9]))"
    + _QUOTED_OR_BARE,
    re.IGNORECASE,
)
_AWS_SECRET_RE: Final = re.compile(
    r"(?<![A-Za-z0-9])(?:aws[_\-]?)?secret[_\-]?(?:access[_\-]?)?key[\"']?[ \t]*(?:=>|:=|=|:)"
    r"[ \t]*[\"']?(?P<val>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])",
    re.IGNORECASE,
)

_PW_NAME: Final = (
    r"(?:password|passwort|kennwort|passphrase|passcode|passwd|pass[ \-]?word|pwd|pw"
    r"|mot[ \t]+de[ \t]+passe|mdp|contrase(?:ñ|n)a|senha|wachtwoord|salasana|has(?:ł|l)o"
    r"|(?<=[_.\-])pass)"
)
_PW_PROSE_VERB: Final = (
    r"(?:is[ \t]+now|is[ \t]+still|is[ \t]+set[ \t]+to|set[ \t]+to|changed[ \t]+to"
    r"|will[ \t]+be|should[ \t]+be|is|was|ist|lautet|war|est|était|es|era|é|è|equals)"
)
_PW_QUALIFIER: Final = (
    r"(?:[ \t]+(?:for|of|to|on|at|für|pour|de|del|para|van|voor|do|da|du|des|dos|das|"
    r"della|dello|delle|dei|degli|di|vom|von|der|dem|den|zum|zur|"
    r"no|na|nel|nella|al|au|aux)"
    r"(?:[ \t]+[^\s=:\"']{1,40}(?:'[^\s=:\"']{1,40})?){1,3}?)?"
)
_PASSWORD_RE: Final = re.compile(
    _NAME_PREFIX
    + _PW_NAME
    + r"(?:(?P<assign>"
    + _ASSIGN_OP
    + r")"
    + r"|"
    + _PW_QUALIFIER
    + r"[ \t]+"
    + _PW_PROSE_VERB
    + r"(?:[ \t]*:[ \t]*|[ \t]+))"
    + _QUOTED_OR_BARE,
    re.IGNORECASE,
)
_PIN_RE: Final = re.compile(
    r"(?<![\w\-])(?:pin|pin[ \-]?code|pin[ \-]?nummer|code[ \t]+pin)[ \t]*"
    r"(?:is|was|ist|lautet|est|es|é|=|:)[ \t]*:?[ \t]*(?P<val>\d{4,8})(?![\w\-]|[.,]\d)",
    re.IGNORECASE,
)

_CODE_TYPE_VALUES: Final = frozenset(
    {
        "str", "string", "bytes", "int", "none", "null", "nil", "true", "false",
        "undefined", "optional", "required", "secretstr", "secretbytes", "text",
        "varchar", "char", "any", "object", "password", "pass", "pwd", "passwd",
        "token", "secret", "string?", "str?", "self", "this",
    }
)  # fmt: skip
PROSE_STOPWORDS: Final = frozenset(
    {
        # English
        "a", "an", "the", "not", "too", "very", "so", "incorrect", "wrong", "correct",
        "invalid", "valid", "required", "weak", "strong", "secure", "insecure", "long",
        "short", "empty", "blank", "missing", "same", "different", "in", "on", "at",
        "of", "for", "from", "with", "by", "to", "still", "also", "now", "just", "only",
        "my", "your", "his", "her", "their", "our", "its", "it", "this", "that", "what",
        "which", "unknown", "secret", "private", "public", "good", "bad", "fine", "ok",
        "okay", "new", "old", "mandatory", "optional", "necessary", "none", "null",
        "nil", "undefined", "true", "false", "and", "or", "but", "like", "something",
        "anything", "nothing", "whatever", "easy", "hard", "simple", "complex", "weird",
        "no", "yes", "case", "sensitive", "case-sensitive", "here", "there", "below",
        "above", "unchanged", "mine", "yours", "fake", "obvious",
        "please", "always", "never", "usually", "probably", "definitely", "actually",
        "really", "stored", "saved", "set", "reset", "needed", "hidden", "shown",
        "visible", "sent", "leaked", "compromised", "ignored", "expired", "changed",
        "encrypted", "hashed", "who", "where", "when", "how", "why", "one", "two",
        "three", "four", "five", "six", "seven", "eight", "nine", "ten", "all", "any",
        # German
        "falsch", "richtig", "zu", "nicht", "sehr", "abgelaufen", "ungültig", "leer",
        "geheim", "korrekt", "sicher", "unsicher", "gespeichert", "geändert", "das",
        "der", "die", "ein", "eine", "mein", "dein", "noch", "jetzt", "bereits", "schon",
        "auch", "immer", "erforderlich", "zurückgesetzt", "neu", "alt", "gleich",
        # French
        "faux", "invalide", "trop", "pas", "le", "la", "les", "un", "une", "mon", "ton",
        "expiré", "vide", "sécurisé", "changé", "requis", "obligatoire", "toujours",
        "encore", "déjà", "oublié", "bon", "mauvais", "faible", "fort", "nouveau",
        "différent", "incorrecte",
        # Spanish / Portuguese
        "incorrecta", "incorrecto", "inválida", "invalida", "demasiado", "muy", "el",
        "una", "mi", "tu", "segura", "débil", "vacía", "correcta", "obligatoria",
        "requerida", "igual", "nueva", "incorreta", "fraca", "forte", "obrigatória",
        "errada", "errónea", "distinta",
        # Dutch
        "onjuist", "fout", "ongeldig", "te", "niet", "het", "een", "mijn", "verlopen",
        "leeg", "nieuw",
    }
)  # fmt: skip
_ENGLISH_INFLECTED_RE: Final = re.compile(r"[a-z]{3,}(?:ed|ing|ly)")
TRAILING_PUNCT: Final = ".,;:!?)]}>"


_CLOSERS: Final = {")": "(", "]": "[", "}": "{", ">": "<"}


def _strip_trailing(value: str) -> str:
    """Drop sentence punctuation and unbalanced closing brackets from the end."""
    while value:
        last = value[-1]
        opener = _CLOSERS.get(last)
        if opener is not None and value.count(opener) >= value.count(last):
            break
        if last not in TRAILING_PUNCT:
            break
        value = value[:-1]
    return value


def _assignment_value(m: re.Match[str]) -> tuple[str, int, int, bool] | None:
    """(value, start, end, quoted) of a ``_QUOTED_OR_BARE`` match."""
    for group, quoted in (("qval", True), ("cval", True), ("val", False)):
        value = m.group(group)
        if value is not None:
            start, end = m.span(group)
            if not quoted:
                stripped = _strip_trailing(value)
                end -= len(value) - len(stripped)
                value = stripped
            if not value:
                return None
            return value, start, end, quoted
    return None


_ANNOTATED_VALUE_RE: Final = re.compile(r"[ \t]*(?:\|[ \t]*None[ \t]*)?=[ \t]*" + _QUOTED_OR_BARE)


def _after_type_annotation(
    text: str, m: re.Match[str], value: str
) -> tuple[str, int, int, bool] | None:
    """``password: str = "hunter2"``: read the value after the annotation."""
    if value.lower().rstrip("?") not in _CODE_TYPE_VALUES:
        return None
    follow = _ANNOTATED_VALUE_RE.match(text, m.end())
    if follow is None:
        return None
    return _assignment_value(follow)


_VARIABLE_NAME_RE: Final = re.compile(r"[a-z_$][A-Za-z_$]*")
_SECRETISH_NAME_RE: Final = re.compile(r"pass|pwd|secret|token|key", re.IGNORECASE)
_CODE_CALL_RE: Final = re.compile(r"[A-Za-z_][\w.]*[(\[]")


def _code_reference(value: str) -> bool:
    """Values that are code, not literals: ``password=password``,
    ``password=self.password``, ``token: str``."""
    low = value.lower()
    if low.rstrip("?") in _CODE_TYPE_VALUES:
        return True
    if _CODE_CALL_RE.match(value):
        return True
    if _VARIABLE_NAME_RE.fullmatch(value) and _SECRETISH_NAME_RE.search(value):
        return True  # password=db_password, password: userPassword
    return _DOTTED_IDENT_RE.fullmatch(value) is not None and not any(c.isdigit() for c in value)


def _anchored_matches(
    rx: re.Pattern[str],
    text: str,
    lower: str,
    needles: Iterable[str],
    glued: tuple[str, ...] = (),
) -> Iterator[re.Match[str]]:
    """Matches of ``rx`` tried at the start of each identifier segment that
    leads up to an occurrence of one of ``needles`` (in ``lower``); needles
    listed in ``glued`` are also tried where they start inside a word
    (``PGPASSWORD=``)."""
    tried: set[int] = set()
    last_end = -1
    for i in occurrences(lower, needles):
        if i < last_end:
            continue
        starts = segment_starts(text, i)
        if glued and lower.startswith(glued, i):
            starts.append(i)
        for start in starts:
            if start in tried or start < last_end:
                continue
            tried.add(start)
            m = rx.match(text, start)
            if m is not None:
                last_end = m.end()
                yield m
                break


def _cut_query(text: str, start: int, value: str) -> str:
    """In a URL query (``?token=abc&page=2``) a value ends at the next ``&``."""
    if start > 0 and text[start - 1] in "?&" and "&" in value:
        return value[: value.index("&")]
    return value


def find_generic_secrets(text: str, lower: str) -> Iterator[Cand]:
    for m in _anchored_matches(_AWS_SECRET_RE, text, lower, ("secret",)):
        if not looks_like_placeholder(m.group("val")):
            yield Cand(m.start("val"), m.end("val"), API_KEY)
    for m in _anchored_matches(_GENERIC_ASSIGN_RE, text, lower, SECRET_NAME_HINTS):
        got = _assignment_value(m)
        if got is None:
            continue
        value, start, end, _quoted = got
        if "&" in value:  # tokens have no "&": "?api_key=abc&page=2"
            value = value[: value.index("&")]
            end = start + len(value)
            if not value:
                continue
        later = _after_type_annotation(text, m, value)
        if later is not None:
            value, start, end, _quoted = later
        if _code_reference(value) or not looks_random(value):
            continue
        yield Cand(start, end, API_KEY)


_GLUED_PW_NAMES: Final = ("password", "passwd", "passwort", "kennwort")


def find_passwords(text: str, lower: str) -> Iterator[Cand]:
    for m in _anchored_matches(_PASSWORD_RE, text, lower, PASSWORD_HINTS, _GLUED_PW_NAMES):
        got = _assignment_value(m)
        if got is None:
            continue
        value, start, end, quoted = got
        if not quoted:
            value = _cut_query(text, m.start(), value)
            end = start + len(value)
        if m.group("assign") is not None:
            later = _after_type_annotation(text, m, value)
            if later is not None:
                value, start, end, quoted = later
            if looks_like_placeholder(value) or _code_reference(value):
                continue
        else:
            if looks_like_placeholder(value):
                continue
            low = value.lower()
            prose = low in PROSE_STOPWORDS or _labelled.not_a_value(low)
            if not quoted and (prose or _ENGLISH_INFLECTED_RE.fullmatch(low)):
                continue
        yield Cand(start, end, PASSWORD)
    if "pin" in lower:
        for m in _anchored_matches(_PIN_RE, text, lower, ("pin",)):
            yield Cand(m.start("val"), m.end("val"), PASSWORD)
