"""Deletion requests and 'no longer' statements read from a clause's roles, not one pattern
per phrasing: an imperative verb of deleting at the head of a clause, or a first-person
clause holding a negation and a 'no longer' word (memgate/data/clause_roles.json)."""

from __future__ import annotations

import pytest

from memgate.stages.references import find_references
from memgate.stages.resolution_lexicon import LEXICON


def _refs(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(r.op, LEXICON.topic_terms(r.topic)) for r in find_references(text)]


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("Apague a informação de que usamos o Sentry.", "sentry"),
        ("Forget everything about our deployment platform.", "deployment"),
        ("请把关于快递的记录都删掉。", "快递"),
        (
            "Puh, heute war ein langer Tag. Ach ja, bevor ich es vergesse: vergiss bitte, "
            "dass ich Klavier spiele. Na ja, egal.",
            "klavier",
        ),
        ("Efface tout ce qui concerne mon vélo, s'il te plaît.", "vélo"),
        ("Por favor, elimina la información sobre mi coche.", "coche"),
    ],
)
def test_an_imperative_verb_of_deleting_heads_a_deletion_request(text: str, term: str) -> None:
    got = _refs(text)
    assert [op for op, _ in got] == ["delete"], got
    assert term in got[0][1]
    # the frame of the request is not the topic
    assert not {"everything", "informação", "记录", "bitte", "que"} & set(got[0][1])


@pytest.mark.parametrize(
    "text",
    [
        "I always forget my keys.",
        "Don't forget to remove the old branch.",
        "Ich habe vergessen, die Datei zu löschen.",
        "我忘记带钥匙了。",
        "The script should delete temp files after each run.",
    ],
)
def test_a_verb_of_deleting_that_is_not_a_request_is_no_reference(text: str) -> None:
    assert _refs(text) == []


@pytest.mark.parametrize(
    ("text", "terms", "not_terms"),
    [
        ("I don't drive a Honda Civic anymore, I sold it.", {"civic"}, {"drive", "sold"}),
        ("I no longer need express delivery for my orders.", {"express"}, {"need", "orders"}),
        ("Eu não faço mais aula de violão.", {"violão"}, {"faço"}),
        ("Ich trinke keinen Kaffee mehr.", {"kaffee"}, {"trinke"}),
        ("Je ne reçois plus la newsletter, je m'en suis désabonné.", {"newsletter"}, {"reçois"}),
    ],
)
def test_a_first_person_no_longer_clause_stops_its_object(
    text: str, terms: set[str], not_terms: set[str]
) -> None:
    got = _refs(text)
    assert [op for op, _ in got] == ["stop"], got
    assert terms <= set(got[0][1]) and not (not_terms & set(got[0][1]))


@pytest.mark.parametrize(
    "text",
    [
        "I don't like early meetings.",
        "My sister doesn't live in Denver anymore.",
        "Do you still use Jenkins?",
    ],
)
def test_a_plain_negation_or_a_third_person_is_no_stop(text: str) -> None:
    assert _refs(text) == []


@pytest.mark.parametrize(
    "text", ["Borra la línea tres del archivo.", "请把这行代码删掉。", "Delete line three."]
)
def test_an_imperative_about_a_file_is_an_instruction_not_a_deletion_request(text: str) -> None:
    assert _refs(text) == []


@pytest.mark.parametrize(
    ("text", "old", "new"),
    [
        ("We moved our internal docs from Confluence to Notion.", "confluence", "notion"),
        ("Wir sind von npm auf pnpm umgestiegen.", "npm", "pnpm"),
        ("Je suis passé de la formule Basique à la formule Premium.", "basique", "premium"),
        ("Cambiamos de Jenkins a GitHub Actions el mes pasado.", "jenkins", "github"),
        ("Trocamos o Eclipse pelo IntelliJ.", "eclipse", "intellij"),
        ("We replaced Jira with Linear last quarter.", "jira", "linear"),
        ("我们从Jenkins换成了GitLab。", "jenkins", "gitlab"),
    ],
)
def test_a_change_from_one_value_to_another_stops_the_old_one(
    text: str, old: str, new: str
) -> None:
    got = _refs(text)
    assert [op for op, _ in got] == ["stop"], got
    assert old in got[0][1] and new not in got[0][1]


