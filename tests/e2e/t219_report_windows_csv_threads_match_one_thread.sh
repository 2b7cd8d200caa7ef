#!/usr/bin/env bash
# report --windows --format csv writes the rows of a large trace from
# writer threads: its output is byte for byte that of the one-thread path
# (PMIPROF_JOBS=1) on real recordings, without and with filters (--pid,
# --tid, --comm, --time, --window, --symbol, --dso, --limit), with the
# region and stack columns, and with metric columns (a fixture's chunks
# repeated into a large trace).  Table and JSON output, and the flat
# profile, are the same too.  A small trace starts no thread.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/regions" ] && [ -x "$WORKLOADS/threads2" ] || skip_all "workloads not built"
[ "$(getconf _NPROCESSORS_ONLN)" -gt 1 ] || skip_all "one CPU: report runs one thread anyway"
# The writer thread starts after 8192 rows: the traces must hold well more.
MIN_ROWS=20000

# same "name" file args...: default output equals PMIPROF_JOBS=1 output
same() {
	local name=$1 file=$2; shift 2
	"$PMIPROF" report -i "$file" "$@" >"$TMPD/par" 2>"$TMPD/par.err"; local rc1=$?
	PMIPROF_JOBS=1 "$PMIPROF" report -i "$file" "$@" >"$TMPD/one" 2>"$TMPD/one.err"; local rc2=$?
	if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && cmp -s "$TMPD/par" "$TMPD/one" && [ -s "$TMPD/one" ]; then
		ok "$name: identical ($(wc -l <"$TMPD/one") lines)"
	else
		not_ok "$name" "rc $rc1/$rc2" "$(cmp "$TMPD/par" "$TMPD/one" 2>&1)" "$(head -3 "$TMPD/par.err")"
	fi
}
rows() { "$PMIPROF" report -i "$1" --windows --format csv 2>/dev/null | tail -n +2 | wc -l; }

# record_until out work cmd...: records cmd with WORK appended, doubling WORK
# (up to 3 times) until the trace has MIN_ROWS windows: a loaded machine
# samples less.  n = the windows.
record_until() {
	local out=$1 work=$2 try; shift 2
	for try in 1 2 3 4; do
		"$PMIPROF" record -q -F 50000 -o "$out" "$@" "$work" >/dev/null 2>"$TMPD/rec" ||
			{ not_ok "record $*" "$(cat "$TMPD/rec")"; done_testing; }
		n=$(rows "$out")
		[ "$n" -ge $MIN_ROWS ] && return
		work=$(awk -v w="$work" 'BEGIN { print w * 2 }')
	done
}

# 1. two busy threads, no stacks, no regions
p=$TMPD/p.data
record_until "$p" 1.5 -- "$WORKLOADS/threads2"
[ "$n" -ge $MIN_ROWS ] && ok "threads2: $n windows (>= $MIN_ROWS)" || not_ok "threads2 windows" "$n < $MIN_ROWS"
read -r pid tid < <("$PMIPROF" report -i "$p" --windows --format csv 2>/dev/null |
	awk -F, 'NR > 1 && $6 == "threads2" { c[$4 " " $5]++ } END { for (k in c) if (c[k] > m) { m = c[k]; b = k } print b }')
same "csv" "$p" --windows --format csv
same "csv --pid $pid" "$p" --windows --format csv --pid "$pid"
same "csv --tid $tid" "$p" --windows --format csv --tid "$tid"
same "csv --comm threads2" "$p" --windows --format csv --comm threads2
same "csv --time 0.2,1.2" "$p" --windows --format csv --time 0.2,1.2
same "csv --window 100-25000" "$p" --windows --format csv --window 100-25000
same "csv --symbol 'busy_*'" "$p" --windows --format csv --symbol 'busy_*'
same "csv --dso '[kernel*'" "$p" --windows --format csv --dso '[kernel*'
same "csv --limit 15000" "$p" --windows --format csv --limit 15000
same "table" "$p" --windows
same "json --tid $tid" "$p" --windows --format json --tid "$tid"
same "flat profile" "$p"
same "flat profile csv --time 0.2,1.2" "$p" --format csv --time 0.2,1.2

