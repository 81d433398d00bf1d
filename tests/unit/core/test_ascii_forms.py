"""The ASCII forms of ``normalise``, ``normalise_text`` and triage's ``_norm`` (issue 14)
give exactly what the Unicode reading gives: every ASCII character alone and between
letters, random ASCII strings, and every LoCoMo dev turn that is ASCII."""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Iterator

import pytest

from memgate.core.events import _normalise_unicode, normalise
from memgate.inputs import ReadErrors, read_turns
from memgate.stages.statement_text import normalise_text
from memgate.stages.triage import _norm, _norm_unicode
from tests.datasets import locomo_file

_ASCII = [chr(c) for c in range(128)]


def _text_unicode(text: str) -> str:
    """``normalise_text``'s reading of any text, as written before its ASCII form."""
    t = unicodedata.normalize("NFKC", text).casefold().replace("’", "'").replace("`", "'")
    return " ".join(t.split())


def _samples() -> Iterator[str]:
    for ch in _ASCII:
        yield ch
        yield f"Ab{ch}Cd {ch} e{ch}{ch}F"
    rng = random.Random(14)
    pool = _ASCII + list("  aeiouAEIOU'`-:/") * 4
    for _ in range(20_000):
        yield "".join(rng.choice(pool) for _ in range(rng.randint(0, 40)))


@pytest.mark.parametrize(
    ("fast", "reference"),
    [(normalise, _normalise_unicode), (normalise_text, _text_unicode), (_norm, _norm_unicode)],
    ids=["normalise", "normalise_text", "triage_norm"],
)
def test_ascii_form_is_the_unicode_form(fast, reference) -> None:  # type: ignore[no-untyped-def]
    wrong = [s for s in _samples() if fast(s) != reference(s)]
    assert not wrong, f"{len(wrong)} strings differ, first {wrong[0]!r}"


def test_ascii_forms_on_locomo_turns() -> None:
    turns = [t.content for t in read_turns(locomo_file(), ReadErrors()) if t.content.isascii()]
    assert len(turns) > 1000
    for text in turns:
        assert normalise(text) == _normalise_unicode(text), text[:80]
        assert normalise_text(text) == _text_unicode(text), text[:80]
        assert _norm(text) == _norm_unicode(text), text[:80]


def test_non_ascii_still_read_by_unicode() -> None:
    # NFKC, casefold and the Turkish dotless i: the ASCII path must not take these
    assert normalise("ＡＢＣ Straße İstanbul") == "abc strasse istanbul"
    assert normalise_text("It’s  ＡＢＣ") == "it's abc"
