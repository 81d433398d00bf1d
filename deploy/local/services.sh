#!/usr/bin/env bash
# Start / stop the real services memgate needs, locally, without Docker:
#   kafka       Apache Kafka 4.1.0 (jars from Maven Central), KRaft single-node combined mode
#   opensearch  OpenSearch 2.19.1 + k-NN 2.19.1.0, embedded node (jars from Maven Central)
#   prometheus  Prometheus from Debian (apt-get install prometheus), run directly
#
# Usage: deploy/local/services.sh {up|down|restart|status|logs|reset|install} [kafka|opensearch|prometheus|all]...
#
#   install  only download what is missing (nothing is started or stopped) and print, for kafka,
#            MEMGATE_JAVA=... and MEMGATE_KAFKA_LIB=... (the jars a private broker can run from,
#            as tests/integration/test_kafka_secure_int.py does).
#   up       install what is missing (first run downloads), start, wait until ready, print endpoints.
#            A service already running is left alone (no-op).
#   down     SIGTERM, wait up to MEMGATE_SERVICES_STOP_TIMEOUT s, then SIGKILL; removes the pid file.
#   restart  down then up.
#   status   one line per service; exit 0 if all named services are running and ready, 3 if not.
#   logs     last MEMGATE_LOG_LINES (100) lines of each service's logs.
#   reset    delete the data of stopped services (Kafka log dirs, OpenSearch data, Prometheus TSDB);
#            downloads are kept.
#
# Everything (downloads, Maven repository, config, data, pid files, logs) lives under
#   MEMGATE_SERVICES_DIR (default: $HOME/.cache/memgate/services)
# Environment:
#   MEMGATE_KAFKA_PORT (19092)              MEMGATE_KAFKA_CONTROLLER_PORT (19093)
#   MEMGATE_OPENSEARCH_PORT (19200)         MEMGATE_OPENSEARCH_TRANSPORT_PORT (19300)
#   MEMGATE_PROMETHEUS_PORT (19090)
#   MEMGATE_PROMETHEUS_TARGETS (127.0.0.1:19100,127.0.0.1:19101)  scraped every 1 s, job "memgate"
#   MEMGATE_SERVICES_START_TIMEOUT (180)    MEMGATE_SERVICES_STOP_TIMEOUT (30)
#   MEMGATE_KAFKA_JAVA_OPTS, MEMGATE_OPENSEARCH_JAVA_OPTS   extra JVM options
#   MEMGATE_SERVICES_FULL_JIT=1   full C2 JIT (default is C1 only: 2x faster start, lower peak speed)
#   MEMGATE_JAVA   java binary to use (must be Java 17..23); default: the first Java 17..23 of
#                  $JAVA_HOME/bin/java, `java` on PATH (a JAVA_HOME at Java 25 is skipped)
#
# `up` prints the endpoints on stdout as KEY=VALUE lines (logs go to stderr), e.g.
#   export $(deploy/local/services.sh up kafka opensearch)
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SERVICES_DIR=${MEMGATE_SERVICES_DIR:-${HOME:-/root}/.cache/memgate/services}
HOST=127.0.0.1
KAFKA_PORT=${MEMGATE_KAFKA_PORT:-19092}
KAFKA_CONTROLLER_PORT=${MEMGATE_KAFKA_CONTROLLER_PORT:-19093}
OPENSEARCH_PORT=${MEMGATE_OPENSEARCH_PORT:-19200}
OPENSEARCH_TRANSPORT_PORT=${MEMGATE_OPENSEARCH_TRANSPORT_PORT:-19300}
PROMETHEUS_PORT=${MEMGATE_PROMETHEUS_PORT:-19090}
PROMETHEUS_TARGETS=${MEMGATE_PROMETHEUS_TARGETS:-127.0.0.1:19100,127.0.0.1:19101}
START_TIMEOUT=${MEMGATE_SERVICES_START_TIMEOUT:-180}
STOP_TIMEOUT=${MEMGATE_SERVICES_STOP_TIMEOUT:-30}
LOG_LINES=${MEMGATE_LOG_LINES:-100}
# C1-only JIT halves JVM start time on 2 cores (measured: Kafka+OpenSearch 19 s -> 10 s);
# set MEMGATE_SERVICES_FULL_JIT=1 for benchmarks (peak throughput needs C2).
if [[ ${MEMGATE_SERVICES_FULL_JIT:-0} == 1 ]]; then JIT_OPTS=""; else JIT_OPTS="-XX:TieredStopAtLevel=1"; fi

