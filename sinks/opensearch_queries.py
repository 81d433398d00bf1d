"""The filters of the OpenSearch store's reads (:mod:`memgate.sinks.opensearch`).

Every read is scoped by tenant and user inside the store: each filter list
here starts with the owner's two ``term`` filters.

>>> owner_filters("acme", "u1")
[{'term': {'tenant_id': 'acme'}}, {'term': {'user_id': 'u1'}}]
>>> subject_filters("acme", "u1", "User", ["active"], qualified=True)[-1]["bool"]["should"]
[{'prefix': {'key': 'acme/u1/user/'}}, {'prefix': {'key': 'acme/u1/users '}}]
"""

from __future__ import annotations

from collections.abc import Sequence

from memgate.core.events import FactStatus
from memgate.core.stores import SearchQuery, subject_key_prefixes
from memgate.sinks.opensearch_mapping import FloatVector, Json, _iso

__all__ = ["knn_query", "owner_filters", "scope_filters", "subject_filters"]


def owner_filters(tenant_id: str, user_id: str) -> list[Json]:
    return [{"term": {"tenant_id": tenant_id}}, {"term": {"user_id": user_id}}]


def scope_filters(query: SearchQuery) -> list[Json] | None:
    """The filters both retrievers of a search share (``None``: the query admits nothing)."""
    filters = owner_filters(query.tenant_id, query.user_id)
    if query.as_of is None:
        filters.append({"term": {"status": FactStatus.ACTIVE.value}})
    else:
        t = _iso(query.as_of)
        filters += [
            {"terms": {"status": [FactStatus.ACTIVE.value, FactStatus.SUPERSEDED.value]}},
            {"range": {"valid_from": {"lte": t}}},
            {
                "bool": {
                    "should": [
                        {"bool": {"must_not": [{"exists": {"field": "valid_to"}}]}},
                        {"range": {"valid_to": {"gt": t}}},
                    ],
                    "minimum_should_match": 1,
                }
            },
        ]
    if query.types is not None:
        types = sorted({t.value for t in query.types})
        if not types:
            return None  # an empty type filter admits nothing
        filters.append({"terms": {"type": types}})
    return filters


def subject_filters(
    tenant_id: str, user_id: str, subject: str, statuses: Sequence[str], *, qualified: bool
) -> list[Json]:
    """The facts of a subject: owner, statuses and a prefix of the (keyword) key."""
    prefixes = subject_key_prefixes(tenant_id, user_id, subject, qualified=qualified)
    return [
        *owner_filters(tenant_id, user_id),
        {"terms": {"status": list(statuses)}},
        {
            "bool": {
                "should": [{"prefix": {"key": p}} for p in prefixes],
                "minimum_should_match": 1,
            }
        },
    ]


def knn_query(vector: FloatVector, k: int, filters: list[Json], field: str = "embedding") -> Json:
    return {
        "knn": {
            field: {
                "vector": vector.tolist(),
                "k": k,
                "filter": {"bool": {"filter": filters}},
            }
        }
    }
