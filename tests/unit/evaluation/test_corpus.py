"""The bundled evaluation corpus: every line parses, the counts and the coverage hold,
and the test data is what it claims to be (checked with independent validators)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import phonenumbers
import pytest
from stdnum import iban, luhn

import memgate
from memgate.core.events import Role
from memgate.evaluation import labelled, leaks, scenarios
from memgate.evaluation.common import BUNDLED_FILES, CorpusError, read_jsonl
from memgate.evaluation.leaks import SECRET_KINDS, LeakCase

EVAL_DIR = Path(memgate.__file__).parent / "data" / "eval"


def corpus(name: str) -> Path:
    return EVAL_DIR / BUNDLED_FILES[name]


@pytest.fixture(scope="module")
def turns() -> list[labelled.LabelledTurn]:
    return labelled.load(corpus("labelled"))


@pytest.fixture(scope="module")
def cases() -> list[LeakCase]:
    return leaks.load(corpus("leaks"))


@pytest.fixture(scope="module")
def stories() -> list[scenarios.Scenario]:
    return scenarios.load(corpus("scenarios"))


# ------------------------------------------------------------------ labelled


def test_labelled_counts_domains_and_balance(turns: list[labelled.LabelledTurn]) -> None:
    assert len(turns) >= 150
    assert {t.domain for t in turns} == {"coding", "support", "personal"}
    for domain in ("coding", "support", "personal"):
        assert sum(t.domain == domain for t in turns) >= 40
    keep = sum(t.keep for t in turns)
    assert 0.35 <= keep / len(turns) <= 0.65, "roughly half keep, half not"


def test_labelled_languages(turns: list[labelled.LabelledTurn]) -> None:
    langs = Counter(t.lang for t in turns)
    non_english = {lang: n for lang, n in langs.items() if lang != "en"}
    assert len(non_english) >= 3
    assert sum(non_english.values()) / len(turns) >= 0.20
    for lang in ("de", "fr", "es"):
        assert langs[lang] >= 10
        # both labels in every language: a language must not be all-keep or all-drop
        assert {t.keep for t in turns if t.lang == lang} == {True, False}


def test_labelled_kinds_and_hard_negatives(turns: list[labelled.LabelledTurn]) -> None:
    kinds = Counter(t.kind for t in turns)
    for kind in ("preference", "background", "decision", "correction", "event", "instruction"):
        assert kinds[kind] >= 5, kind
        assert all(t.keep for t in turns if t.kind == kind), f"{kind} turns are keep"
    negatives = (
        "small_talk",
        "hypothetical",
        "one_off_request",
        "question",
        "assistant_opinion",
        "uncertain",
        "reported_speech",
        "session_context",
    )
    for kind in negatives:
        assert kinds[kind] >= 3, kind
        assert not any(t.keep for t in turns if t.kind == kind), f"{kind} turns are not keep"
    # assistant and system turns are labelled, and never keep
    assert any(t.turn.role is Role.ASSISTANT for t in turns)
    assert not any(t.keep for t in turns if t.turn.role is not Role.USER)


def test_labelled_ids_are_turn_ids(turns: list[labelled.LabelledTurn]) -> None:
    assert all(t.id == t.turn.turn_id for t in turns)
    contents = [t.turn.content for t in turns]
    assert len(set(contents)) == len(contents), "no duplicated turn text"


# --------------------------------------------------------------------- leaks


def test_leak_counts_and_kinds(cases: list[LeakCase]) -> None:
    assert len(cases) >= 60
    kinds: Counter[str] = Counter(str(c.kind) for c in cases)
    dev_kinds = [k for k in SECRET_KINDS if k != "address"]  # addresses: frozen split only
    for kind in dev_kinds:
        assert kinds[kind] >= 3, kind
    assert sum(kinds[k] for k in dev_kinds) >= 60
    assert kinds["benign"] >= 20
    assert len({c.lang for c in cases} - {"en"}) >= 3


def test_leak_values_are_unique_and_in_their_turn(cases: list[LeakCase]) -> None:
    needles = [n for c in cases for n in c.needles]
    assert len(set(needles)) == len(needles)
    for c in cases:
        for n in c.needles:
            others = [o for o in cases if o.id != c.id and n in o.turn.content]
            assert not others, f"{c.id}: its secret also occurs in {others[0].id}"


def _digits(s: str) -> str:
    return re.sub(r"\D", "", s)


def test_secrets_are_format_valid(cases: list[LeakCase]) -> None:
    """The fakes must be real-looking: a checksum-failing 'card' would test nothing."""
    for c in cases:
        assert c.secret is not None or c.kind == "benign"
        if c.kind == "card":
            assert c.secret and luhn.is_valid(_digits(c.secret)), c.id
        elif c.kind == "iban":
            assert c.secret and iban.is_valid(c.secret), c.id
        elif c.kind == "phone":
            region = "FR" if c.lang == "fr" else "US"  # ignored for +international numbers
            num = phonenumbers.parse(c.secret or "", region)
            assert phonenumbers.is_valid_number(num), c.id
        elif c.kind == "email":
            assert c.secret and re.fullmatch(r"[\w.+-]+@[\w-]+(\.[\w-]+)+", c.secret), c.id


def test_benign_lookalikes_fail_their_checksums(cases: list[LeakCase]) -> None:
    for c in cases:
        if c.lookalike_kind == "invalid_luhn":
            assert c.lookalike and not luhn.is_valid(_digits(c.lookalike)), c.id
        if c.lookalike_kind == "invalid_iban":
            assert c.lookalike and not iban.is_valid(c.lookalike), c.id


def test_provider_keys_are_high_entropy(cases: list[LeakCase]) -> None:
    """The detector treats low-entropy values ("xxxx") as placeholders; fakes must not be."""
    for c in cases:
        if c.kind in ("api_key", "bearer_token") and c.secret:
            assert len(set(c.secret)) >= 12, c.id


def test_leak_case_validation() -> None:
    turn = {
        "tenant_id": "t",
        "user_id": "u",
        "session_id": "s",
        "turn_id": "x",
        "role": "user",
        "content": "mail me at a.b@example.org",
        "ts": "2024-01-01T00:00:00Z",
    }
    LeakCase.model_validate({"id": "x", "kind": "email", "secret": "a.b@example.org", "turn": turn})
    with pytest.raises(ValueError, match="verbatim"):
        LeakCase.model_validate(
            {"id": "x", "kind": "email", "secret": "c.d@example.org", "turn": turn}
        )
    with pytest.raises(ValueError, match="lookalike"):
        LeakCase.model_validate({"id": "x", "kind": "benign", "secret": "a.b@x.org", "turn": turn})


# ----------------------------------------------------------------- scenarios


def test_scenario_counts_and_coverage(stories: list[scenarios.Scenario]) -> None:
    assert len(stories) >= 20
    covered = Counter(tag for s in stories for tag in s.covers)
    for tag in (
        "contradiction",
        "as_of",
        "tenant_isolation",
        "user_isolation",
        "repeated",
        "retraction",
        "confirmation",
        "save_after_success",
        "multilingual",
        "redaction",
        "idempotency",
        "decay",
        "consolidation",
        "retention",
        "erasure",
    ):
        assert covered[tag] >= 1, tag
    assert covered["multilingual"] >= 3
    assert covered["retraction"] >= 2


def test_every_check_type_is_used(stories: list[scenarios.Scenario]) -> None:
    used = {c.type for s in stories for c in s.checks}
    assert used == {
        "search_top",
        "no_results",
        "active_count",
        "fact_count",
        "fact_status",
        "no_secret",
        "consolidate",
        "forget_fact",
        "forget_user",
    }
    assert any(c.after is not None for s in stories for c in s.checks)
    assert any(
        isinstance(c, scenarios.SearchTop) and c.as_of is not None
        for s in stories
        for c in s.checks
    )


def test_the_second_scenario_file_covers_each_class_in_three_domains_and_six_languages() -> None:
    """scenarios_dev2.jsonl (issue 9 item 3) is read with the bundled file, as one corpus."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev2.jsonl" in DEV_EXTRA_FILES["scenarios"]
    stories = scenarios.load([EVAL_DIR / "scenarios_dev2.jsonl"])
    by_class = Counter(s.covers[0] for s in stories)
    for cls in ("supersede", "as_of", "dedupe", "deletion", "retraction", "noise"):
        assert by_class[cls] >= 8, cls
    assert by_class["confirmation"] >= 8 and by_class["implied"] >= 8
    for cls in by_class:
        tags = Counter(t for s in stories if s.covers[0] == cls for t in s.covers)
        assert {"coding", "support", "personal"} & set(tags), cls
    langs = Counter(
        t for s in stories for t in s.covers if t in {"en", "de", "fr", "es", "pt", "zh"}
    )
    assert set(langs) == {"en", "de", "fr", "es", "pt", "zh"}
    assert min(langs.values()) >= 8
    both = scenarios.load([corpus("scenarios"), EVAL_DIR / "scenarios_dev2.jsonl"])
    assert len(both) == len(stories) + len(scenarios.load(corpus("scenarios")))


