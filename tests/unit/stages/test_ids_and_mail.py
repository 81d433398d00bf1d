"""National ids of many countries, e-mail addresses in the shapes people type them,
and the look-alikes their validators protect (issue 9, item 5; the classes of
``leaks_dev3.jsonl``, here with other values).

A number with a passing checksum in an identity format is evidence on its own
(Brazilian CPF and CNPJ, the Chinese resident id, the French NIR); a weaker
format needs a label word of any supported language nearby; a number after an
identifier word (order, Bestellnummer, encomenda, 订单号...) is no phone and
no id.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memgate.stages.detectors import Detector

DET = Detector()


def assert_gone(text: str, secret: str, kind: str) -> None:
    res = DET.mask(text)
    assert secret not in res.text, res.text
    assert res.counts.get(kind, 0) >= 1, (res.text, res.counts)


def assert_intact(text: str, value: str) -> None:
    res = DET.mask(text)
    assert value in res.text, (res.text, res.counts)


# ---------------------------------------------------------------- national ids

IDS_BY_FORMAT = {
    # a CPF or CNPJ written with its punctuation is an id wherever it stands
    "cpf_punctuated_no_label": ("Pode usar 613.042.857-07 no cadastro da loja.", "613.042.857-07"),
    "cpf_punctuated_en": ("For the Brazilian account my CPF is 258.193.746-73.", "258.193.746-73"),
    "cnpj_punctuated": ("A empresa é a 09.341.762/0001-26, põe na nota.", "09.341.762/0001-26"),
    "cnpj_bare_label": ("CNPJ 09341762000126 da minha loja.", "09341762000126"),
    "cpf_bare_label": ("Meu CPF: 61304285707, pro cadastro.", "61304285707"),
    # an 18-digit resident id with a valid birth date and check character
    "ric_x_glued": ("记一下44030119850612001X这个是我的。", "44030119850612001X"),
    "ric_digits_glued": ("帮我记住650102199901017337，别弄丢。", "650102199901017337"),
    "ric_groups_of_four": ("证件号码 3301 0619 9008 1500 3X 已登记", "3301 0619 9008 1500 3X"),
    # a NIR (sex, year, month, place, order, key mod 97) needs no label
    "nir_compact": ("Pour la mutuelle, c'est 292057512345668, je te l'envoie.", "292057512345668"),
    # a Spanish DNI written with thousands dots
    "dni_dots": ("Documento 47.382.916-H a nombre de mi padre.", "47.382.916-H"),
    # a UK NI number in lower case after its label
    "nino_lower": (
        "my national insurance number is ab 12 34 56 c, payroll wants it",
        "ab 12 34 56 c",
    ),
}


@pytest.mark.parametrize("case", sorted(IDS_BY_FORMAT))
def test_national_id_formats_are_masked(case: str) -> None:
    text, secret = IDS_BY_FORMAT[case]
    assert_gone(text, secret, "national_id")


IDS_BY_LABEL = {
    "de_finanzamt": ("Fürs Finanzamt: 33862075346 ist meine Nummer.", "33862075346"),
    "de_perso": ("Perso-Nr. L7T3G9K2R, falls die Vermietung fragt.", "L7T3G9K2R"),
    # thousands grouping with a check digit is an id after its label, not a version
    "pt_rg_grouped": ("Meu RG é 23.456.789-1, pro cadastro.", "23.456.789-1"),
    "pt_cnpj_label": ("O CNPJ é 09341762000126, guarda.", "09341762000126"),
    "en_cpf_label": ("my CPF number is 61304285707 for the bank", "61304285707"),
}


@pytest.mark.parametrize("case", sorted(IDS_BY_LABEL))
def test_label_words_of_every_language_make_an_id(case: str) -> None:
    text, secret = IDS_BY_LABEL[case]
    assert_gone(text, secret, "national_id")


ID_LOOKALIKES = {
    # checksums fail: kept
    "cpf_bad_check": ("A nota 613.042.857-00 veio errada.", "613.042.857-00"),
    "ric_bad_date": ("订单号202408151234567890还没发货。", "202408151234567890"),
    "nir_bad_key": ("La commande 292057512345699 est partie.", "292057512345699"),
    "version_after_word": ("The app is at 2.14.3-beta for the passport office.", "2.14.3-beta"),
    "version_dotted": ("We upgraded to 613.042.857 of the engine.", "613.042.857"),
}


@pytest.mark.parametrize("case", sorted(ID_LOOKALIKES))
def test_id_lookalikes_stay(case: str) -> None:
    text, value = ID_LOOKALIKES[case]
    assert_intact(text, value)


# ---------------------------------------------------------------- phones vs identifiers

IDENTIFIERS_NOT_PHONES = {
    "de_bestellnummer_dashed": (
        "Die Bestellnummer 302-5561842-7710394 fehlt noch.",
        "302-5561842-7710394",
    ),
    "fr_commande_no": ("Ma commande n° 1458 7793 210 est bloquée.", "1458 7793 210"),
    "fr_numero_client": ("Mon numéro client chez le fournisseur est 6012 345 678.", "6012 345 678"),
    "de_abbreviated_filler": ("Bestellung Nr. 0151 2345 6789 ist raus.", "0151 2345 6789"),
    "pt_encomenda": ("A minha encomenda 2024-558813 ainda não chegou.", "2024-558813"),
    "es_pedido": ("El pedido 612 345 678 llegó roto.", "612 345 678"),
    "zh_order": ("订单号 138 1234 5678 还没发货。", "138 1234 5678"),
}


@pytest.mark.parametrize("case", sorted(IDENTIFIERS_NOT_PHONES))
def test_identifier_words_of_every_language_keep_a_number(case: str) -> None:
    text, value = IDENTIFIERS_NOT_PHONES[case]
    assert_intact(text, value)


def test_a_phone_label_after_the_identifier_word_still_masks() -> None:
    assert_gone(
        "Mon numéro client est 1234, mon téléphone est 06 12 34 56 78.", "06 12 34 56 78", "phone"
    )


# ---------------------------------------------------------------- e-mail

EMAILS = {
    "de_aet": (
        "Schreib an jonas punkt kraus ät posteo punkt de, bitte.",
        "jonas punkt kraus ät posteo punkt de",
    ),
    "fr_chez_in_brackets": (
        "Contact : paul.girard [chez] orange.fr",
        "paul.girard [chez] orange.fr",
    ),
    "zh_at_dian": ("我的邮箱是wangfang at 163点com，有事发这里。", "wangfang at 163点com"),
    "zh_hash_for_at": ("我的邮箱是li_na#163.com（#换成@）。", "li_na#163.com"),
    "en_star_for_at": (
        "My email is nora.quinn*posteo.net, swap the star.",
        "nora.quinn*posteo.net",
    ),
    "pt_hash_for_at": ("O meu email: rita.lobo#sapo.pt, troca o #.", "rita.lobo#sapo.pt"),
}


@pytest.mark.parametrize("case", sorted(EMAILS))
def test_written_out_emails_are_masked(case: str) -> None:
    text, secret = EMAILS[case]
    assert_gone(text, secret, "email")


EMAIL_LOOKALIKES = {
    "issue_ref": ("The fix is in issue#42.md of the repo.", "issue#42.md"),
    "hash_no_label": ("Build tag release#2024.io is deployed.", "release#2024.io"),
}


@pytest.mark.parametrize("case", sorted(EMAIL_LOOKALIKES))
def test_email_lookalikes_stay(case: str) -> None:
    text, value = EMAIL_LOOKALIKES[case]
    assert_intact(text, value)


# ---------------------------------------------------------------- the development file

DEV3 = Path(__file__).resolve().parents[3] / "memgate" / "data" / "eval" / "leaks_dev3.jsonl"


def test_every_dev3_case_is_masked_or_kept_by_the_detectors() -> None:
    with DEV3.open(encoding="utf-8") as f:
        cases = [json.loads(line) for line in f if line.strip()]
    assert len(cases) >= 130
    for case in cases:
        out = DET.mask(case["turn"]["content"]).text
        if case["kind"] == "benign":
            assert case["lookalike"] in out, (case["id"], out)
        else:
            assert case["secret"] not in out, (case["id"], out)
