#!/usr/bin/env bash
# /debug/pprof/profile is built in the daemon as the samples come; it must
# be the profile `pmiprof report -i DIR --since A --until B --format pprof`
# gives for the same range (A and B from the answer's X-Pmiprof-Since and
# -Until headers): go tool pprof -top of both lists the same functions with
# the same flat and cumulative sample counts and cpu-clock sums.  Checked for
# the whole machine, for &comm= with a range crossing segment boundaries
# (the live session starts again at each segment), for &pid=, and for two
# concurrent scrapes, each with its own range.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ "$(id -u)" -eq 0 ] || skip_all "system-wide recording needs root or CAP_PERFMON"
command -v go >/dev/null || skip_all "go not installed (make deps)"
dp=; wp=
trap '[ -n "$dp" ] && kill -9 $dp 2>/dev/null; [ -n "$wp" ] && kill -9 $wp 2>/dev/null; rm -rf "$TMPD"' EXIT
export PPROF_TMPDIR=$TMPD/pprof HOME=$TMPD

W=t543work
cp "$WORKLOADS/shares" "$TMPD/$W"
daemon_start "$TMPD/log" --dir "$TMPD/d" --segment 2 --listen 127.0.0.1:0 -F 1000
[ -n "$port" ] || { not_ok "daemon serving" "$(cat "$TMPD/log")"; done_testing; }
"$TMPD/$W" 40 >/dev/null &
wp=$!
sleep 1

# top NAME: "function flat cum" per line, sorted, for every sample type given
top() {
	local f=$1; shift
	for idx in "$@"; do
		go tool pprof -sample_index="$idx" -top -nodecount=1000000 "$f" 2>/dev/null |
			awk -v i="$idx" '/^ *[0-9.]+[a-z]* +[0-9.]+% / { n = $6; for (k = 7; k <= NF; k++) n = n " " $k; print i, n, $1, $4 }'
	done | sort
}

# fetch NAME QUERY: the live profile, then report's for the range it names
fetch() {
	curl -s -D "$TMPD/$1.h" -o "$TMPD/$1.live.pb.gz" --max-time 60 \
		"http://127.0.0.1:$port/debug/pprof/profile?$2"
}
compare() {
	local name=$1 extra=$2 since until
	since=$(awk 'tolower($1) == "x-pmiprof-since:" {print $2}' "$TMPD/$name.h" | tr -d '\r')
	until=$(awk 'tolower($1) == "x-pmiprof-until:" {print $2}' "$TMPD/$name.h" | tr -d '\r')
	[ -n "$since" ] && [ -n "$until" ] || { not_ok "$name: range headers" "$(cat "$TMPD/$name.h")"; return; }
	# shellcheck disable=SC2086
	"$PMIPROF" report -q -i "$TMPD/d" --since "$since" --until "$until" $extra \
		--format pprof -o "$TMPD/$name.rep.pb.gz" 2>"$TMPD/$name.rep.err" ||
		{ not_ok "$name: report of $since .. $until" "$(cat "$TMPD/$name.rep.err")"; return; }
	top "$TMPD/$name.live.pb.gz" samples cpu-clock >"$TMPD/$name.live.top"
	top "$TMPD/$name.rep.pb.gz" samples cpu-clock >"$TMPD/$name.rep.top"
	local n what="flat and cum" l=$TMPD/$name.live.top r=$TMPD/$name.rep.top
	n=$(grep -c '^samples ' "$l")
	if [ "${3:-}" = flat ]; then
		# whole machine: the stacks' [truncated] ends may differ by a sample or two (docs/daemon.md)
		what="flat; cum differs on $(diff <(cut -d' ' -f1-3,5 "$l") <(cut -d' ' -f1-3,5 "$r") | grep -c '^<') lines"
		l=$TMPD/$name.live.flat; r=$TMPD/$name.rep.flat
		awk '{$NF = ""; print}' "$TMPD/$name.live.top" >"$l"
		awk '{$NF = ""; print}' "$TMPD/$name.rep.top" >"$r"
	fi
	if [ "$n" -gt 0 ] && cmp -s "$l" "$r"; then
		ok "$name: live profile = report --since $since --until $until ($n functions, $what, samples and cpu-clock)"
	elif [ "${4:-}" = retry ]; then
		echo "# retry: $name: live profile != report --since $since --until $until" \
			"(load $(cut -d' ' -f1-3 /proc/loadavg)):"
		diff "$l" "$r" | head -20 | sed 's/^/#   /'
		return 1
	else
		not_ok "$name: live profile = report --since $since --until $until" \
			"$(diff "$l" "$r" | head -20)" "functions: $n"
	fi
}

# The whole machine under a heavily loaded host (a concurrent suite) once
# differed from the report (cause not found yet): one retry, the first
# difference printed above it.
if fetch all "seconds=1"; then
	compare all "" flat retry || { fetch all "seconds=1" && compare all "" flat; } ||
		not_ok "whole machine: fetch (retry)"
else
	not_ok "whole machine: fetch"
fi
# 3 s with 2 s segments: the range crosses at least one segment boundary
fetch comm "seconds=3&comm=$W" && compare comm "--comm $W" || not_ok "comm: fetch"
fetch pid "seconds=1&pid=$wp" && compare pid "--pid $wp" || not_ok "pid: fetch"
# two at once, started 1 s apart: each its own range
fetch c1 "seconds=2&comm=$W" &
f1=$!
sleep 1
fetch c2 "seconds=2&comm=$W"
wait $f1
compare c1 "--comm $W"
compare c2 "--comm $W"
s1=$(awk 'tolower($1) == "x-pmiprof-since:" {print $2}' "$TMPD/c1.h")
s2=$(awk 'tolower($1) == "x-pmiprof-since:" {print $2}' "$TMPD/c2.h")
[ "$s1" != "$s2" ] && ok "concurrent scrapes have their own ranges ($s1, $s2)" || not_ok "concurrent ranges" "$s1 $s2"
grep -q "^File: $W" <(go tool pprof -top "$TMPD/comm.live.pb.gz" 2>/dev/null) && ok "the workload is the profile's binary" ||
	not_ok "the workload is the profile's binary" "$(go tool pprof -top "$TMPD/comm.live.pb.gz" 2>&1 | head -5)"
kill $wp; wait $wp 2>/dev/null; wp=
kill -TERM $dp; wait $dp; rc=$?; dp=
[ $rc -eq 0 ] && ok "SIGTERM: exit 0" || not_ok "SIGTERM: exit 0" "rc $rc"
done_testing
