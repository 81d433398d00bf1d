#!/usr/bin/env bash
# Smoke-check the local OpenSearch started by deploy/local/services.sh (or any OpenSearch 2.19):
#   1. GET /_cluster/health answers yellow or green
#   2. the k-NN plugin is loaded (GET /_cat/plugins)
#   3. an index with a knn_vector field (hnsw / lucene / cosinesimil) can be created,
#      written (refresh=wait_for) and searched with a k-NN query carrying a filter
#      (tenant scoping: the filter must hide the nearest vector of the other tenant).
# The temporary index is deleted on exit. Needs only bash and curl.
# Usage: deploy/local/check_opensearch.sh [URL]   (default $MEMGATE_OPENSEARCH_URL or http://127.0.0.1:19200)
set -euo pipefail

URL=${1:-${MEMGATE_OPENSEARCH_URL:-http://127.0.0.1:${MEMGATE_OPENSEARCH_PORT:-19200}}}
URL=${URL%/}
INDEX="memgate-check-$$-$(date +%s)"

fail() { printf 'check_opensearch: FAIL: %s\n' "$*" >&2; exit 1; }
ok() { printf 'check_opensearch: ok: %s\n' "$*"; }

# req METHOD PATH [JSON] -> body on stdout; fails on HTTP >= 400 (body on stderr)
req() {
  local method=$1 path=$2 body=${3:-} out code
  out=$(mktemp)
  if [[ -n $body ]]; then
    code=$(curl -sS -o "$out" -w '%{http_code}' --max-time 30 -X "$method" \
      -H 'Content-Type: application/json' --data-binary "$body" "$URL$path") || { rm -f "$out"; return 1; }
  else
    code=$(curl -sS -o "$out" -w '%{http_code}' --max-time 30 -X "$method" "$URL$path") || { rm -f "$out"; return 1; }
  fi
  if ((code >= 400)); then
    printf '%s %s -> HTTP %s: %s\n' "$method" "$path" "$code" "$(cat "$out")" >&2
    rm -f "$out"
    return 1
  fi
  cat "$out"
  rm -f "$out"
}

cleanup() { curl -s -o /dev/null --max-time 10 -X DELETE "$URL/$INDEX" || true; }
trap cleanup EXIT

# 1. health
health=$(req GET /_cluster/health) || fail "no answer from $URL/_cluster/health"
[[ $health =~ \"status\":\"(green|yellow)\" ]] || fail "cluster health is not yellow/green: $health"
ok "cluster health ${BASH_REMATCH[1]}"

# 2. k-NN plugin (name 'opensearch-knn' in a distribution, the class name in an embedded node)
plugins=$(req GET '/_cat/plugins?h=component') || fail "GET /_cat/plugins failed"
grep -Eqx '\s*(opensearch-knn|org\.opensearch\.knn\.plugin\.KNNPlugin)\s*' <<<"$plugins" ||
  fail "k-NN plugin not loaded; plugins: $(tr '\n' ' ' <<<"$plugins")"
ok "k-NN plugin loaded"

# 3. knn_vector index, lucene engine
req PUT "/$INDEX" '{
  "settings": {"index": {"knn": true, "number_of_shards": 1, "number_of_replicas": 0}},
  "mappings": {"properties": {
    "tenant": {"type": "keyword"},
    "text": {"type": "text"},
    "embedding": {"type": "knn_vector", "dimension": 3,
      "method": {"name": "hnsw", "engine": "lucene", "space_type": "cosinesimil",
                 "parameters": {"m": 16, "ef_construction": 100}}}
  }}
}' >/dev/null || fail "could not create a knn_vector index (lucene/hnsw/cosinesimil)"
mapping=$(req GET "/$INDEX/_mapping") || fail "GET mapping failed"
[[ $mapping == *'"engine":"lucene"'* ]] || fail "mapping does not use the lucene engine: $mapping"
ok "created index $INDEX with knn_vector (hnsw, lucene, cosinesimil)"

# doc b1 (tenant b) is the exact nearest neighbour of the query; the filter must exclude it.
bulk='{"index":{"_id":"a1"}}
{"tenant":"a","text":"alpha one","embedding":[0.9,0.1,0.0]}
{"index":{"_id":"a2"}}
{"tenant":"a","text":"alpha two","embedding":[0.0,1.0,0.0]}
{"index":{"_id":"b1"}}
{"tenant":"b","text":"beta one","embedding":[1.0,0.0,0.0]}
'
resp=$(curl -sS --max-time 30 -X POST -H 'Content-Type: application/x-ndjson' --data-binary "$bulk" \
  "$URL/$INDEX/_bulk?refresh=wait_for") || fail "bulk write failed"
[[ $resp == *'"errors":false'* ]] || fail "bulk write reported errors: $resp"
ok "wrote 3 documents (refresh=wait_for)"

# unfiltered: b1 first
resp=$(req POST "/$INDEX/_search" '{"size": 3, "_source": false,
  "query": {"knn": {"embedding": {"vector": [1.0, 0.0, 0.0], "k": 3}}}}') || fail "k-NN search failed"
[[ $resp =~ \"hits\":\[\{[^}]*\"_id\":\"b1\" ]] || fail "unfiltered k-NN: expected b1 first: $resp"
ok "k-NN search (unfiltered) returns the nearest vector first"

# filtered to tenant a: a1 first, never b1
resp=$(req POST "/$INDEX/_search" '{"size": 3, "_source": false,
  "query": {"knn": {"embedding": {"vector": [1.0, 0.0, 0.0], "k": 3,
    "filter": {"term": {"tenant": "a"}}}}}}') || fail "filtered k-NN search failed"
[[ $resp =~ \"hits\":\[\{[^}]*\"_id\":\"a1\" ]] || fail "filtered k-NN: expected a1 first: $resp"
[[ $resp != *'"_id":"b1"'* ]] || fail "filtered k-NN leaked a document of another tenant: $resp"
[[ $resp == *'"_id":"a2"'* ]] || fail "filtered k-NN: expected a2 among the hits: $resp"
ok "k-NN search with filter returns only the filtered tenant's documents"

echo "check_opensearch: all checks passed against $URL"
