"""Semantic resolution: updates in new words, operations by reference, implied updates."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from memgate.core.events import (
    FactStatus,
    FactType,
    RedactedCandidate,
    RedactionAction,
    RedactionResult,
    Resolution,
    TurnEvent,
)
from memgate.sinks.embedded import EmbeddedIndex
from memgate.stages.dedupe import DELETED_VALUE, Resolver
from memgate.stages.persist import plan
from memgate.stages.policy import preset
from memgate.stages.references import REFERENCE_PREDICATE, find_references, with_references
from memgate.stages.resolve_semantic import referenced_facts
from tests.unit.stages.resolver_kit import CLOCK, EMB, T0, apply, cand, facts, ref

# ------------------------------------------------------------ updates in new words


def test_new_boss_in_other_words_supersedes_the_manager(store: EmbeddedIndex) -> None:
    apply(store, cand("Ana Lima", "contact:manager", days=0))
    res, dec = apply(store, cand("My new boss is Tom", "statement", days=30, multi=True))
    assert (res.action.value, res.reason) == ("SUPERSEDE", "semantic_update")
    assert dec.details["match"] == "family:manager"
    got = facts(store)
    assert got["Ana Lima"].status is FactStatus.SUPERSEDED
    assert got["Ana Lima"].superseded_by == got["My new boss is Tom"].fact_id
    assert got["My new boss is Tom"].status is FactStatus.ACTIVE


def test_the_owner_of_a_qualified_subject_in_the_family_is_the_user(store: EmbeddedIndex) -> None:
    # the statement extractor reads "Mi jefe es Carlos" with the subject "user's jefe"
    apply(store, cand("Mi jefe es Carlos", "statement", days=0, subject="user's jefe", multi=True))
    res, dec = apply(store, cand("Ahora mi jefa es Marta", "statement", days=30, multi=True))
    assert (res.reason, dec.details["match"]) == ("semantic_update", "family:manager")
    assert facts(store)["Mi jefe es Carlos"].status is FactStatus.SUPERSEDED


def test_a_family_read_from_words_needs_a_change_cue(store: EmbeddedIndex) -> None:
    apply(store, cand("Ana Lima", "contact:manager", days=0))
    boss = cand("My boss Tom runs the Lisbon office", "statement", days=30, multi=True)
    res, _ = apply(store, boss)
    assert res.action.value == "ADD"
    assert facts(store)["Ana Lima"].status is FactStatus.ACTIVE


def test_tools_of_the_user_and_the_team_are_one_pool(store: EmbeddedIndex) -> None:
    apply(store, cand("Jira", "uses_tool:issue_tracker", days=0, subject="team"))
    res, dec = apply(
        store, cand("I now track everything in Linear", "statement", days=9, multi=True)
    )
    assert (res.reason, dec.details["match"]) == ("semantic_update", "family:tracker")
    assert facts(store)["Jira"].status is FactStatus.SUPERSEDED


def test_a_second_tool_without_a_change_cue_is_kept_beside(store: EmbeddedIndex) -> None:
    apply(store, cand("Jira", "uses_tool:issue_tracker", days=0, subject="team"))
    res, _ = apply(
        store, cand("We also use Linear for roadmaps", "statement", days=9, subject="team")
    )
    assert res.action.value == "ADD"
    assert facts(store)["Jira"].status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("first", "second", "predicate"),
    [
        ("a dog named Rex", "a new kitten named Mia", "has_pet"),
        ("My colleague Ana works on billing", "My new colleague Tom works on search", "statement"),
    ],
)
def test_similar_additive_facts_never_supersede(
    store: EmbeddedIndex, first: str, second: str, predicate: str
) -> None:
    apply(store, cand(first, predicate, days=0, multi=True))
    res, _ = apply(store, cand(second, predicate, days=30, multi=True))
    assert res.action.value == "ADD"
    assert {f.status for f in facts(store).values()} == {FactStatus.ACTIVE}


def test_a_family_word_of_another_subject_supersedes_nothing(store: EmbeddedIndex) -> None:
    apply(store, cand("Ana Lima", "contact:manager", days=0))
    sister = cand("Her new boss is Tom", "statement", days=30, subject="user's sister", multi=True)
    res, _ = apply(store, sister)
    assert res.action.value == "ADD"
    assert facts(store)["Ana Lima"].status is FactStatus.ACTIVE


def test_update_in_new_words_is_scoped_by_user(store: EmbeddedIndex) -> None:
    apply(store, cand("Ana Lima", "contact:manager", days=0, user="u2"))
    res, _ = apply(store, cand("My new boss is Tom", "statement", days=30, multi=True))
    assert res.action.value == "ADD"
    assert facts(store, "u2")["Ana Lima"].status is FactStatus.ACTIVE


def test_update_in_new_words_redelivered_changes_nothing(store: EmbeddedIndex) -> None:
    apply(store, cand("Ana Lima", "contact:manager", days=0))
    new = cand("My new boss is Tom", "statement", days=30, multi=True)
    apply(store, new)
    before = facts(store)
    res, _ = apply(store, new)
    assert (res.action.value, res.reason, res.writes) == ("DUPLICATE", "redelivered", [])
    assert facts(store) == before


def test_older_statement_in_new_words_arriving_late_becomes_history(
    store: EmbeddedIndex,
) -> None:
    apply(store, cand("Ana Lima", "contact:manager", days=30))
    res, _ = apply(store, cand("My new boss is Tom", "statement", days=0, multi=True))
    assert res.reason == "older_than_current"
    got = facts(store)
    assert got["Ana Lima"].status is FactStatus.ACTIVE
    assert got["My new boss is Tom"].status is FactStatus.SUPERSEDED


# ------------------------------------------------------------ operations by reference


def test_retraction_by_reference_closes_the_topic_and_nothing_else(store: EmbeddedIndex) -> None:
    apply(store, cand("I go to the gym on Mondays", "statement", days=0, multi=True))
    apply(store, cand("tea over coffee", "prefers:drink", days=0, type_=FactType.PREFERENCE))
    res, dec = apply(store, ref("the gym", "retract", days=1))
    assert (res.action.value, res.reason) == ("SUPERSEDE", "retracted_by_reference")
    assert (dec.reason, dec.details["op"], dec.details["closed"]) == (
        "retracted_by_reference",
        "retract",
        1,
    )
    got = facts(store)
    gym = got["I go to the gym on Mondays"]
    assert gym.status is FactStatus.SUPERSEDED and gym.valid_to == T0 + timedelta(days=1)
    assert got["tea over coffee"].status is FactStatus.ACTIVE


def test_retraction_by_topic_predicate(store: EmbeddedIndex) -> None:
    apply(store, cand("vegetarian", "diet", days=0))
    res, dec = apply(store, ref("my diet", "retract", days=1))
    assert res.reason == "retracted_by_reference"
    assert dec.details["matched_by"] == "topic_words"  # "diet" is the fact's predicate
    assert facts(store)["vegetarian"].status is FactStatus.SUPERSEDED


def test_reference_redelivered_changes_nothing(store: EmbeddedIndex) -> None:
    apply(store, cand("I go to the gym on Mondays", "statement", days=0, multi=True))
    r = ref("the gym", "retract", days=1)
    apply(store, r)
    apply(store, cand("I go to the gym on Fridays", "statement", days=5, multi=True))
    before = facts(store)
    res, _ = apply(store, r)
    assert (res.action.value, res.reason, res.writes) == ("DUPLICATE", "redelivered", [])
    assert facts(store) == before
    assert before["I go to the gym on Fridays"].status is FactStatus.ACTIVE


def test_a_statement_after_the_reference_stands_in_either_order(tmp_path: Path) -> None:
    later = cand("I go to the gym on Fridays", "statement", days=5, multi=True)
    r = ref("the gym", "retract", days=1)
    ends = []
    for i, order in enumerate(([later, r], [r, later])):
        with EmbeddedIndex(tmp_path / f"o{i}.sqlite3", dim=EMB.dim) as s:
            for item in order:
                apply(s, item)
            ends.append({v: f.status for v, f in facts(s).items()})
    assert ends[0] == ends[1] == {"I go to the gym on Fridays": FactStatus.ACTIVE}


def test_nothing_referenced_is_a_rejection(store: EmbeddedIndex) -> None:
    apply(store, cand("tea over coffee", "prefers:drink", days=0, type_=FactType.PREFERENCE))
    res, dec = apply(store, ref("the gym", "retract", days=1))
    assert (res.action.value, dec.reason) == ("REJECT", "nothing_referenced")
    assert facts(store)["tea over coffee"].status is FactStatus.ACTIVE


def test_deletion_request_removes_the_content(store: EmbeddedIndex) -> None:
    apply(store, cand("Porto", "lives_in", days=0))
    apply(store, cand("Vim", "favorite:editor", days=0, type_=FactType.PREFERENCE))
    res, dec = apply(store, ref("my address", "delete", days=2))
    assert (res.action.value, dec.reason) == ("SUPERSEDE", "deletion_requested")
    stored = store.list_facts("acme", "u1", include_inactive=True)
    assert not any("Porto" in f.model_dump_json() for f in stored)
    # the erased row names neither the value nor the predicate (deletion semantics)
    gone = next(f for f in stored if f.predicate == "deleted")
    assert (gone.status, gone.value, gone.embedding) == (FactStatus.SUPERSEDED, DELETED_VALUE, None)
    assert next(f for f in stored if f.value == "Vim").status is FactStatus.ACTIVE


def test_deletion_erases_every_fact_naming_the_topic_whatever_its_subject(
    store: EmbeddedIndex,
) -> None:
    """The deletion semantics: an explicit request erases every fact of that user about the
    topic (any subject, current or superseded); what stays is a row with ids and times and
    no content (the audit of the erasure), never the topic's words."""
    apply(store, cand("a firefighter", "works_as", days=0, subject="user's brother tomasz"))
    apply(store, cand("Austin", "lives_in", days=0, subject="tomasz"))
    apply(store, cand("running", "likes", days=0, multi=True))
    _, dec = apply(store, ref("my brother Tomasz", "delete", days=5))
    assert (dec.reason, dec.details["closed"]) == ("deletion_requested", 2)
    stored = store.list_facts("acme", "u1", include_inactive=True)
    assert not any("tomasz" in f.model_dump_json().lower() for f in stored)
    assert not any("Austin" in f.model_dump_json() for f in stored)
    assert facts(store)["running"].status is FactStatus.ACTIVE
    # nothing left points at the turn the erased facts came from
    assert not any("t0" in f.source_turn_ids for f in stored if f.value != "running")


