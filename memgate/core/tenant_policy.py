"""Per-tenant policy: the write preset, regulated data, decay and retention of one tenant.

Settings hold a deployment-wide default for each (``policy``, ``regulated``,
the decay data file, ``retention``) and, in ``tenant_policies``, what a
tenant changes::

    [tenant_policies.acme]
    preset = "conservative"
    regulated = "redact"
    decay = { by_predicate = { on_call = 1.0 } }
    retention = { episodic_ttl_days = 90, episodic_max = 200 }

:meth:`TenantPolicy.version` names the tenant's policy by the digest of what it
sets: the lifecycle jobs record it as ``policy_version`` on every decision and
history row they write (``lifecycle-1+tenant.<digest>``), so a decision can be
traced to the policy that made it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memgate.core.events import FactType

PolicyName = Literal["conservative", "balanced", "permissive"]


class DecayOverride(BaseModel):
    """Half-lives in days (``None``: never decays) replacing the data file's for a tenant."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    by_type: dict[FactType, float | None] = Field(default_factory=dict)
    by_predicate: dict[str, float | None] = Field(default_factory=dict)
    floor: float | None = Field(default=None, ge=0.0, le=1.0)

    def model_post_init(self, _: object) -> None:
        for name, hl in [*self.by_type.items(), *self.by_predicate.items()]:
            if hl is not None and not hl > 0:
                raise ValueError(f"half-life of {name!s} must be > 0 days (or null), got {hl}")


class RetentionPolicy(BaseModel):
    """Episodic facts (type ``event``) kept: at most ``episodic_max`` per user (the most
    recently seen), none last seen more than ``episodic_ttl_days`` ago; what falls out is
    folded into the user's digest fact (``memgate consolidate``). ``None``: no bound."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    episodic_ttl_days: float | None = Field(default=None, gt=0)
    episodic_max: int | None = Field(default=None, ge=1)

    @property
    def bounded(self) -> bool:
        return self.episodic_ttl_days is not None or self.episodic_max is not None


class TenantPolicy(BaseModel):
    """What one tenant sets; a field left unset takes the deployment's setting."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    preset: PolicyName | None = None
    regulated: Literal["reject", "redact"] | None = None
    decay: DecayOverride = Field(default_factory=DecayOverride)
    retention: RetentionPolicy | None = None

    def version(self) -> str:
        """``tenant.<8 hex>``: the digest of what this policy sets (``tenant.default``
        when it sets nothing)."""
        data = self.model_dump(mode="json", exclude_defaults=True)
        if not data:
            return "tenant.default"
        canon = json.dumps(data, sort_keys=True, separators=(",", ":"))
        return "tenant." + hashlib.sha256(canon.encode()).hexdigest()[:8]
