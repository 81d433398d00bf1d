-- memgate's audit store: the schema a ClickHouse server starts with.
--
-- deploy/compose.yaml mounts this folder at /docker-entrypoint-initdb.d; the image runs
-- every *.sql here once, when its data volume is new (CLICKHOUSE_DB=memgate creates the
-- database first). The workers run the same CREATE TABLE IF NOT EXISTS on connect
-- (memgate/sinks/audit.py, TABLES), so a server started without this file ends the same;
-- tests/unit/sinks/test_audit_init_sql.py runs both on chDB and compares system.columns
-- and the engines. Change the tables in sinks/audit.py first, then here.
--
-- ORDER BY (tenant_id, user_id, event_id), every table:
--   * event_id last makes it the ReplacingMergeTree deduplication key: a record that
--     Kafka redelivers (same event id) collapses into one row; reads use FINAL.
--   * tenant_id, user_id first: every report and `memgate audit` filters by tenant, and
--     forget(tenant, user) deletes one user's rows; both read a narrow key range.
--   * event time is not in the key: reports scan a tenant's rows and group by day; a
--     time-first key would break the dedup key's tenant locality for little gain at the
--     sizes one gate writes (one row per turn and per stage decision).
-- No PARTITION BY: erasure (forget) rewrites every part that holds the user and then
--   waits for the replaced parts to be removed from disk (memgate/sinks/audit_erasure.py);
--   monthly partitions would multiply the parts without making that cheaper, and
--   ReplacingMergeTree only collapses duplicates within one partition, so a partition
--   key must never split one event id's copies (a time-based one could, if the same
--   event were re-stamped). Add one only with a key every copy shares.
-- No TTL: the audit store is the evidence of why a fact was stored or dropped; how long
--   to keep it is a legal decision per deployment, and a user's rows are erased on
--   request by `memgate forget`. To expire rows, add e.g.
--   `TTL toDateTime(ingested_at) + INTERVAL 400 DAY` (journal; decided_at / at on the
--   others) here and in sinks/audit.py alike.
-- SETTINGS: the erasure settings (memgate/sinks/audit_erasure.py, ERASURE_SETTINGS):
--   replaced parts are removed at once, so an erased user leaves no bytes behind.
-- LowCardinality for the few-valued columns (tenant, stage, verdict, reason, role,
--   action, policy); redacted text ZSTD(3). The erasure bookkeeping table
--   (erasure_requests, ENGINE = Memory) is made by `memgate forget` on demand.

-- Every turn, kept or not: ids, event time (ts), keyed digest, verdict, redacted text only.
CREATE TABLE IF NOT EXISTS `memgate`.`journal` (
    `event_id` String,
    `tenant_id` LowCardinality(String),
    `user_id` String,
    `session_id` String,
    `turn_id` String,
    `role` LowCardinality(String),
    `ts` DateTime64(3, 'UTC'),
    `length` UInt32,
    `content_hmac` String,
    `verdict` LowCardinality(String),
    `reason` LowCardinality(String),
    `redacted_text` String CODEC(ZSTD(3)),
    `redaction_counts` Map(String, UInt32),
    `ingested_at` DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, user_id, event_id)
SETTINGS old_parts_lifetime = 0, cleanup_delay_period = 1, cleanup_delay_period_random_add = 0, max_cleanup_delay_period = 1, finished_mutations_to_keep = 1;

-- Every stage's decision on a turn or a candidate fact (decided_at: processing time).
CREATE TABLE IF NOT EXISTS `memgate`.`decisions` (
    `event_id` String,
    `stage` LowCardinality(String),
    `tenant_id` LowCardinality(String),
    `user_id` String,
    `session_id` String,
    `turn_id` String,
    `verdict` LowCardinality(String),
    `reason` LowCardinality(String),
    `key` String,
    `fact_id` String,
    `policy_version` LowCardinality(String),
    `decided_at` DateTime64(3, 'UTC'),
    `details` Map(String, String)
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, user_id, event_id)
SETTINGS old_parts_lifetime = 0, cleanup_delay_period = 1, cleanup_delay_period_random_add = 0, max_cleanup_delay_period = 1, finished_mutations_to_keep = 1;

-- Every change to a stored fact (at: processing time; source_turn_id: the turn behind it).
CREATE TABLE IF NOT EXISTS `memgate`.`fact_history` (
    `event_id` String,
    `tenant_id` LowCardinality(String),
    `user_id` String,
    `fact_id` String,
    `key` String,
    `action` LowCardinality(String),
    `value` String,
    `confidence` Float64,
    `occurrences` UInt32,
    `superseded_by` String,
    `supersedes` String,
    `source_turn_id` String,
    `policy_version` LowCardinality(String),
    `at` DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, user_id, event_id)
SETTINGS old_parts_lifetime = 0, cleanup_delay_period = 1, cleanup_delay_period_random_add = 0, max_cleanup_delay_period = 1, finished_mutations_to_keep = 1;

-- Shadow mode (shadow_extractor): turns on which the primary and the shadow extractor differ
-- (decided_at: processing time; values masked). Same ORDER BY as the others: per tenant and
-- user, so erasure and tenant-scoped reads touch one range.
CREATE TABLE IF NOT EXISTS `memgate`.`disagreements` (
    `event_id` String,
    `tenant_id` LowCardinality(String),
    `user_id` String,
    `session_id` String,
    `turn_id` String,
    `primary` LowCardinality(String),
    `shadow` LowCardinality(String),
    `kind` LowCardinality(String),
    `primary_keep` UInt8,
    `shadow_keep` UInt8,
    `only_primary` Array(String),
    `only_shadow` Array(String),
    `decided_at` DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree
ORDER BY (tenant_id, user_id, event_id)
SETTINGS old_parts_lifetime = 0, cleanup_delay_period = 1, cleanup_delay_period_random_add = 0, max_cleanup_delay_period = 1, finished_mutations_to_keep = 1;
