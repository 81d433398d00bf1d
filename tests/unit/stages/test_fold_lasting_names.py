"""Restatements the paraphrase fold now reads (fold41), and the values it keeps apart.

- A span of a fact held all along ("depuis une bonne décennie", "inzwischen schon seit
  Jahren") or a since-word said of a place ("depuis chez moi", "desde casa") is no change
  cue (stages/lasting.py): the restatement folds instead of superseding its own fact.
- One name written two ways ("PostgreSQL" / "Postgres", "Kubernetes" /
  "Kubernetes-Clustern", "K8s") is said again (stages/name_variants.py).
- Exclusive alternatives of one slot ("at home" / "at the office") are two values, never
  folded by their shared words nor as the same fact (stages/contrasts.py).

Hard negatives: another version, another language that shares a prefix, another server
of a hyphen compound, a change with "seit letztem Herbst". MiniLM's vectors and usem,
as the gate's.
"""

from __future__ import annotations

import json
from importlib import resources

import pytest

from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages import lasting
from memgate.stages.contrasts import alternatives_swapped
from memgate.stages.dedupe import Resolver
from memgate.stages.lasting import without_lasting
from memgate.stages.name_variants import name_said, name_variant
from memgate.stages.policy import preset
from tests.unit.stages.resolver_kit import CLOCK, USEM, facts, minilm, resolve, statement

STORE_EMBEDDER = minilm


def _resolver() -> Resolver:
    return Resolver(preset("balanced"), minilm(), clock=CLOCK, meaning=USEM)


FOLDS = [
    # each was superseded or kept apart before fold41
    ("Je joue du violon depuis une bonne décennie.",
     "Le violon, j'en joue depuis que je suis toute petite."),
    ("Nuestra base de datos principal es PostgreSQL.",
     "La base de datos principal es Postgres, desde siempre."),
    ("Unsere Services laufen auf Kubernetes.", "Bei uns läuft alles in Kubernetes-Clustern."),
    ("Soy vegetariana desde que era niña.", "Soy vegetariana."),
]  # fmt: skip


@pytest.mark.parametrize(("said", "again"), FOLDS)
def test_a_restatement_with_a_lasting_span_or_another_form_of_a_name_folds(
    store: EmbeddedIndex, said: str, again: str
) -> None:
    resolve(store, statement(said, days=0), _resolver())
    res, dec = resolve(store, statement(again, days=30), _resolver())
    assert res.action.value == "DUPLICATE", (res.reason, dec.details)
    got = facts(store)
    assert set(got) == {said} and got[said].occurrences == 2


APART = [
    # alternatives of one slot: folded as one fact before fold41
    ("Ich arbeite montags im Homeoffice.", "Montags arbeite ich im Büro."),
    ("I work from home on Fridays.", "On Fridays I work at the office."),
    ("Je travaille de chez moi le lundi.", "Je travaille au bureau le lundi."),
    ("Trabajo desde casa los viernes.", "Los viernes trabajo en la oficina."),
    # names that share letters and are other names
    ("Unser Staging-Server läuft auf Debian.", "Unser Produktions-Server läuft auf Debian."),
    ("I write my frontend in Java.", "I write my frontend in JavaScript."),
    ("We run Postgres 15.", "We run PostgreSQL 16."),
]  # fmt: skip


@pytest.mark.parametrize(("said", "again"), APART)
def test_another_value_of_the_slot_is_not_folded(
    store: EmbeddedIndex, said: str, again: str
) -> None:
    resolve(store, statement(said, days=0), _resolver())
    res, _ = resolve(store, statement(again, days=30), _resolver())
    assert res.action.value != "DUPLICATE", res.reason
    assert facts(store)[said].occurrences == 1


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("I've been running marathons for a good decade now", "I've been running marathons"),
        ("Cello spiele ich inzwischen schon seit 10 Jahren", "Cello spiele ich"),
        ("Trabalho desde casa às sextas", "Trabalho casa às sextas"),
        ("Ich fahre einen VW ID.3, seit letztem Herbst", None),  # a change: kept whole
        ("Since March I work at Bosch", None),
        ("Depuis que j'ai déménagé, je vais au travail à pied", None),
    ],
)
def test_only_spans_of_a_fact_held_all_along_are_read_away(text: str, kept: str | None) -> None:
    assert without_lasting(text) == (text if kept is None else kept)


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("postgres", "postgresql", True),
        ("k8s", "kubernetes", True),
        ("i18n", "internationalization", True),
        ("postgres15", "postgresql15", True),
        ("postgres15", "postgresql16", False),
        ("java", "javascript", False),
        ("react", "reactive", False),
        ("kafka", "kafkas", False),  # an inflection is resolve_stance.inflected's, not this
        ("k8s", "kubernetez", False),
    ],
)
def test_name_variants(a: str, b: str, same: bool) -> None:
    assert name_variant(a, b) is same


def test_a_hyphen_compound_is_said_by_its_first_part_only() -> None:
    words = frozenset({"unser", "cluster", "läuft", "auf", "kubernetes"})
    assert name_said("kubernetes-clustern", words, "")
    assert not name_said("produktions-cluster", words, "")  # its head said, not its name
    assert not name_said("produktions-server", frozenset({"staging-server"}), "")


def test_alternatives_swapped_needs_an_alternative_on_each_side() -> None:
    assert alternatives_swapped("Ich arbeite montags im Homeoffice", "Montags im Büro")
    assert not alternatives_swapped("Ich arbeite montags im Homeoffice", "Montags arbeite ich")
    assert not alternatives_swapped("Trabajo desde casa", "Trabajo en casa los viernes")


def test_the_key_test_before_the_spans_cuts_what_the_spans_alone_cut() -> None:
    """``lasting_keys`` (a word every span holds) lets a text with none skip the patterns:
    on every development turn it gives the reading of the patterns alone."""
    texts = []
    for f in resources.files("memgate.data").joinpath("eval").iterdir():
        if f.name.startswith(("scenarios_dev", "labelled_turns_dev")) and "holdout" not in f.name:
            texts += [
                json.loads(line).get("content", "") for line in f.read_text("utf-8").splitlines()
            ]
            texts += [t["content"] for line in f.read_text("utf-8").splitlines()
                      for t in json.loads(line).get("turns", [])]  # fmt: skip
    spans = [t for t in texts if lasting._strip(t, lasting.LASTING) != t]
    assert len(texts) > 3000 and len(spans) > 20
    assert all(without_lasting(t) == lasting._strip(t, lasting.LASTING) for t in texts)
