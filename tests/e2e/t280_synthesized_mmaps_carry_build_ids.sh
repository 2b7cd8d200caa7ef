#!/usr/bin/env bash
# A process running before the recording starts (record -p, record -a, each
# daemon segment) gets MMAP records synthesized from /proc/PID/maps; they
# carry the mapped file's build-id, read from the very file mapped.  So when
# the program is rebuilt at the same path before the report runs, its old
# samples are not named after the new build's functions: the report finds
# another build-id, says so and shows [unknown] rows (before, it trusted the
# path and named them after whatever the new file has at those offsets).
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v readelf >/dev/null || skip_all "readelf not installed"
cc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$TMPD/prog" "$PMIPROF_TOP/tests/workloads/shares.c" ||
	skip_all "cannot compile the shares workload"
build_id() { readelf -n "$1" | awk '/Build ID:/ { print $3 }'; }
want=$(build_id "$TMPD/prog")

"$TMPD/prog" 2 >/dev/null &
wp=$!
sleep 0.3	# running, mapped, before the recording
"$PMIPROF" record -q --no-buildid-cache -p "$wp" -o "$TMPD/p.data" 2>"$TMPD/rec" || { not_ok "record -p" "$(cat "$TMPD/rec")"; done_testing; }
wait "$wp"
"$PMIPROF" dump -i "$TMPD/p.data" >"$TMPD/dump" 2>&1
got=$(grep " mmap .*path=\"$TMPD/prog\"" "$TMPD/dump" | sed -n 's/.* build-id=\([0-9a-f]*\) .*/\1/p' | sort -u)
[ -n "$want" ] && [ "$got" = "$want" ] && ok "the synthesized MMAP of a running program carries its build-id ($want)" ||
	not_ok "synthesized MMAP build-id" "want $want, got '$got': $(grep " mmap .*prog" "$TMPD/dump" | head -3)"
"$PMIPROF" report -i "$TMPD/p.data" --format csv >"$TMPD/before.csv" 2>/dev/null
grep -q ',work_a,' "$TMPD/before.csv" && ok "named while the file is the recorded one (work_a)" ||
	not_ok "named before the rebuild" "$(head -5 "$TMPD/before.csv")"

# rebuilt at the same path, with other code at the old offsets
cc -O0 -g -fno-omit-frame-pointer -DSHARES_REBUILT -o "$TMPD/prog.new" "$PMIPROF_TOP/tests/workloads/shares.c"
mv "$TMPD/prog.new" "$TMPD/prog"
[ "$(build_id "$TMPD/prog")" != "$want" ] || skip_all "the rebuild has the same build-id"
"$PMIPROF" report -i "$TMPD/p.data" --format csv >"$TMPD/after.csv" 2>"$TMPD/after.err"
named=$(awk -F, -v p="$TMPD/prog" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["dso_path"] == p && $c["symbol"] !~ /^\[unknown\]/ { print $c["symbol"] " " $c["percent"] "%" }' "$TMPD/after.csv" | tr '\n' ' ')
[ -z "$named" ] && ok "after the rebuild, no sample of the old build named after the new file" ||
	not_ok "old samples named after the new build" "$named"
grep -Eq 'another build-id than the recorded|other build-ids than the recorded' "$TMPD/after.err" && ok "the report says the file found has another build-id" ||
	not_ok "build-id mismatch warned" "$(cat "$TMPD/after.err")"
done_testing
