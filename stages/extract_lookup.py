"""Lookups in the lexicons of the rule extractor: the preference topic and the tool
predicate of an object, the display name of a language."""

from __future__ import annotations

import re

from memgate.stages.extract_lexicon import (
    _CATEGORY_ALIASES,
    _LANGUAGES,
    _PREF_TOPICS,
    _TOOL_RE,
    _TOOLS,
)


def _pref_topic(obj: str) -> str:
    words = set(re.findall(r"[\w+#-]+", obj.lower()))
    for topic, keys in _PREF_TOPICS:
        if words & keys:
            return f"prefers:{topic}"
    m = _TOOL_RE.search(obj.lower())
    if m is not None:
        cat = _TOOLS[m.group(1)]
        if cat in ("editor", "os", "programming_language"):
            return f"prefers:{cat}"
    return "prefers:other"


def _tool_predicate(obj: str, hint: str = "") -> str:
    """uses_tool:<category> or deploys_with, from an explicit hint or the tool lexicon."""
    cat = _CATEGORY_ALIASES.get(hint.strip().lower(), "") if hint else ""
    if not cat:
        m = _TOOL_RE.search(obj.lower())
        if m is not None:
            cat = _TOOLS[m.group(1)]
    if cat == "deploy":
        return "deploys_with"
    return f"uses_tool:{cat}" if cat else ""


def _language(word: str) -> str:
    return _LANGUAGES.get(word.strip().lower(), "")
