"""What a command runs on: the settings and the stores, opened lazily and closed once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from memgate.core.embedding import Embedder
from memgate.core.settings import Settings, prepare_data_dir
from memgate.core.stores import AnswerCache, AuditStore, RetrievalStore


def _ignore(_: str) -> None:
    return None


@dataclass
class Runtime:
    """Everything a command needs, opened lazily and closed once."""

    settings: Settings
    _embedder: Embedder | None = None
    _retrieval: RetrievalStore | None = None
    _audit: AuditStore | None = None
    closers: list[RetrievalStore | AuditStore] = field(default_factory=list)
    warn: Callable[[str], None] = _ignore
    _prepared: Path | None = None

    def _data_dir(self) -> None:
        """Create the data dir (0700) before the first embedded store opens in it."""
        if self._prepared == self.settings.data_dir:
            return
        warning = prepare_data_dir(self.settings.data_dir)
        if warning:
            self.warn(f"warning: {warning}")
        self._prepared = self.settings.data_dir

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from memgate.backends import make_embedder

            self._embedder = make_embedder(self.settings)
        return self._embedder

    @property
    def retrieval(self) -> RetrievalStore:
        if self._retrieval is None:
            from memgate.backends import open_retrieval

            if self.settings.retrieval_backend == "embedded":
                self._data_dir()
            self._retrieval = open_retrieval(self.settings, self.embedder.dim)
            self.closers.append(self._retrieval)
        return self._retrieval

    @property
    def audit(self) -> AuditStore:
        if self._audit is None:
            from memgate.backends import open_audit

            if self.settings.audit_backend == "chdb":
                self._data_dir()
            self._audit = open_audit(self.settings)
            self.closers.append(self._audit)
        return self._audit

    @property
    def answer_cache(self) -> AnswerCache | None:
        """The Claude extractor's answer cache, if its file exists (for ``forget``,
        whatever the extractor of this run)."""
        if not self.settings.extract_cache_path.exists():
            return None
        from memgate.keys import hmac_key
        from memgate.sinks.extract_cache import SQLiteAnswerCache

        return SQLiteAnswerCache(self.settings.extract_cache_path, key=hmac_key(self.settings))

    def close(self) -> None:
        for c in reversed(self.closers):
            c.close()
        self.closers.clear()

    def audit_rows(self, tenant: str, user: str) -> int:
        """How many audit events (every table) one user has."""
        from memgate.sinks.audit import TABLES

        total = 0
        for table in TABLES:
            _, rows = self.audit.query(
                f"SELECT count() FROM `{table.name}` "
                "WHERE tenant_id = {tenant:String} AND user_id = {user:String}",
                {"tenant": tenant, "user": user},
            )
            total += int(rows[0][0])
        return total
