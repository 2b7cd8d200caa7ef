# Sourced by shell tests: TAP output helpers and common paths.
#   plan N | ok "name" | not_ok "name" [details] | skip "name" "reason"
#   check "name" cmd...   (ok when cmd succeeds)
#   skip_all "reason"     (prints one skip and exits 0)
# Tests run from the repository root; $PMIPROF is the built binary.
set -u
: "${PMIPROF_TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${PMIPROF_BUILD:=$PMIPROF_TOP/build}"
PMIPROF=$PMIPROF_BUILD/pmiprof
WORKLOADS=$PMIPROF_BUILD/workloads
_tap_n=0
_tap_failed=0
TMPD=$(mktemp -d /tmp/pmiprof-t.XXXXXX)
trap 'rm -rf "$TMPD"' EXIT
# record saves the mapped files into a build-id cache that report searches
# first: each test gets its own, never the user's ~/.pmiprof/debug.
export PMIPROF_BUILDID_DIR=$TMPD/buildid-cache

ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1"; }
not_ok() {
	_tap_n=$((_tap_n + 1)); _tap_failed=1
	echo "not ok $_tap_n - $1"
	shift
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/# /'
	return 0
}
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP $2"; }
skip_all() { echo "1..1"; echo "ok 1 - $(basename "$0") # SKIP $1"; exit 0; }
check() {
	local name=$1; shift
	local out
	if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "command: $*" "$out"; fi
}
done_testing() { echo "1..$_tap_n"; exit $_tap_failed; }

# Can this machine open perf events at all / hardware ones?
have_perf_sw() { perf stat -e cpu-clock -x, true >/dev/null 2>&1; }
have_perf_hw() { command -v perf >/dev/null && ! perf stat -e instructions -x, true 2>&1 | grep -q 'not supported'; }

# The page tests' browser: sets $chromium (Debian's, or $CHROMIUM) and $nm
# (the npm modules, puppeteer-core among them), else skips the whole test.
require_chromium() {
	chromium=${CHROMIUM:-/usr/bin/chromium}
	nm=$PMIPROF_TOP/report/output/html/node_modules
	[ -x "$chromium" ] || skip_all "no chromium ($chromium): make deps installs it"
	command -v node >/dev/null || skip_all "no node: make deps installs it"
	[ -d "$nm/puppeteer-core" ] || skip_all "no puppeteer-core under $nm: make deps installs it"
}

# daemon_start LOG [OPTIONS...]: starts `pmiprof daemon OPTIONS` in the
# background, stderr to LOG; sets $dp (its pid) and, once it says it serves
# http (or https, with --web.config.file), $port.  A loaded machine may take
# seconds to get there: up to 30 s, ending early if the daemon exits.  Returns
# non-zero without a port.
daemon_start() {
	local log=$1 i
	shift
	port=
	"$PMIPROF" daemon "$@" 2>"$log" &
	dp=$!
	for i in $(seq 300); do
		grep -q 'serving http' "$log" 2>/dev/null && break
		kill -0 "$dp" 2>/dev/null || break
		sleep 0.1
	done
	port=$(grep -o 'https\?://127.0.0.1:[0-9]*' "$log" 2>/dev/null | head -1 | sed 's/.*://')
	[ -n "$port" ]
}
