#!/usr/bin/env bash
# One extra OpenSearch 2.19.1 node run as the secured layout (deploy/compose.yaml) runs it, but
# without Docker: the embedded node of services.sh (MemgateOpenSearch on the same jars, k-NN)
# with the OpenSearch security plugin on its classpath, TLS on HTTP and transport with the
# certificates of deploy/certs.sh, and the users admin and memgate (memgate may use only the
# memgate-* indices and read index templates, not put them), written by
# deploy/opensearch/secure-entrypoint.sh from the plugin's own config/*.yml, with
# deploy/opensearch/opensearch.yml as the node's configuration.
# tests/integration/test_opensearch_secure_int.py starts it; it is never part of
# `services.sh up all`, and it shares nothing with the node on 19200 but the downloaded jars.
#
# Usage:
#   deploy/local/opensearch/secure-node.sh install       # only download what is missing; prints
#                                                        # MEMGATE_JAVA=... (nothing is started)
#   deploy/local/opensearch/secure-node.sh run STATE_DIR # configure STATE_DIR, run in the foreground
#
# STATE_DIR holds config/ (opensearch.yml, certs/, opensearch-security/*.yml; mode 0700), data/,
# logs/opensearch.log, node/ and tmp/. Stop the node with SIGTERM (its process is this script's).
# Environment of `run`:
#   OPENSEARCH_ADMIN_PASSWORD, OPENSEARCH_MEMGATE_PASSWORD   the users' passwords (required)
#   OPENSEARCH_CERTS        folder filled by deploy/certs.sh (default STATE_DIR/certs, made
#                           with deploy/certs.sh when missing)
#   MEMGATE_SECURE_OPENSEARCH_PORT (19210)  MEMGATE_SECURE_OPENSEARCH_TRANSPORT_PORT (19310)
#   MEMGATE_SECURE_OPENSEARCH_HEAP (768m)   -Xms = -Xmx
# Downloads go where services.sh keeps its own (MEMGATE_SERVICES_DIR, default
# ~/.cache/memgate/services): the plugin zip from Maven Central (security/pom.xml) under
# opensearch-secure/, next to the shared opensearch/lib it runs with.
set -euo pipefail

NODE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEPLOY=$(cd "$NODE_DIR/../.." && pwd)
# services.sh defines the helpers (pick_java, mvn_fetch, opensearch_install, ...) when sourced
# shellcheck source=../services.sh
source "$DEPLOY/local/services.sh"

SEC_PORT=${MEMGATE_SECURE_OPENSEARCH_PORT:-19210}
SEC_TRANSPORT_PORT=${MEMGATE_SECURE_OPENSEARCH_TRANSPORT_PORT:-19310}
SEC_HEAP=${MEMGATE_SECURE_OPENSEARCH_HEAP:-768m}
SEC_HOME="$SERVICES_DIR/opensearch-secure"
PLUGIN="$SEC_HOME/home/plugins/opensearch-security"

slog() { printf '[secure-node] %s\n' "$*" >&2; }
sdie() { printf '[secure-node] ERROR: %s\n' "$*" >&2; exit 1; }

# the artifact name of a jar: guava-33.4.0-jre.jar -> guava, netty-common-4.1.118.Final.jar -> netty-common
artifact() { basename "$1" .jar | sed -E 's/-[0-9][0-9.]*(-jre|\.Final)?$//'; }