ALL_SERVICES=(kafka opensearch prometheus)
M2_REPO="$SERVICES_DIR/m2"
RUN_DIR="$SERVICES_DIR/run"
LOG_DIR="$SERVICES_DIR/logs"

# ---------------------------------------------------------------------------- helpers

log() { printf '[services] %s\n' "$*" >&2; }
die() { printf '[services] ERROR: %s\n' "$*" >&2; exit 1; }

now() { date +%s; }

sha() { cat "$@" | sha256sum | cut -d' ' -f1; }

# apt-get install, running `apt-get update` first only when the package has no candidate.
apt_install() {
  [[ $(id -u) == 0 ]] || die "need root to apt-get install $* (or install it yourself)"
  export DEBIAN_FRONTEND=noninteractive
  local pkg need_update=0
  for pkg in "$@"; do
    if ! apt-cache policy "$pkg" 2>/dev/null | grep -q 'Candidate: [0-9]'; then need_update=1; fi
  done
  if ((need_update)); then
    log "apt-get update"
    apt-get -q -o DPkg::Lock::Timeout=300 update >&2
  fi
  log "apt-get install $*"
  if ! apt-get -q -y -o DPkg::Lock::Timeout=300 install --no-install-recommends "$@" >&2; then
    log "install failed; retrying after apt-get update"
    apt-get -q -o DPkg::Lock::Timeout=300 update >&2
    apt-get -q -y -o DPkg::Lock::Timeout=300 install --no-install-recommends "$@" >&2
  fi
}

ensure_cmd() {  # ensure_cmd COMMAND DEBIAN_PACKAGE
  command -v "$1" >/dev/null 2>&1 || apt_install "$2"
  command -v "$1" >/dev/null 2>&1 || die "'$1' not found even after installing $2"
}

java_major() {  # prints the major version of the java binary $1
  "$1" -version 2>&1 | sed -n 's/.*version "\([0-9]*\)[."].*/\1/p' | head -n1
}

JAVA_BIN=""
pick_java() {
  [[ -n $JAVA_BIN ]] && return 0
  local c major
  if [[ -n ${MEMGATE_JAVA:-} ]]; then
    major=$([[ -x $MEMGATE_JAVA ]] && java_major "$MEMGATE_JAVA" || true)
    if [[ -z $major ]] || ((major < 17 || major > 23)); then
      die "MEMGATE_JAVA=$MEMGATE_JAVA is not a usable Java 17..23 (found: ${major:-none})"
    fi
    JAVA_BIN=$MEMGATE_JAVA
    return 0
  fi
  # OpenSearch 2.19 supports Java 17..23: a JAVA_HOME pointing at Java 25 is skipped.
  for c in "${JAVA_HOME:+$JAVA_HOME/bin/java}" "$(command -v java || true)" /usr/lib/jvm/java-17-openjdk-amd64/bin/java; do
    [[ -n $c && -x $c ]] || continue
    major=$(java_major "$c")
    if [[ -n $major ]] && ((major >= 17 && major <= 23)); then JAVA_BIN=$c; return 0; fi
    log "skipping $c (Java ${major:-?}; need 17..23)"
  done
  apt_install openjdk-17-jdk-headless
  JAVA_BIN=/usr/lib/jvm/java-17-openjdk-amd64/bin/java
  [[ -x $JAVA_BIN ]] || JAVA_BIN=$(command -v java)
}

# Copy a pom's dependencies into DEST (skipped when DEST was filled from the same pom).
mvn_fetch() {  # mvn_fetch POM DEST
  local pom=$1 dest=$2 stamp
  stamp=$(sha "$pom")
  if [[ -f $dest/.stamp && $(cat "$dest/.stamp") == "$stamp" ]]; then return 0; fi
  ensure_cmd mvn maven
  log "downloading jars for $(basename "$(dirname "$pom")") into $dest (first run only)"
  rm -rf "$dest.tmp"
  mkdir -p "$dest.tmp" "$M2_REPO"
  if ! mvn -q -B -f "$pom" -Dmaven.repo.local="$M2_REPO" \
      dependency:copy-dependencies -DoutputDirectory="$dest.tmp" >"$dest.mvn.log" 2>&1; then
    cat "$dest.mvn.log" >&2
    die "mvn dependency:copy-dependencies failed for $pom (log: $dest.mvn.log)"
  fi
  echo "$stamp" >"$dest.tmp/.stamp"
  rm -rf "$dest"
  mv "$dest.tmp" "$dest"
}