def test_deletion_erases_the_superseded_history_of_the_topic(store: EmbeddedIndex) -> None:
    apply(store, cand("Heroku", "deploys_with", days=0, subject="team"))
    apply(store, cand("Fly.io", "deploys_with", days=30, subject="team"))
    assert facts(store)["Heroku"].status is FactStatus.SUPERSEDED
    apply(store, ref("our deployment platform", "delete", days=60, subject="team"))
    dumped = " ".join(
        f.model_dump_json() for f in store.list_facts("acme", "u1", include_inactive=True)
    )
    assert "Heroku" not in dumped and "Fly.io" not in dumped


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (
            "que me contacten por teléfono",
            "que me contacten por correo electrónico",
            "Ahora prefiero que me contacten por correo electrónico.",
        ),
        ("我在腾讯工作", "我现在在字节跳动工作了", "我现在在字节跳动工作了。"),
    ],
)
def test_a_changed_value_with_a_change_cue_is_no_duplicate_however_near(
    store: EmbeddedIndex, old: str, new: str, said: str
) -> None:
    """Similarity alone cannot tell a paraphrase from an update ("now ... by email"): a
    candidate that says something changed and names another value supersedes."""
    apply(store, cand(old, "prefers:contact", days=0, type_=FactType.PREFERENCE))
    stored = facts(store)[old]
    assert stored.embedding is not None
    item = cand(new, "prefers:contact", days=30, type_=FactType.PREFERENCE)
    item = item.model_copy(
        update={"candidate": item.candidate.model_copy(update={"context": said})}
    )
    vec = np.asarray(stored.embedding)  # as near as can be
    out = Resolver(preset("balanced"), EMB, clock=CLOCK).resolve(item, store, vec)
    res = next(e for e in out if isinstance(e, Resolution))
    assert res.action.value == "SUPERSEDE", res.reason