def test_scenario_validation_rejects_dangling_turn_refs() -> None:
    turn = {
        "tenant_id": "t",
        "user_id": "u",
        "session_id": "s",
        "turn_id": "a",
        "role": "user",
        "content": "I use vim.",
        "ts": "2024-01-01T00:00:00Z",
    }
    check = {"type": "active_count", "tenant": "t", "user": "u", "equals": 1, "after": "zz"}
    with pytest.raises(ValueError, match="not a turn"):
        scenarios.Scenario.model_validate(
            {"id": "s", "description": "d", "turns": [turn], "checks": [check]}
        )
    bad = {"type": "search_top", "tenant": "t", "user": "u", "query": "q"}
    with pytest.raises(ValueError, match="expect_"):
        scenarios.Scenario.model_validate(
            {"id": "s", "description": "d", "turns": [turn], "checks": [bad]}
        )


def test_read_jsonl_names_bad_lines(tmp_path: Path) -> None:
    p = tmp_path / "bad.jsonl"
    good = corpus("labelled").read_text(encoding="utf-8").splitlines()[0]
    p.write_text(good + "\n{not json\n" + good.replace('"keep": true', '"keep": 3') + "\n")
    with pytest.raises(CorpusError) as exc:
        read_jsonl(p, labelled.LabelledTurn)
    msg = str(exc.value)
    assert "bad.jsonl:2: not JSON" in msg
    assert "bad.jsonl:3: keep" in msg
    with pytest.raises(CorpusError, match="does not exist"):
        read_jsonl(tmp_path / "missing.jsonl", labelled.LabelledTurn)


