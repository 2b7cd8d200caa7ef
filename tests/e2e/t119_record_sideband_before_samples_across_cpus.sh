#!/usr/bin/env bash
# The exec side-band of a process can sit in one CPU's perf ring while its
# samples sit in another's.  The recorder merges the rings by time, so every
# sample follows the MMAP that explains it and none is left [unknown]:
# migrate_spin is exec'd on CPU 1 (the recorder is pinned there), then moves
# to CPU 0, whose ring is drained first.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open of software events not permitted here"
[ "$(nproc)" -ge 2 ] || skip_all "needs 2 CPUs"
command -v taskset >/dev/null || skip_all "taskset (util-linux) missing"
taskset -c 1 "$PMIPROF" record -q -o "$TMPD/t.data" -- "$WORKLOADS/migrate_spin" 1 >/dev/null 2>"$TMPD/err" &&
	ok "record of a process that migrates after exec" || not_ok "record of a process that migrates after exec" "$(cat "$TMPD/err")"
# No --comm filter: a sample read before its process's COMM has no name yet.
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/r.csv" 2>/dev/null
unk=$(awk -F, '$4 == "[unknown]" { s += $1 } END { print s + 0 }' "$TMPD/r.csv")
spin=$(awk -F, '$3 == "migrated_spin" { print $2 }' "$TMPD/r.csv")
[ -n "$spin" ] && [ "$unk" -eq 0 ] && ok "no sample outside every mapping ([unknown] DSO)" || not_ok "no sample outside every mapping ([unknown] DSO)" "$(head -5 "$TMPD/r.csv")"
awk -v p="${spin:-0}" 'BEGIN { exit !(p > 90) }' && ok "migrated_spin holds ${spin}% of the samples" ||
	not_ok "migrated_spin holds over 90% of the samples" "$(head -5 "$TMPD/r.csv")"
done_testing