@pytest.mark.parametrize(
    ("topic", "subject", "predicate", "value"),
    [
        ("mi mascota", "user's dog", "name", "Rocco"),  # a broader word
        ("mon magasin de retrait", "user's preferred pickup store", "statement", "Part-Dieu"),
        ("快递", "user", "prefers:courier", "SF Express"),  # another language
        ("meinem Haustier", "user's cat", "name", "Mimi"),
        ("mon employeur", "user", "statement", "I work for Initech"),  # no predicate
        ("mi cumpleaños", "user", "statement", "My birthday is on March 3"),
        ("meu carro", "user", "statement", "My car is a Honda Civic"),
    ],
)
def test_a_deletion_topic_reaches_facts_named_by_a_synonym_or_hypernym(
    store: EmbeddedIndex, topic: str, subject: str, predicate: str, value: str
) -> None:
    apply(store, cand(value, predicate, days=0, subject=subject))
    apply(store, cand("the cello", "plays", days=0))
    apply(store, ref(topic, "delete", days=3))
    stored = store.list_facts("acme", "u1", include_inactive=True)
    assert not any(value in f.model_dump_json() for f in stored)
    assert facts(store)["the cello"].status is FactStatus.ACTIVE


def test_a_latin_name_inside_chinese_text_is_a_word_of_its_own(store: EmbeddedIndex) -> None:
    """Chinese has no spaces: 'Jenkins' in '我们用Jenkins做持续集成' is still a word."""
    apply(store, cand("我们用Jenkins做持续集成", "statement", days=0))
    _, dec = apply(store, ref("Jenkins", "stop", days=3, subject="team"))
    assert dec.reason == "stopped_by_reference"
    assert facts(store)["我们用Jenkins做持续集成"].status is FactStatus.SUPERSEDED


