#!/usr/bin/env bash
# The hardware path (runs where `perf stat -e instructions true` works):
# default events stay instructions,cycles,cache-misses,branch-misses with
# -c 512000, windows are not time-based, the instruction deltas of the
# shares workload add up to perf stat's count within 10 %, and libpfm4
# names record.
. "$(dirname "$0")/../lib.sh"
have_perf_hw || skip_all "no hardware PMU here (perf stat -e instructions: not supported)"
"$PMIPROF" record -o "$TMPD/t.data" -- "$WORKLOADS/shares" -n 200 >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && ok "record with hardware events" || not_ok "record with hardware events" "$(cat "$TMPD/err")"
grep -q notice "$TMPD/err" && not_ok "no fallback notice" "$(cat "$TMPD/err")" || ok "no fallback notice"
"$PMIPROF" dump -i "$TMPD/t.data" >"$TMPD/dump" 2>&1
grep -q '^trigger:.*"instructions" period 512000' "$TMPD/dump" && ok "instructions every 512000" || not_ok "instructions every 512000" "$(grep ^trigger "$TMPD/dump")"
grep -q '^flags:.*time-based' "$TMPD/dump" && not_ok "event-based windows" || ok "event-based windows"
ours=$(grep ' sample ' "$TMPD/dump" | grep -o 'instructions=[0-9]*' | cut -d= -f2 | paste -sd+ | bc)
ref=$(perf stat -x, -e instructions -- "$WORKLOADS/shares" -n 200 2>&1 >/dev/null | awk -F, '/instructions/ { print $1 }')
perl -e 'exit(abs($ARGV[0] - $ARGV[1]) <= 0.1 * $ARGV[1] ? 0 : 1)' "${ours:-0}" "${ref:-1}" \
	&& ok "sum of window instructions ($ours) = perf stat ($ref) +- 10%" || not_ok "window instructions sum" "$ours vs $ref"
pfm=$(LIBPFM_ENCODE_INACTIVE=0 "$PMIPROF" list --pfm 2>/dev/null | awk '/::INST_RETIRED:ANY_P|::RETIRED_INSTRUCTIONS/ { print $1; exit }')
if [ -n "$pfm" ]; then
	"$PMIPROF" record -q -e "$pfm,cycles" -c 1M -o "$TMPD/p.data" -- "$WORKLOADS/shares" 0.2 >/dev/null 2>"$TMPD/err" \
		&& ok "record with libpfm4 event $pfm" || not_ok "record with libpfm4 event $pfm" "$(cat "$TMPD/err")"
else
	skip "record with a libpfm4 event" "no known retired-instructions name for this PMU"
fi
done_testing
