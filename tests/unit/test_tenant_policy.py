"""Per-tenant policy (settings ``tenant_policies``): the preset, the handling of regulated
data and the decay a tenant chooses apply to its turns only, and every decision under a
tenant's policy records its version (``<preset>-1+tenant.<digest>``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgate import Memory
from memgate.core.errors import ConfigError
from memgate.core.settings import load_settings
from memgate.core.tenant_policy import TenantPolicy

MEDS = "I take metformin every morning."


def _decisions(m: Memory, stage: str) -> list[tuple[str, str, str]]:
    _, rows = m._open().audit.query(
        "SELECT tenant_id, verdict, policy_version FROM decisions FINAL "
        "WHERE stage = {s:String} ORDER BY tenant_id",
        {"s": stage},
    )
    return [(str(t), str(v), str(p)) for t, v, p in rows]


def test_regulated_data_and_the_preset_follow_the_tenant(tmp_path: Path) -> None:
    clinic = TenantPolicy(preset="conservative", regulated="redact")
    with Memory(data_dir=tmp_path, embedder="hashing", tenant_policies={"clinic": clinic}) as m:
        for tenant in ("acme", "clinic"):
            m.add([{"role": "user", "content": MEDS}], tenant, "pat", "s1")
        redact = _decisions(m, "redact")
        assert redact == [
            ("acme", "rejected", "redact-1/reject"),
            ("clinic", "redacted", "redact-1/redact"),
        ]
        assert m.get_all("acme", "pat", include_inactive=True) == []
        (kept,) = m.get_all("clinic", "pat", include_inactive=True)
        assert "metformin" not in kept.value
        (dedupe,) = _decisions(m, "dedupe")
        assert dedupe[2] == f"conservative-1+{clinic.version()}"
        assert kept.provenance.policy_version == dedupe[2]


def test_a_tenant_policy_is_checked_when_the_settings_load() -> None:
    with pytest.raises(ConfigError, match=r"tenant_policies\.acme\.preset"):
        load_settings(data_dir="/tmp/mg-x", tenant_policies={"acme": {"preset": "lax"}})
    assert TenantPolicy().version() == "tenant.default"
    a = TenantPolicy(preset="conservative").version()
    assert a.startswith("tenant.") and a != TenantPolicy(preset="permissive").version()