port_open() {  # port_open PORT -> 0 if something accepts TCP connections on HOST:PORT
  timeout 2 bash -c "exec 3<>/dev/tcp/$HOST/$1" 2>/dev/null
}

port_owner() {
  if command -v ss >/dev/null 2>&1; then
    ss -Hltnp "sport = :$1" 2>/dev/null | head -n3 | sed 's/  */ /g'
  fi
}

svc_ports() {
  case $1 in
    kafka) echo "$KAFKA_PORT $KAFKA_CONTROLLER_PORT" ;;
    opensearch) echo "$OPENSEARCH_PORT $OPENSEARCH_TRANSPORT_PORT" ;;
    prometheus) echo "$PROMETHEUS_PORT" ;;
  esac
}

svc_endpoint() {
  case $1 in
    kafka) echo "MEMGATE_KAFKA_BOOTSTRAP=$HOST:$KAFKA_PORT" ;;
    opensearch) echo "MEMGATE_OPENSEARCH_URL=http://$HOST:$OPENSEARCH_PORT" ;;
    prometheus) echo "MEMGATE_PROMETHEUS_URL=http://$HOST:$PROMETHEUS_PORT" ;;
  esac
}

svc_logs() {  # log files of a service, main one first
  case $1 in
    kafka | opensearch) echo "$LOG_DIR/$1.log $LOG_DIR/$1.out" ;;
    prometheus) echo "$LOG_DIR/prometheus.log" ;;
  esac
}

pid_file() { echo "$RUN_DIR/$1.pid"; }

# A string that only our process for this service (in this SERVICES_DIR) has on its command line.
svc_marker() {
  case $1 in
    kafka | opensearch) echo "-Dmemgate.service=$1@$SERVICES_DIR" ;;
    prometheus) echo "--config.file=$SERVICES_DIR/prometheus/prometheus.yml" ;;
  esac
}

pid_matches() {  # pid_matches PID SERVICE
  local pid=$1
  [[ $pid =~ ^[0-9]+$ && -r /proc/$pid/cmdline ]] || return 1
  grep -qzxF -- "$(svc_marker "$2")" "/proc/$pid/cmdline" 2>/dev/null
}

