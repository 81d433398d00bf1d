"""The one backend registry: settings in, stores and stage dependencies out.

Each backend is chosen by a ``Literal`` name in :class:`Settings`; optional
client libraries are imported only when their backend is chosen, and a
missing one fails with the package to install.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memgate.core.embedding import Embedder, load_embedder
from memgate.core.errors import ConfigError
from memgate.core.events import utcnow
from memgate.core.settings import Settings
from memgate.core.transports import pem_file

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime

    from memgate.core.embedding_use import Meaning
    from memgate.core.stores import AnswerCache, AuditStore, RetrievalStore
    from memgate.stages.extract import Extractor
    from memgate.streams.pipeline import Pipeline


def make_embedder(settings: Settings) -> Embedder:
    return load_embedder(settings.embedder, settings.embedder_runtime, settings.embedder_threads)


def open_retrieval(settings: Settings, dim: int) -> RetrievalStore:
    if settings.retrieval_backend == "embedded":
        from memgate.sinks.embedded import EmbeddedIndex

        settings.data_dir.mkdir(parents=True, exist_ok=True)
        return EmbeddedIndex(settings.retrieval_path, dim=dim)
    if settings.retrieval_backend == "opensearch":
        from memgate.sinks.opensearch import OpenSearchStore

        store = OpenSearchStore.from_settings(settings, dim=dim)
        store.ensure_index()
        return store
    raise ConfigError(f"unknown retrieval backend {settings.retrieval_backend!r}")


def open_audit(settings: Settings) -> AuditStore:
    from memgate.sinks.audit import ClickHouseAudit

    if settings.audit_backend == "chdb":
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        return ClickHouseAudit.embedded(settings.audit_path)
    if settings.audit_backend == "clickhouse":
        pw = settings.clickhouse_password.get_secret_value() if settings.clickhouse_password else ""
        ca = None
        if settings.clickhouse_ca_cert is not None:
            ca = pem_file("clickhouse_ca_cert", settings.clickhouse_ca_cert)
        return ClickHouseAudit.server(
            settings.clickhouse_url,
            settings.clickhouse_username,
            pw,
            settings.clickhouse_database,
            ca_cert=ca,
        )
    raise ConfigError(f"unknown audit backend {settings.audit_backend!r}")


def open_answer_cache(settings: Settings) -> AnswerCache | None:
    """The Claude extractor's answer cache (None when ``extract_cache_entries`` is 0)."""
    if settings.extract_cache_entries == 0:
        return None
    from memgate.keys import hmac_key
    from memgate.sinks.extract_cache import SQLiteAnswerCache

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return SQLiteAnswerCache(
        settings.extract_cache_path,
        key=hmac_key(settings),
        max_entries=settings.extract_cache_entries,
    )


def make_extractor(
    settings: Settings, name: str | None = None, *, fallback: bool = True
) -> Extractor:
    """The extractor ``name`` (default: the ``extractor`` setting); ``fallback``: the
    Claude extractor hands a turn it cannot read to the offline extractor (off for a
    shadow, whose failures must not look like the rules' answers)."""
    name = name or settings.extractor
    if name == "rules":
        from memgate.stages.extract import RuleExtractor

        return RuleExtractor()
    if name in ("statements", "hybrid"):
        from memgate.stages.statements import HybridExtractor, StatementExtractor

        return StatementExtractor() if name == "statements" else HybridExtractor()
    if name == "anthropic":
        from memgate.stages.extract_anthropic import AnthropicExtractor

        if settings.anthropic_api_key is None:
            raise ConfigError(
                "extractor 'anthropic' needs an API key: set MEMGATE_ANTHROPIC_API_KEY "
                "(or use MEMGATE_EXTRACTOR=rules, the offline default)"
            )

        return AnthropicExtractor.from_settings(
            api_key=settings.anthropic_api_key,
            model=settings.anthropic_model,
            base_url=settings.anthropic_base_url,
            timeout=settings.anthropic_timeout_s,
            fallback_to_rules=fallback,
            cache=open_answer_cache(settings),
        )
    raise ConfigError(f"unknown extractor {name!r}")


def make_shadow(settings: Settings) -> Extractor | None:
    """The shadow extractor of shadow mode, or None."""
    if settings.shadow_extractor is None:
        return None
    return make_extractor(settings, settings.shadow_extractor, fallback=False)


def resolution_meaning(settings: Settings) -> Meaning | None:
    """usem, the multilingual similarity of resolution (settings ``resolution_meaning``),
    or None when off. Its package missing is a configuration error that says what to
    install; its model loads on first use."""
    if settings.resolution_meaning == "off":
        return None
    from memgate.core.embedding_use import UsemNotInstalledError, shared_usem

    try:
        return shared_usem()
    except UsemNotInstalledError as exc:
        raise ConfigError(str(exc)) from None


def build_pipeline(
    settings: Settings,
    embedder: Embedder,
    extractor: Extractor | None = None,
    clock: Callable[[], datetime] | None = None,
) -> Pipeline:
    """The gate of ``settings``; ``clock`` (default: the real clock) is the time every
    stage stamps on what it decides and records (a replay passes its own instant)."""
    from memgate.keys import hmac_key
    from memgate.lifecycle import tenant_write_policy
    from memgate.stages.dedupe import Resolver
    from memgate.stages.detectors import Detector
    from memgate.stages.policy import preset
    from memgate.stages.redact import Redactor
    from memgate.stages.relation_model import RelationModel
    from memgate.streams.pipeline import ExtractStep, Pipeline, TriageStep

    detector = Detector()
    now = clock or utcnow
    key = hmac_key(settings)
    return Pipeline(
        triage=TriageStep(detector=detector, hmac_key=key, clock=now),
        extract=ExtractStep(
            extractor=extractor or make_extractor(settings),
            context_chars=settings.context_chars,
            shadow=make_shadow(settings),
            detector=detector,
            clock=now,
        ),
        redact=Redactor(
            detector=detector,
            regulated=settings.regulated,
            tenant_regulated={
                t: p.regulated for t, p in settings.tenant_policies.items() if p.regulated
            },
            clock=now,
        ),
        resolve=Resolver(
            policy=preset(settings.policy).with_trusted_sources(settings.trusted_sources),
            embedder=embedder,
            tenant_policies={t: tenant_write_policy(settings, t) for t in settings.tenant_policies},
            clock=now,
            erasure_key=key,
            relation_model=RelationModel.load() if settings.resolution_model == "assist" else None,
            meaning=resolution_meaning(settings),
            slotmask=settings.resolution_slotmask == "on",
        ),
    )
