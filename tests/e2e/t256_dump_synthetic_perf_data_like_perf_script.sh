#!/usr/bin/env bash
# The synthetic perf.data files of tests/unit/test_perf_data.c (written by
# tests/unit/perf_gen.c after perf's documented layout, file and pipe mode:
# a {cpu-clock,task-clock} group read, a callchain, MMAP2 in both forms, a
# LOST) are read by perf itself and by pmiprof alike: every sample's
# (ip, event, period) of `perf script` equals what `pmiprof dump` decoded
# (perf prints one line per group member with a non-zero change), and the
# MMAP2 paths, build-ids and LOST counts too.  This checks the writer the
# unit test relies on against perf, and the reader against perf's decoding.
. "$(dirname "$0")/../lib.sh"
command -v perf >/dev/null || skip_all "perf not installed (linux-perf)"
T=$PMIPROF_BUILD/tests/test_perf_data
[ -x "$T" ] || skip_all "build/tests/test_perf_data not built"
PMIPROF_PERF_GEN_DIR=$TMPD "$T" >"$TMPD/unit.log" 2>&1 \
	|| { not_ok "test_perf_data writes the synthetic files" "$(tail -5 "$TMPD/unit.log")"; done_testing; }
for f in synthetic synthetic-pipe; do
	data=$TMPD/$f.data
	[ -s "$data" ] || { not_ok "$f.data written"; continue; }
	# perf: "tid time: period event: ip" per delivered sample
	perf script -i "$data" -F ip,period,event -G 2>/dev/null |
		awk 'NF >= 3 { ev = $2; sub(/:$/, "", ev); printf "%s %s %s\n", $NF, ev, $1 }' >"$TMPD/perf.s"
	"$PMIPROF" dump -i "$data" >"$TMPD/dump" 2>"$TMPD/err"
	awk '$2 == "sample" { ip = ""; for (i = 3; i <= NF; i++) { split($i, kv, "=");
		if (kv[1] == "ip") { ip = kv[2]; sub(/^0x/, "", ip) }
		else if (kv[1] !~ /^(cpu|pid|tid|flags|stack)$/ && kv[2] != 0) printf "%s %s %s\n", ip, kv[1], kv[2] } }' \
		"$TMPD/dump" >"$TMPD/ours.s"
	n=$(wc -l <"$TMPD/perf.s")
	if [ "$n" -gt 0 ] && cmp -s "$TMPD/perf.s" "$TMPD/ours.s"; then
		ok "$f: $n (ip, event, period) of perf script equal pmiprof dump's"
	else
		not_ok "$f: (ip, event, period) of perf script equal pmiprof dump's" \
			"perf: $(tr '\n' ';' <"$TMPD/perf.s")" "ours: $(tr '\n' ';' <"$TMPD/ours.s")" \
			"$(head -3 "$TMPD/err")"
	fi
	perf script -i "$data" -F tid --show-mmap-events 2>/dev/null |
		sed -n 's/.*PERF_RECORD_MMAP2 .*<\([0-9a-f]*\)>.* \(\/[^ ]*\)$/\2 \1/p' >"$TMPD/perf.m"
	grep -q "build-id=aa0102030405060708090a0b0c0d0e0f10111213 path=\"/bin/work\"" "$TMPD/dump" &&
		grep -qx "/bin/work aa0102030405060708090a0b0c0d0e0f10111213" "$TMPD/perf.m" \
		&& ok "$f: MMAP2 build-id form: same path and build-id as perf script" \
		|| not_ok "$f: MMAP2 build-id form: same path and build-id as perf script" \
			"perf: $(cat "$TMPD/perf.m")" "$(grep ' mmap ' "$TMPD/dump")"
	pl=$(perf script -i "$data" -F tid --show-lost-events 2>/dev/null | sed -n 's/.*PERF_RECORD_LOST lost \([0-9]*\).*/\1/p')
	ol=$(awk '$2 == "lost" && $4 == "reason=1(ring-full)" { sub(/count=/, "", $5); print $5; exit }' "$TMPD/dump")
	[ -n "$pl" ] && [ "$pl" = "$ol" ] && ok "$f: LOST of $pl as perf script shows it" \
		|| not_ok "$f: LOST as perf script shows it" "perf '$pl' pmiprof '$ol'"
done
done_testing
