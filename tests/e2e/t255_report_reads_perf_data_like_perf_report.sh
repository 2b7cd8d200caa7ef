#!/usr/bin/env bash
# pmiprof report reads perf's own perf.data (docs/perf-data.md): files recorded
# here by Debian's perf in the modes this VM allows (cpu-clock -c and -F, -g,
# --call-graph dwarf, -a, -p, a group of software events with :S,
# --switch-events with -s, pipe mode to a file and through stdin, -z, pipe -z).  For each, the shares of every
# row of `pmiprof report --by dso|symbol|comm` (each event's column over its
# total: perf weighs by period) equal `perf report --stdio --sort ...` of the
# same file within 0.1 point (perf_data_compare.py), the sample count equals
# perf's and the lost count perf's "Total Lost Samples"; --children equals
# `perf report --children` where perf unwinds the same stacks.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v perf >/dev/null || skip_all "perf not installed (linux-perf)"
command -v python3 >/dev/null || skip_all "python3 not installed"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"
CMP=$(dirname "$0")/perf_data_compare.py
# --buildid-mmap: perf 6.1's build-id pass at the end aborts on this kernel
# (util/build-id.c assertion); with build-ids in MMAP2 it has nothing to do.
# -N: the machine's build-id cache (~/.debug) is left alone.
REC="perf record --buildid-mmap -N -q"

# record NAME ARGS...: perf record into $TMPD/NAME.data; 1 when perf failed.
record() {
	local name=$1
	shift
	$REC -o "$TMPD/$name.data" "$@" >/dev/null 2>"$TMPD/$name.err" && [ -s "$TMPD/$name.data" ]
}

# compare NAME BY NEVENTS [INPUT]: one TAP line per sort key.
compare() {
	local name=$1 by=$2 nev=$3 input=${4:-$TMPD/$1.data} sort=$2
	[ "$by" = symbol ] && sort=sym
	perf report -i "$TMPD/$name.data" --stdio --no-children -g none --sort "$sort" 2>/dev/null \
		>"$TMPD/perf.txt"
	if [ "$input" = - ]; then
		"$PMIPROF" report -q -i - --by "$by" --format csv <"$TMPD/$name.data" >"$TMPD/ours.csv" 2>"$TMPD/ours.err"
	else
		"$PMIPROF" report -q -i "$input" --by "$by" --format csv >"$TMPD/ours.csv" 2>"$TMPD/ours.err"
	fi
	if python3 "$CMP" "$TMPD/perf.txt" "$TMPD/ours.csv" "$by" "$nev" 0.1 0.5 >"$TMPD/cmp"; then
		ok "$name: --by $by equals perf report --sort $sort within 0.1 point ($(grep -c '^ok' "$TMPD/cmp") rows >= 0.5%)"
	else
		not_ok "$name: --by $by equals perf report --sort $sort within 0.1 point" \
			"$(grep -v '^ok' "$TMPD/cmp")" "$(head -3 "$TMPD/ours.err")"
	fi
}

# counts NAME: samples and lost as perf counts them (the trigger event's section).
counts() {
	local name=$1 ours perf_s ours_l perf_l
	"$PMIPROF" report -i "$TMPD/$name.data" 2>/dev/null >"$TMPD/ours.txt"
	ours=$(sed -n 's/^# duration .*, \([0-9]*\) samples (windows).*/\1/p' "$TMPD/ours.txt")
	ours_l=$(tr '\n' ' ' <"$TMPD/ours.txt" | sed -n 's/.* shown after filters, lost \([0-9]*\).*/\1/p')
	perf_s=$(perf report -i "$TMPD/$name.data" --stdio --no-children -g none -n --sort comm \
		--no-group 2>/dev/null |
		awk '/^# Samples/ { sec++ } sec == 1 && $1 ~ /%$/ { s += $2 } END { print s + 0 }')
	perf_l=$(perf report -i "$TMPD/$name.data" --stdio --sort comm 2>/dev/null |
		sed -n 's/^# Total Lost Samples: \([0-9]*\).*/\1/p' | head -1)
	[ -n "$ours" ] && [ "$ours" = "$perf_s" ] && [ "${ours_l:-x}" = "${perf_l:-0}" ] \
		&& ok "$name: $ours samples, $ours_l lost, as perf report counts them" \
		|| not_ok "$name: samples and lost as perf report counts them" \
			"pmiprof $ours samples, lost $ours_l; perf $perf_s samples, lost $perf_l"
}

