#!/usr/bin/env bash
# TLS and basic auth from the exporter toolkit's web configuration
# (--web.config.file): certificates made here with openssl (a CA, the
# server's, a client's, and a self-signed stranger), a bcrypt hash from
# libcrypt (Python's crypt).  Bad files exit 2 with FILE:LINE and create
# nothing.  With RequireAndVerifyClientCert and basic_auth_users: 401 (and
# WWW-Authenticate) without or with a wrong password, 403 without a client
# certificate or with one the CA did not sign, 200 with both right, plain
# HTTP to the TLS port refused, TLS 1.2 refused under min_version TLS13, the
# configured header on answers.  Debian's Prometheus scrapes it over TLS with
# basic auth (tls_config, basic_auth) and holds the workload's windows; its
# jobs with a wrong password or plain http are down.  A new password in the
# file applies without a restart; the old one is then refused.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
command -v prometheus >/dev/null || skip_all "prometheus not installed (make deps)"
command -v curl >/dev/null || skip_all "curl not installed"
command -v openssl >/dev/null || skip_all "openssl not installed (make deps)"
bcrypt() { python3 -W ignore -c 'import crypt, sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 10)))' "$1"; }
bcrypt x >/dev/null 2>&1 || skip_all "python3's crypt module (bcrypt hashes for the test) is missing"
dp=; pp=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; [ -n "$pp" ] && kill -9 $pp 2>/dev/null; rm -rf "$TMPD"' EXIT

C=$TMPD/certs
mkdir -p "$C"
(
	cd "$C" || exit 1
	ec="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
	openssl req -x509 $ec -keyout ca.key -out ca.crt -days 2 -subj /CN=t553-ca
	openssl req $ec -keyout server.key -out server.csr -subj /CN=127.0.0.1
	printf 'subjectAltName=IP:127.0.0.1\n' >san.ext
	openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 2 -extfile san.ext
	openssl req $ec -keyout client.key -out client.csr -subj /CN=prometheus
	openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out client.crt -days 2
	openssl req -x509 $ec -keyout other.key -out other.crt -days 2 -subj /CN=stranger
) >"$TMPD/openssl.log" 2>&1 || { not_ok "certificates made" "$(tail -5 "$TMPD/openssl.log")"; done_testing; }
H=$(bcrypt s3cret)

# bad files: exit 2, FILE:LINE and the reason, --dir not created
bad() {
	local name=$1 want=$2
	printf '%s\n' "$3" >"$C/bad.yml"
	"$PMIPROF" daemon --dir "$TMPD/never" --web.config.file "$C/bad.yml" 2>"$TMPD/err"
	local rc=$?
	[ $rc = 2 ] && grep -q "bad.yml:[0-9]*: .*$want" "$TMPD/err" && [ ! -e "$TMPD/never" ] \
		&& ok "refused with exit 2 and FILE:LINE: $name" || not_ok "refused: $name" "rc $rc: $(cat "$TMPD/err")"
}
bad "unknown key" "unknown key 'tls_config'" $'tls_config:\n  cert_file: server.crt'
bad "key_file missing" "missing key_file" $'tls_server_config:\n  cert_file: server.crt'
bad "key of another certificate" "do not match" $'tls_server_config:\n  cert_file: server.crt\n  key_file: client.key'
bad "a password that is not bcrypt" "expected a bcrypt hash" $'basic_auth_users:\n  prom: s3cret'
bad "client_ca_file without a client_auth_type" "client_ca_file given" $'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_ca_file: ca.crt'
bad "cipher_suites (not supported, said)" "'cipher_suites' is not supported" $'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  cipher_suites: [TLS_AES_128_GCM_SHA256]'
bad "bad client_auth_type" "client_auth_type 'Maybe'" $'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: Maybe'
bad "a missing certificate file" "cert_file .*nothere.crt: No such file" $'tls_server_config:\n  cert_file: nothere.crt\n  key_file: server.key'

web() {
	cat >"$C/web.yml" <<EOW
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
  min_version: TLS13
http_server_config:
  headers:
    X-Content-Type-Options: nosniff
basic_auth_users:
  prometheus: $1
EOW
}
web "$H"
D=$TMPD/segs
daemon_start "$TMPD/log" --dir "$D" --segment 5 --listen 127.0.0.1:0 --top-comms 1000 -F 199 \
	--web.config.file "$C/web.yml"
[ -n "$port" ] || { not_ok "daemon serving" "$(cat "$TMPD/log")"; done_testing; }
grep -q "serving https://127.0.0.1:$port/.*RequireAndVerifyClientCert, basic auth" "$TMPD/log" \
	&& ok "serves https, says client certificates and basic auth" || not_ok "start line" "$(cat "$TMPD/log")"
U=https://127.0.0.1:$port
cc="--cacert $C/ca.crt"
mine="--cert $C/client.crt --key $C/client.key"
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$@"; }
[ "$(code $cc $mine -u prometheus:s3cret "$U/healthz")" = 200 ] && ok "client certificate and password: 200" || not_ok "good request" "$(code $cc $mine -u prometheus:s3cret "$U/healthz")"
[ "$(code $cc $mine "$U/metrics")" = 401 ] && ok "no password: 401" || not_ok "no password" "$(code $cc $mine "$U/metrics")"
[ "$(code $cc $mine -u prometheus:wrong "$U/metrics")" = 401 ] && ok "wrong password: 401" || not_ok "wrong password"
[ "$(code $cc $mine -u nobody:s3cret "$U/metrics")" = 401 ] && ok "unknown user: 401" || not_ok "unknown user"
curl -s -D - -o /dev/null $cc $mine "$U/metrics" | grep -qi '^WWW-Authenticate: Basic realm="pmiprof"' \
	&& ok "401 says WWW-Authenticate: Basic" || not_ok "WWW-Authenticate"