# PID of the running service: from its pid file, else (pid file lost) by scanning /proc for the marker.
svc_pid() {
  local svc=$1 pidf pid p
  pidf=$(pid_file "$svc")
  if [[ -f $pidf ]]; then
    pid=$(cat "$pidf" 2>/dev/null || true)
    if pid_matches "$pid" "$svc"; then echo "$pid"; return 0; fi
  fi
  # one grep over all command lines (NUL-separated arguments, exact match of one argument)
  while IFS= read -r p; do
    p=${p#/proc/}
    p=${p%/cmdline}
    [[ $p == "$$" || $p == "$BASHPID" ]] && continue
    if pid_matches "$p" "$svc"; then echo "$p"; return 0; fi
  done < <(grep -lzxF -- "$(svc_marker "$svc")" /proc/[0-9]*/cmdline 2>/dev/null)
  return 1
}

rotate_log() {
  local f
  for f in "$@"; do
    if [[ -f $f ]]; then mv -f "$f" "$f.1"; fi
  done
}

# Start CMD... detached (own session), stdout+stderr to LOG; the pid file gets the real pid.
launch() {  # launch SERVICE LOG CMD...
  local svc=$1 out=$2 pidf i
  shift 2
  pidf=$(pid_file "$svc")
  mkdir -p "$RUN_DIR" "$LOG_DIR"
  rm -f "$pidf"
  # shellcheck disable=SC2016
  # (fd 9 is the services lock: the daemon must not inherit it)
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$pidf" "$@" >>"$out" 2>&1 </dev/null 9>&- &
  for ((i = 0; i < 100; i++)); do
    [[ -s $pidf ]] && return 0
    sleep 0.05
  done
  die "$svc: could not start (no pid file); see $out"
}

check_ports_free() {
  local svc=$1 p
  for p in $(svc_ports "$svc"); do
    if port_open "$p"; then
      die "$svc: port $HOST:$p is already in use by another process${NL}  $(port_owner "$p")${NL}  stop it or choose other ports (MEMGATE_*_PORT)"
    fi
  done
}
NL=$'\n'

# ---------------------------------------------------------------------------- kafka

KAFKA_HOME="$SERVICES_DIR/kafka"

kafka_install() {
  pick_java
  mvn_fetch "$SCRIPT_DIR/kafka/pom.xml" "$KAFKA_HOME/lib"
}

kafka_configure() {
  mkdir -p "$KAFKA_HOME/config" "$KAFKA_HOME/data" "$LOG_DIR"
  cat >"$KAFKA_HOME/config/server.properties" <<EOF
# generated by deploy/local/services.sh -- edits are overwritten on every 'up'
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://$HOST:$KAFKA_PORT,CONTROLLER://$HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$HOST:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$KAFKA_HOME/data
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
log.retention.hours=24
num.network.threads=2
num.io.threads=2
EOF
  cat >"$KAFKA_HOME/config/log4j2.properties" <<EOF
# generated by deploy/local/services.sh
status = warn
name = memgate-kafka
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = $LOG_DIR/kafka.log
appender.file.append = true
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
logger.kafka.name = kafka
logger.kafka.level = INFO
logger.org-apache-kafka.name = org.apache.kafka
logger.org-apache-kafka.level = INFO
logger.state-change.name = state.change.logger
logger.state-change.level = WARN
logger.request.name = kafka.request.logger
logger.request.level = WARN
EOF
}

KAFKA_JVM=()
kafka_java_opts() {  # fills KAFKA_JVM (without the service marker)
  # shellcheck disable=SC2206
  KAFKA_JVM=(-Xms256m -Xmx512m $JIT_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20
    -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true -Dlog4j2.shutdownHookEnabled=false
    "-Dlog4j2.configurationFile=$KAFKA_HOME/config/log4j2.properties" "-Dkafka.logs.dir=$LOG_DIR"
    ${MEMGATE_KAFKA_JAVA_OPTS:-})
}

kafka_format() {
  # KRaft storage is formatted once; the cluster id is kept next to it.
  [[ -f $KAFKA_HOME/data/meta.properties ]] && return 0
  local cid
  if [[ -s $KAFKA_HOME/cluster.id ]]; then
    cid=$(cat "$KAFKA_HOME/cluster.id")
  else
    cid=$("$JAVA_BIN" -cp "$KAFKA_HOME/lib/*" kafka.tools.StorageTool random-uuid 2>>"$LOG_DIR/kafka.out" | tail -n1)
    [[ -n $cid ]] || die "kafka: StorageTool random-uuid failed; see $LOG_DIR/kafka.out"
    echo "$cid" >"$KAFKA_HOME/cluster.id"
  fi
  log "kafka: formatting KRaft storage (cluster id $cid)"
  "$JAVA_BIN" "${KAFKA_JVM[@]}" -cp "$KAFKA_HOME/lib/*" \
    kafka.tools.StorageTool format -t "$cid" -c "$KAFKA_HOME/config/server.properties" \
    >>"$LOG_DIR/kafka.out" 2>&1 || die "kafka: storage format failed; see $LOG_DIR/kafka.out"
}

kafka_start() {
  kafka_install
  kafka_configure
  rotate_log "$LOG_DIR/kafka.log" "$LOG_DIR/kafka.out"
  kafka_java_opts
  kafka_format
  launch kafka "$LOG_DIR/kafka.out" "$JAVA_BIN" "${KAFKA_JVM[@]}" "-Dmemgate.service=kafka@$SERVICES_DIR" \
    -cp "$KAFKA_HOME/lib/*" \
    kafka.Kafka "$KAFKA_HOME/config/server.properties"
}

# A real Metadata request (v4, all topics) over /dev/tcp: ready when the broker answers with
# our correlation id and lists itself at HOST:KAFKA_PORT.
kafka_metadata_ok() {
  local hex want_host want_port
  # request: size=22 | api_key=3 (Metadata) | api_version=4 | correlation_id=0x4d47 | client_id="memgate"
  #          | topics=null (-1: all) | allow_auto_topic_creation=false
  # shellcheck disable=SC2016
  hex=$(timeout 5 bash -c '
    exec 3<>"/dev/tcp/$0/$1" || exit 1
    printf "\x00\x00\x00\x16\x00\x03\x00\x04\x00\x00\x4d\x47\x00\x07memgate\xff\xff\xff\xff\x00" >&3
    head -c 35 <&3 | od -An -v -tx1' "$HOST" "$KAFKA_PORT" 2>/dev/null | tr -d ' \n') || return 1
  # response: size(4) corr(4) throttle(4) brokers(4) node_id(4) host(2+len) port(4)
  want_host=$(printf '%s' "$HOST" | od -An -v -tx1 | tr -d ' \n')
  want_port=$(printf '%08x' "$KAFKA_PORT")
  [[ ${hex:8:8} == 00004d47 && $hex == *"$want_host$want_port"* ]]
}

kafka_ready() {
  port_open "$KAFKA_PORT" || return 1
  grep -q "Kafka Server started" "$LOG_DIR/kafka.log" 2>/dev/null || return 1
  kafka_metadata_ok
}

# ---------------------------------------------------------------------------- opensearch

OS_HOME="$SERVICES_DIR/opensearch"

opensearch_install() {
  pick_java
  mvn_fetch "$SCRIPT_DIR/opensearch/pom.xml" "$OS_HOME/lib"
  # The k-NN plugin comes as a zip of jars: unzip them next to the others.
  if [[ ! -f $OS_HOME/lib/knn/.done ]]; then
    local zips=("$OS_HOME"/lib/opensearch-knn-*.zip) zip
    zip=${zips[0]}
    [[ -f $zip ]] || die "opensearch: k-NN plugin zip missing from $OS_HOME/lib"
    ensure_cmd unzip unzip
    rm -rf "$OS_HOME/lib/knn"
    mkdir -p "$OS_HOME/lib/knn"
    unzip -q -o "$zip" -d "$OS_HOME/lib/knn"
    touch "$OS_HOME/lib/knn/.done"
  fi
  # Compile the launcher (thin wrapper around OpenSearchRunner) when it changed.
  local src="$SCRIPT_DIR/opensearch/MemgateOpenSearch.java" stamp javac
  stamp=$(sha "$src" "$OS_HOME/lib/.stamp")
  if [[ ! -f $OS_HOME/classes/.stamp || $(cat "$OS_HOME/classes/.stamp") != "$stamp" ]]; then
    javac="$(dirname "$JAVA_BIN")/javac"
    [[ -x $javac ]] || javac=$(command -v javac || true)
    [[ -n $javac ]] || { apt_install openjdk-17-jdk-headless; javac=$(command -v javac); }
    rm -rf "$OS_HOME/classes"
    mkdir -p "$OS_HOME/classes"
    "$javac" -nowarn -d "$OS_HOME/classes" -cp "$OS_HOME/lib/*" "$src" >&2 ||
      die "opensearch: could not compile $src"
    echo "$stamp" >"$OS_HOME/classes/.stamp"
  fi
}

# opensearch_log4j CONF LOGFILE BY: the node's log4j2.properties (one file appender at info,
# deprecations at error only); also used by opensearch/secure-node.sh
opensearch_log4j() {
  cat >"$1" <<EOF
# generated by deploy/local/$3
status = error
appender.file.type = File
appender.file.name = file
appender.file.fileName = $2
appender.file.append = true
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d{ISO8601}][%-5p][%-25c{1.}] %m%n
rootLogger.level = info
rootLogger.appenderRef.file.ref = file
logger.deprecation.name = org.opensearch.deprecation
logger.deprecation.level = error
EOF
}

# the JVM flags every embedded OpenSearch node runs with (heap and tmpdir come from the caller)
OPENSEARCH_JVM_FLAGS=(-XX:+UseG1GC -XX:-OmitStackTraceInFastThrow
  -Djava.awt.headless=true -Dfile.encoding=UTF-8 -Djna.nosys=true -Dlog4j2.shutdownHookEnabled=false
  -Dlog4j2.formatMsgNoLookups=true -Dio.netty.noUnsafe=true -Dio.netty.recycler.maxCapacityPerThread=0)

opensearch_configure() {
  mkdir -p "$OS_HOME/config" "$OS_HOME/data" "$OS_HOME/tmp" "$LOG_DIR"
  cat >"$OS_HOME/config/opensearch.yml" <<EOF
# generated by deploy/local/services.sh; ports, host and discovery are set by MemgateOpenSearch.java
cluster.name: memgate-local
action.auto_create_index: true
EOF
  opensearch_log4j "$OS_HOME/config/log4j2.properties" "$LOG_DIR/opensearch.log" services.sh
}

opensearch_start() {
  opensearch_install
  opensearch_configure
  rotate_log "$LOG_DIR/opensearch.log" "$LOG_DIR/opensearch.out"
  # shellcheck disable=SC2206
  local jvm=(-Xms1g -Xmx1g $JIT_OPTS "${OPENSEARCH_JVM_FLAGS[@]}"
    "-Djava.io.tmpdir=$OS_HOME/tmp" ${MEMGATE_OPENSEARCH_JAVA_OPTS:-})
  launch opensearch "$LOG_DIR/opensearch.out" "$JAVA_BIN" "${jvm[@]}" \
    -Dmemgate.http.port="$OPENSEARCH_PORT" -Dmemgate.transport.port="$OPENSEARCH_TRANSPORT_PORT" \
    -Dmemgate.host="$HOST" "-Dmemgate.service=opensearch@$SERVICES_DIR" \
    -cp "$OS_HOME/classes:$OS_HOME/lib/*:$OS_HOME/lib/knn/*" \
    MemgateOpenSearch \
    -basePath "$OS_HOME/node" -confPath "$OS_HOME/config" -dataPath "$OS_HOME/data" \
    -logsPath "$LOG_DIR" -numOfNode 1 -clusterName memgate-local \
    -pluginTypes org.opensearch.knn.plugin.KNNPlugin
}

# One node can never allocate replicas: default new indices to 0 replicas (green, not yellow).
# In 2.19 this only works as a persistent cluster setting: the same key in opensearch.yml is
# accepted but ignored by index creation.
opensearch_post_ready() {
  curl -fsS --max-time 10 -X PUT -H 'Content-Type: application/json' \
    -d '{"persistent": {"cluster.default_number_of_replicas": 0}}' \
    "http://$HOST:$OPENSEARCH_PORT/_cluster/settings" >/dev/null ||
    log "opensearch: warning: could not set cluster.default_number_of_replicas=0"
}

opensearch_ready() {
  local health
  health=$(curl -fsS --max-time 3 "http://$HOST:$OPENSEARCH_PORT/_cluster/health" 2>/dev/null) || return 1
  [[ $health == *'"status":"green"'* || $health == *'"status":"yellow"'* ]] || return 1
  curl -fsS --max-time 3 "http://$HOST:$OPENSEARCH_PORT/_cat/plugins?h=component" 2>/dev/null |
    grep -qx 'opensearch-knn\|org.opensearch.knn.plugin.KNNPlugin'
}

# ---------------------------------------------------------------------------- prometheus

PROM_HOME="$SERVICES_DIR/prometheus"
PROM_BIN=""

prometheus_install() {
  PROM_BIN=${MEMGATE_PROMETHEUS_BIN:-$(command -v prometheus || true)}
  if [[ -z $PROM_BIN && -x /usr/bin/prometheus ]]; then PROM_BIN=/usr/bin/prometheus; fi
  if [[ -z $PROM_BIN ]]; then
    apt_install prometheus
    PROM_BIN=$(command -v prometheus || echo /usr/bin/prometheus)
    [[ -x $PROM_BIN ]] || die "prometheus: not found after apt-get install"
    prometheus_stop_debian_service
  fi
}

# The Debian package may start its own service on :9090 (it doesn't under a policy-rc.d that
# says 101, as in containers). We run our own instance; stop and disable theirs.
prometheus_stop_debian_service() {
  if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null 2>&1; then
    systemctl disable --now prometheus.service >/dev/null 2>&1 || true
  elif [[ -x /etc/init.d/prometheus ]]; then
    if /etc/init.d/prometheus status >/dev/null 2>&1; then
      log "prometheus: stopping the Debian service (port 9090)"
      /etc/init.d/prometheus stop >/dev/null 2>&1 || true
    fi
  fi
}

prometheus_configure() {
  mkdir -p "$PROM_HOME/data" "$LOG_DIR"
  local targets="" t
  IFS=',' read -r -a _targets <<<"$PROMETHEUS_TARGETS"
  for t in "${_targets[@]}"; do
    t=$(echo "$t" | tr -d '[:space:]')
    [[ -n $t ]] || continue
    [[ $t =~ ^[^:/]+:[0-9]+$ ]] || die "MEMGATE_PROMETHEUS_TARGETS: '$t' is not host:port"
    targets+="${targets:+, }'$t'"
  done
  # the project's alert rules (deploy/prometheus/alerts.yml), copied: the services dir outlives
  # any one checkout
  cp "$SCRIPT_DIR/../prometheus/alerts.yml" "$PROM_HOME/alerts.yml"
  cat >"$PROM_HOME/prometheus.yml" <<EOF
# generated by deploy/local/services.sh from MEMGATE_PROMETHEUS_TARGETS
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - alerts.yml
scrape_configs:
  - job_name: memgate
    scrape_interval: 1s
    scrape_timeout: 1s
    static_configs:
      - targets: [$targets]
EOF
}

prometheus_start() {
  prometheus_install
  prometheus_configure
  rotate_log "$LOG_DIR/prometheus.log"
  launch prometheus "$LOG_DIR/prometheus.log" "$PROM_BIN" \
    "--config.file=$PROM_HOME/prometheus.yml" \
    "--storage.tsdb.path=$PROM_HOME/data" \
    "--storage.tsdb.retention.time=2d" \
    "--web.listen-address=$HOST:$PROMETHEUS_PORT" \
    --web.enable-lifecycle
}

prometheus_ready() {
  [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "http://$HOST:$PROMETHEUS_PORT/-/ready" 2>/dev/null) == 200 ]]
}

