#!/usr/bin/env bash
# Per-call distributions: a constant-cost snippet measured 10,000 times has
# its mode and median (task-clock, empty-region cost subtracted) within 5%
# of its min; a snippet costing 1 or 4 units alternately shows a mode for
# each, about half the calls each, 4x apart.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
wl=$WORKLOADS/regions
# Timing on a shared VM: a busy moment (steal time counts as the task's
# time here) doubles a median, so up to 3 tries, each miss printed.
constant_ok() {
	"$PMIPROF" stat --regions --format csv -e task-clock -- "$wl" constant 10000 2>"$TMPD/c"
	read -r calls mn med mode < <(awk -F, '$1 == "constant" && $3 == "task-clock" { print $2, $6, $7, $8 }' "$TMPD/c")
	[ "${calls:-}" = 10000 ] || return 2
	awk -v a="${mn:-0}" -v m="${med:-0}" -v o="${mode:-0}" 'BEGIN { exit !(a > 0 && m <= a * 1.05 && o <= a * 1.05 && o >= a) }'
}
# Per-call timing needs a CPU to itself: after 3 misses on a machine whose
# load is at or above its CPU count (another suite, a build), the check is
# skipped with the load printed; on a quieter machine a miss fails.
loaded() { awk -v n="$(nproc)" '{ exit !($1 >= n) }' /proc/loadavg; }
load_now() { echo "load $(cut -d' ' -f1 /proc/loadavg) on $(nproc) CPUs"; }
tries=0 rc=0
until constant_ok; rc=$?; [ $rc = 0 ]; do
	tries=$((tries + 1))
	echo "# constant try $tries missed: min ${mn:-?} median ${med:-?} mode ${mode:-?}"
	[ $tries -lt 3 ] || break
done
[ "${calls:-}" = 10000 ] && ok "constant: 10000 calls" || not_ok "constant calls" "$(cat "$TMPD/c")"
if [ $rc = 0 ]; then
	ok "constant: median $med and mode $mode within 5% of min $mn"
elif loaded; then
	skip "constant: median/mode near min" "machine loaded ($(load_now)): per-call times smeared"
else
	not_ok "constant: median/mode near min" "$(cat "$TMPD/c")"
fi
# A timing measurement on a shared machine: a busy moment smears the modes, so
# up to 3 tries (each printed when it misses).
# The 4-unit calls may themselves split in two clusters ~15% apart (seen on
# this VM's host: 232k and 272k ns) and a mode counts only the calls near its
# peak (29-45% of 2000 for the 1-unit half here), so the check is: the
# cheapest mode holds at least a quarter of the calls, and modes 3.5-5.2x
# above it hold at least another quarter.
bimodal_ok() {
	"$PMIPROF" stat --regions -e task-clock -- "$wl" bimodal 2000 2>"$TMPD/b"
	line=$(awk '/^  region bimodal/ { f = 1 } f && /modes:/ { print; exit }' "$TMPD/b")
	printf '%s\n' "$line" | grep -o '[0-9]* ([0-9]*% of calls)' | tr -d '(%' |
		awk '{ v[NR] = $1; p[NR] = $2; if (!lo || $1 < lo) { lo = $1; plo = $2 } }
		END { for (i = 1; i <= NR; i++) if (v[i] / lo > 3.5 && v[i] / lo < 5.2) hi += p[i]
		      exit !(NR >= 2 && plo >= 25 && hi >= 25) }'
}
tries=0
until bimodal_ok; do
	tries=$((tries + 1))
	echo "# try $tries missed: ${line:-no modes line}"
	[ $tries -lt 3 ] || break
done
if [ $tries -lt 3 ]; then
	ok "bimodal: a 1-unit mode and 4-unit modes ~4x above it, each a quarter or more of the calls ($line)"
elif loaded; then
	skip "bimodal: two modes" "machine loaded ($(load_now)): per-call times smeared"
else
	not_ok "bimodal: two modes" "$(cat "$TMPD/b")"
fi
done_testing