def test_the_third_scenario_file_covers_the_frozen_failure_classes() -> None:
    """scenarios_dev3.jsonl (issue 9 item 3, written before tuning): eight scenarios for each
    of six classes, three domains and six languages, read with the other development files."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev3.jsonl" in DEV_EXTRA_FILES["scenarios"]
    stories = scenarios.load([EVAL_DIR / "scenarios_dev3.jsonl"])
    by_class = Counter(s.covers[0] for s in stories)
    for cls in ("supersede", "as_of", "dedupe", "deletion", "retraction", "noise"):
        assert by_class[cls] == 8, cls
        domains = {t for s in stories if s.covers[0] == cls for t in s.covers}
        assert {"coding", "support", "personal"} <= domains, cls
    langs = {t for s in stories for t in s.covers if t in {"en", "de", "fr", "es", "pt", "zh"}}
    assert langs == {"en", "de", "fr", "es", "pt", "zh"}


def test_the_fourth_scenario_file_covers_the_worst_frozen_classes() -> None:
    """scenarios_dev4.jsonl (issue 9, written in one sitting before the fixes it measures): at
    least six scenarios each of supersede, as_of and dedupe, three domains, six languages, hard
    negatives, ids unique across the development files."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev4.jsonl" in DEV_EXTRA_FILES["scenarios"]
    stories = scenarios.load([EVAL_DIR / "scenarios_dev4.jsonl"])
    by_class = Counter(s.covers[0] for s in stories)
    for cls in ("supersede", "as_of", "dedupe"):
        assert by_class[cls] >= 6, cls
        domains = {t for s in stories if s.covers[0] == cls for t in s.covers}
        assert {"coding", "support", "personal"} <= domains, cls
    langs = {t for s in stories for t in s.covers if t in {"en", "de", "fr", "es", "pt", "zh"}}
    assert langs == {"en", "de", "fr", "es", "pt", "zh"}
    assert any("hard_negative" in s.covers for s in stories)
    names = ("scenarios.jsonl", *DEV_EXTRA_FILES["scenarios"])
    assert len(scenarios.load([EVAL_DIR / n for n in names])) > len(stories)


def test_the_fifth_scenario_file_covers_changes_said_in_new_words() -> None:
    """scenarios_dev5.jsonl (issue 9, written in one sitting before the work it measures):
    changes through a slot family, moves, retractions by reference and instructions that
    replace a preference, in five languages, with hard negatives; ids unique across the
    development files."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev5.jsonl" in DEV_EXTRA_FILES["scenarios"]
    stories = scenarios.load([EVAL_DIR / "scenarios_dev5.jsonl"])
    assert 20 <= len(stories) <= 30
    assert sum("implied" in s.covers for s in stories) >= 5
    assert sum("instruction" in s.covers for s in stories) >= 5
    assert sum(s.covers[0] == "retraction" for s in stories) >= 5
    langs = {t for s in stories for t in s.covers if t in {"en", "de", "fr", "es", "pt", "zh"}}
    assert {"en", "de", "fr", "es", "zh"} <= langs
    assert any("hard_negative" in s.covers for s in stories)
    names = ("scenarios.jsonl", *DEV_EXTRA_FILES["scenarios"])
    everything = scenarios.load([EVAL_DIR / n for n in names])
    assert len({s.id for s in everything}) == len(everything)


def test_the_sixth_scenario_file_covers_new_words_paraphrases_and_dates() -> None:
    """scenarios_dev6.jsonl (issue 9, written in one sitting before the work it measures):
    supersede said in new words (role nouns, code hosts and tools), paraphrase dedupe and
    as-of, in five languages, with hard negatives; ids unique across the development files."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev6.jsonl" in DEV_EXTRA_FILES["scenarios"]
    stories = scenarios.load([EVAL_DIR / "scenarios_dev6.jsonl"])
    assert 20 <= len(stories) <= 30
    classes = [s.covers[0] for s in stories]
    assert classes.count("supersede") >= 8
    assert classes.count("dedupe") >= 5
    assert classes.count("as_of") >= 5
    langs = {t for s in stories for t in s.covers if t in {"en", "de", "fr", "es", "pt", "zh"}}
    assert {"en", "de", "fr", "es", "pt"} <= langs
    assert sum("hard_negative" in s.covers for s in stories) >= 2
    names = ("scenarios.jsonl", *DEV_EXTRA_FILES["scenarios"])
    everything = scenarios.load([EVAL_DIR / n for n in names])
    assert len({s.id for s in everything}) == len(everything)