# ---------------------------------------------------------------------------- commands

STARTED=()

svc_up_launch() {  # start one service without waiting
  local svc=$1 pid
  if pid=$(svc_pid "$svc"); then
    echo "$pid" >"$(pid_file "$svc")"
    log "$svc: already running (pid $pid)"
    return 0
  fi
  rm -f "$(pid_file "$svc")"
  check_ports_free "$svc"
  log "$svc: starting"
  "${svc}_start"
  STARTED+=("$svc")
}

svc_wait_ready() {
  local svc=$1 t0 main_log pid relaunched=0
  read -r main_log _ <<<"$(svc_logs "$svc")"
  t0=$(now)
  while true; do
    if ! pid=$(svc_pid "$svc"); then
      rm -f "$(pid_file "$svc")"
      if [[ " ${STARTED[*]} " != *" $svc "* ]] && ((relaunched == 0)); then
        # it was "already running" but was being stopped (another checkout's 'down'): start our own
        relaunched=1
        log "$svc: the running instance exited before it was ready (stopped elsewhere); starting a new one"
        svc_up_launch "$svc"
        t0=$(now)
        continue
      fi
      log "$svc: process exited during startup. Last log lines:"
      local f
      for f in $(svc_logs "$svc"); do [[ -f $f ]] && tail -n 30 "$f" >&2; done
      die "$svc failed to start; see $(svc_logs "$svc" | sed 's/ / and /')"
    fi
    if "${svc}_ready"; then
      if declare -F "${svc}_post_ready" >/dev/null; then "${svc}_post_ready"; fi
      log "$svc: ready after $(($(now) - t0))s (pid $pid)"
      return 0
    fi
    if (($(now) - t0 >= START_TIMEOUT)); then
      log "$svc: not ready after ${START_TIMEOUT}s; stopping it. Last log lines:"
      tail -n 30 "$main_log" >&2 || true
      svc_down "$svc" || true
      die "$svc did not become ready within ${START_TIMEOUT}s (MEMGATE_SERVICES_START_TIMEOUT); see $(svc_logs "$svc" | sed 's/ / and /')"
    fi
    sleep 0.5
  done
}