@pytest.mark.parametrize(
    ("old", "old_subject", "new"),
    [
        (
            "Mon abonnement est la formule Basique",
            "user's abonnement",
            "Je suis passé à la formule Premium la semaine dernière",
        ),
        ("I am on the Starter plan", "user", "I switched to the Business plan"),
    ],
)
def test_a_change_naming_the_same_head_noun_as_the_old_name_updates_it(
    store: EmbeddedIndex, old: str, old_subject: str, new: str
) -> None:
    """'la formule Basique' -> 'la formule Premium': the noun a name heads after a
    determiner is the slot the name fills, in any language."""
    apply(store, cand(old, "statement", days=0, subject=old_subject, multi=True))
    res, _ = apply(store, cand(new, "statement", days=30, multi=True))
    assert res.action.value == "SUPERSEDE", res.reason
    assert facts(store)[old].status is FactStatus.SUPERSEDED


def test_a_verb_before_a_name_is_no_head_noun(store: EmbeddedIndex) -> None:
    apply(store, cand("We use Jenkins for CI", "statement", days=0, subject="team", multi=True))
    later = cand("We now use GitLab for issues", "statement", days=30, subject="team", multi=True)
    apply(store, later)
    assert facts(store)["We use Jenkins for CI"].status is FactStatus.ACTIVE


def test_the_same_clause_with_another_value_and_a_change_cue_updates_it(
    store: EmbeddedIndex,
) -> None:
    """'prefiero que me contacten por teléfono' -> 'Ahora ... por correo': one clause frame,
    another value, a change cue in the sentence: an update, not a paraphrase."""
    old = "que me contacten por teléfono"
    apply(store, cand(old, "prefers:other", days=0, type_=FactType.PREFERENCE, multi=True))
    item = cand(
        "que me contacten por correo electrónico",
        "prefers:other",
        days=30,
        type_=FactType.PREFERENCE,
        multi=True,
    )
    said = "Ahora prefiero que me contacten por correo electrónico."
    item = item.model_copy(
        update={"candidate": item.candidate.model_copy(update={"context": said})}
    )
    res, _ = apply(store, item)
    assert res.action.value == "SUPERSEDE", res.reason
    assert facts(store)[old].status is FactStatus.SUPERSEDED


def test_an_instruction_on_the_same_words_does_not_replace_an_event(store: EmbeddedIndex) -> None:
    """A clause frame with another value is an update only between facts of one type."""
    event = "deployed the billing service to Kubernetes"
    apply(store, cand(event, "statement", days=0, type_=FactType.EVENT, multi=True))
    rule = cand(
        "always deploy the billing service with a canary",
        "statement",
        days=1,
        type_=FactType.INSTRUCTION,
        multi=True,
    )
    said = "From now on, always deploy the billing service with a canary."
    ctx = rule.candidate.model_copy(update={"context": said})
    rule = rule.model_copy(update={"candidate": ctx})
    apply(store, rule)
    assert facts(store)[event].status is FactStatus.ACTIVE


