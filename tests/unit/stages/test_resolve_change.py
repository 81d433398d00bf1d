"""A change to a slot no family names (stages/resolve_change.py, issue 9, change28).

Two readings, on the real usem vectors, asked after slotmask:

* a replacement structure ("sold X and bought Y", "moved from X to Y", "X durch Y ersetzt",
  "把X换成Y"): its old value pins the owner's fact it replaces, with or without a cue;
* a change cue and no family: the owner's fact whose masked frame and value are clearly
  the nearest (a margin over the next one) is superseded; as wherever usem is asked, not
  about two English texts (``english_pairs`` of ``memgate/data/meaning.json``).

Negatives: a value added beside the old one, another person's fact, two things told apart
by a qualifier, a structure whose old value no fact of the owner names, several facts
equally near.

The statement vectors are the hashing embedder's (words, not meaning): no other rule of
the resolver reads these pairs as one slot.
"""

from __future__ import annotations

import time

import pytest

from memgate.core.events import FactStatus
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.resolve_change import CHANGE, qualifier_clash, replaced_value
from tests.unit.stages.resolver_kit import apply_change, changed, statement, status

# ------------------------------------------------- the old value pins the target


@pytest.mark.parametrize(
    ("stored", "said"),
    [
        ("Minha moto é uma Honda Biz", "Vendi a Biz e comprei uma Yamaha Fazer"),
        ("My commuter bike is a Brompton", "I sold the Brompton and bought a Tern Verge"),
        ("Unser Wiki ist Confluence", "Wir sind von Confluence zu Notion umgestiegen"),
        ("Ma voiture est une Peugeot 208", "J'ai vendu ma Peugeot et acheté une Renault Zoe"),
        ("Nuestro CRM es Salesforce", "Sustituimos Salesforce por HubSpot"),
        ("我们的文档工具是语雀", "我们把语雀换成了飞书"),
    ],
)
def test_a_replacement_structure_supersedes_the_fact_of_its_old_value(
    store: EmbeddedIndex, stored: str, said: str
) -> None:
    changed(store, stored, said)


def test_the_structure_is_read_in_every_language() -> None:
    assert replaced_value("Vendi a Biz e comprei uma Yamaha Fazer") == ("Biz", "Yamaha Fazer")
    assert replaced_value("We migrated the repos from Gitea to Forgejo") == ("Gitea", "Forgejo")
    assert replaced_value("Wir sind von Confluence zu Notion umgestiegen") == (
        "Confluence",
        "Notion",
    )
    assert replaced_value("J'ai vendu ma Peugeot et acheté une Renault Zoe") == (
        "Peugeot",
        "Renault Zoe",
    )
    assert replaced_value("Sustituimos Salesforce por HubSpot") == ("Salesforce", "HubSpot")
    assert replaced_value("我们把语雀换成了飞书") == ("语雀", "飞书")
    assert replaced_value("Deploys: Capistrano → Kamal") == ("Capistrano", "Kamal")
    # a trip is no replacement
    assert replaced_value("I drove from Lyon to Turin on Sunday") is None


def test_the_old_value_of_an_arrow_is_one_or_two_whole_words() -> None:
    # a statement's object may hold 2,000 characters: an unbounded run before the arrow was
    # read again from every position (0.1 s a candidate on 2,000 characters with no space)
    assert replaced_value("CI: Jenkins Pipelines → GitHub Actions") == (
        "Jenkins Pipelines",
        "GitHub Actions",
    )
    assert replaced_value("x" * 60 + " → y") is None  # no word is 60 characters long
    assert replaced_value("Pfad: " + "a" * 41 + " -> b") is None


def test_a_long_text_with_no_space_is_read_in_linear_time() -> None:
    # no arrow, so the answer is None on the unbounded run too: only the time tells them
    # apart (the unbounded run took over 3 s on each of these 10,000 characters, the
    # bounded one under 0.01 s)
    started = time.perf_counter()
    for text in ("我们" * 5000, "x" * 10_000):
        assert replaced_value(text) is None
    assert time.perf_counter() - started < 2.0


# ------------------------------------------------- a cue and the clearly nearest frame


@pytest.mark.parametrize(
    ("stored", "said"),
    [
        ("Unser Passwortmanager ist KeePass", "Wir sind inzwischen bei Bitwarden gelandet"),
        (
            "Nuestras copias de seguridad se guardan en Backblaze",
            "Hemos migrado los backups a Wasabi",
        ),
        ("Notre CRM, c'est Salesforce", "On gère maintenant les clients dans HubSpot"),
        ("Nosso servidor de arquivos é o Nextcloud", "Agora os arquivos ficam todos no Seafile"),
        ("我的吉他是Yamaha的", "现在我弹的是一把Martin"),
    ],
)
def test_a_cue_supersedes_the_clearly_nearest_frame(
    store: EmbeddedIndex, stored: str, said: str
) -> None:
    res, dec = changed(store, stored, said)
    assert res.reason == "semantic_update"
    assert str(dec.details["match"]).startswith("change:frame=")