def test_the_seventh_scenario_file_covers_the_weak_frozen_classes() -> None:
    """scenarios_dev7.jsonl (issue 9, judge5; written in one sitting before the work it
    measures): supersede in new words with a move that stales the time zone, retraction and
    deletion by reference, dedupe, noise and confirmation in en de fr es, with hard
    negatives; ids unique across the development files."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev7.jsonl" in DEV_EXTRA_FILES["scenarios"]
    stories = scenarios.load([EVAL_DIR / "scenarios_dev7.jsonl"])
    assert 30 <= len(stories) <= 40
    classes = Counter(s.covers[0] for s in stories)
    for cls in ("supersede", "retraction", "deletion", "dedupe", "noise"):
        assert classes[cls] >= 5, cls
    assert classes["confirmation"] >= 3
    for cls in ("retraction", "deletion"):
        langs = {t for s in stories if s.covers[0] == cls for t in s.covers}
        assert {"en", "de", "fr", "es"} <= langs, cls
    assert any("time zone" in t.content or "fuseau" in t.content for s in stories for t in s.turns)
    assert sum("hard_negative" in s.covers for s in stories) >= 3
    names = ("scenarios.jsonl", *DEV_EXTRA_FILES["scenarios"])
    everything = scenarios.load([EVAL_DIR / n for n in names])
    assert len({s.id for s in everything}) == len(everything)


def test_the_eighth_scenario_file_covers_reference_dedupe_confirmation_noise() -> None:
    """scenarios_dev8.jsonl (issue 9, judge7; written in one sitting before the work it
    measures): retraction and deletion by reference (broader words, pronouns), dedupe,
    confirmation and noise in all six languages, with hard negatives per class."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev8.jsonl" in DEV_EXTRA_FILES["scenarios"]
    stories = scenarios.load([EVAL_DIR / "scenarios_dev8.jsonl"])
    assert len(stories) >= 30
    classes = Counter(s.covers[0] for s in stories)
    for cls in ("retraction", "deletion", "dedupe", "noise", "confirmation"):
        assert classes[cls] >= 5, cls
        assert any("hard_negative" in s.covers for s in stories if s.covers[0] == cls), cls
    langs = {t for s in stories for t in s.covers}
    assert {"en", "de", "fr", "es", "pt", "zh"} <= langs
    names = ("scenarios.jsonl", *DEV_EXTRA_FILES["scenarios"])
    everything = scenarios.load([EVAL_DIR / n for n in names])
    assert len({s.id for s in everything}) == len(everything)