# 2. code regions and fp call stacks: the region and stack columns
g=$TMPD/g.data
record_until "$g" 250 -g -- "$WORKLOADS/regions" shares
hdr=$("$PMIPROF" report -i "$g" --windows --format csv 2>/dev/null | head -1)
[ "$n" -ge $MIN_ROWS ] && [[ $hdr == *,region,stack ]] && ok "regions -g: $n windows, region and stack columns" ||
	not_ok "regions -g" "$n windows" "$hdr"
same "csv region+stack" "$g" --windows --format csv
same "csv region+stack --region heavy" "$g" --windows --format csv --region heavy
same "csv region+stack --time 0.5,10 --symbol '*'" "$g" --windows --format csv --time 0.5,10 --symbol '*'
same "json region+stack --window 0-12000" "$g" --windows --format json --window 0-12000

# 3. metric columns (ipc, mpki): a fixture with hardware events, its chunks
# repeated (each chunk decodes on its own) into a trace of many windows
big_fixture() { # fixture copies out
	local hsize
	hsize=$(od -An -tu4 -j12 -N4 "$1" | tr -d ' ')
	tail -c +$((32 + hsize + 1)) "$1" >"$TMPD/body"
	{ cat "$1"; for _ in $(seq 2 "$2"); do cat "$TMPD/body"; done; } >"$3"
}
big_fixture "$PMIPROF_TOP/tests/fixtures/v13-stacks.pmiprof" 600 "$TMPD/m.data"
n=$(rows "$TMPD/m.data")
hdr=$("$PMIPROF" report -i "$TMPD/m.data" --windows --format csv 2>/dev/null | head -1)
[ "$n" -ge $MIN_ROWS ] && [[ $hdr == *,ipc,*stack ]] && ok "repeated v13-stacks: $n windows with metric and stack columns" ||
	not_ok "repeated fixture" "$n windows" "$hdr"
same "csv metrics+stack" "$TMPD/m.data" --windows --format csv
same "csv metrics+stack --window 5-30000" "$TMPD/m.data" --windows --format csv --window 5-30000
big_fixture "$PMIPROF_TOP/tests/fixtures/v14-regions.pmiprof" 2500 "$TMPD/r.data"
same "csv metrics+region" "$TMPD/r.data" --windows --format csv

# 4. threads only for large traces
if command -v strace >/dev/null; then
	"$PMIPROF" record -q -o "$TMPD/s.data" -- "$WORKLOADS/threads2" 0.2 >/dev/null 2>&1
	strace -f -qq -e trace=clone,clone3 -o "$TMPD/st.small" "$PMIPROF" report -i "$TMPD/s.data" --windows --format csv >/dev/null 2>&1
	strace -f -qq -e trace=clone,clone3 -o "$TMPD/st.big" "$PMIPROF" report -i "$p" --windows --format csv >/dev/null 2>&1
	strace -f -qq -e trace=clone,clone3 -o "$TMPD/st.one" env PMIPROF_JOBS=1 "$PMIPROF" report -i "$p" --windows --format csv >/dev/null 2>&1
	if [ "$(grep -c clone "$TMPD/st.small")" = 0 ] && [ "$(grep -c clone "$TMPD/st.big")" -ge 1 ] &&
	   [ "$(grep -v execve "$TMPD/st.one" | grep -c 'clone')" = 0 ]; then
		ok "a writer thread for the large trace only, none with PMIPROF_JOBS=1"
	else
		not_ok "threads" "small: $(cat "$TMPD/st.small")" "big: $(cat "$TMPD/st.big")" "one: $(cat "$TMPD/st.one")"
	fi
else
	skip "threads only for large traces" "strace not installed"
fi
done_testing
