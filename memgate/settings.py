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
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, ValidationError
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from memgate.errors import ConfigError

PolicyName = Literal["conservative", "balanced", "permissive"]


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/memgate`` or ``~/.local/share/memgate``: every embedded store."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "memgate"


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

    # extraction
    extractor: Literal["rules", "anthropic"] = "rules"
    anthropic_api_key: SecretStr | None = None
    anthropic_model: str = "claude-haiku-4-5"
    anthropic_base_url: str | None = None
    anthropic_timeout_s: float = 30.0
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
        "turn-id conflicts). Unset: a random key kept in <data_dir>/hmac.key (mode 0600).",
    )

    # embeddings
    embedder: Literal["minilm", "hashing"] = "minilm"
    blas_threads: int = Field(
        default=1,
        ge=0,
        description="BLAS threads for the embedding forward pass, set once per process at "
        "the entry point; 0 keeps the library's default (one per core).",
    )

    # retrieval store
    retrieval_backend: Literal["embedded", "opensearch"] = "embedded"
    opensearch_url: str = "http://127.0.0.1:19200"
    opensearch_index: str = "memgate-facts"
    opensearch_username: str | None = None
    opensearch_password: SecretStr | None = None
    opensearch_verify_certs: bool = True

    # audit store
    audit_backend: Literal["chdb", "clickhouse"] = "chdb"
    clickhouse_url: str = "http://127.0.0.1:8123"
    clickhouse_username: str = "default"
    clickhouse_password: SecretStr | None = None
    clickhouse_database: str = "memgate"

    # kafka / workers
    kafka_bootstrap: str = "127.0.0.1:19092"
    topic_prefix: str = "memgate"
    topic_partitions: int = Field(default=1, ge=1)
    worker_id: str = "memgate"
    metrics_port: int = Field(default=19100, ge=0, le=65535)
    retry_max_attempts: int = Field(default=8, ge=1)
    retry_base_delay_s: float = Field(default=0.2, gt=0)

    # read path
    search_k: int = Field(default=10, ge=1)
    token_budget: int = Field(default=800, ge=1)

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

    @property
    def retrieval_path(self) -> Path:
        return self.data_dir / "retrieval.sqlite3"

    @property
    def audit_path(self) -> Path:
        return self.data_dir / "audit.chdb"

    def describe(self) -> dict[str, Any]:
        """Settings for display, secrets masked."""
        return {
            k: ("**********" if isinstance(v, SecretStr) else v)
            for k, v in self.model_dump().items()
        }


# The TOML path is passed to the source through this holder while the object is
# built (pydantic-settings builds sources from the class, not the instance).
_TOML_PATH: dict[str, Path | None] = {"path": None}


def load_settings(config_file: Path | str | None = None, **overrides: Any) -> Settings:
    """Build the settings once. ``config_file`` (or ``MEMGATE_CONFIG``) names a TOML file."""
    path = config_file or os.environ.get("MEMGATE_CONFIG")
    if path is not None:
        p = Path(path).expanduser()
        if not p.is_file():
            raise ConfigError(f"config file {p} does not exist; pass an existing TOML file")
        _TOML_PATH["path"] = p
    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        raise ConfigError(
            f"invalid settings ({problems}); set them with MEMGATE_<NAME> or in the TOML file"
        ) from None
    finally:
        _TOML_PATH["path"] = None