def test_the_ninth_scenario_file_is_weighted_to_the_weak_classes() -> None:
    """scenarios_dev9.jsonl (issue 9, judge8; written in one sitting before the work it
    measures): dedupe, deletion, noise, confirmation (two implied updates) and supersede in
    new words, six languages, three domains, hard negatives; read with the other files."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev9.jsonl" in DEV_EXTRA_FILES["scenarios"]
    stories = scenarios.load([EVAL_DIR / "scenarios_dev9.jsonl"])
    assert len(stories) >= 40
    classes = Counter(s.covers[0] for s in stories)
    for cls in ("dedupe", "deletion", "noise", "confirmation", "supersede"):
        assert classes[cls] >= 7, cls
    for cls in ("dedupe", "deletion", "noise"):
        assert any("hard_negative" in s.covers for s in stories if s.covers[0] == cls), cls
    assert sum("implied" in s.covers for s in stories) >= 2
    langs = {t for s in stories for t in s.covers}
    assert {"en", "de", "fr", "es", "pt", "zh"} <= langs
    names = ("scenarios.jsonl", *DEV_EXTRA_FILES["scenarios"])
    everything = scenarios.load([EVAL_DIR / n for n in names])
    assert len({s.id for s in everything}) == len(everything)


def test_the_second_labelled_file_is_read_with_the_first_as_one_corpus() -> None:
    """labelled_turns_dev2.jsonl: durable facts versus noise in de fr es, keeps and drops
    in each language; read with labelled_turns.jsonl as one development corpus."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "labelled_turns_dev2.jsonl" in DEV_EXTRA_FILES["labelled"]
    extra = labelled.load(EVAL_DIR / "labelled_turns_dev2.jsonl")
    for lang in ("de", "fr", "es"):
        mine = [i for i in extra if i.lang == lang]
        assert sum(i.keep for i in mine) >= 5 and sum(not i.keep for i in mine) >= 5, lang
    both = labelled.load(
        [EVAL_DIR / "labelled_turns.jsonl", EVAL_DIR / "labelled_turns_dev2.jsonl"]
    )
    assert len(both) == len(labelled.load(EVAL_DIR / "labelled_turns.jsonl")) + len(extra)


def test_the_third_labelled_file_is_half_german_in_six_languages() -> None:
    """labelled_turns_dev3.jsonl: the keep decision on wording written before the work it
    measures; at least half German, keeps and drops in each of six languages and three
    domains; read with the other labelled files as one development corpus."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "labelled_turns_dev3.jsonl" in DEV_EXTRA_FILES["labelled"]
    extra = labelled.load(EVAL_DIR / "labelled_turns_dev3.jsonl")
    assert len(extra) >= 60
    assert 2 * sum(i.lang == "de" for i in extra) >= len(extra)
    for lang in ("de", "en", "fr", "es", "pt", "zh"):
        mine = [i for i in extra if i.lang == lang]
        assert sum(i.keep for i in mine) >= 3 and sum(not i.keep for i in mine) >= 3, lang
    assert {i.domain for i in extra} == {"personal", "coding", "support"}
    assert all(i.expect_value for i in extra if i.keep)
    names = ("labelled_turns.jsonl", *DEV_EXTRA_FILES["labelled"])
    everything = labelled.load([EVAL_DIR / n for n in names])
    assert len({i.id for i in everything}) == len(everything)


def test_the_fourth_labelled_file_holds_long_turns_in_six_languages() -> None:
    """labelled_turns_dev4.jsonl: turns of several sentences, a durable fact among sentences
    of the moment (keep) or only the moment (drop), in six languages, half German or more."""
    from memgate.evaluation.common import DEV_EXTRA_FILES
    from memgate.stages.statement_text import split_statements

    assert "labelled_turns_dev4.jsonl" in DEV_EXTRA_FILES["labelled"]
    extra = labelled.load(EVAL_DIR / "labelled_turns_dev4.jsonl")
    assert 2 * sum(i.lang == "de" for i in extra) >= len(extra)
    for lang in ("de", "en", "fr", "es", "pt", "zh"):
        mine = [i for i in extra if i.lang == lang]
        assert any(i.keep for i in mine) and any(not i.keep for i in mine), lang
    assert all(len(split_statements(i.turn.content)) >= 2 for i in extra)


def test_the_fifth_labelled_file_holds_spanish_and_portuguese_verbs_of_the_first_person() -> None:
    """labelled_turns_dev5.jsonl (keepemb, written before the work it measures): Spanish and
    Portuguese turns whose first person is on the verb, as many keeps as hard negatives in
    each language, none in the training corpus."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "labelled_turns_dev5.jsonl" in DEV_EXTRA_FILES["labelled"]
    extra = labelled.load(EVAL_DIR / "labelled_turns_dev5.jsonl")
    assert {i.lang for i in extra} == {"es", "pt"}
    for lang in ("es", "pt"):
        mine = [i for i in extra if i.lang == lang]
        assert sum(i.keep for i in mine) == sum(not i.keep for i in mine) == 12, lang
    train = EVAL_DIR.parent / "train"
    # every text of every training corpus (sentences; the relation pairs' new turns)
    rows = [
        json.loads(line)
        for path in train.glob("*.jsonl")
        for line in path.read_text("utf-8").splitlines()
    ]
    trained = {row.get("text") or row.get("new") for row in rows}
    assert len(rows) > 1000 and None not in trained
    assert not trained & {i.turn.content for i in extra}


def test_a_turn_id_repeated_across_labelled_files_is_named(tmp_path: Path) -> None:
    line = (EVAL_DIR / "labelled_turns_dev2.jsonl").read_text(encoding="utf-8").splitlines()[0]
    twin = tmp_path / "twin.jsonl"
    twin.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="reuses turn id"):
        labelled.load([EVAL_DIR / "labelled_turns_dev2.jsonl", twin])