def test_a_retraction_said_with_forget_erases_the_content_but_names_the_turn(
    store: EmbeddedIndex,
) -> None:
    """'Oublie ce que je t'ai dit sur mon régime, je parlais de mon frère': the content
    goes; unlike an explicit deletion request, the row still names the withdrawn turn."""
    from memgate.core.events import Role

    apply(store, cand("végétarien", "diet", days=0))
    turn = TurnEvent(
        tenant_id="acme", user_id="u1", session_id="s2", turn_id="t2", role=Role.USER,
        content="Oublie ce que je t'ai dit sur mon régime, je parlais de mon frère.",
        ts=T0 + timedelta(days=2),
    )  # fmt: skip
    (said,) = with_references(turn, [])
    red = RedactedCandidate(candidate=said, redaction=RedactionResult(action=RedactionAction.CLEAN))
    apply(store, red)
    (row,) = store.list_facts("acme", "u1", include_inactive=True)
    assert (row.status, row.value, row.source_turn_ids) == (
        FactStatus.SUPERSEDED,
        DELETED_VALUE,
        ["t0"],
    )


def test_stop_by_reference_closes_facts_naming_the_tool(store: EmbeddedIndex) -> None:
    apply(store, cand("Bitbucket", "uses_tool:repositories", days=0, subject="team"))
    apply(store, cand("Our team uses Jira for tickets", "statement", days=0, subject="team"))
    _, dec = apply(store, ref("Bitbucket", "stop", days=3, subject="team"))
    assert dec.reason == "stopped_by_reference"
    got = facts(store)
    assert got["Bitbucket"].status is FactStatus.SUPERSEDED
    assert got["Our team uses Jira for tickets"].status is FactStatus.ACTIVE


# ------------------------------------------------------------ implied updates


def test_a_move_makes_the_time_zone_pending(store: EmbeddedIndex) -> None:
    apply(store, cand("Berlin", "lives_in", days=0))
    apply(store, cand("CET", "timezone", days=0))
    res, dec = apply(store, cand("Lisbon", "lives_in", days=60))
    assert (res.action.value, res.reason) == ("SUPERSEDE", "new_value")
    assert dec.details["implied_stale"] == 1
    got = facts(store)
    assert got["CET"].status is FactStatus.PENDING
    assert (got["Lisbon"].status, got["Berlin"].status) == (
        FactStatus.ACTIVE,
        FactStatus.SUPERSEDED,
    )
    history = {h.fact_id: h.action for h in plan(res).history}
    assert history[got["CET"].fact_id] == "pending"


def test_a_time_zone_after_the_move_stays_current(store: EmbeddedIndex) -> None:
    apply(store, cand("Berlin", "lives_in", days=0))
    apply(store, cand("Lisbon", "lives_in", days=60))
    res, _ = apply(store, cand("WET", "timezone", days=61))
    assert res.action.value == "ADD"
    assert facts(store)["WET"].status is FactStatus.ACTIVE


def test_implied_staleness_does_not_depend_on_arrival_order(tmp_path: Path) -> None:
    items = [
        cand("Berlin", "lives_in", days=0),
        cand("CET", "timezone", days=1),
        cand("Lisbon", "lives_in", days=60),
    ]
    ends = []
    for i, order in enumerate((items, [items[0], items[2], items[1]])):
        with EmbeddedIndex(tmp_path / f"o{i}.sqlite3", dim=EMB.dim) as s:
            for item in order:
                apply(s, item)
            ends.append({v: f.status for v, f in facts(s).items()})
    assert ends[0] == ends[1]
    assert ends[0]["CET"] is FactStatus.PENDING


# ------------------------------------------------------------ finding references

