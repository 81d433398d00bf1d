"""Supersede by structure: slot families across wording, kind and owner (issue 9, dev5).

A change said in new words closes the old fact when both are values of one slot: a
predicate family read from data (a courier preference and a shipping instruction, a
package manager said as a tool and as "our package manager is"), a standing wish of the
same owner that names the same thing (an instruction after a preference), and a move
said by "we" for the user's home. The sentences are this file's own.
"""

from __future__ import annotations

import pytest

from memgate.core.events import FactStatus, FactType, RedactedCandidate
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.resolution_lexicon import LEXICON
from memgate.stages.statement_text import family as statement_family
from memgate.stages.vocabulary import is_multi_valued
from tests.unit.stages.resolver_kit import apply, facts
from tests.unit.stages.resolver_kit import cand as _cand


def cand(obj: str, predicate: str, **kw: object) -> RedactedCandidate:
    """A candidate as the extractors make it: many-valued predicates say so."""
    return _cand(obj, predicate, multi=is_multi_valued(predicate), **kw)  # type: ignore[arg-type]


# ------------------------------------------------------------ the household's home


def test_a_move_said_by_we_closes_the_users_home_and_flags_the_time_zone(
    store: EmbeddedIndex,
) -> None:
    apply(store, cand("Leeds", "lives_in", days=0))
    apply(store, cand("GMT", "timezone", days=0))
    res, dec = apply(store, cand("Bristol", "lives_in", days=40, subject="team"))
    assert (res.action.value, dec.details.get("match")) == ("SUPERSEDE", "family:lives_in")
    got = facts(store)
    assert got["Leeds"].status is FactStatus.SUPERSEDED
    assert got["GMT"].status is FactStatus.PENDING
    assert got["Bristol"].status is FactStatus.ACTIVE


# ------------------------------------------------------------ one slot, many names


def test_a_tool_category_is_one_slot_whatever_the_language(store: EmbeddedIndex) -> None:
    apply(
        store,
        cand(
            "Notre gestionnaire de paquets est yarn",
            "statement",
            days=0,
            subject="team's gestionnaire de paquets",
        ),
    )
    res, dec = apply(store, cand("bun", "uses_tool:package_manager", days=20))
    assert (res.action.value, dec.details.get("match")) == (
        "SUPERSEDE",
        "family:package_manager",
    )
    assert facts(store)["Notre gestionnaire de paquets est yarn"].status is (FactStatus.SUPERSEDED)


def test_a_courier_preference_and_a_shipping_instruction_are_one_slot(
    store: EmbeddedIndex,
) -> None:
    apply(store, cand("parcels via DHL", "prefers:other", days=0, type_=FactType.PREFERENCE))
    res, _ = apply(
        store,
        cand(
            "from now on send my packages with GLS",
            "instruction",
            days=9,
            type_=FactType.INSTRUCTION,
        ),
    )
    assert res.action.value == "SUPERSEDE"
    assert facts(store)["parcels via DHL"].status is FactStatus.SUPERSEDED


# ------------------------------------------------------------ a wish of the same thing


def test_an_instruction_replaces_a_preference_that_names_the_same_thing(
    store: EmbeddedIndex,
) -> None:
    apply(store, cand("invoices on paper", "prefers:other", days=0, type_=FactType.PREFERENCE))
    res, dec = apply(
        store,
        cand(
            "from now on mail me the invoices as PDF",
            "instruction",
            days=12,
            type_=FactType.INSTRUCTION,
        ),
    )
    assert (res.action.value, dec.details.get("match")) == ("SUPERSEDE", "wish")
    assert facts(store)["invoices on paper"].status is FactStatus.SUPERSEDED


def test_a_liking_of_the_same_thing_is_replaced_by_a_want_with_a_change_cue(
    store: EmbeddedIndex,
) -> None:
    apply(store, cand("我喜欢用微信联系", "likes", days=0, type_=FactType.PREFERENCE))
    res, _ = apply(
        store, cand("以后请发短信联系我", "statement", days=5, type_=FactType.INSTRUCTION)
    )
    assert res.action.value == "SUPERSEDE"
    assert facts(store)["我喜欢用微信联系"].status is FactStatus.SUPERSEDED


def test_a_wish_about_another_thing_is_kept_beside(store: EmbeddedIndex) -> None:
    apply(store, cand("I like green tea", "likes", days=0, type_=FactType.PREFERENCE))
    res, _ = apply(
        store,
        cand("from now on remind me on Mondays", "instruction", days=5, type_=FactType.INSTRUCTION),
    )
    assert res.action.value == "ADD"
    assert facts(store)["I like green tea"].status is FactStatus.ACTIVE


def test_two_likings_without_a_change_cue_both_stay(store: EmbeddedIndex) -> None:
    apply(store, cand("I like sailing boats", "likes", days=0, type_=FactType.PREFERENCE))
    res, _ = apply(
        store, cand("I like wooden boats too", "likes", days=5, type_=FactType.PREFERENCE)
    )
    assert res.action.value != "SUPERSEDE"
    assert facts(store)["I like sailing boats"].status is FactStatus.ACTIVE


