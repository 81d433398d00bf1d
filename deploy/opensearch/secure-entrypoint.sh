#!/bin/bash
# Run by deploy/compose.yaml (service opensearch) instead of the image's own start: writes the
# internal users (admin, and memgate with a role limited to memgate's indices, which may
# read index templates but not put them) with bcrypt hashes of OPENSEARCH_ADMIN_PASSWORD and
# OPENSEARCH_MEMGATE_PASSWORD, then starts the node with the image's entrypoint. The security index takes these files on its first start only
# (plugins.security.allow_default_init_securityindex); to change a password later, use the
# security REST API or securityadmin.sh.
#
# Also run by deploy/local/opensearch/secure-node.sh (an embedded node with the plugin's jars,
# no Docker) with:
#   OPENSEARCH_HOME             the layout holding plugins/opensearch-security/tools/hash.sh and
#                               lib/ (default /usr/share/opensearch, the image's)
#   OPENSEARCH_SECURITY_CONFIG  the folder of the security plugin's *.yml files (default
#                               $OPENSEARCH_HOME/config/opensearch-security)
#   OPENSEARCH_CONFIGURE_ONLY=1 write the files and stop (the caller starts the node)
set -euo pipefail

: "${OPENSEARCH_ADMIN_PASSWORD:?set OPENSEARCH_ADMIN_PASSWORD}"
: "${OPENSEARCH_MEMGATE_PASSWORD:?set OPENSEARCH_MEMGATE_PASSWORD}"
HOME_DIR=${OPENSEARCH_HOME:-/usr/share/opensearch}
SEC=${OPENSEARCH_SECURITY_CONFIG:-$HOME_DIR/config/opensearch-security}
HASH=$HOME_DIR/plugins/opensearch-security/tools/hash.sh

bcrypt() {  # the hash of $1 (hash.sh prints warnings before it)
  OPENSEARCH_JAVA_HOME=${OPENSEARCH_JAVA_HOME:-$HOME_DIR/jdk} bash "$HASH" -p "$1" | tail -n 1
}

umask 077
cat >"$SEC/internal_users.yml" <<YML
# written by deploy/opensearch/secure-entrypoint.sh
_meta:
  type: "internalusers"
  config_version: 2
admin:
  hash: "$(bcrypt "$OPENSEARCH_ADMIN_PASSWORD")"
  reserved: true
  backend_roles: ["admin"]
  description: "administrator"
memgate:
  hash: "$(bcrypt "$OPENSEARCH_MEMGATE_PASSWORD")"
  reserved: false
  description: "memgate workers"
YML

if ! grep -q '^memgate:' "$SEC/roles.yml"; then
  cat >>"$SEC/roles.yml" <<'YML'

# memgate: its own indices (memgate-* and their usage indices usage.memgate-*), nothing
# else. Index templates it may only read: the plugin grants template actions cluster-wide
# (no index-name filter), so a role that may put memgate's template may put one for any
# index. The admin installs memgate's once: `memgate setup opensearch` (the memgate-setup
# service of deploy/compose.yaml).
memgate:
  reserved: false
  cluster_permissions:
    - "cluster_composite_ops"
    - "cluster_monitor"
    - "indices:admin/index_template/get"
  index_permissions:
    - index_patterns: ["memgate-*", "usage.memgate-*"]
      allowed_actions: ["indices_all"]
YML
fi
if ! grep -q '^memgate:' "$SEC/roles_mapping.yml"; then
  cat >>"$SEC/roles_mapping.yml" <<'YML'

memgate:
  reserved: false
  users: ["memgate"]
YML
fi

if [[ ${OPENSEARCH_CONFIGURE_ONLY:-0} == 1 ]]; then exit 0; fi
exec "$HOME_DIR/opensearch-docker-entrypoint.sh" opensearch
