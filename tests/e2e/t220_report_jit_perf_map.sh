#!/usr/bin/env bash
# JIT code: jit_loop runs a generated loop from anonymous memory (RW then
# mprotect RX; the kernel names it //anon) and from a memfd mapped
# executable (/memfd:NAME (deleted)), naming it jitted_loop in
# /tmp/perf-PID.map.  The report must resolve it through the perf map:
# >= 90 % of the user-space samples (kernel time from preemption grows on
# a loaded machine, the user-space split does not), as perf report does for
# the anonymous case (cross-checked when perf can record here; perf 6.1
# leaves memfd code unresolved, so no cross-check for that one).  Also:
# --jit-dir, and a map file with malformed lines is parsed around them
# with a warning.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/jit_loop" ] || skip_all "workload jit_loop not built"
maps=()
trap 'rm -rf "$TMPD"; rm -f "${maps[@]}"' EXIT

# share NAME CSV: percent of the user-space samples (dso_path not [kernel...]
# nor a [module]) in rows whose symbol is NAME.
share() {
	awk -F, -v f="$1" 'NR > 1 && ($(NF - 1) !~ /^\[/ || $(NF - 1) == "[vdso]") {
		all += $1; if ($3 == f) s += $1 }
		END { printf "%.2f\n", all ? 100 * s / all : 0 }' "$2"
}

for variant in anon memfd; do
	arg=; [ $variant = memfd ] && arg=--memfd
	"$PMIPROF" record -q -o "$TMPD/$variant.data" -- "$WORKLOADS/jit_loop" 1 $arg \
		>"$TMPD/$variant.out" 2>"$TMPD/err"; rc=$?
	pid=$(sed -n 's/^pid //p' "$TMPD/$variant.out")
	[ -n "$pid" ] && maps+=("/tmp/perf-$pid.map")
	[ $rc -eq 0 ] && [ -n "$pid" ] && ok "$variant: record jit_loop" ||
		not_ok "$variant: record jit_loop" "$(cat "$TMPD/err")"
	"$PMIPROF" report -i "$TMPD/$variant.data" --format csv >"$TMPD/$variant.csv" 2>"$TMPD/rerr"
	pct=$(share jitted_loop "$TMPD/$variant.csv")
	awk -v p="$pct" 'BEGIN { exit !(p >= 90) }' && ok "$variant: jitted_loop has ${pct}% of user samples (>= 90)" ||
		not_ok "$variant: jitted_loop has ${pct}% of user samples (>= 90)" "$(head -5 "$TMPD/$variant.csv")"
	grep -q ",jitted_loop,perf-$pid.map,.*,/tmp/perf-$pid.map," "$TMPD/$variant.csv" &&
		ok "$variant: its dso is /tmp/perf-$pid.map" ||
		not_ok "$variant: its dso is /tmp/perf-$pid.map" "$(grep jitted "$TMPD/$variant.csv")"
done

# --jit-dir: the map moved elsewhere, with junk lines around the real one.
pid=$(sed -n 's/^pid //p' "$TMPD/anon.out")
mkdir "$TMPD/jit"
{ echo "not a map line"; echo "zz 10 bad_start"; echo "1000 0 zero_size"; echo "2000 10"
  cat "/tmp/perf-$pid.map"; printf 'ffffffffffffff00 1000 wraps\n'; } >"$TMPD/jit/perf-$pid.map"
rm -f "/tmp/perf-$pid.map"
"$PMIPROF" report -i "$TMPD/anon.data" --format csv >"$TMPD/nomap.csv" 2>"$TMPD/nomap.err"
pct=$(share jitted_loop "$TMPD/nomap.csv")
unk=$(awk -F, 'NR > 1 && ($(NF - 1) !~ /^\[/ || $(NF - 1) == "[vdso]") { all += $1
	if ($3 == "[unknown]" && $(NF - 1) == "//anon") s += $1 }
	END { printf "%.2f\n", all ? 100 * s / all : 0 }' "$TMPD/nomap.csv")
[ "$pct" = 0.00 ] && awk -v p="$unk" 'BEGIN { exit !(p >= 90) }' &&
	grep -q "^pmiprof: warning: //anon: .*/tmp/perf-PID.map" "$TMPD/nomap.err" &&
	ok "without the map file: [unknown] in //anon (${unk}%), with a note naming the map" ||
	not_ok "without the map file: [unknown] in //anon, with a note naming the map" "$pct% $unk%" \
		"$(head -3 "$TMPD/nomap.csv")" "$(cat "$TMPD/nomap.err")"
"$PMIPROF" report -i "$TMPD/anon.data" --jit-dir "$TMPD/jit" --format csv >"$TMPD/dir.csv" \
	2>"$TMPD/dir.err"; rc=$?
pct=$(share jitted_loop "$TMPD/dir.csv")
[ $rc -eq 0 ] && awk -v p="$pct" 'BEGIN { exit !(p >= 90) }' &&
	ok "--jit-dir finds the map among malformed lines (${pct}%)" ||
	not_ok "--jit-dir finds the map among malformed lines" "rc $rc, ${pct}%" "$(cat "$TMPD/dir.err")"
grep -q "5 malformed line(s) ignored" "$TMPD/dir.err" && ok "malformed lines counted in a warning" ||
	not_ok "malformed lines counted in a warning" "$(cat "$TMPD/dir.err")"

# Cross-check with perf on the anonymous variant.
if ! command -v perf >/dev/null; then
	skip "perf report also names jitted_loop" "perf not installed"
elif ! perf record -q -e cpu-clock -o "$TMPD/perf.data" -- "$WORKLOADS/jit_loop" 1 \
	>"$TMPD/perf.out" 2>"$TMPD/perr"; then
	skip "perf report also names jitted_loop" "perf record failed: $(head -1 "$TMPD/perr")"
else
	maps+=("/tmp/perf-$(sed -n 's/^pid //p' "$TMPD/perf.out").map")
	# Same measure from perf: jitted_loop's share of the user-space ([.]) rows.
	ppct=$(perf report -i "$TMPD/perf.data" --stdio --sort sym 2>/dev/null |
		awk '$1 ~ /%$/ && $2 == "[.]" { p = $1; sub(/%/, "", p); all += p
			if ($NF == "jitted_loop") s += p }
			END { if (s) printf "%.2f\n", 100 * s / all }')
	ours=$(share jitted_loop "$TMPD/anon.csv")
	awk -v a="$ours" -v b="${ppct:-}" 'BEGIN { exit !(b != "" && b >= 90 && a - b <= 5 && b - a <= 5) }' &&
		ok "perf report: jitted_loop ${ppct}% of user samples, pmiprof ${ours}% (within 5 points)" ||
		not_ok "perf report: jitted_loop ${ppct:-missing}% of user samples, pmiprof ${ours}% (within 5 points)"
fi
done_testing
