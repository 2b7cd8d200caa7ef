#!/usr/bin/env bash
# go tool pprof fetches http://127.0.0.1:PORT/debug/pprof/profile?seconds=2
# from pmiprof daemon itself (its own HTTP client) while the shares workload
# runs: -top shows work_a, work_b and work_c at their shares by
# construction (50/30/20 % of the three) within 3 points; &comm= keeps one
# command; every sample carries comm, pid and tid labels (-tags); without
# call stacks the endpoint answers 501.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
command -v go >/dev/null || skip_all "go not installed (make deps)"
dp=; wp=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; [ -n "$wp" ] && kill -9 $wp 2>/dev/null; rm -rf "$TMPD"' EXIT
export PPROF_TMPDIR=$TMPD/pprof HOME=$TMPD

start() {
	daemon_start "$TMPD/$1.log" --dir "$TMPD/$1" --segment 5 --listen 127.0.0.1:0 -F 2000 "${@:2}"
}

W=t514work
cp "$WORKLOADS/shares" "$TMPD/$W"
start segs
[ -n "$port" ] || { not_ok "daemon serving" "$(cat "$TMPD/segs.log")"; done_testing; }
"$TMPD/$W" 12 >/dev/null &
wp=$!
sleep 0.5
# pprof's default timeout is seconds * 1.5: generous here, for a loaded 2-core machine
t0=$(date +%s%N)
go tool pprof -timeout 120 -top "http://127.0.0.1:$port/debug/pprof/profile?seconds=2&comm=$W" >"$TMPD/top" 2>"$TMPD/err"; rc=$?
t1=$(date +%s%N)
[ $rc -eq 0 ] && ok "go tool pprof fetched the profile ($(((t1 - t0) / 1000000)) ms for seconds=2)" || not_ok "go tool pprof fetch" "rc $rc: $(tail -5 "$TMPD/err")"
grep -q "^File: $W" "$TMPD/top" && ok "its binary is the workload" || not_ok "profile binary" "$(head -5 "$TMPD/top")"
read -r a b c n < <(awk '$6 == "work_a" {a = $1} $6 == "work_b" {b = $1} $6 == "work_c" {c = $1} END {print a + 0, b + 0, c + 0, a + b + c}' "$TMPD/top")
if [ "$n" -gt 0 ]; then
	res=$(awk -v a="$a" -v b="$b" -v c="$c" -v n="$n" 'BEGIN {
		pa = 100 * a / n; pb = 100 * b / n; pc = 100 * c / n
		d = pa - 50; if (d < 0) d = -d; m = d
		d = pb - 30; if (d < 0) d = -d; if (d > m) m = d
		d = pc - 20; if (d < 0) d = -d; if (d > m) m = d
		printf "%.1f/%.1f/%.1f %% of %d samples, max error %.1f %s\n", pa, pb, pc, n, m, m <= 3 ? "ok" : "bad" }')
	case $res in *ok) ok "shares 50/30/20 within 3 points: $res";; *) not_ok "shares 50/30/20 within 3 points" "$res";; esac
else
	not_ok "work_a/b/c in -top" "$(head -20 "$TMPD/top")"
fi
# 2 s at 2000 Hz of one busy thread: about 4000 windows, fewer on a loaded machine
# (500 at load 12 here: the bound that matters is the upper one, "the next 2 s")
total=$(grep -o 'Total samples = [0-9]*' "$TMPD/top" | grep -o '[0-9]*$')
[ "${total:-0}" -gt 100 ] && [ "${total:-0}" -le 4400 ] && ok "the next 2 s of one thread: $total samples at 2000 Hz" || not_ok "2 s of samples" "$total"
grep -v "$W" "$TMPD/top" | grep -q 'dash\|bash' && not_ok "&comm= keeps only $W" || ok "&comm= keeps only $W"
# every sample labelled with its command, process and thread (the profile pprof saved)
saved=$(ls "$TMPD"/pprof/*.pb.gz 2>/dev/null | head -1)
go tool pprof -tags "$saved" >"$TMPD/tags" 2>&1
tag_all() {	# key value: value holds every sample of the key's section
	awk -v k="$1:" -v v="$2" '$1 == k { in_k = 1; next } /^ *[a-z]+: Total/ { in_k = 0 }
		in_k && $NF == v && $2 == "(" && $3 == "100%):" { found = 1 } END { exit !found }' "$TMPD/tags"
}
tag_all comm "$W" && tag_all pid "$wp" && tag_all tid "$wp" &&
	ok "labels: every sample has comm=$W, pid=$wp, tid=$wp (go tool pprof -tags)" ||
	not_ok "pid/tid/comm labels" "$(head -20 "$TMPD/tags")"
kill $wp; wait $wp 2>/dev/null; wp=
kill -TERM $dp; wait $dp; dp=

start nostack --call-graph no
c=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$port/debug/pprof/profile?seconds=1")
[ "$c" = 501 ] && ok "without call stacks: 501" || not_ok "without call stacks: 501" "$c"
kill -TERM $dp; wait $dp; dp=
done_testing