svc_down() {
  local svc=$1 pid pidf i
  pidf=$(pid_file "$svc")
  if ! pid=$(svc_pid "$svc"); then
    if [[ -f $pidf ]]; then
      rm -f "$pidf"
      log "$svc: not running (removed stale pid file)"
    else
      log "$svc: not running"
    fi
    return 0
  fi
  log "$svc: stopping (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < STOP_TIMEOUT * 10; i++)); do
    pid_matches "$pid" "$svc" || break
    sleep 0.1
  done
  if pid_matches "$pid" "$svc"; then
    log "$svc: still running after ${STOP_TIMEOUT}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      pid_matches "$pid" "$svc" || break
      sleep 0.1
    done
  fi
  pid_matches "$pid" "$svc" && die "$svc: pid $pid would not die"
  rm -f "$pidf"
  log "$svc: stopped"
}

svc_status() {  # prints one line; returns 0 if running and ready
  local svc=$1 pid pidf
  pidf=$(pid_file "$svc")
  if pid=$(svc_pid "$svc"); then
    if "${svc}_ready"; then
      printf '%-11s running  pid %-7s ready      %s\n' "$svc" "$pid" "$(svc_endpoint "$svc")"
      return 0
    fi
    printf '%-11s running  pid %-7s NOT READY  %s (logs: %s)\n' "$svc" "$pid" "$(svc_endpoint "$svc")" "$(svc_logs "$svc")"
    return 1
  fi
  if [[ -f $pidf ]]; then
    printf '%-11s stopped  (stale pid file %s)\n' "$svc" "$pidf"
  else
    printf '%-11s stopped\n' "$svc"
  fi
  return 1
}