def test_the_tenth_scenario_file_is_weighted_to_the_weak_classes() -> None:
    """scenarios_dev10.jsonl (issue 9, judge9; written in one sitting before the work it
    measures, sha256 19248a1d...): the frozen split's weak classes, deletion and supersede
    followed by a search, six languages, hard negatives; read with the other files."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev10.jsonl" in DEV_EXTRA_FILES["scenarios"]
    stories = scenarios.load([EVAL_DIR / "scenarios_dev10.jsonl"])
    assert len(stories) >= 40
    classes = Counter(s.covers[0] for s in stories)
    for cls in ("dedupe", "deletion", "noise", "confirmation", "supersede"):
        assert classes[cls] >= 7, cls
    assert classes["retraction"] >= 5
    for cls in ("deletion", "supersede"):
        assert all(
            any(c.type == "search_top" for c in s.checks)
            for s in stories
            if s.covers[0] == cls and "hard_negative" not in s.covers
        ), cls
    langs = {t for s in stories for t in s.covers}
    assert {"en", "de", "fr", "es", "pt", "zh"} <= langs
    names = ("scenarios.jsonl", *DEV_EXTRA_FILES["scenarios"])
    everything = scenarios.load([EVAL_DIR / n for n in names])
    assert len({s.id for s in everything}) == len(everything)


def test_the_eleventh_scenario_file_is_weighted_to_the_weak_classes() -> None:
    """scenarios_dev11.jsonl (issue 9, judge10; written in one sitting before the work it
    measures, sha256 b8e5aa68...): dedupe, confirmation, deletion, noise and supersede in new
    words, three domains (personal, work, travel), six languages; read with the other files."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev11.jsonl" in DEV_EXTRA_FILES["scenarios"]
    stories = scenarios.load([EVAL_DIR / "scenarios_dev11.jsonl"])
    assert len(stories) >= 40
    classes = Counter(s.covers[0] for s in stories)
    for cls in ("dedupe", "deletion", "noise", "confirmation", "supersede"):
        assert classes[cls] >= 8, cls
    assert {"personal", "work", "travel"} <= {t for s in stories for t in s.covers}
    assert {"en", "de", "fr", "es", "pt", "zh"} <= {s.covers[-1] for s in stories}
    names = ("scenarios.jsonl", *DEV_EXTRA_FILES["scenarios"])
    everything = scenarios.load([EVAL_DIR / n for n in names])
    assert len({s.id for s in everything}) == len(everything)


def test_the_twelfth_scenario_file_is_weighted_to_the_weak_classes() -> None:
    """scenarios_dev12.jsonl (issue 9, judge11; written in one sitting before the work it
    measures, sha256 ac85dbc9...): dedupe in other words, order, register, with hedges and
    more detail, with hard negatives; confirmation, deletion, noise and supersede; three
    domains, six languages; read with the other files."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev12.jsonl" in DEV_EXTRA_FILES["scenarios"]
    stories = scenarios.load([EVAL_DIR / "scenarios_dev12.jsonl"])
    assert len(stories) >= 45
    classes = Counter(s.covers[0] for s in stories)
    assert classes["dedupe"] >= 12
    for cls in ("deletion", "noise", "confirmation", "supersede"):
        assert classes[cls] >= 8, cls
    assert sum("hard_negative" in s.covers for s in stories if s.covers[0] == "dedupe") >= 3
    assert {"personal", "work", "travel"} <= {t for s in stories for t in s.covers}
    assert {"en", "de", "fr", "es", "pt", "zh"} <= {s.covers[-1] for s in stories}
    names = ("scenarios.jsonl", *DEV_EXTRA_FILES["scenarios"])
    everything = scenarios.load([EVAL_DIR / n for n in names])
    assert len({s.id for s in everything}) == len(everything)


def test_the_thirteenth_scenario_file_is_weighted_to_resolution() -> None:
    """scenarios_dev13.jsonl (issue 9, judge12a; written in one sitting before the work it
    measures, sha256 0bdeb64a...): dedupe (paraphrases in six languages, another word order,
    synonyms, a third hard negatives), confirmation (guess then check, a repeat, implied
    updates) and supersede in new words; read with the other files."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev13.jsonl" in DEV_EXTRA_FILES["scenarios"]
    stories = scenarios.load([EVAL_DIR / "scenarios_dev13.jsonl"])
    assert len(stories) >= 40
    classes = Counter(s.covers[0] for s in stories)
    assert classes["dedupe"] >= 15
    assert classes["confirmation"] >= 10
    assert classes["supersede"] >= 12
    negatives = sum("hard_negative" in s.covers for s in stories if s.covers[0] == "dedupe")
    assert negatives * 4 >= classes["dedupe"]
    assert sum("implied" in s.covers for s in stories) >= 5
    for cls in ("dedupe", "confirmation", "supersede"):
        langs = {s.covers[-1] for s in stories if s.covers[0] == cls}
        assert {"en", "de", "fr", "es", "pt", "zh"} <= langs, cls


