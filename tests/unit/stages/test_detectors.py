"""Tests for memgate.stages.detectors: PII and credential detection and masking.

Every secret-looking value is assembled at run time from harmless fragments so
that no string in this file looks like a live credential to a secret scanner.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import string

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from memgate.stages.detectors import (
    ALL_KINDS,
    CREDENTIAL_KINDS,
    KIND_CATEGORY,
    Category,
    Detector,
    Finding,
    MaskResult,
    iban_valid,
    looks_like_placeholder,
    luhn_valid,
    placeholder,
)

DETECTOR = Detector()

# --------------------------------------------------------------------------
# Fake but format-valid values, built at run time
# --------------------------------------------------------------------------

_PATTERN = "FaKe0Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wz2"


def body(n: int, alphabet: str | None = None) -> str:
    """A deterministic, obviously fake, mixed-class key body of length n."""
    src = _PATTERN if alphabet is None else alphabet
    return (src * (n // len(src) + 1))[:n]


def b64url(obj: object) -> str:
    raw = json.dumps(obj, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


HEX = "0123456789abcdef"
ANTHROPIC_KEY = "sk-" + "ant-" + "api03-" + body(80)
OPENAI_KEY = "sk-" + body(48)
OPENAI_PROJ_KEY = "sk-" + "proj-" + body(60)
AWS_KEY_ID = "AK" + "IA" + body(16, "FAKE2345KEY6789Q")
AWS_SECRET = body(40, "FakeSecret/AwsKey+0123456789abcdefghijkl")
GITHUB_PAT = "gh" + "p_" + body(36)
GITHUB_FINE_PAT = "github" + "_pat_" + body(22) + "_" + body(59)
GITLAB_PAT = "gl" + "pat-" + body(20)
SLACK_TOKEN = "xo" + "xb-" + "1234567890-" + "0987654321-" + body(24)
STRIPE_LIVE = "sk" + "_live_" + body(24)
STRIPE_TEST_PK = "pk" + "_test_" + body(24)
GOOGLE_KEY = "AI" + "za" + body(35)
TWILIO_KEY = "S" + "K" + body(32, HEX)
SENDGRID_KEY = "S" + "G." + body(22) + "." + body(43)
NPM_TOKEN = "np" + "m_" + body(36)
HF_TOKEN = "h" + "f_" + body(34)
GENERIC_SECRET = body(32, "q7Zr2Lm9Xw4Tp8Kd3Vb6Nc1Hy5Gj0Fs")
JWT_TOKEN = (
    b64url({"alg": "HS256", "typ": "JWT"})
    + "."
    + b64url({"sub": "1234567890", "name": "Test User", "iat": 1516239022})
    + "."
    + body(43, "fakeSignature_-0123456789ABCDEFGHIJ")
)
PEM_BODY = "\n".join(body(64, "MIIFakeKeyMaterial0123456789+/abcdefghij") for _ in range(4))
RSA_PEM = (
    "-----BEGIN " + "RSA PRIVATE KEY-----\n" + PEM_BODY + "\n-----END " + "RSA PRIVATE KEY-----"
)
OPENSSH_PEM = (
    "-----BEGIN " + "OPENSSH PRIVATE KEY-----\n" + PEM_BODY + "\n-----END OPENSSH PRIVATE KEY-----"
)
VISA_TEST = "4111 1111 " + "1111 1111"
MC_TEST = "5555-5555-" + "5555-4444"
AMEX_TEST = "3782822" + "46310005"
IBAN_DE = "DE89 3704 " + "0044 0532 0130 00"
IBAN_GB = "GB82WEST" + "12345698765432"


# --------------------------------------------------------------------------
# Positive cases: (text, kind, value that must not survive masking)
# --------------------------------------------------------------------------

POSITIVE: list[tuple[str, str, str, str]] = [
    # id, text, kind, secret
    ("email-plain", "write to jane.doe@example.org today", "email", "jane.doe@example.org"),
    (
        "email-plus-tag-subdomain",
        "cc John.Smith+news@mail.corp.example.co.uk, thanks",
        "email",
        "John.Smith+news@mail.corp.example.co.uk",
    ),
    ("email-uppercase", "MAIL: JANE.DOE@EXAMPLE.COM", "email", "JANE.DOE@EXAMPLE.COM"),
    ("email-url-encoded", "/unsubscribe?u=jane.doe%40example.org&x=1", "email", "jane.doe%40"),
    (
        "email-in-json",
        '{"user": {"email":"a.b-c@sub.example.io"}}',
        "email",
        "a.b-c@sub.example.io",
    ),
    ("phone-e164-uk", "call +44 20 7946 0958 after lunch", "phone", "7946 0958"),
    ("phone-us-intl-parens", "my cell is +1 (415) 555-2671.", "phone", "555-2671"),
    ("phone-us-national", "office: (415) 555-2671", "phone", "555-2671"),
    ("phone-de", "Berlin office +49 30 901820", "phone", "901820"),
    ("phone-00-prefix", "dial 0044 20 7946 0958 from abroad", "phone", "7946 0958"),
    ("phone-dots", "text me at 415.555.2671 tonight", "phone", "415.555.2671"),
    ("phone-uk-national", "ring 020 7946 0958", "phone", "020 7946 0958"),
    ("phone-fr", "appelle-moi au +33 1 23 45 67 89", "phone", "45 67 89"),
    ("ssn", "my SSN is 123-45-6789", "national_id", "123-45-6789"),
    ("ssn-spaced-with-context", "social security number 123 45 6789", "national_id", "6789"),
    ("uk-nino", "NI number AB 12 34 56 C", "national_id", "AB 12 34 56 C"),
    ("es-dni", "mi DNI es 12345678Z", "national_id", "12345678Z"),
    ("es-nie", "NIE X1234567L", "national_id", "X1234567L"),
    ("it-codice-fiscale", "codice fiscale RSSMRA85T10A562S", "national_id", "RSSMRA85T10A562S"),
    ("fr-nir", "numéro de sécurité sociale 1 84 12 76 451 089 46", "national_id", "451 089"),
    ("de-idnr", "Steuer-ID: 86095742719", "national_id", "86095742719"),
    ("nl-bsn", "mijn BSN is 111222333", "national_id", "111222333"),
    ("card-visa-spaces", "card " + VISA_TEST + " exp 12/29", "card", VISA_TEST),
    ("card-mc-dashes", "pay with " + MC_TEST, "card", MC_TEST),
    ("card-amex-compact", "amex " + AMEX_TEST, "card", AMEX_TEST),
    ("iban-de-spaced", "IBAN: " + IBAN_DE + " please", "iban", IBAN_DE),
    ("iban-gb-compact", "send to " + IBAN_GB, "iban", IBAN_GB),
    ("iban-lowercase", "iban " + IBAN_DE.lower(), "iban", IBAN_DE.lower()),
    ("key-anthropic", "export ANTHROPIC_API_KEY=" + ANTHROPIC_KEY, "api_key", ANTHROPIC_KEY),
    ("key-openai", "use " + OPENAI_KEY + " for now", "api_key", OPENAI_KEY),
    (
        "key-openai-project-in-code-fence",
        "```python\nclient = OpenAI(api_key='" + OPENAI_PROJ_KEY + "')\n```",
        "api_key",
        OPENAI_PROJ_KEY,
    ),
    ("key-aws-access-key-id", "aws id " + AWS_KEY_ID, "api_key", AWS_KEY_ID),
    (
        "key-aws-secret-assignment",
        "aws_secret_access_key = " + AWS_SECRET,
        "api_key",
        AWS_SECRET,
    ),
    ("key-github-pat", "token " + GITHUB_PAT, "api_key", GITHUB_PAT),
    ("key-github-fine-grained", "GH: " + GITHUB_FINE_PAT, "api_key", GITHUB_FINE_PAT),
    ("key-gitlab", "git push with " + GITLAB_PAT, "api_key", GITLAB_PAT),
    ("key-slack", "SLACK_BOT=" + SLACK_TOKEN, "api_key", SLACK_TOKEN),
    ("key-stripe-live", "stripe key " + STRIPE_LIVE, "api_key", STRIPE_LIVE),
    ("key-stripe-test-publishable", "pk is " + STRIPE_TEST_PK, "api_key", STRIPE_TEST_PK),
    ("key-google", "maps key=" + GOOGLE_KEY, "api_key", GOOGLE_KEY),
    ("key-twilio", "twilio " + TWILIO_KEY, "api_key", TWILIO_KEY),
    ("key-sendgrid", "SENDGRID=" + SENDGRID_KEY, "api_key", SENDGRID_KEY),
    ("key-npm", "//registry/:_authToken=" + NPM_TOKEN, "api_key", NPM_TOKEN),
    ("key-huggingface", "HF token " + HF_TOKEN, "api_key", HF_TOKEN),
    (
        "key-inside-json",
        '{"provider": "anthropic", "key": "' + ANTHROPIC_KEY + '"}',
        "api_key",
        ANTHROPIC_KEY,
    ),
    ("generic-api-key-assignment", "api_key = '" + GENERIC_SECRET + "'", "api_key", GENERIC_SECRET),
    ("generic-apikey-yaml", "apikey: " + GENERIC_SECRET, "api_key", GENERIC_SECRET),
    ("generic-token-env", "GITHUB_TOKEN=" + GENERIC_SECRET, "api_key", GENERIC_SECRET),
    (
        "generic-secret-json",
        '{"client_secret": "' + GENERIC_SECRET + '"}',
        "api_key",
        GENERIC_SECRET,
    ),
    ("generic-cli-flag", "mytool --api-key " + GENERIC_SECRET + " run", "api_key", GENERIC_SECRET),
    (
        "generic-git-sha-as-token",
        "token=" + body(40, HEX),
        "api_key",
        body(40, HEX),
    ),
    (
        "bearer-header",
        "curl -H 'Authorization: Bearer " + GENERIC_SECRET + "' https://api.example.com",
        "bearer_token",
        GENERIC_SECRET,
    ),
    (
        "bearer-prose",
        "use bearer " + GENERIC_SECRET + " for the call",
        "bearer_token",
        GENERIC_SECRET,
    ),
    ("jwt", "session=" + JWT_TOKEN + "; path=/", "jwt", JWT_TOKEN),
    ("jwt-bearer", "Authorization: Bearer " + JWT_TOKEN, "jwt", JWT_TOKEN),
    ("password-prose-en", "my password is hunter2, don't tell", "password", "hunter2"),
    ("password-pw", "the pw is Tr0ub4dor&3", "password", "Tr0ub4dor&3"),
    ("password-for-service", "my password for gmail is s3cr3t!", "password", "s3cr3t"),
    ("password-de", "Das Passwort ist Sommer2024!", "password", "Sommer2024"),
    ("password-fr", "mon mot de passe est soleil42", "password", "soleil42"),
    ("password-es", "mi contraseña es gato99", "password", "gato99"),
    ("password-assignment", "password=hunter2", "password", "hunter2"),
    ("password-env-quoted", 'DB_PASSWORD: "correct horse battery"', "password", "correct horse"),
    ("password-passwd", "passwd=abc123xyz", "password", "abc123xyz"),
    ("password-pwd", "user=admin pwd=Adm1nPwd", "password", "Adm1nPwd"),
    ("password-json", '{"user": "bob", "password": "b0bs-pa55"}', "password", "b0bs-pa55"),
    (
        "password-annotated",
        'password: str = "Summer2024"',
        "password",
        "Summer2024",
    ),
    ("pin", "my PIN is 4821", "password", "4821"),
    (
        "conn-postgres",
        "DATABASE_URL=postgres://app:Pa55word@db.internal:5432/app",
        "connection_string",
        "Pa55word",
    ),
    ("conn-mysql", "mysql://root:toor@localhost/test", "connection_string", "toor"),
    (
        "conn-mongodb-srv",
        "mongodb+srv://admin:pw123@cluster0.abcde.mongodb.net/db?retryWrites=true.",
        "connection_string",
        "pw123",
    ),
    ("conn-redis-no-user", "redis://:s3cret@cache:6379/0", "connection_string", "s3cret"),
    ("conn-amqp", "amqp://guest:guestpw@rabbit:5672/", "connection_string", "guestpw"),
    (
        "conn-jdbc",
        "jdbc:postgresql://db:5432/app?user=app&password=J3dbcPass",
        "connection_string",
        "J3dbcPass",
    ),
    (
        "conn-ado-net",
        "Server=tcp:sql.example.com;Database=app;User Id=sa;Password=Ad0Pass!;",
        "connection_string",
        "Ad0Pass",
    ),
    ("private-key-rsa", "here:\n" + RSA_PEM + "\nthanks", "private_key", PEM_BODY[:64]),
    ("private-key-openssh", OPENSSH_PEM, "private_key", PEM_BODY[-64:]),
    (
        "private-key-json-escaped",
        '{"private_key": "' + RSA_PEM.replace("\n", "\\n") + '"}',
        "private_key",
        PEM_BODY[:64],
    ),
    (
        "private-key-truncated",
        "-----BEGIN " + "PRIVATE KEY-----\n" + PEM_BODY,
        "private_key",
        PEM_BODY[-64:],
    ),
    ("ip-public", "connect from 8.8.4.4 please", "ip_address", "8.8.4.4"),
    (
        "basic-auth-header",
        "Authorization: Basic " + base64.b64encode(b"user:" + b"pa55word123").decode(),
        "bearer_token",
        base64.b64encode(b"user:" + b"pa55word123").decode(),
    ),
    ("password-glued-env-name", "PGPASSWORD=secret123 psql -h db", "password", "secret123"),
    (
        "token-in-url-query",
        "GET /v1/items?api_key=" + GENERIC_SECRET + "&page=2",
        "api_key",
        GENERIC_SECRET,
    ),
    ("password-pt", "a minha senha é abacaxi123", "password", "abacaxi123"),
    ("password-nl", "mijn wachtwoord is Tulp2024", "password", "Tulp2024"),
    ("password-yaml", "db:\n  user: app\n  password: 'pa$$w0rd!'\n", "password", "pa$$w0rd!"),
    ("card-arabic-indic-digits", "بطاقة ٤١١١ ١١١١ ١١١١ ١١١١", "card", "١١١١ ١١١١"),
    ("phone-uk-trunk-in-parens", "tel +44 (0)20 7946 0958", "phone", "+44"),
    ("phone-compact-parens", "+1(415)555-2671", "phone", "555-2671"),
    ("phone-multiple-in-one-line", "+91 98765 43210 or +81 3-1234-5678", "phone", "43210"),
    # prose passwords with a linking word between the name and the verb
    ("password-fr-du", "le mot de passe du wifi est Tq8!zrW3", "password", "Tq8!zrW3"),
    ("password-fr-des", "Le mot de passe des caméras est Lm4$vn27", "password", "Lm4$vn27"),
    (
        "password-fr-de-l",
        "le mot de passe de l'imprimante est Kp3#ws91",
        "password",
        "Kp3#ws91",
    ),
    ("password-de-vom", "das Passwort vom NAS ist Gr8%hx42", "password", "Gr8%hx42"),
    ("password-de-des", "Das Kennwort des Servers lautet Wq5&jd60", "password", "Wq5&jd60"),
    ("password-es-de-la", "la contraseña de la alarma es Bn2#tq84", "password", "Bn2#tq84"),
    ("password-pt-dos", "a senha dos relatórios é Jx6!pm33", "password", "Jx6!pm33"),
    ("password-it-della", "la password della rete è Fh9@kc21", "password", "Fh9@kc21"),
    ("phone-year-like-with-context", "call me on 2024.15.3801", "phone", "2024.15.3801"),
]


@pytest.mark.parametrize(
    ("text", "kind", "secret"),
    [pytest.param(t, k, s, id=i) for i, t, k, s in POSITIVE],
)
def test_positive_is_detected_and_masked(text: str, kind: str, secret: str) -> None:
    result = DETECTOR.mask(text)
    assert result.counts.get(kind, 0) >= 1, (result.text, result.counts)
    assert secret not in result.text
    assert placeholder(kind) in result.text
    assert DETECTOR.scan(result.text) == []
    assert DETECTOR.mask(result.text).text == result.text


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        pytest.param("my password is hunter2, don't tell", "my password is ", id="en"),
        pytest.param("Das Passwort ist Sommer2024!", "Das Passwort ist ", id="de"),
        pytest.param("password=hunter2", "password=", id="assignment"),
        pytest.param(
            "Authorization: Bearer " + GENERIC_SECRET, "Authorization: Bearer ", id="auth"
        ),
        pytest.param("api_key = '" + GENERIC_SECRET + "'", "api_key = '", id="generic"),
    ],
)
def test_value_only_masking_keeps_the_prose(text: str, kept: str) -> None:
    assert DETECTOR.mask(text).text.startswith(kept)


def test_connection_string_is_masked_whole() -> None:
    out = DETECTOR.mask("url: postgres://app:Pa55word@db.internal:5432/app.").text
    assert out == "url: [CONNECTION_STRING]."


# --------------------------------------------------------------------------
# Benign look-alikes: no finding at all
# --------------------------------------------------------------------------

BENIGN: list[tuple[str, str]] = [
    ("version", "upgraded to version 1.2.3 yesterday"),
    ("semver-v", "pin v2.10.4 in the lockfile"),
    ("four-part-version", "driver version 4.2.1.0 is out"),
    ("python-version", "Python 3.11.7 on macOS 10.15.7"),
    ("date-iso", "released on 2024-05-01"),
    ("date-eu", "Termin am 01.05.2024 um 10:30"),
    ("timestamp", "at 2024-05-01T10:30:00Z the job ran"),
    ("time-duration", "took 1h 30m 15s (01:30:15)"),
    ("order-id", "order #123456789 shipped"),
    ("order-id-dashed", "order 123-456-7890 shipped"),
    ("tracking", "tracking number 1Z999AA10123456784"),
    ("port", "listening on localhost:8080 and 0.0.0.0:5432"),
    ("private-ip", "router at 192.168.1.1 and 10.0.0.12"),
    ("price", "it costs $1,299.99 or 1 299 EUR"),
    ("years", "between 1999 and 2024, in 2019-2024"),
    ("epoch-ms", "created 1714567890123"),
    ("git-sha", "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it"),
    ("uuid", "request id 123e4567-e89b-12d3-a456-426614174000"),
    ("luhn-invalid-card", "card 4111 1111 1111 1112"),
    ("iban-bad-checksum", "IBAN DE89 3704 0044 0532 0130 01"),
    ("ssn-invalid-area", "ids 000-12-3456, 666-12-3456 and 912-34-5678"),
    ("password-reset", "click the password reset link"),
    ("forgot-password", "I forgot my password again"),
    ("password-state", "the password is incorrect, and the password was changed"),
    ("token-prose", "the token expired so I need a new token"),
    ("max-tokens", "max_tokens: 1024, tokenizer: bert-base-uncased"),
    ("sklearn", "use sk-learn, I mean scikit-learn"),
    ("placeholder-angle", "api_key=<your-api-key>"),
    ("placeholder-env-name", "export OPENAI_API_KEY=YOUR_API_KEY"),
    ("placeholder-xxx", "token: xxx"),
    ("placeholder-stars", "password: ****"),
    ("placeholder-env-ref", 'password = "${DB_PASSWORD}"'),
    ("placeholder-key-x", "sk-" + "x" * 40),
    ("code-password-param", "def login(user: str, password: str) -> None:"),
    ("code-password-passthrough", "login(user, password=password)"),
    ("code-token-from-env", "token = os.environ.get('GITHUB_TOKEN')"),
    ("git-ssh-remote", "git@github.com:org/repo.git"),
    ("retina-image", "icon@2x.png"),
    ("npm-scope", "npm install @types/node@20"),
    ("bearer-word", "the bearer of this message"),
    ("mask-placeholders", "[EMAIL] [PHONE] [CARD] [IBAN] [API_KEY] [PASSWORD]"),
    ("masked-assignment", "password=[PASSWORD] token=[API_KEY] Bearer [BEARER_TOKEN]"),
    ("short-number-list", "steps 1, 2, 3 and 42"),
    ("math", "x = 3.14159 * 2.71828"),
    ("settings-reference", "SECRET_KEY = settings.SECRET_KEY; token: config.auth_token"),
    ("sha256", "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("pip-pins", "pip install torch==2.3.1+cu121 transformers>=4.41.2"),
    ("docker-ports", "docker run -p 8080:80 nginx:1.25.3"),
    ("coordinates", "Coordinates 52.5200, 13.4050; elevation 34 m."),
    ("isbn", "ISBN 978-3-16-148410-0 and DOI 10.1000/182"),
    ("revenue", "revenue grew 12.5% to $4,500,000 in Q3 2024"),
    ("s3-path", "aws s3 cp s3://bucket/2024/05/01/part-00001.parquet ."),
    ("dotted-digits", "1.2.3.4.5.6.7.8.9.10.11.12"),
    ("token-bucket", "the bucket refills at 100 tokens/sec; bearer tokens expire in 3600 s"),
    ("auth-header-variable", 'curl -H "Authorization: Bearer $TOKEN" https://api.github.com'),
    ("openai-elided", "export OPENAI_API_KEY=sk-...  # put your key here"),
    ("year-build-number", "nightly builds are tagged 2023.07.4412 by the pipeline"),
    ("year-release-train", "we ship calendar releases like 2024.11.2051 each sprint"),
]


@pytest.mark.parametrize("text", [pytest.param(t, id=i) for i, t in BENIGN])
def test_benign_lookalike_has_no_finding(text: str) -> None:
    assert DETECTOR.scan(text) == []
    assert DETECTOR.mask(text) == MaskResult(text, {})


# --------------------------------------------------------------------------
# Checksums
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("digits", "expected"),
    [
        pytest.param("4111111111111111", True, id="visa-test"),
        pytest.param("4111 1111 1111 1111", True, id="spaces-ignored"),
        pytest.param("5555-5555-5555-4444", True, id="dashes-ignored"),
        pytest.param("378282246310005", True, id="amex"),
        pytest.param("79927398713", True, id="classic"),
        pytest.param("4111111111111112", False, id="off-by-one"),
        pytest.param("79927398710", False, id="classic-bad"),
        pytest.param("", False, id="empty"),
        pytest.param("7", False, id="one-digit"),
        pytest.param("4111x11111111111", False, id="non-digit"),
        pytest.param("٤١١١١١١١١١١١١١١١", False, id="non-ascii-digits"),
    ],
)
def test_luhn_valid(digits: str, expected: bool) -> None:
    assert luhn_valid(digits) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("DE89370400440532013000", True, id="de"),
        pytest.param("DE89 3704 0044 0532 0130 00", True, id="de-spaced"),
        pytest.param("de89 3704 0044 0532 0130 00", True, id="lowercase"),
        pytest.param("GB82 WEST 1234 5698 7654 32", True, id="gb"),
        pytest.param("FR14 2004 1010 0505 0001 3M02 606", True, id="fr"),
        pytest.param("NL91ABNA0417164300", True, id="nl"),
        pytest.param("BE68 5390 0754 7034", True, id="be"),
        pytest.param("DE89370400440532013001", False, id="bad-checksum"),
        pytest.param("DE8937040044053201300", False, id="too-short-for-country"),
        pytest.param("XX89370400440532013000", False, id="unknown-country"),
        pytest.param("DE89", False, id="stub"),
        pytest.param("", False, id="empty"),
    ],
)
def test_iban_valid(value: str, expected: bool) -> None:
    assert iban_valid(value) is expected


# --------------------------------------------------------------------------
# API surface
# --------------------------------------------------------------------------


def test_kind_categories() -> None:
    assert set(KIND_CATEGORY) == ALL_KINDS
    assert KIND_CATEGORY["email"] is Category.PII
    assert KIND_CATEGORY["phone"] is Category.PII
    assert KIND_CATEGORY["card"] is Category.REGULATED
    assert KIND_CATEGORY["iban"] is Category.REGULATED
    assert KIND_CATEGORY["national_id"] is Category.REGULATED
    for kind in (
        "api_key",
        "bearer_token",
        "jwt",
        "password",
        "connection_string",
        "private_key",
    ):
        assert KIND_CATEGORY[kind] is Category.CREDENTIAL
        assert kind in CREDENTIAL_KINDS
    assert str(Category.PII) == "pii"


def test_findings_are_sorted_non_overlapping_and_hold_no_value() -> None:
    text = (
        "mail jane@example.org, call +44 20 7946 0958, key "
        + ANTHROPIC_KEY
        + " and card "
        + VISA_TEST
    )
    findings = DETECTOR.scan(text)
    assert [f.kind for f in findings] == ["email", "phone", "api_key", "card"]
    for a, b in itertools.pairwise(findings):
        assert a.end <= b.start
    assert all(isinstance(f, Finding) for f in findings)
    assert set(Finding.__dataclass_fields__) == {"kind", "category", "start", "end"}
    assert text[findings[0].start : findings[0].end] == "jane@example.org"


def test_overlap_keeps_the_longest_span() -> None:
    # the password is inside the URI: one connection_string finding
    text = "postgres://bob:hunter2@db.example.com/app"
    findings = DETECTOR.scan(text)
    assert [(f.kind, f.start, f.end) for f in findings] == [("connection_string", 0, len(text))]


def test_mask_counts_by_kind() -> None:
    text = "a@example.com b@example.com password=hunter2 " + GITHUB_PAT
    result = DETECTOR.mask(text)
    assert result.counts == {"email": 2, "password": 1, "api_key": 1}
    assert result.text == "[EMAIL] [EMAIL] password=[PASSWORD] [API_KEY]"


def test_kinds_filter_restricts_detection() -> None:
    text = "jane@example.org " + ANTHROPIC_KEY
    only_keys = Detector(kinds=frozenset({"api_key"}))
    assert only_keys.mask(text).text == "jane@example.org [API_KEY]"
    assert only_keys.kinds == frozenset({"api_key"})
    assert Detector(kinds=frozenset()).scan(text) == []


def test_unknown_kind_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown kinds"):
        Detector(kinds=frozenset({"emial"}))


def test_contains_secret_is_about_credentials() -> None:
    assert DETECTOR.contains_secret("key " + ANTHROPIC_KEY)
    assert DETECTOR.contains_secret("my password is hunter2")
    assert not DETECTOR.contains_secret("mail jane@example.org")
    assert DETECTOR.contains_sensitive("mail jane@example.org")
    assert not DETECTOR.contains_secret("nothing to see here")


def test_empty_text() -> None:
    assert DETECTOR.scan("") == []
    assert DETECTOR.mask("") == MaskResult("", {})


def test_phone_regions_are_configurable() -> None:
    text = "ring 020 7946 0958"
    assert Detector(phone_regions=("US",)).scan(text) == []
    assert [f.kind for f in Detector(phone_regions=("GB",)).scan(text)] == ["phone"]


@pytest.mark.parametrize(
    "value",
    ["<your-api-key>", "YOUR_API_KEY", "xxx", "****", "${TOKEN}", "[API_KEY]", "", "..."],
)
def test_placeholders(value: str) -> None:
    assert looks_like_placeholder(value)


def test_real_looking_value_is_not_a_placeholder() -> None:
    assert not looks_like_placeholder(GENERIC_SECRET)


# --------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------

_ALNUM = string.ascii_letters + string.digits
_KEY_FORMATS: list[tuple[str, str, int, int]] = [
    # prefix, body alphabet, min body length, max body length
    ("sk-" + "ant-api03-", _ALNUM + "_-", 40, 95),
    ("sk-", _ALNUM, 40, 60),
    ("sk-" + "proj-", _ALNUM + "_-", 40, 120),
    ("AK" + "IA", string.ascii_uppercase + string.digits, 16, 16),
    ("gh" + "p_", _ALNUM, 36, 40),
    ("gl" + "pat-", _ALNUM + "_-", 20, 30),
    ("xo" + "xp-", _ALNUM, 20, 40),
    ("sk" + "_live_", _ALNUM, 24, 40),
    ("rk" + "_test_", _ALNUM, 24, 40),
    ("AI" + "za", _ALNUM + "_-", 35, 35),
    ("S" + "K", "0123456789abcdef", 32, 32),
    ("np" + "m_", _ALNUM, 36, 36),
    ("h" + "f_", _ALNUM, 34, 40),
]


@st.composite
def api_keys(draw: st.DrawFn) -> str:
    prefix, alphabet, lo, hi = draw(st.sampled_from(_KEY_FORMATS))
    # fixed mixed-class head so every body looks random enough to be a key
    head = "".join(ch for ch in "Zq7a" if ch in alphabet)[:3]
    rest = draw(st.text(alphabet=alphabet, min_size=lo - len(head), max_size=hi - len(head)))
    value = head + rest
    assume(not looks_like_placeholder(value))
    return prefix + value


@st.composite
def emails(draw: st.DrawFn) -> str:
    local = draw(st.from_regex(r"[a-z0-9]([a-z0-9._+-]{0,12}[a-z0-9])?", fullmatch=True))
    assume(local != "git" and ".." not in local)
    labels = draw(
        st.lists(st.from_regex(r"[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?", fullmatch=True), min_size=1)
    )
    # a retina asset ("icon@2x.png", "logo@1.5x.png") is a documented look-alike, not an
    # address: the detector skips a domain that opens with a scale ("0.0x.aa" too)
    assume(re.match(r"\d+(?:\.\d+)?x\.", ".".join(labels) + ".") is None)
    assume(not labels[0].endswith("x"))
    tld = draw(st.from_regex(r"[a-z]{2,6}", fullmatch=True))
    return local + "@" + ".".join([*labels, tld])


@st.composite
def cards(draw: st.DrawFn) -> str:
    head = draw(st.sampled_from(["4", "51", "55", "37", "6011"]))
    length = 15 if head == "37" else 16
    middle = draw(st.text(alphabet=string.digits, min_size=length - len(head) - 1,
                          max_size=length - len(head) - 1))  # fmt: skip
    partial = head + middle
    check = next(d for d in string.digits if luhn_valid(partial + d))
    number = partial + check
    style = draw(st.sampled_from(["compact", "spaces", "dashes"]))
    if style == "compact" or length == 15:
        return number
    sep = " " if style == "spaces" else "-"
    return sep.join(number[i : i + 4] for i in range(0, 16, 4))


_FILLER = st.text(alphabet=string.ascii_letters + " .,!?", max_size=40)


@settings(max_examples=300, suppress_health_check=[HealthCheck.filter_too_much])
@given(before=_FILLER, secret=st.one_of(api_keys(), emails(), cards()), after=_FILLER)
def test_property_embedded_secret_is_masked(before: str, secret: str, after: str) -> None:
    text = before + " " + secret + " " + after
    result = DETECTOR.mask(text)
    assert secret not in result.text
    assert not DETECTOR.contains_secret(result.text)
    assert DETECTOR.scan(result.text) == []
    assert DETECTOR.mask(result.text).text == result.text


# Keyword fragments that can make plain words credential-shaped ("my pw is
# abc", "token AbcDefGhiJklMno") are excluded; everything else without a digit
# or an "@" must pass through unchanged.
_CREDENTIAL_WORDS = (
    "pass", "pw", "pin", "mdp", "mot de", "contrase", "senha", "wachtwoord", "kennwort",
    "salasana", "haslo", "key", "token", "secret", "auth", "credential", "bearer",
    "sk-", "sk_", "rk_", "pk_", "aiza", "xox", "xapp", "gh", "glpat", "npm_", "hf_", "sg.",
)  # fmt: skip


@settings(max_examples=300)
@given(text=st.text(alphabet=st.characters(codec="ascii", exclude_characters="@0123456789")))
def test_property_text_without_digits_or_at_is_unchanged(text: str) -> None:
    low = text.lower()
    assume(not any(word in low for word in _CREDENTIAL_WORDS))
    assert DETECTOR.mask(text).text == text