[ "$(code $cc -u prometheus:s3cret "$U/metrics")" = 403 ] && ok "no client certificate: 403" || not_ok "no client certificate" "$(code $cc -u prometheus:s3cret "$U/metrics")"
[ "$(code $cc --cert "$C/other.crt" --key "$C/other.key" -u prometheus:s3cret "$U/metrics")" = 403 ] \
	&& ok "a certificate the CA did not sign: 403" || not_ok "stranger's certificate"
curl -s -o /dev/null --max-time 10 "http://127.0.0.1:$port/metrics"; rc=$?
[ $rc != 0 ] && ok "plain HTTP to the TLS port refused (curl exit $rc)" || not_ok "plain HTTP refused"
curl -s -o /dev/null --max-time 10 --tls-max 1.2 $cc $mine -u prometheus:s3cret "$U/metrics"; rc=$?
[ $rc != 0 ] && ok "TLS 1.2 refused under min_version TLS13 (curl exit $rc)" || not_ok "TLS 1.2 refused"
curl -s -D - -o /dev/null $cc $mine -u prometheus:s3cret "$U/metrics" | grep -qi '^X-Content-Type-Options: nosniff' \
	&& ok "http_server_config header on answers" || not_ok "header"
grep -q 'http: ' "$TMPD/log" && ok "libmicrohttpd's messages in the log with the daemon's prefix ($(grep -m1 'http: ' "$TMPD/log" | cut -c1-70))" \
	|| not_ok "libmicrohttpd's messages" "$(tail -3 "$TMPD/log")"
# bcrypt costs tens of ms: a password accepted once is not hashed again, a wrong one always is
med() { for i in 1 2 3 4 5 6 7; do curl -s -o /dev/null -w '%{time_total}\n' $cc $mine "$@" "$U/healthz"; done | sort -n | sed -n 4p; }
tg=$(med -u prometheus:s3cret); tw=$(med -u prometheus:wrong)
python3 -c 'import sys; g, w = map(float, sys.argv[1:]); sys.exit(not g < w / 2)' "$tg" "$tw" \
	&& ok "a known password is not hashed again: median $tg s a request, $tw s with a wrong one (bcrypt)" \
	|| not_ok "remembered password" "good $tg s, wrong $tw s"

pport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
job() {
	cat <<EOJ
  - job_name: $1
    scheme: $2
    tls_config:
      ca_file: $C/ca.crt
      cert_file: $C/client.crt
      key_file: $C/client.key
    basic_auth:
      username: prometheus
      password: $3
    static_configs:
      - targets: ['127.0.0.1:$port']
EOJ
}
{
	printf 'global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n'
	job good https s3cret
	job badpass https wrong
	job plain http s3cret
} >"$TMPD/prometheus.yml"
prometheus --config.file="$TMPD/prometheus.yml" --storage.tsdb.path="$TMPD/tsdb" \
	--web.listen-address="127.0.0.1:$pport" >"$TMPD/prom.log" 2>&1 &
pp=$!
P=http://127.0.0.1:$pport
q() { curl -s --max-time 10 "$P/api/v1/query" --data-urlencode "query=$1" |
	python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")'; }
for _ in $(seq 300); do [ "$(q 'max_over_time(up{job="good"}[1m])' 2>/dev/null)" = 1 ] && break; sleep 0.2; done
[ "$(q 'max_over_time(up{job="good"}[1m])')" = 1 ] && ok "Prometheus scrapes over TLS with a client certificate and basic auth (up 1)" \
	|| not_ok "Prometheus scrapes over TLS" "$(curl -s "$P/api/v1/targets" | grep -o '"lastError":"[^"]*"' | head -3; tail -3 "$TMPD/prom.log")"
for j in badpass plain; do
	v=$(q "max_over_time(up{job=\"$j\"}[1m])")
	[ "$v" = 0 ] && ok "job $j is down (up 0)" || not_ok "job $j down" "$v"
done
curl -s "$P/api/v1/targets" | grep -q '401 Unauthorized' && ok "Prometheus's error for the wrong password: 401 Unauthorized" \
	|| not_ok "401 in Prometheus's target error" "$(curl -s "$P/api/v1/targets" | grep -o '"lastError":"[^"]*"')"
W=t553work
cp "$WORKLOADS/shares" "$TMPD/$W"
"$TMPD/$W" 3 >/dev/null
sleep 3
v=$(q "sum(pmiprof_windows_total{job=\"good\",comm=\"$W\"})")
python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > 50)' "$v" 2>/dev/null \
	&& ok "Prometheus holds the workload's windows, scraped over TLS ($v)" || not_ok "windows over TLS" "$v"

# a new password: applied at the next look at the file (every second), no restart
H2=$(bcrypt n3w)
web "$H2"
for _ in $(seq 50); do [ "$(code $cc $mine -u prometheus:n3w "$U/healthz")" = 200 ] && break; sleep 0.1; done
[ "$(code $cc $mine -u prometheus:n3w "$U/healthz")" = 200 ] && [ "$(code $cc $mine -u prometheus:s3cret "$U/healthz")" = 401 ] \
	&& ok "a changed password applies without a restart; the old one is refused" || not_ok "password change" "$(tail -3 "$TMPD/log")"
grep -q 'web.yml applied: 1 basic-auth user' "$TMPD/log" && ! grep -q 'TLS changed' "$TMPD/log" \
	&& ok "the log says the file was applied (no server restart)" || not_ok "applied line" "$(tail -3 "$TMPD/log")"
kill -TERM $dp; wait $dp; rc=$?; dp=
[ $rc = 0 ] && ok "SIGTERM: exit 0" || not_ok "SIGTERM" "rc $rc"
done_testing