svc_reset() {
  local svc=$1
  svc_pid "$svc" >/dev/null && die "$svc is running; run '$0 down $svc' first"
  case $svc in
    kafka) rm -rf "$KAFKA_HOME/data" "$KAFKA_HOME/cluster.id" ;;
    opensearch) rm -rf "$OS_HOME/data" "$OS_HOME/node" "$OS_HOME/tmp" ;;
    prometheus) rm -rf "$PROM_HOME/data" ;;
  esac
  log "$svc: data deleted"
}

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

main() {
  [[ $# -ge 1 ]] || usage
  local cmd=$1 svc rc=0
  shift
  local services=()
  if [[ $# == 0 ]]; then set -- all; fi
  for svc in "$@"; do
    case $svc in
      all) services+=("${ALL_SERVICES[@]}") ;;
      kafka | opensearch | prometheus) services+=("$svc") ;;
      *) die "unknown service '$svc' (kafka|opensearch|prometheus|all)" ;;
    esac
  done
  mkdir -p "$SERVICES_DIR" "$RUN_DIR" "$LOG_DIR"
  ensure_cmd curl curl
  ensure_cmd setsid util-linux

  case $cmd in
    up | start | down | stop | reset | install)
      # one up/down at a time per services dir (parallel test workers may all call 'up')
      exec 9>"$RUN_DIR/lock"
      if command -v flock >/dev/null 2>&1 && ! flock -w 900 9; then die "timed out waiting for $RUN_DIR/lock"; fi
      ;;
  esac
  case $cmd in
    up | start)
      local t0
      t0=$(now)
      # launch all first (they start in parallel), then wait for each
      for svc in "${services[@]}"; do svc_up_launch "$svc"; done
      for svc in "${services[@]}"; do svc_wait_ready "$svc"; done
      log "up: done in $(($(now) - t0))s"
      for svc in "${services[@]}"; do svc_endpoint "$svc"; done
      ;;
    install)
      for svc in "${services[@]}"; do
        "${svc}_install"
        if [[ $svc == kafka ]]; then
          echo "MEMGATE_JAVA=$JAVA_BIN"
          echo "MEMGATE_KAFKA_LIB=$KAFKA_HOME/lib"
        fi
      done
      ;;
    down | stop)
      local i
      for ((i = ${#services[@]} - 1; i >= 0; i--)); do svc_down "${services[i]}"; done
      ;;
    restart)
      "$0" down "${services[@]}"
      exec "$0" up "${services[@]}"
      ;;
    status)
      for svc in "${services[@]}"; do svc_status "$svc" || rc=3; done
      return "$rc"
      ;;
    logs)
      local f
      for svc in "${services[@]}"; do
        for f in $(svc_logs "$svc"); do
          if [[ -f $f ]]; then
            echo "==> $f <=="
            tail -n "$LOG_LINES" "$f"
          else
            echo "==> $f (none yet) <=="
          fi
        done
      done
      ;;
    reset)
      for svc in "${services[@]}"; do svc_reset "$svc"; done
      ;;
    -h | --help | help) usage ;;
    *) die "unknown command '$cmd' (up|down|restart|status|logs|reset|install)" ;;
  esac
}

# run when executed; when sourced (deploy/local/opensearch/secure-node.sh), only define the functions
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