REFERENCES = [
    ("en", "Scratch that bit about the gym.", "withdraw", "gym"),
    ("en", "Please delete what you know about my address.", "delete", "address"),
    ("de", "Vergiss bitte, was ich dir über mein Fitnessstudio gesagt habe.", "delete", "Fitness"),
    ("de", "Ignorier, was ich dir über mein Fitnessstudio gesagt habe.", "withdraw", "Fitness"),
    ("de", "Lösche bitte alles, was du über meine Adresse weißt.", "delete", "Adresse"),
    ("fr", "Oublie ce que je t'ai dit sur mon régime.", "delete", "régime"),
    ("fr", "Ignore ce que je t'ai dit sur mon régime.", "withdraw", "régime"),
    ("fr", "Supprime tout ce que tu sais sur mon adresse.", "delete", "adresse"),
    ("es", "Olvida lo que te dije sobre el gimnasio.", "delete", "gimnasio"),
    ("es", "Ignora lo que te dije sobre el gimnasio.", "withdraw", "gimnasio"),
    ("es", "Borra todo lo que sabes sobre mi dirección.", "delete", "dirección"),
    ("pt", "Esquece o que eu te disse sobre a academia.", "delete", "academia"),
    ("pt", "Ignora o que eu te disse sobre a academia.", "withdraw", "academia"),
    ("pt", "Apague tudo o que você sabe sobre o meu endereço.", "delete", "endereço"),
    ("zh", "忘掉我说过的关于健身的事。", "delete", "健身"),
    ("zh", "忽略我说过的关于健身的事。", "withdraw", "健身"),
    ("zh", "请删除关于我地址的所有信息。", "delete", "地址"),
    # other wordings of the same operations
    ("en", "Forget everything you know about my sister.", "delete", "sister"),
    ("en", "Please remove my address from your memory.", "delete", "address"),
    ("en", "Never mind what I said about the marathon.", "withdraw", "marathon"),
    ("de", "Vergiss das mit dem Fitnessstudio.", "delete", "Fitnessstudio"),
    ("de", "Streich das mit dem Fitnessstudio.", "withdraw", "Fitnessstudio"),
    ("de", "Lösche meine Adresse.", "delete", "Adresse"),
    ("fr", "Oublie tout ce que tu sais sur ma sœur.", "delete", "sœur"),
    ("fr", "Efface mon adresse.", "delete", "adresse"),
    ("es", "Olvida lo del gimnasio.", "delete", "gimnasio"),
    ("es", "Ignora lo del gimnasio.", "withdraw", "gimnasio"),
    ("es", "Borra mi dirección.", "delete", "dirección"),
    ("pt", "Esquece aquela parte da academia.", "delete", "academia"),
    ("pt", "Ignora aquela parte da academia.", "withdraw", "academia"),
    ("pt", "Apague meu endereço.", "delete", "endereço"),
    ("zh", "别记住我的电话号码。", "delete", "电话"),
    ("zh", "刚才说健身那个不算。", "withdraw", "健身"),
    # a verb of deleting in a retraction's frame, and the frames that took none
    ("en", "Delete the bit about my sister.", "delete", "sister"),
    ("en", "Scrap what I said about the marathon.", "withdraw", "marathon"),
    ("de", "Lösch, was ich über meine Frau gesagt habe.", "delete", "Frau"),
    ("fr", "Efface ce que je t'ai dit sur mon fils.", "delete", "fils"),
    ("es", "Borra lo que te dije sobre mi empresa.", "delete", "empresa"),
    ("pt", "Apaga o que eu disse sobre o meu editor.", "delete", "editor"),
    ("de", "Notion benutze ich nicht mehr.", "stop", "Notion"),
]


@pytest.mark.parametrize(("lang", "text", "op", "topic"), REFERENCES)
def test_references_in_six_languages(lang: str, text: str, op: str, topic: str) -> None:
    (r,) = find_references(text)
    # a withdrawal of what was said about a topic erases it as a deletion does, the turn
    # it withdraws still named (references.withdrawn)
    assert r.op == ("delete" if op == "withdraw" else op) and topic in r.topic
    assert r.retracted or op != "withdraw"


@pytest.mark.parametrize(
    "text",
    [
        "I went to the gym and forgot my towel.",
        "Can you delete the trailing whitespace in this file?",
        "Ich habe meine Adresse vergessen.",
        "我今天去了健身房。",
        # first-person reports of deleting or forgetting something are not requests
        "I deleted my old account yesterday.",
        "Ich lösche meine alten Dateien.",
        "Je supprime mes fichiers.",
        "Borra la línea tres del archivo.",
        "我忘记我的钥匙了。",
        "我删除了我的账号。",
    ],
)
def test_no_reference_in_ordinary_sentences(text: str) -> None:
    assert find_references(text) == []


def test_the_request_itself_is_not_kept_as_a_fact() -> None:
    turn = TurnEvent(
        tenant_id="acme",
        user_id="u1",
        session_id="s1",
        turn_id="t9",
        role="user",
        content="Please delete what you know about my address.",
        ts=T0,
    )
    request = cand("Please delete what you know about my address", "statement", days=0).candidate
    out = with_references(turn, [request])
    assert [(c.predicate, c.object, c.retracts) for c in out] == [
        (REFERENCE_PREDICATE, "my address", True)
    ]


# ------------------------------------------------- slots, anchors and paraphrases


def test_a_change_naming_the_slot_supersedes_a_sentence_fact(store: EmbeddedIndex) -> None:
    # the statement extractor keys a whole sentence: "user's plan statement Mi plan es ..."
    apply(
        store, cand("Mi plan es el Básico", "statement", days=0, subject="user's plan", multi=True)
    )
    res, dec = apply(store, cand("Ya me pasé al plan Premium", "statement", days=30, multi=True))
    assert (res.reason, dec.details["match"]) == ("slot_update", "slot")
    assert facts(store)["Mi plan es el Básico"].status is FactStatus.SUPERSEDED


