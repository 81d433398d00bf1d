"""The frozen test split (``memgate/data/eval/test/``) and the LoCoMo split: a format validator.

These tests only check that the frozen files are what they claim to be (they
load with the project's own loaders, the counts and the per-language and
per-class minimums hold, ids are unique, checksummed values are valid, benign
look-alikes are benign) and that no byte changed since the split was recorded
(sha256 against ``MANIFEST.json`` and the README). They never run the gate on
the files: the split is scored only by ``memgate eval``, in aggregate.
"""

from __future__ import annotations

import hashlib
import importlib
import ipaddress
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from stdnum import ean, iban, isbn, luhn

import memgate
from memgate.evaluation import labelled, leaks, scenarios
from memgate.evaluation.common import CorpusError
from memgate.evaluation.leaks import SECRET_KINDS, LeakCase
from tests.datasets import locomo_file

EVAL_DIR = Path(memgate.__file__).parent / "data" / "eval"
TEST_DIR = EVAL_DIR / "test"
README = Path(memgate.__file__).parent.parent / "README.md"
LANGS = ("en", "de", "fr", "es", "pt", "zh")
SCENARIO_CLASSES = (
    "supersede",
    "as_of",
    "retraction",
    "deletion",
    "noise",
    "confirmation",
    "dedupe",
    "tenant_isolation",
)
HARD_NEGATIVES = (
    "session_context",
    "one_off_request",
    "question",
    "hypothetical",
    "assistant_opinion",
    "small_talk",
    "meta",
    "long_noise",
)
POSITIVES = (
    "work_fact",
    "preference",
    "background",
    "decision",
    "correction",
    "instruction",
    "buried_fact",
)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((TEST_DIR / "MANIFEST.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def turns() -> list[labelled.LabelledTurn]:
    return labelled.load(TEST_DIR / "labelled_turns.jsonl")


@pytest.fixture(scope="module")
def cases() -> list[LeakCase]:
    return leaks.load(TEST_DIR / "leaks.jsonl")


@pytest.fixture(scope="module")
def stories() -> list[scenarios.Scenario]:
    return scenarios.load(TEST_DIR / "scenarios.jsonl")


# ------------------------------------------------------------------ frozen


def test_manifest_records_every_file_and_its_sha256(manifest: dict[str, Any]) -> None:
    assert manifest["rule"] == "never edited; a mistake is fixed by a new split"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", manifest["created"])
    files: dict[str, str] = manifest["files"]
    on_disk = {p.name for p in TEST_DIR.iterdir() if p.is_file() and p.name != "MANIFEST.json"}
    assert on_disk <= set(files), f"files not in the manifest: {on_disk - set(files)}"
    for name, digest in files.items():
        path = (TEST_DIR / name).resolve()
        assert path.is_file(), f"{name} is in the manifest but missing"
        assert sha256(path) == digest, f"{name} changed after it was frozen: add a new split"


def test_readme_quotes_the_same_sha256(manifest: dict[str, Any]) -> None:
    readme = README.read_text(encoding="utf-8")
    for name, digest in manifest["files"].items():
        assert digest in readme, f"README lacks the sha256 of {name}"


# ------------------------------------------------------------------ labelled


def test_labelled_counts_domains_languages(turns: list[labelled.LabelledTurn]) -> None:
    assert len(turns) >= 300
    assert {t.domain for t in turns} == {"coding", "support", "personal"}
    assert {t.lang for t in turns} == set(LANGS)
    keep = Counter(t.lang for t in turns if t.keep)
    drop = Counter(t.lang for t in turns if not t.keep)
    for lang in LANGS:
        assert keep[lang] >= 20, f"{lang}: {keep[lang]} keep turns"
        assert drop[lang] >= 20, f"{lang}: {drop[lang]} hard negatives"
    assert max(keep.values()) <= 1.25 * min(keep.values()), f"keep counts not balanced: {keep}"
    assert len({t.turn.tenant_id for t in turns}) >= 5
    assert len({(t.turn.tenant_id, t.turn.user_id) for t in turns}) >= 20


def test_labelled_classes_in_every_language(turns: list[labelled.LabelledTurn]) -> None:
    for lang in LANGS:
        negatives = {t.kind for t in turns if t.lang == lang and not t.keep}
        positives = {t.kind for t in turns if t.lang == lang and t.keep}
        assert set(HARD_NEGATIVES) <= negatives, f"{lang} lacks {set(HARD_NEGATIVES) - negatives}"
        assert set(POSITIVES) <= positives, f"{lang} lacks {set(POSITIVES) - positives}"
        urls = [t for t in turns if t.lang == lang and t.keep and "https://" in t.turn.content]
        assert urls, f"{lang}: no keep turn with a URL"


def test_every_keep_turn_names_the_value_to_store(turns: list[labelled.LabelledTurn]) -> None:
    for t in turns:
        if t.keep:
            assert t.expect_value, t.id
            assert t.expect_value in t.turn.content, t.id
        else:
            assert t.expect_value is None, t.id


def test_assistant_opinions_are_said_by_the_assistant(turns: list[labelled.LabelledTurn]) -> None:
    for t in turns:
        assert (t.turn.role == "assistant") == (t.kind == "assistant_opinion"), t.id


# ------------------------------------------------- expect_value in the loader


def _line(keep: bool, **extra: object) -> str:
    row = {
        "id": "x-1",
        "domain": "coding",
        "lang": "en",
        "kind": "work_fact",
        "keep": keep,
        **extra,
        "turn": {
            "tenant_id": "t",
            "user_id": "u",
            "session_id": "s",
            "turn_id": "x-1",
            "role": "user",
            "content": "Our staging cluster runs on Scaleway.",
            "ts": "2025-01-01T10:00:00+01:00",
        },
    }
    return json.dumps(row) + "\n"


def test_labelled_loader_reads_expect_value(tmp_path: Path) -> None:
    path = tmp_path / "turns.jsonl"
    path.write_text(_line(True, expect_value="Scaleway"), encoding="utf-8")
    (item,) = labelled.load(path)
    assert item.expect_value == "Scaleway"
    path.write_text(_line(True), encoding="utf-8")
    assert labelled.load(path)[0].expect_value is None


@pytest.mark.parametrize(
    ("keep", "value", "message"),
    [
        (False, "Scaleway", "only on keep"),
        (True, "Hetzner", "must occur verbatim"),
    ],
)
def test_labelled_loader_rejects_a_wrong_expect_value(
    tmp_path: Path, keep: bool, value: str, message: str
) -> None:
    path = tmp_path / "turns.jsonl"
    path.write_text(_line(keep, expect_value=value), encoding="utf-8")
    with pytest.raises(CorpusError, match=message):
        labelled.load(path)


# ------------------------------------------------------------------ leaks


def _digits(s: str) -> str:
    return re.sub(r"\D", "", s)


def test_leak_counts_kinds_languages(cases: list[LeakCase]) -> None:
    assert len(cases) >= 120
    secrets = [c for c in cases if c.kind != "benign"]
    benign = [c for c in cases if c.kind == "benign"]
    assert len(benign) >= 40
    assert {c.kind for c in secrets} == set(SECRET_KINDS) - {"address"}  # in leaks_extra
    assert {c.lang for c in secrets} == set(LANGS)
    assert {c.lang for c in benign} == set(LANGS)
    for lang in LANGS:
        kinds = {c.kind for c in secrets if c.lang == lang}
        assert {"email", "phone", "password", "national_id", "api_key"} <= kinds, lang


def test_cards_pass_luhn_and_ibans_mod97(cases: list[LeakCase]) -> None:
    for c in cases:
        assert c.secret is not None or c.kind == "benign"
        if c.kind == "card":
            assert c.secret and luhn.is_valid(_digits(c.secret)), c.id
        if c.kind == "iban":
            assert c.secret and iban.is_valid(c.secret), c.id


def test_national_ids_pass_their_checksums(cases: list[LeakCase]) -> None:
    checked = 0
    for c in cases:
        m = re.search(r"stdnum=([a-z]{2}\.[a-z]+)", c.note)
        if c.kind != "national_id" or not m:
            continue
        module = importlib.import_module(f"stdnum.{m.group(1)}")
        assert module.is_valid(c.secret), f"{c.id}: not a valid {m.group(1)}"
        checked += 1
    assert checked >= 12


def test_benign_lookalikes_are_benign(cases: list[LeakCase]) -> None:
    for c in cases:
        if c.kind != "benign":
            continue
        value = c.lookalike
        assert value is not None
        assert not iban.is_valid(value), c.id
        if c.lookalike_kind == "isbn":
            assert isbn.is_valid(value), c.id
        elif c.lookalike_kind == "ean":
            assert ean.is_valid(value), c.id
        elif c.lookalike_kind == "ip_address":
            assert ipaddress.ip_address(value).is_private, c.id
        elif value.isdigit() and 13 <= len(value) <= 19:
            assert not luhn.is_valid(value), f"{c.id} could be a card number"


def test_leaks_extra_holds_street_addresses() -> None:
    cases = leaks.load(TEST_DIR / "leaks_extra.jsonl")
    assert len(cases) >= 12
    assert {c.kind for c in cases} == {"address"}
    assert {c.lang for c in cases} == set(LANGS)
    # read as one corpus with leaks.jsonl (ids unique across both), as `memgate eval` does
    both = leaks.load([TEST_DIR / "leaks.jsonl", TEST_DIR / "leaks_extra.jsonl"])
    assert len(both) == len(cases) + len(leaks.load(TEST_DIR / "leaks.jsonl"))


# ------------------------------------------------------------------ scenarios


def test_scenario_counts_and_classes(stories: list[scenarios.Scenario]) -> None:
    assert len(stories) >= 40
    by_class = Counter(s.covers[0] for s in stories)
    for cls in SCENARIO_CLASSES:
        assert by_class[cls] >= 5, f"{cls}: {by_class[cls]}"
    non_english = [s for s in stories if "multilingual" in s.covers]
    assert len(non_english) >= 8
    langs = {s.id.split("-")[2] for s in stories}  # ft-<class>-<lang>-<topic>
    assert set(LANGS) <= langs


def test_as_of_scenarios_ask_about_the_past(stories: list[scenarios.Scenario]) -> None:
    for s in stories:
        if s.covers[0] == "as_of":
            assert any(getattr(c, "as_of", None) is not None for c in s.checks), s.id


def test_tenant_isolation_spans_two_tenants(stories: list[scenarios.Scenario]) -> None:
    for s in stories:
        if s.covers[0] == "tenant_isolation":
            tenants = {t.tenant_id for t in s.turns} | {
                str(getattr(c, "tenant", "")) for c in s.checks
            } - {""}
            assert len(tenants) >= 2, s.id
            assert len({t.user_id for t in s.turns}) == 1, s.id


# ------------------------------------------------------------------ LoCoMo


def test_locomo_split() -> None:
    split = json.loads((EVAL_DIR / "locomo_split.json").read_text(encoding="utf-8"))
    dev, test = split["development"], split["test"]
    assert dev and len(dev) <= 4, "one to four development conversations (issue 9)"
    assert not set(dev) & set(test)
    assert len(dev) + len(test) == 7
    source = locomo_file(Path(split["source"]).name)  # fails naming where it looked
    assert sha256(source) == split["source_sha256"]
    ids = [c["sample_id"] for c in json.loads(source.read_text(encoding="utf-8"))]
    assert ids[: len(dev)] == dev, "development = the first conversations in file order"
    assert ids[len(dev) :] == test
