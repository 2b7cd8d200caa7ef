#!/usr/bin/env bash
# pmiprof phases on programs that do one thing (a single hot loop calling
# clock_gettime, a fixed 50/30/20 mix, a library loop): one phase, plus at
# most a start-up phase that lies in the first intervals only.  At short
# intervals the BIC alone split the loop on noise (a "phase" of scattered
# intervals with the same top functions); such phases are merged and the
# table says so.  The 3-phase workload keeps its 3 phases (t272).
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
# phases of a csv: "k first_interval_of_each_phase_but_the_largest..." checked in awk
steady() {	# NAME DATA INTERVAL
	local args=() out
	[ "$3" != 0 ] && args=(--interval "$3")
	"$PMIPROF" phases -i "$2" "${args[@]}" --format csv >"$TMPD/csv" 2>"$TMPD/err" ||
		{ not_ok "$1 --interval $3: phases runs" "$(cat "$TMPD/err")"; return; }
	# every phase but the biggest must end by interval 2 (start-up), at most one such
	out=$(awk -F, 'NR > 1 { n[$4]++; last[$4] = $1 } END {
		big = ""; for (p in n) if (big == "" || n[p] > n[big]) big = p
		k = 0; bad = 0; for (p in n) { k++; if (p != big && last[p] > 2) bad = 1 }
		print k, bad }' "$TMPD/csv")
	set -- "$1" "$2" "$3" $out
	if [ "$4" = 1 ] || { [ "$4" = 2 ] && [ "$5" = 0 ]; }; then
		ok "$1 --interval $3: one phase$([ "$4" = 2 ] && echo ' (plus start-up)')"
	else
		not_ok "$1 --interval $3: one phase (plus start-up at most)" "$4 phases" \
			"$("$PMIPROF" phases -i "$2" "${args[@]}" 2>&1 | grep -E '^# k|^ +[0-9]+ +[0-9.]+%|top:')" \
			"labels: $(awk -F, 'NR > 1 { printf "%s", $4 }' "$TMPD/csv")"
	fi
}
for wl in "sigcount 2" "shares 2" "pie_libcall 3000" "migrate_spin 2"; do
	set -- $wl
	[ -x "$WORKLOADS/$1" ] || { skip "$1" "workload not built"; continue; }
	"$PMIPROF" record -q -o "$TMPD/$1.data" -- "$WORKLOADS/$@" >/dev/null 2>"$TMPD/rerr" ||
		{ not_ok "record $1" "$(cat "$TMPD/rerr")"; continue; }
	for iv in 0 100 200; do
		steady "$1" "$TMPD/$1.data" $iv
	done
done
"$PMIPROF" phases --help 2>&1 | grep -q 'are merged' &&
	ok "phases --help tells about merging" || not_ok "phases --help tells about merging"
done_testing
