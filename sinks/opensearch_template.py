"""The index template of :class:`memgate.sinks.opensearch.OpenSearchStore`: what
:meth:`~memgate.sinks.opensearch.OpenSearchStore.ensure_index` puts, and what it accepts when
its user may not put one.

An index template shapes every index whose name matches its pattern, and the OpenSearch
security plugin grants template actions cluster-wide (no index-name filter): a role allowed to
put memgate's template could put one for any index. So the workers' role in
deploy/compose.yaml may only *read* templates; an administrator installs memgate's once with
``memgate setup opensearch`` (:data:`SETUP_COMMAND`), and a store whose put is refused (403)
checks that the installed template is the one it would have put (same
``_meta.memgate_mapping_version`` and ``dim``), else raises one
:class:`memgate.core.errors.ConfigError` line naming that command. An older template (mapping
version 2, before the packed vectors) with the store's index already in place is accepted
with a warning: a template shapes only the indices created after it, and the store writes
its index in that index's own version; the command puts version 3 for the next index.
"""

from __future__ import annotations

from collections.abc import Collection

from memgate.core.errors import ConfigError
from memgate.sinks.opensearch_mapping import MAPPING_VERSION, TEMPLATE_PRIORITY, Json

__all__ = [
    "ADMIN_PASSWORD_ENV", "ADMIN_USERNAME_ENV", "SETUP_COMMAND", "not_installable",
    "template_body", "template_meta", "template_problem",
]  # fmt: skip

#: The command an administrator runs once to install the template (memgate/cli/setup.py).
SETUP_COMMAND = "memgate setup opensearch"
#: Where that command reads the administrator's login (the password never on a command line).
ADMIN_USERNAME_ENV = "MEMGATE_OPENSEARCH_ADMIN_USERNAME"
ADMIN_PASSWORD_ENV = "MEMGATE_OPENSEARCH_ADMIN_PASSWORD"


def template_body(index: str, dim: int, body: Json) -> Json:
    """The composable index template for ``<index>*`` holding the index ``body`` (and its
    mapping version)."""
    version = body["mappings"]["_meta"]["memgate_mapping_version"]
    return {
        "index_patterns": [f"{index}*"],
        "priority": TEMPLATE_PRIORITY,
        "template": body,
        "_meta": {"memgate_mapping_version": version, "dim": dim},
    }


def template_meta(got: Json | None, name: str) -> Json | None:
    """The ``_meta`` of template ``name`` in a ``GET _index_template`` answer (None: absent)."""
    for item in (got or {}).get("index_templates") or []:
        if isinstance(item, dict) and item.get("name") == name:
            meta = (item.get("index_template") or {}).get("_meta")
            return meta if isinstance(meta, dict) else {}
    return None


def template_problem(
    meta: Json | None, name: str, dim: int, versions: Collection[int] = (MAPPING_VERSION,)
) -> str | None:
    """What is wrong with the installed template of this ``_meta`` (None: it is ours: one
    of ``versions``, with ``dim``)."""
    if meta is None:
        return f"index template {name} is not installed"
    version, got_dim = meta.get("memgate_mapping_version"), meta.get("dim")
    if version in versions and got_dim == dim:
        return None
    return (
        f"index template {name} is of mapping version {version} with dim {got_dim}, not "
        f"version {MAPPING_VERSION} with dim {dim}"
    )


def not_installable(where: str, username: str | None, problem: str) -> ConfigError:
    """The one line of a store that needs a template its user may not install."""
    who = f"user {username!r}" if username else "this client"
    return ConfigError(
        f"{where}: {problem}, and {who} may not install index templates: an administrator "
        f"runs `{SETUP_COMMAND}` once (with {ADMIN_USERNAME_ENV} and {ADMIN_PASSWORD_ENV} "
        "set to an OpenSearch admin login)"
    )
