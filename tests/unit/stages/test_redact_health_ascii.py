"""``mask_health``'s ASCII shortcut (issue 14) misses nothing ``HEALTH_RE`` finds: every
term in any case, inside words and beside punctuation, random ASCII text, and every
LoCoMo dev turn give the same text and count as the case-insensitive pattern alone."""

from __future__ import annotations

import random
import re

from memgate.inputs import ReadErrors, read_turns
from memgate.stages.redact_health import HEALTH_PLACEHOLDER, HEALTH_RE, mask_health
from tests.datasets import locomo_file

_TERMS = [
    "diabetes",
    "Diabetic",
    "CANCER",
    "tumor",
    "Tumour",
    "chemo",
    "HIV",
    "aids",
    "asthma",
    "Epileptic",
    "depressed",
    "anxiety disorder",
    "ADHD",
    "PTSD",
    "Alzheimer's",
    "STD",
    "pregnant",
    "Insulin",
    "Prozac",
    "diagnosed",
    "Diagnosis",
    "prescription",
    "therapist",
    "rehab",
    "surgery",
    "blood pressure",
    "Krebs",
    "schwanger",
    "Medikamente",
    "enceinte",
    "embarazada",
    "medicamentos",
    "multiple sclerosis",
]


def _reference(text: str) -> tuple[str, int]:
    return HEALTH_RE.subn(HEALTH_PLACEHOLDER, text)


def test_every_term_in_every_case() -> None:
    rng = random.Random(14)
    for term in _TERMS:
        for form in (term, term.upper(), term.lower(), term.swapcase(), term.title()):
            texts = (form, f"I have {form}.", f"x{form}", f"{form}y", f"({form})", f"a-{form}-b")
            for text in texts:
                assert mask_health(text) == _reference(text), text
        mixed = "".join(c.upper() if rng.random() < 0.5 else c for c in term)
        assert mask_health(f"my {mixed} again") == _reference(f"my {mixed} again")
    assert mask_health("I was diagnosed with Diabetes")[1] == 2


def test_random_ascii_and_locomo_turns() -> None:
    rng = random.Random(41)
    pool = [chr(c) for c in range(32, 127)] + [" "] * 20
    texts = ["".join(rng.choice(pool) for _ in range(rng.randint(0, 60))) for _ in range(3000)]
    texts += [f"{rng.choice(texts)} {rng.choice(_TERMS)} {rng.choice(texts)}" for _ in range(3000)]
    texts += [t.content for t in read_turns(locomo_file(), ReadErrors())]
    wrong = [t for t in texts if mask_health(t) != _reference(t)]
    assert not wrong, wrong[:3]


def test_non_ascii_text_is_read_by_the_full_pattern() -> None:
    # the long s folds to "s" only under IGNORECASE: non-ASCII text never takes the shortcut
    text = "a \u017ftd and a dépression"
    assert mask_health(text) == _reference(text)
    assert re.search("ſ", mask_health("ſtd")[0]) is None