def test_the_fourteenth_scenario_file_is_weighted_to_noise_and_deletion() -> None:
    """scenarios_dev14.jsonl (issue 9, judge12b; written in one sitting before the work it
    measures, sha256 db412f7e...): noise turns mixed with one durable fact, deletion
    requests by topic, category, what was said and across languages, hard negatives of
    both (durable facts that look like the moment, sentences about deleting that are no
    requests); six languages; read with the other files."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev14.jsonl" in DEV_EXTRA_FILES["scenarios"]
    stories = scenarios.load([EVAL_DIR / "scenarios_dev14.jsonl"])
    assert len(stories) >= 45
    classes = Counter(s.covers[0] for s in stories)
    for cls in ("noise", "deletion"):
        assert classes[cls] >= 20, cls
        assert sum("hard_negative" in s.covers for s in stories if s.covers[0] == cls) >= 5
    assert all(
        any(c.type == "search_top" for c in s.checks)
        for s in stories
        if s.covers[0] == "deletion" and "hard_negative" not in s.covers
    )
    assert {"en", "de", "fr", "es", "pt", "zh"} <= {s.covers[-1] for s in stories}
    names = ("scenarios.jsonl", *DEV_EXTRA_FILES["scenarios"])
    everything = scenarios.load([EVAL_DIR / n for n in names])
    assert len({s.id for s in everything}) == len(everything)


def test_the_fifteenth_scenario_file_has_a_held_out_half_left_out_of_the_dev_run() -> None:
    """scenarios_dev15.jsonl and scenarios_dev15_holdout.jsonl (issue 9, judge15; one batch
    of 80 written in one sitting before the work it measures, split per class by position):
    the tune half is read with the other development files; the held-out half is not, so
    the rules written on the first half are measured on the second with --scenarios."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev15.jsonl" in DEV_EXTRA_FILES["scenarios"]
    assert "scenarios_dev15_holdout.jsonl" not in DEV_EXTRA_FILES["scenarios"]
    tune = scenarios.load([EVAL_DIR / "scenarios_dev15.jsonl"])
    held = scenarios.load([EVAL_DIR / "scenarios_dev15_holdout.jsonl"])
    for half in (tune, held):
        classes = Counter(s.covers[0] for s in half)
        assert classes == Counter(
            {"dedupe": 8, "confirmation": 8, "deletion": 8, "noise": 8, "supersede": 8}
        )
        assert {"en", "de", "fr", "es", "pt", "zh"} <= {s.covers[-1] for s in half}
    assert not {s.id for s in tune} & {s.id for s in held}


def test_the_dev23b_scenario_files_split_deletion_and_noise_into_tune_and_held_out() -> None:
    """scenarios_dev23b.jsonl and scenarios_dev23b_holdout.jsonl (issue 9; 32 scenarios
    written in one sitting before the code they measure): the tune file is read with the
    other development files; the held-out file is not, and is scored alone with
    --scenarios, counts only."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev23b.jsonl" in DEV_EXTRA_FILES["scenarios"]
    assert "scenarios_dev23b_holdout.jsonl" not in DEV_EXTRA_FILES["scenarios"]
    tune = scenarios.load([EVAL_DIR / "scenarios_dev23b.jsonl"])
    held = scenarios.load([EVAL_DIR / "scenarios_dev23b_holdout.jsonl"])
    for half in (tune, held):
        assert Counter(s.covers[0] for s in half) == Counter({"deletion": 8, "noise": 8})
        assert {s.covers[1] for s in half} == {"personal", "work", "health", "hobby"}
        for cls in ("deletion", "noise"):
            langs = {s.covers[-1] for s in half if s.covers[0] == cls}
            assert langs == {"en", "de", "fr", "es", "pt", "zh"}
    assert not {s.id for s in tune} & {s.id for s in held}
    everything = [*tune, *held]
    turns = [t.turn_id for s in everything for t in s.turns]
    assert len(set(turns)) == len(turns)


def test_the_dev22_scenario_files_split_dedupe_and_supersede_into_tune_and_held_out() -> None:
    """scenarios_dev22.jsonl and scenarios_dev22_holdout.jsonl (issue 9, clausefold; 32
    scenarios written in one sitting before the code they measure): the tune file is read
    with the other development files; the held-out file is not, and is scored alone with
    --scenarios, counts only."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev22.jsonl" in DEV_EXTRA_FILES["scenarios"]
    assert "scenarios_dev22_holdout.jsonl" not in DEV_EXTRA_FILES["scenarios"]
    tune = scenarios.load([EVAL_DIR / "scenarios_dev22.jsonl"])
    held = scenarios.load([EVAL_DIR / "scenarios_dev22_holdout.jsonl"])
    for half in (tune, held):
        assert Counter(s.covers[0] for s in half) == Counter({"dedupe": 12, "supersede": 4})
        assert {s.covers[1] for s in half} == {"personal", "work", "health"}
        dedupe_langs = Counter(s.covers[-1] for s in half if s.covers[0] == "dedupe")
        assert dedupe_langs == Counter({lang: 2 for lang in ("en", "de", "fr", "es", "pt", "zh")})
    assert not {s.id for s in tune} & {s.id for s in held}
    everything = [*tune, *held]
    turns = [t.turn_id for s in everything for t in s.turns]
    assert len(set(turns)) == len(turns)


