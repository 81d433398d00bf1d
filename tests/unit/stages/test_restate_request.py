"""A restatement with a clause addressed to the assistant after it folds into the fact
(issue 9, dedupe, req43): "Ich fahre einen Kombi, falls du mir Parkhäuser heraussuchst" is
the stored "Ich fahre einen Kombi" said again with a request, read for the paraphrase fold
without the request (``request_tails`` of memgate/data/restate.json). Another value with a
request, and a change cue with one, stay apart.
"""

from __future__ import annotations

import time

import pytest

from memgate.core.events import DecisionRecord, FactStatus, RedactedCandidate, Resolution
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from memgate.stages.resolve_restate import without_request
from tests.unit.stages.resolver_kit import CLOCK, USEM, facts, minilm, resolve, statement

#: the ``store`` fixture (conftest.py) is of MiniLM's dimension
STORE_EMBEDDER = minilm


def _apply(store: EmbeddedIndex, item: RedactedCandidate) -> tuple[Resolution, DecisionRecord]:
    resolver = Resolver(preset("balanced"), minilm(), clock=CLOCK, meaning=USEM)
    return resolve(store, item, resolver)


def _active(store: EmbeddedIndex) -> dict[str, int]:
    return {v: f.occurrences for v, f in facts(store).items() if f.status is FactStatus.ACTIVE}


def test_the_request_clause_is_cut_in_six_languages() -> None:
    assert without_request("I'm allergic to cats, so please no pet-friendly hotels") == (
        "I'm allergic to cats"
    )
    assert without_request("Ich fahre einen Kombi, falls du mir Parkhäuser heraussuchst") == (
        "Ich fahre einen Kombi"
    )
    assert without_request("Je suis daltonien, garde ça en tête pour les graphiques") == (
        "Je suis daltonien"
    )
    assert without_request("Soy zurdo, tenlo en cuenta con las tijeras") == "Soy zurdo"
    assert without_request("Sou canhoto, lembra disso quando sugerir ferramentas") == (
        "Sou canhoto"
    )
    assert without_request("我是左撇子，推荐工具的时候注意一下") == "我是左撇子"
    # no request after the fact, or nothing said before it
    assert without_request("I'm allergic to cats, dogs are fine") is None
    assert without_request("Please, I'm allergic to cats") is None


@pytest.mark.parametrize(
    ("first", "again"),
    [
        ("Ich fahre einen Kombi", "Ich fahre einen Kombi, falls du mir Parkhäuser heraussuchst"),
        ("Mi editor es Neovim", "Trabajo con Neovim, así que nada de trucos de VS Code por favor"),
        ("Je travaille avec Django", "On est sur Django, donc pas de solution Node s'il te plaît"),
    ],
)
def test_a_restatement_with_a_request_folds(store: EmbeddedIndex, first: str, again: str) -> None:
    _apply(store, statement(first, days=0))
    res, dec = _apply(store, statement(again, days=30))
    assert (res.action.value, res.reason) == ("DUPLICATE", "paraphrase")
    assert str(dec.details["match"]).endswith("+reason")  # read without the request
    assert _active(store) == {first: 2}


@pytest.mark.parametrize(
    ("first", "again"),
    [
        # another value with a request
        (
            "Ich fahre einen Kombi",
            "Ich fahre einen Sportwagen, falls du mir Parkhäuser heraussuchst",
        ),
        # a change cue with a request: never a fold
        ("Soy zurdo", "Ya no soy zurdo, tenlo en cuenta con las tijeras"),
    ],
)
def test_another_value_or_a_change_with_a_request_stays_apart(
    store: EmbeddedIndex, first: str, again: str
) -> None:
    _apply(store, statement(first, days=0))
    res, _ = _apply(store, statement(again, days=30))
    assert res.action.value != "DUPLICATE"


def test_a_long_text_of_separators_stays_linear() -> None:
    started = time.perf_counter()
    for text in (",," * 50_000, "a, " * 40_000 + "please", "x" * 100_000 + ", please"):
        without_request(text)
    assert time.perf_counter() - started < 3.0
