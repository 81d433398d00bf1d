#!/usr/bin/env bash
# Development certificates for the secured layout (deploy/compose.yaml), made with openssl:
#
#   deploy/certs.sh [DIR]        # default DIR: deploy/certs (gitignored)
#
#   ca.crt  ca.key               a private CA (ca.key stays here, mode 0600; nothing mounts it)
#   kafka.crt kafka.key          server certificates signed by the CA, one per service, each
#   opensearch.crt ...key        naming the compose host name, localhost and 127.0.0.1
#   clickhouse.crt ...key        (subjectAltName), for TLS server and client use
#   admin.crt admin.key          OpenSearch's admin client certificate (securityadmin.sh)
#   kafka.p12                    the Kafka broker's keystore (PKCS12: kafka.key, kafka.crt, ca.crt)
#   kafka.p12.password           its password (KAFKA_KEYSTORE_PASSWORD, else random)
#
# Existing files are kept (run it again to add what is missing); --force makes all anew.
# The service keys are readable by all (mode 0644): the containers run as their own users
# and read them through a bind mount. They are for development only: in production, use
# certificates from your own PKI and hand keys to the containers as secrets.
#
# Environment: CERTS_DAYS (825), CERTS_ORG (memgate-dev), KAFKA_KEYSTORE_PASSWORD.
set -euo pipefail

FORCE=0
if [[ ${1:-} == --force ]]; then FORCE=1; shift; fi
DIR=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/certs}
DAYS=${CERTS_DAYS:-825}
ORG=${CERTS_ORG:-memgate-dev}
SERVICES=(kafka opensearch clickhouse)

command -v openssl >/dev/null 2>&1 || { echo "certs.sh: openssl is not installed (apt-get install openssl)" >&2; exit 1; }
mkdir -p "$DIR"
chmod 755 "$DIR"
cd "$DIR"
if ((FORCE)); then rm -f ./*.crt ./*.key ./*.p12 ./*.password ./*.srl ./*.csr ./*.ext; fi

log() { printf '[certs] %s\n' "$*" >&2; }

new_key() {  # new_key FILE: RSA 2048, PKCS#8 PEM (OpenSearch accepts only PKCS#8)
  openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1"
}

if [[ ! -s ca.key || ! -s ca.crt ]]; then
  log "CA: $DIR/ca.crt"
  rm -f ./*.crt ./*.p12  # everything signed by an earlier CA goes with it
  new_key ca.key
  chmod 600 ca.key
  openssl req -x509 -new -key ca.key -sha256 -days "$DAYS" -out ca.crt \
    -subj "/O=$ORG/CN=memgate development CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
fi

sign() {  # sign NAME SUBJECT_ALT_NAMES|"" : NAME.key + NAME.crt signed by the CA
  local name=$1 sans=$2
  [[ -s $name.key && -s $name.crt ]] && return 0
  log "$name: $DIR/$name.crt${sans:+ ($sans)}"
  new_key "$name.key"
  chmod 644 "$name.key"
  openssl req -new -key "$name.key" -out "$name.csr" -subj "/O=$ORG/CN=$name"
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=serverAuth,clientAuth"
    [[ -n $sans ]] && echo "subjectAltName=$sans"
  } >"$name.ext"
  openssl x509 -req -in "$name.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -sha256 \
    -days "$DAYS" -extfile "$name.ext" -out "$name.crt" 2>/dev/null
  rm -f "$name.csr" "$name.ext"
}

for svc in "${SERVICES[@]}"; do
  sign "$svc" "DNS:$svc,DNS:localhost,IP:127.0.0.1"
done
sign admin ""

if [[ ! -s kafka.p12 || ! -s kafka.p12.password ]]; then
  log "kafka: keystore $DIR/kafka.p12"
  if [[ -n ${KAFKA_KEYSTORE_PASSWORD:-} ]]; then
    printf '%s' "$KAFKA_KEYSTORE_PASSWORD" >kafka.p12.password
  else
    openssl rand -hex 16 | tr -d '\n' >kafka.p12.password
  fi
  chmod 644 kafka.p12.password
  openssl pkcs12 -export -name kafka -in kafka.crt -inkey kafka.key -certfile ca.crt \
    -out kafka.p12 -passout "file:kafka.p12.password"
  chmod 644 kafka.p12
fi
rm -f ca.srl
log "done: $DIR"
