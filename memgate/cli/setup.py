"""``memgate setup``: the steps an administrator runs once, with an administrator's login.

``memgate setup opensearch`` installs memgate's index template (``<index>-template`` for
``<index>*``) and creates the index, as :meth:`memgate.sinks.opensearch.OpenSearchStore.
ensure_index` does, logged in as the OpenSearch administrator read from
``MEMGATE_OPENSEARCH_ADMIN_USERNAME`` and ``MEMGATE_OPENSEARCH_ADMIN_PASSWORD`` (never from
the command line, never printed); the other ``opensearch_*`` settings (URL, CA, index) and the
embedder (the dimension) are the workers'. The workers' role may not put index templates
(deploy/opensearch/secure-entrypoint.sh: the security plugin grants template actions
cluster-wide), so this runs before them: the ``memgate-setup`` service of deploy/compose.yaml.
Run it again after an upgrade whose store says the template is of an older mapping version.
An index already in place of the older mapping version 2 (vectors as JSON arrays in
``_source``) is reported usable as it is, with how to move to version 3 (the packed vectors,
cheaper reads): a new index and a re-ingest (:mod:`memgate.sinks.opensearch_mapping`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import typer
from pydantic import SecretStr

from memgate import render
from memgate.cli.common import console, errors, print_json
from memgate.cli.options import global_options, session
from memgate.core.errors import ConfigError
from memgate.sinks.opensearch_template import ADMIN_PASSWORD_ENV, ADMIN_USERNAME_ENV

if TYPE_CHECKING:
    from memgate.core.settings import Settings

app = typer.Typer(help="One-time steps an administrator runs (an administrator's login).",
                  no_args_is_help=True)  # fmt: skip


def admin_settings(settings: Settings, username: str | None, password: str | None) -> Settings:
    """``settings`` logged in as the administrator (unchanged when neither is given)."""
    if username and not password:
        raise ConfigError(
            f"{ADMIN_USERNAME_ENV} is set but {ADMIN_PASSWORD_ENV} is not: set both to an "
            "OpenSearch administrator's login"
        )
    if password and not username:
        raise ConfigError(f"{ADMIN_PASSWORD_ENV} is set but {ADMIN_USERNAME_ENV} is not")
    if not username:
        return settings  # a node without the security plugin, or settings already an admin's
    return settings.model_copy(
        update={"opensearch_username": username, "opensearch_password": SecretStr(password or "")}
    )


@app.command("opensearch")
@global_options(output=True)
def setup_opensearch(ctx: typer.Context) -> None:
    """Install memgate's OpenSearch index template and create its index (an admin, once).

    The login is the administrator's, from MEMGATE_OPENSEARCH_ADMIN_USERNAME and
    MEMGATE_OPENSEARCH_ADMIN_PASSWORD (environment only); URL, CA and index are the workers'
    opensearch_* settings, the dimension their embedder's. Without them it uses the workers'
    own login (a node without the security plugin). Idempotent.
    """
    s = session(ctx)
    with errors():
        settings = admin_settings(
            s.runtime.settings,
            os.environ.get(ADMIN_USERNAME_ENV) or None,
            os.environ.get(ADMIN_PASSWORD_ENV) or None,
        )
        from memgate.sinks.opensearch import MAPPING_VERSION, OpenSearchStore

        dim = s.runtime.embedder.dim
        store = OpenSearchStore.from_settings(settings, dim=dim)
        try:
            store.ensure_index()
            index_version = store.mapping_version
        finally:
            store.close()
    done = {
        "opensearch": store.url,
        "username": settings.opensearch_username,
        "template": store.template_name,
        "index_patterns": [f"{store.index}*"],
        "mapping_version": MAPPING_VERSION,
        "dim": dim,
        "index": store.index,
        "index_mapping_version": index_version,
    }
    older = (
        f"; index {store.index} is of the older mapping version {index_version} (vectors as "
        "JSON in _source: slower reads), used as it is; to move to version "
        f"{MAPPING_VERSION}, point opensearch_index at a new index (the template makes it "
        f"version {MAPPING_VERSION}) and re-ingest"
        if index_version < MAPPING_VERSION
        else ""
    )
    if s.json:
        print_json(done)
        return
    who = f" as user {settings.opensearch_username!r}" if settings.opensearch_username else ""
    console.print(
        render.text(
            f"index template {store.template_name} ({store.index}*, mapping version "
            f"{MAPPING_VERSION}, dim {dim}) and index {store.index} are in place on "
            f"OpenSearch at {store.url}{who}{older}"
        )
    )