# ------------------------------------------------- negatives


def test_a_value_added_beside_the_old_one_supersedes_nothing(store: EmbeddedIndex) -> None:
    apply_change(store, statement("Our frontend is written in React", days=0))
    res, _ = apply_change(store, statement("We now also use Svelte for the admin pages", days=14))
    assert res.action.value == "ADD"
    assert status(store, "Our frontend is written in React") is FactStatus.ACTIVE
    apply_change(store, statement("Je joue au Scrabble le dimanche", days=15))
    res, _ = apply_change(
        store, statement("Maintenant le dimanche c'est aussi Bridge avec Paul", days=20)
    )
    assert res.action.value == "ADD"
    assert status(store, "Je joue au Scrabble le dimanche") is FactStatus.ACTIVE
    assert CHANGE.adds("Ich spiele jetzt auch Cello") and CHANGE.adds("我现在也打网球")
    assert not CHANGE.adds("Ich spiele jetzt Cello")


@pytest.mark.parametrize(
    ("subject", "stored", "said"),
    [
        ("user's sister", "My sister drives a Volvo", "I sold the Volvo and bought a Skoda"),
        ("user's bruder", "Mein Bruder fährt einen Audi", "Ich fahre jetzt einen Seat Leon"),
    ],
)
def test_another_persons_fact_is_never_superseded(
    store: EmbeddedIndex, subject: str, stored: str, said: str
) -> None:
    apply_change(store, statement(stored, days=0, subject=subject))
    res, _ = apply_change(store, statement(said, days=14))
    assert res.action.value == "ADD"
    assert status(store, stored) is FactStatus.ACTIVE


def test_two_things_told_apart_by_a_qualifier_are_two_facts(store: EmbeddedIndex) -> None:
    assert qualifier_clash("Our staging cluster runs on X", "Our production cluster now runs on X")
    assert not qualifier_clash("Los logs van a X", "Ahora los logs van a X")
    apply_change(store, statement("Our staging cluster runs on Hetzner", days=0))
    said = "These days our production cluster is hosted at Scaleway"
    res, _ = apply_change(store, statement(said, days=14))
    assert res.action.value == "ADD"
    assert status(store, "Our staging cluster runs on Hetzner") is FactStatus.ACTIVE


def test_an_old_value_no_fact_names_pins_nothing(store: EmbeddedIndex) -> None:
    apply_change(store, statement("Mi coche es un Seat Ibiza", days=0))
    res, _ = apply_change(store, statement("Vendí la Vespa y compré una Lambretta", days=14))
    assert res.action.value == "ADD"
    assert status(store, "Mi coche es un Seat Ibiza") is FactStatus.ACTIVE


def test_two_facts_equally_near_leave_both(store: EmbeddedIndex) -> None:
    apply_change(store, statement("Nosso servidor de arquivos é o Nextcloud", days=0))
    apply_change(store, statement("Nosso servidor de e-mail é o Zimbra", days=1))
    res, _ = apply_change(store, statement("Agora tudo fica na Hetzner", days=14))
    assert res.action.value == "ADD"
    assert status(store, "Nosso servidor de arquivos é o Nextcloud") is FactStatus.ACTIVE
    assert status(store, "Nosso servidor de e-mail é o Zimbra") is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            ("team's onlineshop", "Unser Onlineshop läuft auf Shopware"),
            ("team's neuer blog", "Unser neuer Blog läuft auf Ghost"),
        ),
        (
            ("team's app móvil", "Nuestra app móvil está hecha en Flutter"),
            ("team's nueva web", "Nuestra nueva web está hecha en Astro"),
        ),
    ],
)
def test_two_things_of_the_owner_are_two_slots(
    store: EmbeddedIndex, first: tuple[str, str], second: tuple[str, str]
) -> None:
    apply_change(store, statement(first[1], days=0, subject=first[0]))
    res, _ = apply_change(store, statement(second[1], days=14, subject=second[0]))
    assert res.action.value == "ADD"
    assert status(store, first[1]) is FactStatus.ACTIVE


def test_a_family_slot_is_not_read_by_its_frame(store: EmbeddedIndex) -> None:
    """The manager's slot ("gestora") changes when the family is named; a change of no
    family ("agora entrei na Ambev": a new job) is not a new manager."""
    apply_change(store, statement("Minha gestora é a Beatriz", days=0, subject="user's gestora"))
    res, _ = apply_change(store, statement("Agora entrei na Ambev", days=14))
    assert res.action.value == "ADD"
    assert status(store, "Minha gestora é a Beatriz") is FactStatus.ACTIVE