def test_a_change_frame_keeps_the_new_value_s_candidates() -> None:
    # the clause of a change frame is no request: what the extractor read from it stays
    assert all(r.clause == "" for r in find_references("We moved from Confluence to Notion."))


@pytest.mark.parametrize(
    "text", ["I drove from Berlin to Hamburg yesterday.", "Je parle de mon travail à ma femme."]
)
def test_from_and_to_without_a_change_word_is_no_change(text: str) -> None:
    assert _refs(text) == []


REQUEST_QUESTIONS = [
    ("Could you delete my phone number, please?", "phone"),
    ("Can you forget where I work?", "work"),
    ("Kannst du bitte meine Adresse löschen?", "adresse"),
    ("Peux-tu oublier mon numéro de téléphone ?", "téléphone"),
    ("¿Puedes borrar lo de mi perro?", "perro"),
    ("Você pode apagar meu endereço?", "endereço"),
    ("你能删掉我的地址吗？", "地址"),
]


@pytest.mark.parametrize(("text", "term"), REQUEST_QUESTIONS)
def test_a_deletion_request_asked_as_a_question_is_a_request(text: str, term: str) -> None:
    got = _refs(text)
    assert [op for op, _ in got] == ["delete"], got
    assert any(term in t for t in got[0][1]), got


@pytest.mark.parametrize(("text", "term"), REQUEST_QUESTIONS)
def test_triage_keeps_a_deletion_request_asked_as_a_question(text: str, term: str) -> None:
    from datetime import UTC, datetime

    from memgate.core.events import TriageVerdict, TurnEvent
    from memgate.stages.triage import triage

    t = TurnEvent(
        tenant_id="a", user_id="u", session_id="s", turn_id="t", role="user",
        content=text, ts=datetime(2024, 1, 1, tzinfo=UTC),
    )  # fmt: skip
    assert triage(t)[0] is TriageVerdict.KEEP


@pytest.mark.parametrize(
    "text", ["Can you delete the temp files in this folder?", "Kannst du die Datei löschen?"]
)
def test_a_question_asking_to_delete_a_file_is_no_deletion_request(text: str) -> None:
    assert _refs(text) == []


def test_a_change_frame_the_extractor_read_nothing_from_is_kept_as_a_statement() -> None:
    """'Wir sind von npm auf pnpm umgestiegen': a correction worth keeping; when the
    extractor read no fact from the turn, the change sentence itself is the new fact."""
    from datetime import UTC, datetime

    from memgate.core.events import TurnEvent
    from memgate.stages.extract import RuleExtractor
    from memgate.stages.references import is_reference, with_references

    t = TurnEvent(
        tenant_id="a", user_id="u", session_id="s", turn_id="t", role="user",
        content="Wir sind von npm auf pnpm umgestiegen.", ts=datetime(2024, 1, 1, tzinfo=UTC),
    )  # fmt: skip
    assert [c for c in with_references(t, []) if not is_reference(c)] == [], (
        "the pipeline's reference layer keeps nothing an extractor did not"
    )
    got = with_references(t, RuleExtractor().extract(t))
    said = [c for c in got if not is_reference(c)]
    assert [c.object for c in said] == ["Wir sind von npm auf pnpm umgestiegen"]
    assert said[0].subject == "team" and said[0].predicate == "statement"
    assert [c.object for c in got if is_reference(c)] == ["npm"]


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("You can forget about my old job at Deloitte.", "deloitte"),
        ("I'd like you to delete my sister's phone number.", "phone"),
        ("I want you to forget where I live.", "live"),
        ("Enlève mon adresse de ta mémoire.", "adresse"),
        ("Quita lo de mi perro, por favor.", "perro"),
        ("Tira o meu endereço da memória.", "endereço"),
        ("Je veux que tu oublies mon numéro de téléphone.", "téléphone"),
        ("Quiero que olvides mi dirección.", "dirección"),
        ("Du kannst meine alte Adresse vergessen.", "adresse"),
        ("请去掉我的地址。", "地址"),
    ],
)
def test_a_deletion_request_in_another_frame_or_with_another_verb(text: str, term: str) -> None:
    got = _refs(text)
    assert [op for op, _ in got] == ["delete"], got
    assert any(term in t for t in got[0][1]), got


@pytest.mark.parametrize(
    "text", ["You can remove the old branch now.", "I want you to delete the temp files."]
)
def test_a_request_frame_about_files_is_no_deletion_request(text: str) -> None:
    assert _refs(text) == []
