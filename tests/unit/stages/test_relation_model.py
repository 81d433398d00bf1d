"""The learned pair classifier of resolution: its features, its trainer and its readings of
written pairs that are not in its corpus (stages/relation_model.py, tools/train_relations.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from memgate.core.embedding import MiniLMEmbedder
from memgate.core.events import render_fact_text
from memgate.stages.relation_model import (
    FEATURE_NAMES,
    RELATIONS,
    RelationModel,
    fit_softmax,
    pair_features,
)

ROOT = Path(__file__).resolve().parents[3]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "train_relations", ROOT / "tools" / "train_relations.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


train_relations = _script()


def _f(sp: str, sv: str, nt: str, cos: float = 0.5, np_: str = "statement") -> dict[str, float]:
    return dict(zip(FEATURE_NAMES, pair_features(sp, sv, np_, nt, cos).tolist(), strict=True))


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


# ---------------------------------------------------------------------------- features


def test_a_change_cue_and_a_shared_family_are_read_from_the_lexicon() -> None:
    f = _f("contact:manager", "Ana Ruiz", "My new boss is Tom Becker", cos=0.4)
    assert f["same_family"] == f["same_single_family"] == 1.0
    assert f["change_cue"] == 1.0 and f["change_cue_x_cosine"] == pytest.approx(0.4)
    assert f["anchor_new_only"] == f["anchor_stored_only"] == 1.0 and f["anchor_shared"] == 0.0


def test_a_restatement_shares_its_words_and_names() -> None:
    f = _f("statement", "We use Trello for tasks", "Tasks are tracked in Trello")
    assert f["anchor_shared"] == 1.0 and f["anchor_new_only"] == 0.0
    assert f["word_containment"] > 0.5 and f["change_cue"] == 0.0


def test_two_people_with_one_value_are_told_apart_by_the_head_of_the_sentence() -> None:
    f = _f("statement", "My brother lives in Oslo", "My sister lives in Oslo")
    assert f["head_swapped"] == 1.0 and f["other_persons"] == 1.0
    assert (
        _f("statement", "My brother lives in Oslo", "My brother lives in Oslo")["head_swapped"]
        == 0.0
    )


def test_retractions_numbers_and_chinese_are_read() -> None:
    assert (
        _f("diet", "keto", "Please forget what I told you about my diet")["reference_retract"]
        == 1.0
    )
    assert _f("statement", "My plan has 20 GB", "My plan has 100 GB now")["number_differs"] == 1.0
    zh = _f("statement", "我住在北京", "我们搬到杭州了")
    assert zh["chinese"] == 1.0 and zh["word_jaccard"] < 0.2


def test_features_do_not_depend_on_the_last_bits_of_the_cosine() -> None:
    a = pair_features("statement", "a", "statement", "b", 0.1234100001)
    b = pair_features("statement", "a", "statement", "b", 0.12344)
    assert np.array_equal(a, b) and a[0] == 0.1234
    a[0] = 9.0  # a copy: the kept features are not changed through it
    assert pair_features("statement", "a", "statement", "b", 0.12344)[0] == 0.1234


# ----------------------------------------------------------------------------- trainer


def test_the_trainer_is_deterministic_and_separates_a_toy_problem() -> None:
    x = np.asarray([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    y = np.asarray([0, 0, 1, 1], dtype=np.int64)
    w1, b1 = fit_softmax(x, y, classes=2, steps=500)
    w2, b2 = fit_softmax(x, y, classes=2, steps=500)
    assert np.array_equal(w1, w2) and np.array_equal(b1, b2)
    assert list(np.argmax(x @ w1 + b1, axis=1)) == [0, 0, 1, 1]


#: how far a retrained weight may sit from the committed one: the MiniLM features of the
#: corpus pairs differ in their last digits between numpy/BLAS builds (a fresh machine's
#: setup moved 53 of 147 numbers by at most a few 1e-5), while a changed corpus or trainer
#: moves weights by far more and changes ``corpus_sha256``
WEIGHT_TOLERANCE = 1e-3


def _numbers(value: object) -> list[float]:
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    assert isinstance(value, int | float), value
    return [float(value)]


def test_the_shipped_model_is_what_the_training_script_writes(minilm: MiniLMEmbedder) -> None:
    """``tools/train_relations.py --check``: the committed weights come from the corpora."""
    shipped = (ROOT / "memgate" / "data" / "relation_model.json").read_text("utf-8")
    built = json.loads(train_relations.build(minilm))
    data = json.loads(shipped)
    numeric = ("threshold", "bias", "weights")
    assert {k: v for k, v in built.items() if k not in numeric} == {
        k: v for k, v in data.items() if k not in numeric
    }
    for key in numeric:
        a, b = _numbers(built[key]), _numbers(data[key])
        assert len(a) == len(b), key
        worst = max(abs(x - y) for x, y in zip(a, b, strict=True))
        assert worst <= WEIGHT_TOLERANCE, (key, worst)
    assert data["features"] == list(FEATURE_NAMES) and data["classes"] == list(RELATIONS)


def test_the_unrelated_pairs_pair_rows_about_other_things() -> None:
    rows = train_relations.load_rows()
    cross = train_relations.cross_pairs(rows)
    assert len(cross) > len(rows) // 2
    assert not {(r["stored"]["value"], r["new"]) for r in rows} & {
        (sv, nt) for _, sv, nt, _ in HELD_OUT
    }
    by_id = {r["id"]: r for r in rows}
    for c in cross:
        own, other = c["id"].split("x", 1)
        assert c["label"] == "other" and by_id[own]["lang"] == by_id[other]["lang"]
        assert by_id[own]["stored"]["predicate"] != by_id[other]["stored"]["predicate"]


def test_a_model_file_of_other_features_is_refused(tmp_path: Path) -> None:
    data = json.loads((ROOT / "memgate" / "data" / "relation_model.json").read_text("utf-8"))
    data["features"] = data["features"][:-1]
    p = tmp_path / "m.json"
    p.write_text(json.dumps(data), "utf-8")
    with pytest.raises(ValueError, match=r"tools/train_relations\.py"):
        RelationModel.load(p)


# -------------------------------------------------------------- held-out written pairs

# (stored predicate, stored value, new text, expected relation); none is in the corpora
HELD_OUT = [
    ("statement", "Our backend is written in Elixir", "The backend code is Elixir", "same"),
    ("statement", "I drink my coffee black", "No milk or sugar in my coffee, just black", "same"),
    ("statement", "Mein Bruder wohnt in Leipzig", "Mein Bruder lebt in Leipzig", "same"),
    ("statement", "Our wiki lives in Confluence", "We migrated the wiki to Notion", "update"),
    ("statement", "My gym is FitX on Main Street", "I switched gyms, I train at McFit now",
     "update"),
    ("statement", "Nuestra wiki está en Confluence", "Pasamos la wiki a Notion", "update"),
    ("statement", "We use Trello for tasks", "Our bugs are tracked in Sentry", "other"),
    ("has_pet", "a dog called Rex", "We also got a cat named Luna", "other"),
    ("statement", "我哥哥住在西安", "我妹妹住在厦门", "other"),
]  # fmt: skip


@pytest.mark.parametrize(("sp", "sv", "nt", "want"), HELD_OUT)
def test_held_out_pairs_are_read_as_written(
    minilm: MiniLMEmbedder, sp: str, sv: str, nt: str, want: str
) -> None:
    a, b = minilm.embed(
        [render_fact_text("user", sp, sv), render_fact_text("user", "statement", nt)]
    )
    relation, _ = RelationModel.load().relation(
        pair_features(sp, sv, "statement", nt, float(a @ b))
    )
    assert relation == want
