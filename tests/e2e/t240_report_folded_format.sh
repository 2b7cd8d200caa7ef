#!/usr/bin/env bash
# report --format folded: Brendan Gregg's folded stacks as a format (each line
# "frame;...;frame COUNT", no empty frame, integer counts), counts summing to
# the samples (or to an event's sum with --value), leaves named and counted
# as the flat report's functions; traces without stacks and bad options say so.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"
"$PMIPROF" record -q -g -o "$TMPD/g.data" -- "$WORKLOADS/shares" 0.5 >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record -g" "$(cat "$TMPD/err")"; done_testing; }

"$PMIPROF" report -q -i "$TMPD/g.data" --format folded >"$TMPD/f.txt" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && [ -s "$TMPD/f.txt" ] && ok "folded exits 0 with output" \
	|| not_ok "folded exits 0 (rc $rc)" "$(cat "$TMPD/err")"
bad=$(awk '{
	n = split($0, w, " "); cnt = w[n]; stack = substr($0, 1, length($0) - length(cnt) - 1)
	if (cnt !~ /^[1-9][0-9]*$/ || stack == "") { print NR": "$0; next }
	m = split(stack, fr, ";"); for (i = 1; i <= m; i++) if (fr[i] == "") { print NR": "$0; next }
}' "$TMPD/f.txt" | head -3)
[ -z "$bad" ] && ok "every line is 'frames COUNT', frames split by ';', none empty" \
	|| not_ok "folded line format" "$bad"
dups=$(awk '{ $NF = ""; print }' "$TMPD/f.txt" | sort | uniq -d | head -3)
[ -z "$dups" ] && ok "each stack on one line" || not_ok "each stack on one line" "$dups"

# The flat report of the same trace: samples and task-clock per function.
"$PMIPROF" report -q -i "$TMPD/g.data" --format csv >"$TMPD/flat.csv" 2>"$TMPD/err" \
	|| not_ok "flat csv" "$(cat "$TMPD/err")"
col() { head -1 "$TMPD/flat.csv" | tr ',' '\n' | grep -n -x "$1" | cut -d: -f1; }
tc=$(col task-clock)
total=$(awk -F, 'NR > 1 { s += $1 } END { print s }' "$TMPD/flat.csv")
sum=$(awk '{ s += $NF } END { print s }' "$TMPD/f.txt")
[ "$sum" = "$total" ] && ok "counts sum to the samples ($sum)" \
	|| not_ok "counts sum to the samples" "folded $sum, flat report $total"

# Leaves are the flat report's functions with its counts (kernel frames carry _[k]).
awk '{ n = split($0, w, " "); cnt = w[n]; stack = substr($0, 1, length($0) - length(cnt) - 1)
       m = split(stack, fr, ";"); leaf = fr[m]; sub(/_\[k\]$/, "", leaf); c[leaf] += cnt }
     END { for (l in c) print l "\t" c[l] }' "$TMPD/f.txt" | sort >"$TMPD/leaf.txt"
# (the CSV quotes names with commas; shares' names have none)
awk -F, 'NR > 1 { c[$3] += $1 } END { for (l in c) print l "\t" c[l] }' "$TMPD/flat.csv" \
	| sort >"$TMPD/flatleaf.txt"
diff "$TMPD/leaf.txt" "$TMPD/flatleaf.txt" >"$TMPD/d" && ok "leaf counts equal the flat report's per function" \
	|| not_ok "leaf counts equal the flat report's" "$(head -5 "$TMPD/d")"
grep -q ';main;\(.*;\)\{0,1\}work_a [0-9]*$' "$TMPD/f.txt" && grep -q ';main;\(.*;\)\{0,1\}work_b [0-9]*$' "$TMPD/f.txt" \
	&& ok "work_a and work_b under main" || not_ok "work_a and work_b under main" "$(head -5 "$TMPD/f.txt")"

"$PMIPROF" report -q -i "$TMPD/g.data" --format folded --value task-clock -o "$TMPD/v.txt" 2>"$TMPD/err"
vsum=$(awk '{ s += $NF } END { print s }' "$TMPD/v.txt")
vtotal=$(awk -F, -v c="$tc" 'NR > 1 { s += $c } END { printf "%d\n", s }' "$TMPD/flat.csv")
[ -n "$tc" ] && [ "$vsum" = "$vtotal" ] && ok "--value task-clock: counts sum to the flat report's task-clock ($vsum)" \
	|| not_ok "--value task-clock sum" "folded $vsum, flat $vtotal $(cat "$TMPD/err")"

"$PMIPROF" report -i "$TMPD/g.data" --format folded --value nonesuch >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 2 ] && grep -q 'valid values: samples' "$TMPD/err" && ok "--value of an unrecorded event: exit 2 listing the events" \
	|| not_ok "--value nonesuch (rc $rc)" "$(cat "$TMPD/err")"
"$PMIPROF" report -i "$TMPD/g.data" --format folded --windows >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 2 ] && ok "--format folded with --windows: usage error" || not_ok "folded --windows (rc $rc)" "$(cat "$TMPD/err")"

"$PMIPROF" record -q -o "$TMPD/flat.data" -- "$WORKLOADS/shares" 0.2 >/dev/null 2>&1
"$PMIPROF" report -i "$TMPD/flat.data" --format folded >"$TMPD/o" 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && [ ! -s "$TMPD/o" ] && grep -q 'has no call stacks (record with .pmiprof record -g' "$TMPD/err" \
	&& ok "trace without stacks: exit 1, says to record with -g" \
	|| not_ok "trace without stacks (rc $rc)" "$(cat "$TMPD/err")"
done_testing
