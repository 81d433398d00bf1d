"""Fail-closed redaction (issue 9, item 5): the same property in every supported language.

A label lowers the bar for the value next to it; random tokens near credential
words are masked whatever their prefix; URLs lose their secret parts; street
addresses are masked; Chinese text (no spaces) works the same; look-alikes stay.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from memgate.stages.detectors import Detector

DET = Detector()
EVAL_DIR = Path(__file__).resolve().parents[3] / "memgate" / "data" / "eval"
LANGS = ("en", "de", "fr", "es", "pt", "zh")


def masked(text: str) -> str:
    return DET.mask(text).text


def assert_gone(text: str, secret: str, kind: str) -> None:
    res = DET.mask(text)
    assert secret not in res.text, res.text
    assert res.counts.get(kind, 0) >= 1, (res.text, res.counts)


# ---------------------------------------------------------------- labelled values

PASSWORD_AFTER_LABEL = {
    "en": ("the password for the lab printer is Heron-Bay42 now", "Heron-Bay42"),
    "de": ("Das Kennwort für den Drucker lautet Reiher#4412.", "Reiher#4412"),
    "fr": ("Le mot de passe de l'imprimante est Heron_7781, note-le.", "Heron_7781"),
    "es": ("La contraseña de la impresora es Garza!5530.", "Garza!5530"),
    "pt": ("A senha da impressora é Garca-2290, não te esqueças.", "Garca-2290"),
    "zh": ("打印机的密码是Heron2290ab，别忘了。", "Heron2290ab"),
}
PASSWORD_BEFORE_LABEL = {
    "en": ("I picked Larch!Moon55 as the new vault password.", "Larch!Moon55"),
    "de": ("Ich nehme Lärche9Mond als neues Passwort für den Tresor.", "Lärche9Mond"),
    "fr": ("J'ai mis Meleze#771 comme mot de passe du coffre.", "Meleze#771"),
    "es": ("Elegí Alerce7Luna como contraseña de la caja fuerte.", "Alerce7Luna"),
    "pt": ("Escolhi Larício8Lua como senha do cofre.", "Larício8Lua"),
    "zh": ("我把Larch!Moon55设为保险箱的新密码。", "Larch!Moon55"),
}
DOCUMENT_AFTER_LABEL = {
    "en": ("For the hotel form: my passport number is P72L19084.", "P72L19084"),
    "de": ("Meine Personalausweisnummer lautet T47L0X19Z, falls die Behörde fragt.", "T47L0X19Z"),
    "fr": ("Le numéro de mon permis de conduire est 12AB34567 au cas où.", "12AB34567"),
    "es": ("Mi NIE es X7719302R para el contrato.", "X7719302R"),
    "pt": ("O meu número de contribuinte é 238 417 592, para a fatura.", "238 417 592"),
    "zh": ("身份证号码：44030119850612331X，办卡用。", "44030119850612331X"),
}
PHONE_WITHOUT_SEPARATORS = {
    "en": ("text me on 2025550163 if the deploy breaks", "2025550163"),
    "de": ("Meine Handynummer 017612349876 gilt ab sofort.", "017612349876"),
    "fr": ("Mon numéro de portable est le 0677123498.", "0677123498"),
    "es": ("Mi teléfono es el 655123498, llámame.", "655123498"),
    "pt": ("O meu telemóvel é 918123476, liga quando puderes.", "918123476"),
    "zh": ("有事打我手机13698765432。", "13698765432"),
}


@pytest.mark.parametrize("lang", LANGS)
def test_a_password_after_its_label_and_a_connector_is_masked(lang: str) -> None:
    text, secret = PASSWORD_AFTER_LABEL[lang]
    res = DET.mask(text)
    assert secret not in res.text
    assert set(res.counts) <= {"password", "api_key"} and res.counts


@pytest.mark.parametrize("lang", LANGS)
def test_a_password_before_its_label_is_masked(lang: str) -> None:
    text, secret = PASSWORD_BEFORE_LABEL[lang]
    assert secret not in masked(text)


@pytest.mark.parametrize("lang", LANGS)
def test_an_identity_document_number_after_its_label_is_masked(lang: str) -> None:
    text, secret = DOCUMENT_AFTER_LABEL[lang]
    assert_gone(text, secret, "national_id")


@pytest.mark.parametrize("lang", LANGS)
def test_a_phone_number_without_separators_is_masked(lang: str) -> None:
    text, secret = PHONE_WITHOUT_SEPARATORS[lang]
    assert_gone(text, secret, "phone")


# ---------------------------------------------------------------- look-alikes stay

LOOKALIKES = {
    "en": [
        "My passport expires on 2031-05-14, no rush.",
        "My order 4155550123 still hasn't shipped.",
        "The regression came in with commit 9c4e1f0a7b3d2e5f8a6c1b0d9e7f3a2c4b5d6e8f.",
        "The router's address is 192.168.1.1 for the admin page.",
        "The meeting is in Room 1204 on the twelfth floor.",
    ],
    "de": [
        "Mein Reisepass läuft am 14.05.2031 ab.",
        "Meine Bestellnummer 015112349876 ist noch nicht da.",
        "Der Mandant hat die Kennung 3f9a2c7e-8b14-4d6f-a0e2-5c9b7d1e4f38 im Dashboard.",
        "Die IP-Adresse des Druckers ist 192.168.0.20.",
        "Das Meeting ist in Raum 2.14.",
    ],
    "fr": [
        "Mon passeport expire le 14/05/2031.",
        "Ma facture n° 0671234598 n'est pas réglée.",
        "Le bug a été corrigé dans le commit e3b7a91c.",
        "L'adresse IP du serveur est 172.16.4.2.",
        "La réunion a lieu en salle 305.",
    ],
    "es": [
        "Mi pasaporte caduca el 14/05/2031.",
        "Mi pedido número 612349870 no ha llegado.",
        "El identificador es b2e4f6a8-1c3d-4e5f-9a7b-0c2d4e6f8a1b en la consola.",
        "La dirección IP del servidor es 10.1.2.3.",
        "La reunión es en la sala 4B.",
    ],
    "pt": [
        "O meu passaporte expira a 14/05/2031.",
        "A minha encomenda número 912348765 não chegou.",
        "O erro entrou no commit a41f9c03d7e2.",
        "O endereço IP da impressora é 192.168.1.50.",
        "O código de rastreio é RR364728191PT, chega sexta.",
    ],
    "zh": [
        "我的护照有效期到2031年5月14日。",
        "我的订单号13812349876还没发货。",
        "项目的编号是7d1e4f38-3f9a-4c7e-8b14-a0e25c9b4d6f。",
        "构建服务器的IP地址是10.0.0.12。",
        "周会在十二楼的1204室开。",
    ],
}


LOOKALIKE_PARAMS = [
    pytest.param(t, id=f"{lang}-{i}") for lang in LANGS for i, t in enumerate(LOOKALIKES[lang])
]


@pytest.mark.parametrize("text", LOOKALIKE_PARAMS)
def test_look_alikes_next_to_labels_or_far_from_credential_words_stay(text: str) -> None:
    assert DET.scan(text) == [], masked(text)


# ---------------------------------------------------------------- random tokens, URLs

VENDOR_TOKENS = {
    "en": "The Quillvox token is qvx_live_7Hq2LpZ9rT4mKw8NcY3bVd for exports.",
    "de": "Der Schlüssel für Brezelcloud ist brz_prod_Xk4Tm9qW2LzR8vN6hJ3cP.",
    "fr": "La clé d'accès Lumenix est lmn_sk_9Rq3Tx7WmK2pLz5vB8nYc4.",
    "es": "El token de Tornasol es trn_live_Vb7Kq3Xm9Tz2Lw8Rp4Nh6J.",
    "pt": "A chave de acesso da Gravia é grv_pat_5Xq8Lm2Tz9Wk4Rv7Nb3Hc6.",
    "zh": "海螺云的访问令牌是hlx_key_8Tq3Zm7Xv2Lk9Wr4Pb6Nc，导出时用。",
}


@pytest.mark.parametrize("lang", LANGS)
def test_a_token_of_a_vendor_no_list_knows_is_masked(lang: str) -> None:
    text = VENDOR_TOKENS[lang]
    token = next(w for w in text.replace("，", " ").split() if "_" in w).rstrip(".")
    token = token[token.index(next(c for c in token if c.isascii() and c.islower())) :]
    assert_gone(text, token.split("，")[0], "api_key")


def test_a_random_token_with_no_prefix_is_masked_near_a_credential_word_only() -> None:
    token = "Rk7Xm2Qz9Tv4"
    assert token not in masked(f"the signing secret for staging is now {token} again")
    assert masked(f"the build label for staging is now {token} again").count(token) == 1


def test_url_credentials_and_keys_are_masked_and_the_rest_of_the_url_kept() -> None:
    text = (
        "pulls https://api.tidewatch.io/v3/levels?station=leith&apikey=b7Tq9XkL2mPz4RvW8sYc "
        "and clones https://deploy:Wint3rSonne!@git.example.de/infra.git"
    )
    out = masked(text)
    assert "b7Tq9XkL2mPz4RvW8sYc" not in out and "Wint3rSonne!" not in out
    assert "api.tidewatch.io/v3/levels?station=leith&apikey=" in out
    assert masked("see https://docs.example.com/guide?page=2&lang=en") == (
        "see https://docs.example.com/guide?page=2&lang=en"
    )


# ---------------------------------------------------------------- addresses

ADDRESSES = {
    "en": ("We moved to 4417 Larkspur Lane, Boise last week.", "4417 Larkspur Lane"),
    "de": ("Wir wohnen jetzt in der Kastanienstraße 23b.", "Kastanienstraße 23b"),
    "fr": ("J'habite maintenant au 14 rue des Tanneurs.", "14 rue des Tanneurs"),
    "es": ("Ahora vivo en la Calle del Pez 27.", "Calle del Pez 27"),
    "pt": ("Agora moro na Rua das Flores 58.", "Rua das Flores 58"),
    "zh": ("新家在上海市徐汇区漕溪北路88号。", "漕溪北路88号"),
}


@pytest.mark.parametrize("lang", LANGS)
def test_a_street_address_is_masked(lang: str) -> None:
    text, secret = ADDRESSES[lang]
    assert_gone(text, secret, "address")


def test_chinese_glued_values_are_found() -> None:
    for text, value in (
        ("密码是abc123XYZ", "abc123XYZ"),
        ("身份证号：110101199003077777", "110101199003077777"),
        ("手机13812345678", "13812345678"),
        ("联系邮箱zhaolei_88@qq.com，有事发邮件。", "zhaolei_88@qq.com"),
        ("我的信用卡号4539148803436467，订酒店用。", "4539148803436467"),
    ):
        assert value not in masked(text), text


# ---------------------------------------------------------------- the development cases


def _dev2() -> list[dict[str, object]]:
    with (EVAL_DIR / "leaks_dev2.jsonl").open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_the_development_cases_have_as_many_cases_per_language_for_each_class() -> None:
    per_class: dict[str, Counter[str]] = {}
    for case in _dev2():
        name = str(case["note"])
        per_class.setdefault(name, Counter())[str(case["lang"])] += 1
    for name, langs in per_class.items():
        assert set(langs) == set(LANGS), name
        assert len(set(langs.values())) == 1, (name, langs)


def test_every_development_case_is_masked_or_kept_by_the_detectors() -> None:
    for case in _dev2():
        turn = case["turn"]
        assert isinstance(turn, dict)
        text = str(turn["content"])
        out = masked(text)
        if case["kind"] == "benign":
            assert out == text, case["id"]
        else:
            needles = [case["secret"], *case["fragments"]]  # type: ignore[list-item]
            assert not any(str(n) in out for n in needles), (case["id"], out)
