#!/usr/bin/env bash
# System-wide samples the kernel takes on a task's exit path carry pid/tid
# -1 (u32 all ones in the trace): every report output prints -1, as perf
# does, never 4294967295 (--by tid / --by pid rows, --windows table, csv and
# json), and --tid -1 / --pid -1 select exactly those samples.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
"$PMIPROF" record -q -a -o "$TMPD/probe.data" -- true >/dev/null 2>&1 ||
	skip_all "system-wide recording (-a) not permitted here"

# processes that exit in a loop; a sample on an exit path is a matter of
# chance: up to 4 tries
for try in 1 2 3 4; do
	"$PMIPROF" record -q -a -F 20000 -o "$TMPD/a.data" -- \
		sh -c 'i=0; while [ $i -lt 400 ]; do /bin/true; i=$((i+1)); done' >/dev/null 2>"$TMPD/rec" ||
		{ not_ok "record -a" "$(cat "$TMPD/rec")"; done_testing; }
	"$PMIPROF" dump -i "$TMPD/a.data" >"$TMPD/dump" 2>/dev/null
	ntid=$(grep -c ' sample .* tid=4294967295 ' "$TMPD/dump")
	npid=$(grep -c ' sample .* pid=4294967295 ' "$TMPD/dump")
	[ "$ntid" -gt 0 ] && break
	echo "# try $try: no sample without a task; again"
done
if [ "$ntid" -eq 0 ]; then
	skip "tid -1 printed as -1" "no sample landed on an exit path in 4 recordings"
	done_testing
fi
echo "# $ntid samples with tid -1, $npid with pid -1"

"$PMIPROF" report -i "$TMPD/a.data" --by tid >"$TMPD/bytid" 2>/dev/null
"$PMIPROF" report -i "$TMPD/a.data" --by pid >"$TMPD/bypid" 2>/dev/null
"$PMIPROF" report -i "$TMPD/a.data" --by tid --format json >"$TMPD/bytid.json" 2>/dev/null
"$PMIPROF" report -i "$TMPD/a.data" --windows >"$TMPD/w.txt" 2>/dev/null
"$PMIPROF" report -i "$TMPD/a.data" --windows --format csv >"$TMPD/w.csv" 2>/dev/null
"$PMIPROF" report -i "$TMPD/a.data" --windows --format json >"$TMPD/w.json" 2>/dev/null
rows=$(awk '$1 ~ /^[0-9]+$/ && $8 == "-1" { print $1 }' "$TMPD/bytid")
[ "$rows" = "$ntid" ] && ok "--by tid: a row -1 of $ntid samples" ||
	not_ok "--by tid: a row -1 of $ntid samples" "$(grep -e ' -1 ' -e 4294967295 "$TMPD/bytid")"
grep -q '"tid": -1,' "$TMPD/bytid.json" && ok "--by tid json: \"tid\": -1" || not_ok "--by tid json" "$(grep -m2 -e 4294967295 "$TMPD/bytid.json")"
ncsv=$(awk -F, '$5 == "-1"' "$TMPD/w.csv" | wc -l)
njson=$(grep -c '"tid": -1,' "$TMPD/w.json")
ntxt=$(awk '$1 ~ /^[0-9]+$/ && $5 == "-1"' "$TMPD/w.txt" | wc -l)
[ "$ncsv" = "$ntid" ] && [ "$njson" = "$ntid" ] && [ "$ntxt" = "$ntid" ] &&
	ok "--windows table, csv, json: tid -1 on all $ntid windows" ||
	not_ok "--windows: tid -1" "csv $ncsv json $njson table $ntxt of $ntid"
if grep -qw 4294967295 "$TMPD/bytid" "$TMPD/bypid" "$TMPD/bytid.json" "$TMPD/w.txt" "$TMPD/w.csv" "$TMPD/w.json"; then
	not_ok "no 4294967295 in any report output" "$(grep -m3 -w 4294967295 "$TMPD/bytid" "$TMPD/bypid" \
		"$TMPD/bytid.json" "$TMPD/w.txt" "$TMPD/w.csv" "$TMPD/w.json")"
else
	ok "no 4294967295 in any report output"
fi

shown() { "$PMIPROF" report -i "$TMPD/a.data" "$@" 2>"$TMPD/f.err" | sed -n 's/.* \([0-9]*\) shown after filters.*/\1/p'; }
t1=$(shown --tid -1); t2=$(shown --tid 4294967295); p1=$(shown --pid -1)
[ "$t1" = "$ntid" ] && [ "$t2" = "$ntid" ] && ok "--tid -1 (and 4294967295): exactly the $ntid samples" ||
	not_ok "--tid -1" "shown $t1 / $t2 of $ntid" "$(cat "$TMPD/f.err")"
[ "$p1" = "$npid" ] && ok "--pid -1: exactly the $npid samples" || not_ok "--pid -1" "shown $p1 of $npid" "$(cat "$TMPD/f.err")"
done_testing