def test_a_change_naming_the_old_value_supersedes_it(store: EmbeddedIndex) -> None:
    old = "Mon opérateur mobile est Orange"
    apply(store, cand(old, "statement", days=0, subject="user's opérateur mobile", multi=True))
    res, dec = apply(
        store,
        cand("Je suis passée chez Free, je n'ai plus Orange", "statement", days=9, multi=True),
    )
    assert (res.reason, dec.details["match"]) == ("slot_update", "anchor")
    assert facts(store)[old].status is FactStatus.SUPERSEDED


def test_a_word_shared_with_a_long_sentence_does_not_replace_it(store: EmbeddedIndex) -> None:
    """Chat names the other speaker all the time: a later remark with a change cue that
    shares a name (an anchor) with an earlier sentence-long fact is a new fact, not its
    update. On LoCoMo such anchor matches superseded 86 facts and cost 0.11x of
    recall@10."""
    old = "I went to the pride parade with Melanie last week and it was amazing"
    apply(store, cand(old, "statement", days=0, multi=True))
    later = "Melanie and I now paint together every weekend"
    res, _ = apply(store, cand(later, "statement", days=9, multi=True))
    assert res.action.value == "ADD"
    assert facts(store)[old].status is FactStatus.ACTIVE


def test_naming_the_slot_without_a_change_cue_supersedes_nothing(store: EmbeddedIndex) -> None:
    apply(
        store, cand("Mi plan es el Básico", "statement", days=0, subject="user's plan", multi=True)
    )
    res, _ = apply(
        store, cand("El plan incluye soporte por chat", "statement", days=30, multi=True)
    )
    assert res.action.value == "ADD"
    assert facts(store)["Mi plan es el Básico"].status is FactStatus.ACTIVE


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            ("tabs over spaces", "prefers:indentation"),
            "For indentation I always want tabs rather than spaces",
        ),
        (
            ("Ich trinke meinen Kaffee schwarz", "statement"),
            "Meinen Kaffee trinke ich immer schwarz",
        ),
        (("Airbus", "works_at"), "Mon employeur, c'est Airbus"),
        (("我喜欢喝绿茶", "statement"), "我最喜欢喝的是绿茶"),
    ],
)
def test_a_paraphrase_is_one_fact(
    store: EmbeddedIndex, first: tuple[str, str], second: str
) -> None:
    apply(store, cand(first[0], first[1], days=0, multi=first[1] == "statement"))
    res, _ = apply(store, cand(second, "statement", days=30, multi=True))
    assert (res.action.value, res.reason) == ("DUPLICATE", "same_clause")
    got = facts(store)
    assert second not in got and got[first[0]].occurrences == 2


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I use tabs for indentation", "I don't use tabs for indentation"),
        ("Ich trinke meinen Kaffee schwarz", "Ich trinke meinen Kaffee jetzt mit Milch"),
        ("We deploy with Heroku", "We deploy with Fly.io"),
    ],
)
def test_a_negation_a_change_or_another_name_is_not_a_paraphrase(
    store: EmbeddedIndex, first: str, second: str
) -> None:
    apply(store, cand(first, "statement", days=0, multi=True))
    res, _ = apply(store, cand(second, "statement", days=30, multi=True))
    assert res.reason != "same_clause"


def test_the_same_value_of_two_people_is_two_facts(store: EmbeddedIndex) -> None:
    apply(store, cand("Rome", "lives_in", days=0, subject="user's sister"))
    res, _ = apply(store, cand("Rome", "lives_in", days=30, subject="user's brother"))
    assert (res.action.value, res.reason) == ("ADD", "new_key")


def test_a_pronoun_subject_is_read_as_the_team(store: EmbeddedIndex) -> None:
    res, _ = apply(store, cand("Sentry", "uses_tool:errors", days=0, subject="on"))
    assert res.writes[0].subject == "team" and res.key == "acme/u1/team/uses_tool:errors"


def test_a_topic_synonym_refers_to_a_fact_named_in_another_language(store: EmbeddedIndex) -> None:
    # the extractor wrote the kinship in English; the request names it in German
    apply(store, cand("Julia", "name_is", days=0, subject="user's wife"))
    apply(store, cand("Ich fahre gern Fahrrad", "statement", days=0, multi=True))
    res, _ = apply(store, ref("meine Frau", "delete", days=5))
    assert res.reason == "deletion_requested"
    got = facts(store)
    assert "Julia" not in got and got["Ich fahre gern Fahrrad"].status is FactStatus.ACTIVE


