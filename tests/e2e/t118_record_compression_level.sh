#!/usr/bin/env bash
# record -z N picks the zlib level of the trace chunks: -z 0 stores them
# (fastest to write and report), every level reads back the same way, and
# an out-of-range level is a usage error.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open of software events not permitted here"
for z in 0 1 9; do
	"$PMIPROF" record -q -z $z -o "$TMPD/z$z.data" -- "$WORKLOADS/shares" 0.5 >/dev/null 2>&1
	n=$("$PMIPROF" dump -i "$TMPD/z$z.data" 2>/dev/null | grep -c ' sample ')
	[ "$n" -gt 1000 ] && ok "-z $z trace reads back ($n samples)" || not_ok "-z $z trace reads back" "samples: $n"
	eval "n$z=$n"
done
bps() { awk -v b="$(stat -c %s "$1")" -v n="$2" 'BEGIN { printf "%.2f", b / n }'; }
b0=$(bps "$TMPD/z0.data" "$n0") b1=$(bps "$TMPD/z1.data" "$n1")
awk -v a="$b0" -v b="$b1" 'BEGIN { exit !(a > b) }' && ok "stored chunks take more bytes per sample ($b0) than level 1 ($b1)" || not_ok "stored chunks take more bytes per sample than level 1" "$b0 vs $b1"
"$PMIPROF" record -z 10 -o "$TMPD/bad.data" -- true >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 2 ] && grep -q 'compression-level' "$TMPD/err" && ok "-z 10: usage error naming the option" || not_ok "-z 10: usage error naming the option" "rc=$rc" "$(cat "$TMPD/err")"
done_testing
