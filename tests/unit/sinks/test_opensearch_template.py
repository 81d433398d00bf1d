"""OpenSearchStore.ensure_index under a role that may not put index templates.

The security plugin grants template actions cluster-wide, so the workers' role in
deploy/compose.yaml may only read them and an administrator installs memgate's with
``memgate setup opensearch``. Against a fake client that answers as the plugin does: when the
put is refused (403) the store reads the template; the one it would have put (same
``_meta.memgate_mapping_version`` and ``dim``) lets it create its index and go on; a missing or
different one is one ConfigError line naming the command. The real plugin runs in
tests/integration/test_opensearch_secure_int.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from opensearchpy.exceptions import AuthenticationException, AuthorizationException, NotFoundError

from memgate.core.errors import AuthenticationError, ConfigError
from memgate.sinks.opensearch import OpenSearchStore
from memgate.sinks.opensearch_mapping import MAPPING_VERSION, index_body

DIM = 8
URL = "https://opensearch:9200"
INDEX = "memgate-facts"
TEMPLATE = f"{INDEX}-template"


def _denied(action: str) -> AuthorizationException:
    reason = f"no permissions for [{action}] and User [name=memgate, backend_roles=[]]"
    info = {"error": {"type": "security_exception", "reason": reason}, "status": 403}
    return AuthorizationException(403, "security_exception", info)


class FakeIndices:
    """``client.indices`` of a node whose user may (or may not) put and get templates."""

    def __init__(self, *, may_put: bool, may_get: bool, installed: dict[str, Any] | None,
                 login_ok: bool = True) -> None:  # fmt: skip
        self.may_put, self.may_get, self.login_ok = may_put, may_get, login_ok
        self.templates: dict[str, dict[str, Any]] = {}
        if installed is not None:
            self.templates[TEMPLATE] = installed
        self.indices: dict[str, dict[str, Any]] = {}
        self.calls: list[str] = []

    def _login(self) -> None:
        if not self.login_ok:
            raise AuthenticationException(401, "Unauthorized", "Unauthorized")

    def put_index_template(self, *, name: str, body: dict[str, Any]) -> dict[str, Any]:
        self.calls.append("put_index_template")
        self._login()
        if not self.may_put:
            raise _denied("indices:admin/index_template/put")
        self.templates[name] = body
        return {"acknowledged": True}

    def get_index_template(self, *, name: str) -> dict[str, Any]:
        self.calls.append("get_index_template")
        if not self.may_get:
            raise _denied("indices:admin/index_template/get")
        if name not in self.templates:
            raise NotFoundError(404, "resource_not_found_exception",
                                {"error": {"type": "resource_not_found_exception",
                                           "reason": f"index template matching [{name}] not "
                                                     "found"}})  # fmt: skip
        return {"index_templates": [{"name": name, "index_template": self.templates[name]}]}

    def exists(self, *, index: str) -> bool:
        self.calls.append("exists")
        return index in self.indices

    def create(self, *, index: str, body: dict[str, Any]) -> dict[str, Any]:
        self.calls.append("create")
        self.indices[index] = body
        return {"acknowledged": True}

    def get_mapping(self, *, index: str) -> dict[str, Any]:
        self.calls.append("get_mapping")
        return {index: {"mappings": self.indices[index]["mappings"]}}


class FakeClient:
    def __init__(self, indices: FakeIndices) -> None:
        self.indices = indices

    def close(self) -> None:
        pass


def _installed(version: int = MAPPING_VERSION, dim: int = DIM) -> dict[str, Any]:
    return {"index_patterns": [f"{INDEX}*"], "priority": 100, "template": index_body(dim),
            "_meta": {"memgate_mapping_version": version, "dim": dim}}  # fmt: skip


def _store(indices: FakeIndices) -> OpenSearchStore:
    return OpenSearchStore(FakeClient(indices), INDEX, DIM, max_retries=0, url=URL,  # type: ignore[arg-type]
                           username="memgate")  # fmt: skip


SETUP_LINE = (
    "and user 'memgate' may not install index templates: an administrator runs `memgate setup "
    "opensearch` once (with MEMGATE_OPENSEARCH_ADMIN_USERNAME and "
    "MEMGATE_OPENSEARCH_ADMIN_PASSWORD set to an OpenSearch admin login)"
)


def test_a_user_that_may_put_installs_the_template_and_creates_the_index() -> None:
    indices = FakeIndices(may_put=True, may_get=True, installed=None)
    _store(indices).ensure_index()
    meta = indices.templates[TEMPLATE]["_meta"]
    assert meta == {"memgate_mapping_version": MAPPING_VERSION, "dim": DIM}
    assert indices.templates[TEMPLATE]["index_patterns"] == [f"{INDEX}*"]
    assert INDEX in indices.indices and "get_index_template" not in indices.calls


def test_refused_put_with_the_same_template_installed_creates_the_index_and_goes_on() -> None:
    indices = FakeIndices(may_put=False, may_get=True, installed=_installed())
    store = _store(indices)
    store.ensure_index()
    store.ensure_index()  # idempotent: the index is there now
    assert INDEX in indices.indices
    assert indices.calls[:5] == ["put_index_template", "get_index_template", "exists", "create",
                                 "get_mapping"]  # fmt: skip
    assert indices.calls.count("create") == 1


def test_refused_put_without_a_template_is_one_config_line_naming_the_setup_command() -> None:
    indices = FakeIndices(may_put=False, may_get=True, installed=None)
    with pytest.raises(ConfigError) as caught:
        _store(indices).ensure_index()
    assert str(caught.value) == (
        f"OpenSearch at {URL}: index template {TEMPLATE} is not installed, {SETUP_LINE}"
    )
    assert indices.indices == {}  # no index made without its template


@pytest.mark.parametrize(
    ("version", "dim", "found"),
    [(MAPPING_VERSION - 1, DIM, f"of mapping version {MAPPING_VERSION - 1} with dim {DIM}"),
     (MAPPING_VERSION, 384, f"of mapping version {MAPPING_VERSION} with dim 384")],
)  # fmt: skip
def test_refused_put_with_an_older_or_other_template_is_one_config_line(
    version: int, dim: int, found: str
) -> None:
    indices = FakeIndices(may_put=False, may_get=True, installed=_installed(version, dim))
    with pytest.raises(ConfigError) as caught:
        _store(indices).ensure_index()
    assert str(caught.value) == (
        f"OpenSearch at {URL}: index template {TEMPLATE} is {found}, not version "
        f"{MAPPING_VERSION} with dim {DIM}, {SETUP_LINE}"
    )
    assert indices.indices == {}


def test_a_user_that_may_not_even_read_templates_is_told_what_to_grant() -> None:
    indices = FakeIndices(may_put=False, may_get=False, installed=_installed())
    with pytest.raises(AuthenticationError) as caught:
        _store(indices).ensure_index()
    text = str(caught.value)
    assert "\n" not in text
    assert text.startswith(
        f"OpenSearch at {URL} does not allow user 'memgate' to get index template on index "
        f"{INDEX} (HTTP 403: security_exception: no permissions for "
        "[indices:admin/index_template/get]"
    )
    assert text.endswith(
        "grant the role indices:admin/index_template/get and have an administrator run "
        "`memgate setup opensearch` once"
    )
    assert indices.indices == {}


def test_a_refused_login_is_not_taken_for_a_refused_template() -> None:
    indices = FakeIndices(may_put=False, may_get=True, installed=_installed(), login_ok=False)
    with pytest.raises(AuthenticationError, match=r"refused the login of user 'memgate'"):
        _store(indices).ensure_index()
    assert indices.calls == ["put_index_template"]
