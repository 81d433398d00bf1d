"""One name written two ways: "Postgres" / "PostgreSQL", "K8s" / "Kubernetes".

A restatement often names its thing in a shorter or a longer form than the stored fact
did. The folds compare the names of both sides (:mod:`memgate.stages.resolve_paraphrase`);
a name is said again when the other side says it as it is, inflected, or in one of the
forms read here, each a rule of how names are written, not a list of names:

- a few letters more at its end ("postgres" / "postgresql"): the shorter of at least
  ``min_stem`` letters, at most ``max_extra`` letters more, and not an ending that makes
  another word of it (``word_endings``: "react" / "reactive", "plan" / "planned");
- the same with one version number ("postgres15" / "postgresql15");
- a numeronym ("k8s" / "kubernetes", "i18n" / "internationalization"): the first
  letter, the count of the letters between, the last letter;
- a compound of a name written with a hyphen ("Kubernetes-Clustern"): its first part said.

The parameters are data (``name_variants`` in ``memgate/data/paraphrase.json``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from memgate.stages.resolve_stance import inflected

__all__ = ["VARIANTS", "NameVariants", "name_said", "name_variant"]

_NUMERONYM_RE: Final = re.compile(r"^([a-z])(\d{1,2})([a-z])$")
_TRAILING_DIGITS_RE: Final = re.compile(r"^(.*?[^\d\W])(\d+)$")


@dataclass(frozen=True)
class NameVariants:
    """The parameters of :func:`name_variant` (see the module)."""

    min_stem: int
    max_extra: int
    word_endings: frozenset[str]

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> NameVariants:
        return cls(
            min_stem=int(data["min_stem"]),
            max_extra=int(data["max_extra"]),
            word_endings=frozenset(str(e) for e in data.get("word_endings", [])),
        )


def _load() -> NameVariants:
    text = resources.files("memgate.data").joinpath("paraphrase.json").read_text("utf-8")
    return NameVariants.from_data(json.loads(text)["name_variants"])


VARIANTS: Final = _load()


def name_variant(a: str, b: str, nv: NameVariants = VARIANTS) -> bool:
    """Two normalised words are one name written two ways (see the module).

    >>> name_variant("postgres", "postgresql"), name_variant("k8s", "kubernetes")
    (True, True)
    >>> name_variant("postgres15", "postgresql15"), name_variant("postgres15", "postgresql16")
    (True, False)
    >>> name_variant("java", "javascript"), name_variant("react", "reactive")
    (False, False)
    """
    if a == b:
        return True
    for x, y in ((a, b), (b, a)):
        m = _NUMERONYM_RE.match(x)
        if m and len(y) == int(m.group(2)) + 2 and y[0] == m.group(1) and y[-1] == m.group(3):
            return y.isalpha()
    da, db = _TRAILING_DIGITS_RE.match(a), _TRAILING_DIGITS_RE.match(b)
    if da and db:
        return da.group(2) == db.group(2) and name_variant(da.group(1), db.group(1), nv)
    if da or db:
        return False
    short, long_ = sorted((a, b), key=len)
    extra = long_[len(short) :]
    return (
        len(short) >= nv.min_stem
        and long_.startswith(short)
        and 0 < len(extra) <= nv.max_extra
        and extra.isalpha()
        and extra not in nv.word_endings
    )


def name_said(t: str, words: frozenset[str], flat: str, nv: NameVariants = VARIANTS) -> bool:
    """The name ``t`` is said among ``words`` (or in ``flat``, the clause without its
    spaces): as it is, inflected, or as a variant of one name (:func:`name_variant`).

    >>> name_said("kubernetes-clustern", frozenset({"läuft", "auf", "kubernetes"}), "")
    True
    >>> name_said("staging-server", frozenset({"production-server"}), "")
    False
    """
    if t in words or t in flat or any(inflected(t, w) for w in words):
        return True
    if "-" in t:  # a compound of a name ("Kubernetes-Clustern"): its first part said
        head = t.split("-", 1)[0]
        if len(head) >= nv.min_stem and name_said(head, words, flat, nv):
            return True
    return any(name_variant(t, w, nv) for w in words)