security_install() {
  mvn_fetch "$NODE_DIR/security/pom.xml" "$SEC_HOME/dl"
  local zips=("$SEC_HOME"/dl/opensearch-security-*.zip) zip stamp
  zip=${zips[0]}
  [[ -f $zip ]] || sdie "the security plugin zip is missing from $SEC_HOME/dl"
  stamp=$(sha "$SEC_HOME/dl/.stamp" "$OS_HOME/lib/.stamp")
  if [[ -f $PLUGIN/.stamp && $(cat "$PLUGIN/.stamp") == "$stamp" ]]; then return 0; fi
  ensure_cmd unzip unzip
  rm -rf "$SEC_HOME/home"
  mkdir -p "$PLUGIN"
  unzip -q -o "$zip" -d "$PLUGIN"
  # One flat classpath: a jar the core already has (netty, httpclient, asm, commons-codec, ...)
  # is left out, so that each class is loaded from one jar only.
  local have jar
  have=$(for jar in "$OS_HOME"/lib/*.jar; do artifact "$jar"; done | sort -u)
  for jar in "$PLUGIN"/*.jar; do
    if grep -qxF "$(artifact "$jar")" <<<"$have"; then rm -f "$jar"; fi
  done
  # the layout of an OpenSearch home, so that the plugin's tools/hash.sh finds the core jars
  ln -sfn "$OS_HOME/lib" "$SEC_HOME/home/lib"
  echo "$stamp" >"$PLUGIN/.stamp"
  slog "security plugin unpacked in $PLUGIN ($(ls "$PLUGIN"/*.jar | wc -l) jars)"
}

install_all() {  # under the lock of services.sh: never while it downloads or starts a service
  mkdir -p "$SERVICES_DIR" "$RUN_DIR"
  exec 9>"$RUN_DIR/lock"
  if command -v flock >/dev/null 2>&1 && ! flock -w 900 9; then sdie "timed out waiting for $RUN_DIR/lock"; fi
  opensearch_install
  security_install
  exec 9>&-
}

configure() {  # configure STATE_DIR
  local state=$1 certs conf f
  certs=${OPENSEARCH_CERTS:-$state/certs}
  if [[ -z ${OPENSEARCH_CERTS:-} && ! -s $certs/opensearch.crt ]]; then
    bash "$DEPLOY/certs.sh" "$certs" 2>/dev/null || sdie "deploy/certs.sh $certs failed"
  fi
  for f in ca.crt opensearch.crt opensearch.key admin.crt admin.key; do
    [[ -r $certs/$f ]] || sdie "$certs/$f is missing or unreadable: run deploy/certs.sh $certs"
  done
  umask 077  # the security plugin wants its configuration readable by the node's user only
  conf="$state/config"
  mkdir -p "$conf/certs" "$conf/opensearch-security" "$state/data" "$state/logs" "$state/tmp"
  chmod 700 "$state" "$conf"
  cp "$certs"/{ca.crt,opensearch.crt,opensearch.key,admin.crt,admin.key} "$conf/certs/"
  chmod 600 "$conf"/certs/*
  # the node configuration of the compose layout, as is (the launcher sets ports, host and
  # single-node discovery on top of it)
  cp "$DEPLOY/opensearch/opensearch.yml" "$conf/opensearch.yml"
  # the plugin's default security configuration, then the users and the memgate role of the
  # compose layout (loaded into the security index on the first start only)
  cp "$PLUGIN"/config/*.yml "$conf/opensearch-security/"
  OPENSEARCH_HOME="$SEC_HOME/home" OPENSEARCH_SECURITY_CONFIG="$conf/opensearch-security" \
    OPENSEARCH_JAVA_HOME="$(dirname "$(dirname "$JAVA_BIN")")" OPENSEARCH_CONFIGURE_ONLY=1 \
    bash "$DEPLOY/opensearch/secure-entrypoint.sh" || sdie "secure-entrypoint.sh failed"
  opensearch_log4j "$conf/log4j2.properties" "$state/logs/opensearch.log" opensearch/secure-node.sh
}

run_node() {  # run_node STATE_DIR: configure, then exec the node
  local state=$1 port
  : "${OPENSEARCH_ADMIN_PASSWORD:?set OPENSEARCH_ADMIN_PASSWORD}"
  : "${OPENSEARCH_MEMGATE_PASSWORD:?set OPENSEARCH_MEMGATE_PASSWORD}"
  for port in "$SEC_PORT" "$SEC_TRANSPORT_PORT"; do
    if port_open "$port"; then
      sdie "port $port is in use: set MEMGATE_SECURE_OPENSEARCH_PORT / MEMGATE_SECURE_OPENSEARCH_TRANSPORT_PORT"
    fi
  done
  install_all
  mkdir -p "$state"
  state=$(cd "$state" && pwd)
  configure "$state"
  slog "starting on https://$HOST:$SEC_PORT (transport $SEC_TRANSPORT_PORT), state in $state"
  # shellcheck disable=SC2206
  local jvm=("-Xms$SEC_HEAP" "-Xmx$SEC_HEAP" $JIT_OPTS "${OPENSEARCH_JVM_FLAGS[@]}"
    "-Djava.io.tmpdir=$state/tmp")
  # the plugin's jars before k-NN's: its guava (33.4) is the newer of the two
  exec "$JAVA_BIN" "${jvm[@]}" \
    -Dmemgate.http.port="$SEC_PORT" -Dmemgate.transport.port="$SEC_TRANSPORT_PORT" \
    -Dmemgate.host="$HOST" "-Dmemgate.service=opensearch-secure@$state" \
    -cp "$OS_HOME/classes:$OS_HOME/lib/*:$PLUGIN/*:$OS_HOME/lib/knn/*" \
    MemgateOpenSearch \
    -basePath "$state/node" -confPath "$state/config" -dataPath "$state/data" \
    -logsPath "$state/logs" -numOfNode 1 -clusterName memgate \
    -pluginTypes org.opensearch.knn.plugin.KNNPlugin,org.opensearch.security.OpenSearchSecurityPlugin
}

case ${1:-} in
  install)
    pick_java
    install_all
    echo "MEMGATE_JAVA=$JAVA_BIN"
    ;;
  run)
    [[ $# == 2 ]] || sdie "usage: $0 run STATE_DIR"
    pick_java
    run_node "$2"
    ;;
  *)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
