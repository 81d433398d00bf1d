"""Spelled-out e-mail addresses, phone numbers without separators next to a phone label,
and card numbers with dots: masked in every supported language, look-alikes kept.

Every value here is a documentation or test value (example domains, fictional phone
ranges, the card networks' published test numbers).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memgate.core.events import RedactedCandidate, TurnEvent
from memgate.stages.detectors import Detector
from memgate.stages.extract import RuleExtractor
from memgate.stages.redact import Redactor

DETECTOR = Detector()


def masked(text: str) -> str:
    return DETECTOR.mask(text).text


def assert_masked(text: str, secret: str, kind: str) -> None:
    out = DETECTOR.mask(text)
    assert f"[{kind.upper()}]" in out.text, out.text
    assert out.counts.get(kind) == 1, out
    for part in secret.replace("(", " ").replace(")", " ").replace("[", " ").split():
        if len(part) > 3 and part.lower() not in ("dot", "punkt", "point", "punto", "ponto"):
            assert part not in out.text, (part, out.text)


# ------------------------------------------------------------------ e-mail

SPELLED_EMAILS = [
    # (lang, text, the address as written)
    ("en", "Email me at john dot doe at example dot com from now on.",
     "john dot doe at example dot com"),
    ("en", "My work address is john(at)example(dot)com, please remember it.",
     "john(at)example(dot)com"),
    ("en", "Write to jane [at] example [dot] org for invoices.", "jane [at] example [dot] org"),
    ("en", "Our alias is billing-team (at) example.co.uk.", "billing-team (at) example.co.uk"),
    ("en", "It's j_smith{at}mail{dot}example{dot}net.", "j_smith{at}mail{dot}example{dot}net"),
    ("en", "REACH ME: JOHN.DOE AT EXAMPLE DOT COM", "JOHN.DOE AT EXAMPLE DOT COM"),
    ("en", "Just send it to john at example dot com.", "john at example dot com"),
    ("de", "Meine E-Mail ist max punkt mustermann at beispiel punkt de.",
     "max punkt mustermann at beispiel punkt de"),
    ("de", "Schreib bitte an info(at)firma-mueller(punkt)de.", "info(at)firma-mueller(punkt)de"),
    ("de", "Kontakt: anna[at]beispiel.de", "anna[at]beispiel.de"),
    ("fr", "Mon adresse est jean point dupont arobase exemple point fr.",
     "jean point dupont arobase exemple point fr"),
    ("fr", "Écrivez à camille(at)exemple(point)fr désormais.", "camille(at)exemple(point)fr"),
    ("es", "Mi correo es juan punto perez arroba ejemplo punto es.",
     "juan punto perez arroba ejemplo punto es"),
    ("es", "Escríbeme a lucia(arroba)ejemplo(punto)com siempre.", "lucia(arroba)ejemplo(punto)com"),
    ("pt", "Meu email é joao ponto silva arroba exemplo ponto com ponto br.",
     "joao ponto silva arroba exemplo ponto com ponto br"),
    ("pt", "Manda para rafael[at]exemplo[ponto]com[ponto]br.",
     "rafael[at]exemplo[ponto]com[ponto]br"),
]


@pytest.mark.parametrize(("lang", "text", "address"), SPELLED_EMAILS)
def test_spelled_out_email_addresses_are_masked(lang: str, text: str, address: str) -> None:
    assert address in text
    assert_masked(text, address, "email")
    out = masked(text)
    assert address not in out
    # the words around the address stay
    assert text.split()[0] in out


BENIGN_AT_AND_DOT = [
    "I work at Acme dot com as a designer.",
    "Look at this dot in the picture.",
    "We met at noon at the cafe.",
    "I work at example.com as an engineer.",
    "Let's meet at 5 (at) the latest.",
    "The dot at the end matters.",
    "Python 3.12 at version 3 dot 12.",
    "We deploy at scale, period.",
    "I'm at home dot.",
    "Ich bin um 5 Uhr at home, Punkt.",
    "Je suis au point de départ.",
    "Nos vemos a las 5 en punto.",
    "O ponto de encontro é às 10 em ponto.",
    "See you at the station at 9 dot.",
]


@pytest.mark.parametrize("text", BENIGN_AT_AND_DOT)
def test_at_and_dot_in_prose_are_not_an_address(text: str) -> None:
    assert masked(text) == text


# ------------------------------------------------------------------ phone

LABELLED_PHONES = [
    ("en", "Please remember my phone number is 4155552671.", "4155552671"),
    ("en", "My mobile: 00441632960961, text me there.", "00441632960961"),
    ("en", "Call me on +14155552671 if the build breaks.", "+14155552671"),
    ("en", "cell 2125550147", "2125550147"),
    ("de", "Meine Handynummer ist 015123456789.", "015123456789"),
    ("de", "Telefon: 00493012345678, bitte nur werktags.", "00493012345678"),
    ("de", "Tel. 0301234567", "0301234567"),
    ("fr", "Mon portable est le 0612345678.", "0612345678"),
    ("fr", "Téléphone : 0033612345678", "0033612345678"),
    ("es", "Mi móvil es 612345678, llámame ahí.", "612345678"),
    ("es", "Teléfono 0034612345678 para entregas.", "0034612345678"),
    ("pt", "Meu celular é 11987654321, pode mandar mensagem.", "11987654321"),
    ("pt", "O meu telemóvel é 912345678.", "912345678"),
    ("pt", "Telefone +5511987654321", "+5511987654321"),
]


@pytest.mark.parametrize(("lang", "text", "number"), LABELLED_PHONES)
def test_phone_numbers_without_separators_next_to_a_label_are_masked(
    lang: str, text: str, number: str
) -> None:
    out = DETECTOR.mask(text)
    assert number not in out.text and "[PHONE]" in out.text, out.text
    assert out.counts == {"phone": 1}


BENIGN_NUMBERS = [
    "Order 4155552671 shipped yesterday.",
    "Our customer number is 4155552671.",
    "The tracking code 612345678 is for the pallet.",
    "My phone costs 1299 euros.",
    "Call me at 14:30 on 2024-04-01.",
    "My phone's IP address is 192.168.100.200.",
    "The phone runs firmware 17.4.1 since 2024-04-01.",
    "My phone bill was 1,299.00 last year.",
    "Phone model 14, storage 256 GB.",
    "Le numéro de commande est 0612345678.",
    "Pedido 612345678 entregue.",
]


@pytest.mark.parametrize("text", BENIGN_NUMBERS)
def test_numbers_without_a_phone_label_stay(text: str) -> None:
    assert masked(text) == text


# ------------------------------------------------------------------ cards

DOTTED_CARDS = [
    ("en", "card 4111.1111.1111.1111 ok", "4111.1111.1111.1111"),
    ("de", "Bitte belaste meine Karte 5555.5555.5555.4444.", "5555.5555.5555.4444"),
    ("fr", "Ma carte est 4111·1111·1111·1111.", "4111·1111·1111·1111"),
    ("es", "La tarjeta es 3782.822463.10005 (Amex).", "3782.822463.10005"),
    ("pt", "Meu cartão é 6011\u00a01111\u00a01111\u00a01117.",
     "6011\u00a01111\u00a01111\u00a01117"),
    ("en", "It's 5105/1051/0510/5100 on the form.", "5105/1051/0510/5100"),
    ("en", "Use 4111_1111_1111_1111 for the test.", "4111_1111_1111_1111"),
]


@pytest.mark.parametrize(("lang", "text", "card"), DOTTED_CARDS)
def test_cards_with_other_separators_are_masked(lang: str, text: str, card: str) -> None:
    out = DETECTOR.mask(text)
    assert card not in out.text and "[CARD]" in out.text, out.text
    assert out.counts == {"card": 1}


BENIGN_DOTTED = [
    "We're on Python 3.12.4 now.",
    "Our fiscal year starts 2024.04.01.",
    "The gateway is 192.168.100.200.",
    "Build 2024.15.3801 is live.",
    "Reference 4111.1111.1111.1112 is not a card (Luhn).",
    "Serial 1111.2222.3333.4444 is printed on the box.",
    "Release 2024.0415.7781.0001 shipped.",
    "Version 10.4.1111.2 of the SDK.",
]


@pytest.mark.parametrize("text", BENIGN_DOTTED)
def test_dotted_look_alikes_stay(text: str) -> None:
    assert masked(text) == text


# ------------------------------------------------------------------ through the stages


def test_a_dotted_card_never_becomes_a_fact_value() -> None:
    turn = TurnEvent(
        tenant_id="a", user_id="u", session_id="s", turn_id="t1", role="user",
        content="Always use my card 4111.1111.1111.1111 for payments.",
        ts=datetime(2024, 3, 1, 9, tzinfo=UTC),
    )
    facts = RuleExtractor().extract(turn)
    assert facts, "the instruction is read"
    redactor = Redactor(detector=DETECTOR)
    for f in facts:
        out = redactor(f)
        assert not any(isinstance(e, RedactedCandidate) for e in out)  # regulated: rejected


def test_a_spelled_address_is_masked_in_a_stored_value() -> None:
    turn = TurnEvent(
        tenant_id="a", user_id="u", session_id="s", turn_id="t1", role="user",
        content="Please remember my email is john dot doe at example dot com.",
        ts=datetime(2024, 3, 1, 9, tzinfo=UTC),
    )
    (f,) = RuleExtractor().extract(turn)
    (red, _dec) = Redactor(detector=DETECTOR)(f)
    assert isinstance(red, RedactedCandidate)
    assert "[EMAIL]" in red.candidate.object and "doe" not in red.candidate.object