# ------------------------------------------------------------ families read from words


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        ("Seit Juni bin ich bei SAP angestellt", "employer"),
        ("Nos mudamos a Bilbao en mayo", "lives_in"),
        ("We moved to Glasgow last winter", "lives_in"),
        ("我被调到深圳办公室了", "workplace"),
        ("I work from the Dublin office", "workplace"),
        ("Réponds-moi en anglais désormais", "reply_language"),
        ("Respóndeme con más detalle a partir de ahora", "answer_style"),
        ("Wir haben die Datenbank auf MariaDB umgestellt", "database"),
        ("我们的包管理器是npm", "package_manager"),
    ],
)
def test_a_family_is_read_from_the_words_of_a_statement(sentence: str, name: str) -> None:
    fam = LEXICON.family("statement", sentence)
    assert fam is not None and fam.name == name


def test_a_liking_that_names_a_single_slot_is_read_in_that_slots_family() -> None:
    fam = LEXICON.family("likes", "I like to be contacted by phone")
    assert fam is not None and fam.name == "contact_channel"
    taste = LEXICON.family("likes", "I like long walks")
    assert taste is not None and taste.additive


@pytest.mark.parametrize(
    ("sentence", "predicate"),
    [
        ("I'd like a window table whenever I book", "prefers:other"),
        ("I would like invoices by post", "prefers:other"),
        ("Je voudrais des factures mensuelles", "prefers:other"),
        ("Ich hätte gern die Termine morgens", "prefers:other"),
        ("Me gustaría recibir los avisos por SMS", "prefers:other"),
        ("I like jazz", "likes"),
    ],
)
def test_a_want_is_a_preference_not_a_liking(sentence: str, predicate: str) -> None:
    assert statement_family(sentence) == predicate


# ------------------------------------------------------------ a fact of several families


def test_a_fact_whose_words_name_two_families_is_met_by_either(store: EmbeddedIndex) -> None:
    """'ship my orders to my office' names the shipping slot and a workplace: a later
    change of where deliveries go meets it through the shipping family."""
    apply(store, cand("Please deliver my parcels to my office in Hull", "statement", days=0))
    res, dec = apply(
        store, cand("These days my deliveries go to my flat in Derby instead", "statement", days=9)
    )
    assert (res.action.value, dec.details.get("match")) == ("SUPERSEDE", "family:shipping")
    assert facts(store)["Please deliver my parcels to my office in Hull"].status is (
        FactStatus.SUPERSEDED
    )


def test_a_new_employer_makes_the_role_there_need_confirmation(store: EmbeddedIndex) -> None:
    apply(store, cand("Siemens", "works_at", days=0))
    apply(store, cand("engineer", "works_as", days=0))
    res, dec = apply(store, cand("Airbus", "works_at", days=50))
    assert res.action.value == "SUPERSEDE"
    assert dec.details["implied_stale"] == 1
    assert facts(store)["engineer"].status is FactStatus.PENDING


@pytest.mark.parametrize(
    ("sentence", "name"),
    [
        ("我在苏州工作", "workplace"),
        ("我现在用的是家庭套餐", "subscription"),
        ("Mein Abo ist das Jahresabo", "subscription"),
    ],
)
def test_more_slots_are_read_from_words(sentence: str, name: str) -> None:
    fam = LEXICON.family("statement", sentence)
    assert fam is not None and fam.name == name


def test_a_want_with_one_value_swapped_replaces_the_want_without_a_cue(
    store: EmbeddedIndex,
) -> None:
    """A preference holds one value per frame: 'I'd like my statements posted weekly' then
    '... posted daily' is a new value; two likings ('I like jazz', 'I like blues') are not."""
    old = "I'd like my bank statements posted weekly"
    apply(store, cand(old, "prefers:other", days=0, type_=FactType.PREFERENCE))
    res, dec = apply(
        store,
        cand(
            "I'd like my bank statements posted daily",
            "prefers:other",
            days=7,
            type_=FactType.PREFERENCE,
        ),
    )
    assert (res.action.value, dec.details.get("match")) == ("SUPERSEDE", "wish")
    assert facts(store)[old].status is FactStatus.SUPERSEDED


def test_two_likings_with_one_value_swapped_both_stay(store: EmbeddedIndex) -> None:
    apply(store, cand("I like listening to jazz", "likes", days=0, type_=FactType.PREFERENCE))
    res, _ = apply(
        store, cand("I like listening to blues", "likes", days=7, type_=FactType.PREFERENCE)
    )
    assert res.action.value != "SUPERSEDE"
    assert facts(store)["I like listening to jazz"].status is FactStatus.ACTIVE


def test_a_sentence_long_liking_of_chat_is_not_closed_by_a_remark_with_a_cue(
    store: EmbeddedIndex,
) -> None:
    """Chat narrates: a liking said in a long sentence shares words with many later
    remarks that carry 'new' or 'now'; none of them replaces it."""
    old = (
        "I love baking on weekends, especially bread with seeds and nuts, "
        "because it makes the whole flat smell wonderful"
    )
    apply(store, cand(old, "likes", days=0, type_=FactType.PREFERENCE))
    later = "I tried a new bread recipe with seeds today and the flat smelled great all afternoon"
    res, _ = apply(store, cand(later, "likes", days=3, type_=FactType.PREFERENCE))
    assert res.action.value != "SUPERSEDE"
    assert facts(store)[old].status is FactStatus.ACTIVE
