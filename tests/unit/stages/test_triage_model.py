"""Triage's durable-sentence classifier (issue 9 item 4: triage that drops the moment).

The sentences here are not in the training corpora (checked below): they test what the
classifier learned about classes of turns, in the six languages, not what it memorised.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from memgate.bench.datasets import ENV_DIR
from memgate.core.events import Role, TriageVerdict, TurnEvent
from memgate.stages.triage import TriagePolicy, TriageReason, content_sentences, triage
from memgate.stages.triage_model import TRIAGE_CUES, TriageModel, triage_cues
from tests.datasets import locomo_file

ROOT = Path(__file__).resolve().parents[3]
TRAIN = ROOT / "memgate" / "data" / "train"


def _turn(text: str) -> TurnEvent:
    return TurnEvent(
        tenant_id="t",
        user_id="u",
        session_id="s",
        turn_id="1",
        role=Role.USER,
        content=text,
        ts="2024-05-01T10:00:00Z",
    )


# A problem being debugged right now, what someone else said, a momentary mishap: turns
# that the rules kept (first person or "substantive") and that hold nothing for next month.
MOMENT = {
    "en": [
        "The nightly backup job keeps failing with a permission error on my machine.",
        "My brother says I should sell my car and cycle to work.",
    ],
    "de": [
        "Der Upload bricht bei mir immer noch nach zwei Minuten ab.",
        "Mein Nachbar meint, ich sollte meinen Rasen öfter mähen.",
    ],
    "fr": [
        "L'import plante encore chez moi avec la même erreur.",
        "Ma mère trouve que je devrais dormir plus et travailler moins le soir.",
    ],
    "es": [
        "La subida de archivos me sigue fallando con el mismo error.",
        "Mi vecina dice que debería pintar la fachada antes del verano.",
    ],
    "pt": [
        "O envio dos arquivos continua falhando com o mesmo erro para mim.",
        "Minha vizinha acha que eu deveria pintar a fachada antes do verão.",
    ],
    "zh": [
        "我这边上传文件还是报同样的错误，重启了好几次也没用。",
        "我邻居说我应该把车卖了，换一辆小一点的电动车。",
    ],
}

# A long, noisy turn with one durable sentence buried in it.
BURIED = {
    "en": "Ha, sorry, the call ran over and I'm wiped. For context, I teach chemistry at a "
    "high school in Leeds. Anyway, the upload is still stuck. Thoughts?",
    "de": "Sorry, der Anruf hat länger gedauert und ich bin platt. Zum Hintergrund: ich "
    "unterrichte Chemie an einem Gymnasium in Leipzig. Egal, der Upload hängt noch.",
    "fr": "Désolé, l'appel a duré et je suis lessivé. Pour le contexte, j'enseigne la chimie "
    "dans un lycée de Nantes. Bref, l'envoi est toujours bloqué.",
    "es": "Perdona, la llamada se alargó y estoy molido. Para que lo sepas, doy clases de "
    "química en un instituto de Sevilla. En fin, la subida sigue atascada.",
    "pt": "Desculpa, a ligação demorou e estou acabado. Para contexto, dou aula de química "
    "numa escola em Curitiba. Enfim, o envio continua travado.",
    "zh": "抱歉，电话打得太久了，我累坏了。说下背景，我在成都的一所高中教化学。"
    "不管怎样，上传还是卡着。",
}


CHEMISTRY = {
    "en": "chemistry",
    "de": "Chemie",
    "fr": "chimie",
    "es": "química",
    "pt": "química",
    "zh": "化学",
}


#: Known misses of the committed model (scores within 0.05 of the bar): kept as strict
#: expected failures so that a model that fixes them has to say so.
_MISSES = {
    MOMENT["en"][1]: "known miss of the shipped model, run strictly so a model that fixes it "
    "must say so: reported speech in English scores 0.56 against the bar's 0.55. The triage "
    "model over usem's meaning (branch ktri37) drops it, but was not shipped: LoCoMo held "
    "back fell to 0.9336x, under the 0.95 target (README, session 38)"
}


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        pytest.param(lang, t, marks=pytest.mark.xfail(reason=_MISSES[t], strict=True))
        if t in _MISSES
        else (lang, t)
        for lang, ts in MOMENT.items()
        for t in ts
    ],
)
def test_turns_of_the_moment_are_dropped_before_extraction(lang: str, text: str) -> None:
    # the rules alone keep these (they speak in the first person or look substantive)
    rules = triage(_turn(text), TriagePolicy(durable_model=False))
    assert rules[0] is TriageVerdict.KEEP
    assert triage(_turn(text)) == (TriageVerdict.DROP, TriageReason.NOTHING_DURABLE)


@pytest.mark.parametrize(
    "lang",
    [
        pytest.param(
            lang,
            marks=pytest.mark.xfail(
                reason="known miss of the shipped model, run strictly so a model that fixes "
                "it must say so: the turn is dropped as nothing_durable, its Chinese fact "
                "scoring 0.51 and its best sentence (a state of the moment) 0.547, under the "
                "0.55 bar. The triage model over usem's meaning (branch ktri37) keeps it for "
                "the fact, but "
                "was not shipped: LoCoMo held back 0.9336x (README, session 38)",
                strict=True,
            ),
        )
        if lang == "zh"
        else lang
        for lang in sorted(BURIED)
    ],
)
def test_one_durable_sentence_keeps_a_long_noisy_turn(lang: str) -> None:
    verdict, reason = triage(_turn(BURIED[lang]))
    assert verdict is TriageVerdict.KEEP, reason
    model = TriageModel.load()
    scored = [(model.probability(s), s) for s in content_sentences(BURIED[lang])]
    # the turn is kept because of the fact: it is the best sentence, and above the bar
    best_p, best = max(scored)
    assert best_p >= model.threshold
    assert CHEMISTRY[lang] in best


def test_durable_turns_stay_kept_in_every_language() -> None:
    keeps = [
        "I've played the trumpet in a brass band since I was twelve.",
        "Wir hosten alle internen Tools auf einem eigenen Kubernetes-Cluster.",
        "Je travaille comme infirmière de nuit à l'hôpital de Rennes.",
        "Mi equipo escribe todos los servicios nuevos en Kotlin.",
        "Eu moro em Porto Alegre com minha esposa e dois gatos.",
        "我们团队所有的新服务都用Kotlin写。",
    ]
    for text in keeps:
        assert triage(_turn(text))[0] is TriageVerdict.KEEP, text


def test_short_turns_are_left_to_the_rules() -> None:
    # too few n-grams for the classifier: "I'm vegan" is kept as before
    assert triage(_turn("I'm vegan")) == (TriageVerdict.KEEP, TriageReason.FIRST_PERSON_STATEMENT)
    assert TriageModel.load().probability("I'm vegan") < TriageModel.load().threshold


def test_the_classifier_can_be_switched_off_and_its_threshold_set() -> None:
    text = MOMENT["en"][0]
    assert triage(_turn(text), TriagePolicy(durable_model=False))[0] is TriageVerdict.KEEP
    assert triage(_turn(text), TriagePolicy(durable_threshold=0.0))[0] is TriageVerdict.KEEP


def test_cues_are_word_classes_from_the_data_file() -> None:
    lexicon = json.loads((ROOT / "memgate" / "data" / "triage_cues.json").read_text("utf-8"))
    assert set(TRIAGE_CUES) <= set(lexicon)
    assert triage_cues("Der Build schlägt immer noch fehl.")["ongoing"]
    assert triage_cues("Mon collègue dit que c'est lent.")["reporting_verb"]
    assert triage_cues("服务器还是报错。")["symptom"]


def test_test_sentences_are_not_training_sentences() -> None:
    trained: set[str] = set()
    for name in ("statements.jsonl", "triage.jsonl"):
        for line in (TRAIN / name).read_text("utf-8").splitlines():
            trained |= set(content_sentences(json.loads(line)["text"]))
    mine = {s for ts in MOMENT.values() for t in ts for s in content_sentences(t)}
    mine |= {s for t in BURIED.values() for s in content_sentences(t)}
    assert not trained & mine


def test_training_corpus_has_the_same_classes_in_every_language() -> None:
    rows = [json.loads(line) for line in (TRAIN / "triage.jsonl").read_text("utf-8").splitlines()]
    per_lang: dict[str, list[tuple[str, bool]]] = {}
    for r in rows:
        per_lang.setdefault(r["lang"], []).append((r["class"], r["keep"]))
        if r["keep"]:
            assert r["value"] in r["text"], r["id"]
    assert sorted(per_lang) == ["de", "en", "es", "fr", "pt", "zh"]
    shapes = {lang: sorted(v) for lang, v in per_lang.items()}
    assert len({tuple(v) for v in shapes.values()}) == 1


def test_model_file_is_reproducible_from_the_script(monkeypatch: pytest.MonkeyPatch) -> None:
    # the script reads LoCoMo where find_locomo looks; point it at what the tests found
    monkeypatch.setenv(ENV_DIR, str(locomo_file().parent))
    spec = importlib.util.spec_from_file_location(
        "train_triage", ROOT / "tools" / "train_triage.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclass looks its module up
    try:
        spec.loader.exec_module(mod)
        built = mod.build()
    finally:
        del sys.modules[spec.name]
    committed = (ROOT / "memgate" / "data" / "triage_model.json").read_text("utf-8")
    assert built == committed
    TriageModel.from_json(json.loads(committed))


@pytest.mark.parametrize(
    "text",
    [
        "Oublie ce que je t'ai dit sur mon régime, je parlais de mon frère.",
        "Borra todo lo que sabes sobre mi dirección, por favor.",
    ],
)
def test_retractions_and_deletion_requests_reach_the_extractor(text: str) -> None:
    # they hold no durable sentence, but they are operations on stored facts
    # (memgate.stages.references); dropping them left the retracted fact active
    assert TriageModel.load().turn_score(content_sentences(text)) < TriageModel.load().threshold
    assert triage(_turn(text))[0] is TriageVerdict.KEEP