def test_the_dev23a_scenario_files_split_supersede_and_confirmation_into_tune_and_held_out() -> (
    None
):
    """scenarios_dev23a.jsonl and scenarios_dev23a_holdout.jsonl (issue 9; 32 scenarios
    written in one sitting before the code they measure): the tune file is read with the
    other development files; the held-out file is not, and is scored alone with
    --scenarios, counts only."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev23a.jsonl" in DEV_EXTRA_FILES["scenarios"]
    assert "scenarios_dev23a_holdout.jsonl" not in DEV_EXTRA_FILES["scenarios"]
    tune = scenarios.load([EVAL_DIR / "scenarios_dev23a.jsonl"])
    held = scenarios.load([EVAL_DIR / "scenarios_dev23a_holdout.jsonl"])
    per_class = {"en": 2, "de": 2, "fr": 1, "es": 1, "pt": 1, "zh": 1}
    for half in (tune, held):
        assert Counter(s.covers[0] for s in half) == Counter({"supersede": 8, "confirmation": 8})
        for cls in ("supersede", "confirmation"):
            langs = Counter(s.covers[-1] for s in half if s.covers[0] == cls)
            assert langs == Counter(per_class)
        domains = {s.covers[-2] for s in half}
        assert domains == {"personal", "work", "health", "hobby"}
    assert not {s.id for s in tune} & {s.id for s in held}
    everything = [*tune, *held]
    turns = [t.turn_id for s in everything for t in s.turns]
    assert len(set(turns)) == len(turns)


def test_the_dev33n_files_bury_durable_facts_among_noise_in_six_languages() -> None:
    """scenarios_dev33n.jsonl and labelled_turns_dev33n.jsonl (noise33, written before
    reading triage): two or three durable facts among moods, one-off requests, questions,
    hypotheticals and chatter, with the exact active count and a search per fact; ten
    labelled turns per language, half keep, none in a training corpus."""
    from memgate.evaluation.common import DEV_EXTRA_FILES

    assert "scenarios_dev33n.jsonl" in DEV_EXTRA_FILES["scenarios"]
    assert "labelled_turns_dev33n.jsonl" in DEV_EXTRA_FILES["labelled"]
    stories = scenarios.load([EVAL_DIR / "scenarios_dev33n.jsonl"])
    assert 20 <= len(stories) <= 24
    assert {s.covers[0] for s in stories} == {"noise"}
    assert Counter(s.covers[-1] for s in stories) == Counter(
        {lang: 4 for lang in ("en", "de", "fr", "es", "pt", "zh")}
    )
    for s in stories:
        searches = [c for c in s.checks if c.type == "search_top"]
        counts = [c for c in s.checks if c.type == "active_count"]
        assert 2 <= len(searches) <= 3 and [c.equals for c in counts] == [len(searches)], s.id
    extra = labelled.load(EVAL_DIR / "labelled_turns_dev33n.jsonl")
    for lang in ("en", "de", "fr", "es", "pt", "zh"):
        mine = [i for i in extra if i.lang == lang]
        assert sum(i.keep for i in mine) == sum(not i.keep for i in mine) == 5, lang
    rows = [
        json.loads(line)
        for path in (EVAL_DIR.parent / "train").glob("*.jsonl")
        for line in path.read_text("utf-8").splitlines()
    ]
    trained = {row.get("text") or row.get("new") for row in rows}
    assert not trained & {i.turn.content for i in extra}
    names = ("scenarios.jsonl", *DEV_EXTRA_FILES["scenarios"])
    everything = scenarios.load([EVAL_DIR / n for n in names])
    assert len({s.id for s in everything}) == len(everything)
