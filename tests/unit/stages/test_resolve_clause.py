"""clausefold (stages/resolve_clause.py): a stored fact said again as one clause of a
longer sentence folds into it; a clause about another thing, another value or another
person does not.

The statement vectors are the hashing embedder's (words, not meaning); usem, the real
multilingual encoder, reads the clauses. Without usem nothing is folded here: the
resolver decides as before (a second fact).
"""

from __future__ import annotations

import pytest

from memgate.core.events import (
    DecisionRecord,
    RedactedCandidate,
    Resolution,
)
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import Resolver
from memgate.stages.policy import preset
from memgate.stages.resolve_clause import clauses
from tests.unit.stages.resolver_kit import CLOCK, EMB, USEM, resolve
from tests.unit.stages.resolver_kit import statement as cand


def apply(
    store: EmbeddedIndex, item: RedactedCandidate, *, usem: bool = True
) -> tuple[Resolution, DecisionRecord]:
    resolver = Resolver(preset("balanced"), EMB, clock=CLOCK, meaning=USEM if usem else None)
    return resolve(store, item, resolver)


#: (stored, said again as one clause of a longer sentence)
RESTATED = [
    # no name on either side; the sentence is long, the clause is not
    (
        "Je suis allergique aux arachides.",
        "Pour rappel, j'ai une allergie aux arachides, donc jamais de cacahuètes dans les "
        "recettes que tu me proposes.",
    ),
    # a preface and an aside around the clause, a cue word in the aside
    (
        "Mein Lieblingsverein ist Werder Bremen.",
        "Nur damit du es weißt: mein Lieblingsverein ist Werder Bremen, seit der Kindheit.",
    ),
]


@pytest.mark.parametrize(("first", "again"), RESTATED)
def test_a_fact_said_again_as_one_clause_folds(
    store: EmbeddedIndex, first: str, again: str
) -> None:
    apply(store, cand(first, days=0))
    res, dec = apply(store, cand(again, days=14))
    assert (res.action.value, res.reason) == ("DUPLICATE", "paraphrase")
    assert dec.details["match"] == "clause:usem"
    assert len(store.list_facts("acme", "u1", include_inactive=True)) == 1


@pytest.mark.parametrize(("first", "again"), RESTATED)
def test_without_usem_the_clause_is_not_read(store: EmbeddedIndex, first: str, again: str) -> None:
    apply(store, cand(first, days=0), usem=False)
    res, dec = apply(store, cand(again, days=14), usem=False)
    # a second fact, or (the cue word of the aside) the fact superseded by its restatement
    assert res.action.value in ("ADD", "SUPERSEDE")
    assert dec.details.get("match") != "clause:usem"


def test_a_negation_in_the_aside_folds_with_no_clause_read(store: EmbeddedIndex) -> None:
    """The aside's negation is not the statement's stance (resolve_stance.same_stance, session
    40): the paraphrase fold takes it, with no usem and no clause read (old: the negation made
    two stances; only the clause read by usem folded it)."""
    apply(store, cand("Uso Neovim como editor.", days=0), usem=False)
    again = cand("Mi editor de siempre es Neovim, no pienso cambiarlo.", days=14)
    res, dec = apply(store, again, usem=False)
    assert (res.action.value, res.reason) == ("DUPLICATE", "paraphrase")
    assert dec.details["match"] == "paraphrase:family"
    assert len(store.list_facts("acme", "u1", include_inactive=True)) == 1


def test_the_person_of_a_typed_fact_named_in_a_clause_folds(store: EmbeddedIndex) -> None:
    """'user's wife name_is Beatriz', then "A Beatriz é minha esposa, estamos casados desde
    2019": the wife named by a word of her topic; the year and the cue in the aside change
    no name the clause restates."""
    apply(store, cand("Beatriz", days=0, subject="user's wife", predicate="name_is"))
    res, dec = apply(store, cand("A Beatriz é minha esposa, estamos casados desde 2019.", days=14))
    assert (res.action.value, dec.details.get("match")) == ("DUPLICATE", "clause:usem")


@pytest.mark.parametrize(
    "again",
    [
        # another person of the speaker with the same name
        "A Beatriz é minha irmã, estamos sempre juntas.",
        # another value in the clause
        "A Carolina é minha esposa, estamos casados desde 2019.",
    ],
)
def test_another_person_or_another_value_is_not_folded(store: EmbeddedIndex, again: str) -> None:
    apply(store, cand("Beatriz", days=0, subject="user's wife", predicate="name_is"))
    _, dec = apply(store, cand(again, days=14))
    assert dec.details.get("match") != "clause:usem"


@pytest.mark.parametrize(
    "again",
    [
        # an aside naming another thing is new information, not an aside
        "Mi editor de siempre es Neovim, mi terminal es Alacritty.",
        # the clause says another editor
        "Mi editor de siempre es Helix, no pienso cambiarlo.",
        # the clause is negated
        "No uso Neovim como editor, lo digo en serio.",
    ],
)
def test_a_clause_with_something_new_is_not_folded(store: EmbeddedIndex, again: str) -> None:
    apply(store, cand("Uso Neovim como editor.", days=0))
    _, dec = apply(store, cand(again, days=14))
    assert dec.details.get("match") != "clause:usem"


def test_a_change_without_a_name_is_not_folded(store: EmbeddedIndex) -> None:
    """No name on either side: a change cue anywhere may be the change itself."""
    apply(store, cand("Je bois du café le matin.", days=0))
    _, dec = apply(store, cand("Le matin je bois du café, mais maintenant sans sucre.", days=14))
    assert dec.details.get("match") != "clause:usem"


def test_clauses_are_cut_at_punctuation_only() -> None:
    assert clauses("Mi editor de siempre es Neovim, no pienso cambiarlo.") == [
        "Mi editor de siempre es Neovim",
        "no pienso cambiarlo",
    ]
    assert clauses("提醒一下，我们团队一直用PostgreSQL做数据库。") == [
        "提醒一下",
        "我们团队一直用PostgreSQL做数据库",
    ]
    assert clauses("Je te le redis : toute notre production tourne sur Kubernetes") == [
        "Je te le redis",
        "toute notre production tourne sur Kubernetes",
    ]
    assert clauses("Yes, I play cello.") == ["I play cello"]  # one word is no clause