def test_similarity_alone_refers_to_the_nearest_fact_only(store: EmbeddedIndex) -> None:
    for i, text in enumerate(["I lift weights on Mondays", "I swim on Fridays"]):
        apply(store, cand(text, "statement", days=i, multi=True))
    topic_vec = EMB.embed(["my routine"])[0]
    near = [float(x) for x in topic_vec]
    off = [float(x) for x in (topic_vec * 0.8 + EMB.embed(["zzz"])[0] * 0.6)]
    both = list(facts(store).values())
    store.upsert(
        [
            both[0].model_copy(update={"embedding": near}),
            both[1].model_copy(update={"embedding": off}),
        ],
        wait=True,
    )
    found = referenced_facts(ref("my routine", "retract", days=9).candidate, store, topic_vec)
    assert [(f.fact_id, why) for f, why in found] == [(both[0].fact_id, "similarity")]


def _inferred(item: RedactedCandidate, *, confirmed: bool | None = None) -> RedactedCandidate:
    c = item.candidate.model_copy(update={"confidence": 0.5, "confirmed": confirmed})
    return item.model_copy(update={"candidate": c})


def test_confirming_one_reading_of_a_remark_closes_its_other_readings(store: EmbeddedIndex) -> None:
    remark = cand("My husband says I work too late", "statement", days=0, multi=True)
    married = cand("married", "relationship_status", days=0)
    married = married.model_copy(
        update={"candidate": married.candidate.model_copy(update={"source_turn_ids": ["t0"]})}
    )
    other = cand("I like jazz", "statement", days=1, multi=True)
    for item in (remark, married, other):
        apply(store, _inferred(item))
    assert {f.status for f in facts(store).values()} == {FactStatus.PENDING}
    confirm = cand("married", "relationship_status", days=0)
    confirm = confirm.model_copy(
        update={
            "candidate": confirm.candidate.model_copy(
                update={"confirmed": True, "source_turn_ids": ["t0b"], "candidate_id": "c-conf"}
            )
        }
    )
    res, _ = apply(store, confirm)
    assert res.reason == "promoted_confirmed"
    got = facts(store)
    assert got["married"].status is FactStatus.ACTIVE
    assert got["My husband says I work too late"].status is FactStatus.SUPERSEDED
    assert got["I like jazz"].status is FactStatus.PENDING  # another turn's inference waits


def test_a_move_makes_a_time_zone_said_as_a_sentence_pending(store: EmbeddedIndex) -> None:
    apply(store, cand("Hamburg", "lives_in", days=0))
    tz = "Meine Zeitzone ist MEZ"
    apply(store, cand(tz, "statement", days=0, subject="user's zeitzone", multi=True))
    _, dec = apply(store, cand("Tokio", "lives_in", days=60))
    assert dec.details["implied_stale"] == 1
    assert facts(store)[tz].status is FactStatus.PENDING


def test_a_new_employer_makes_the_old_manager_pending(store: EmbeddedIndex) -> None:
    apply(store, cand("Stripe", "works_at", days=0))
    boss = "My manager at Stripe is Priya"
    apply(store, cand(boss, "statement", days=0, subject="user's manager at stripe", multi=True))
    res, _ = apply(store, cand("Shopify", "works_at", days=90))
    assert res.reason == "new_value"
    assert facts(store)[boss].status is FactStatus.PENDING


def test_a_paraphrase_read_without_vectors_is_written_back_with_them(
    store: EmbeddedIndex,
) -> None:
    """The paraphrase search reads the speaker's facts without their vectors (OpenSearch
    then sends far less); the fact it finds is written back with its vectors."""
    from tests.unit.streams.near_real_time import NearRealTimeIndex

    view = NearRealTimeIndex(store)  # by_subject(vectors=False) answers without vectors
    apply(view, cand("Ich trinke meinen Kaffee schwarz", "statement", days=0, multi=True))  # type: ignore[arg-type]
    res, _ = apply(view, cand("Meinen Kaffee trinke ich immer schwarz", "statement",  # type: ignore[arg-type]
                              days=30, multi=True))  # fmt: skip
    assert (res.action.value, res.reason) == ("DUPLICATE", "same_clause")
    kept = facts(store)["Ich trinke meinen Kaffee schwarz"]
    assert kept.occurrences == 2 and kept.embedding is not None