# children NAME: report --children against perf report --children (dso, symbol).
children() {
	local name=$1
	perf report -i "$TMPD/$name.data" --children --no-inline --stdio --sort dso,sym -g none \
		2>/dev/null >"$TMPD/perf.txt"
	"$PMIPROF" report -q -i "$TMPD/$name.data" --children --format csv >"$TMPD/ours.csv" 2>"$TMPD/ours.err"
	if python3 "$CMP" "$TMPD/perf.txt" "$TMPD/ours.csv" children 2 0.1 0.5 >"$TMPD/cmp"; then
		ok "$name: --children equals perf report --children within 0.1 point ($(grep -c '^ok' "$TMPD/cmp") values >= 0.5%)"
	else
		not_ok "$name: --children equals perf report --children within 0.1 point" \
			"$(grep -v '^ok' "$TMPD/cmp")" "$(head -3 "$TMPD/ours.err")"
	fi
}

# one NAME NEVENTS ARGS...: record, then every comparison (or skips naming why).
one() {
	local name=$1 nev=$2 by
	shift 2
	if ! record "$name" "$@"; then
		for by in dso symbol comm; do
			skip "$name: --by $by equals perf report" "perf record $* failed: $(head -1 "$TMPD/$name.err")"
		done
		return 1
	fi
	for by in dso symbol comm; do
		compare "$name" "$by" "$nev"
	done
	counts "$name"
}

one period 1 -e cpu-clock -c 100000 -- "$WORKLOADS/shares" 1
one freq 1 -e cpu-clock -F 2000 -- "$WORKLOADS/shares" 1
one zstd 1 -z -e cpu-clock -F 1500 -- "$WORKLOADS/shares" 1
one group 2 -e '{cpu-clock,task-clock}:S' -c 200000 -- "$WORKLOADS/shares" 1
one system 1 -a -e cpu-clock -c 500000 -- "$WORKLOADS/shares" 1
if one fp 1 -g -e cpu-clock -c 200000 -- "$WORKLOADS/callgraph" 1; then
	children fp
fi
if [ -x "$WORKLOADS/callgraph_nofp" ] &&
	one dwarf 1 --call-graph dwarf -e cpu-clock -c 500000 -- "$WORKLOADS/callgraph_nofp" 1; then
	children dwarf
fi

# --switch-events and -s (per-thread READ at exit): read, and said to be not used
if [ -x "$WORKLOADS/threads2" ] && one switch 1 --switch-events -s -e cpu-clock -c 300000 -- "$WORKLOADS/threads2"; then
	"$PMIPROF" report -i "$TMPD/switch.data" >/dev/null 2>"$TMPD/switch.msg"
	grep -q "perf records read but not used: READ [0-9]*, SWITCH [0-9]*" "$TMPD/switch.msg" \
		&& ok "switch: the SWITCH and READ records are counted and named" \
		|| not_ok "switch: the SWITCH and READ records are counted and named" "$(cat "$TMPD/switch.msg")"
fi

# -p: a running process, attached for a second
"$WORKLOADS/shares" 3 >/dev/null &
wpid=$!
sleep 0.3
one attach 1 -e cpu-clock -c 200000 -p "$wpid" -- sleep 1
kill "$wpid" 2>/dev/null
wait "$wpid" 2>/dev/null

# pipe mode: to a file, read as a file and through stdin; compressed too
if $REC -e cpu-clock -c 200000 -o - -- "$WORKLOADS/shares" 1 2>"$TMPD/pipe.err" >"$TMPD/pipe.data" &&
	[ -s "$TMPD/pipe.data" ]; then
	compare pipe dso 1
	compare pipe symbol 1 -
	counts pipe
else
	skip "pipe: perf record -o -" "failed: $(head -1 "$TMPD/pipe.err")"
fi
if $REC -z -e cpu-clock -c 200000 -o - -- "$WORKLOADS/shares" 1 2>"$TMPD/pipez.err" >"$TMPD/pipez.data" &&
	[ -s "$TMPD/pipez.data" ]; then
	compare pipez symbol 1
	counts pipez
else
	skip "pipez: perf record -z -o -" "failed: $(head -1 "$TMPD/pipez.err")"
fi
done_testing
