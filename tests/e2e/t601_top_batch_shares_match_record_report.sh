#!/usr/bin/env bash
# pmiprof top --batch on a workload with 50/30/20 % shares by construction
# (tests/workloads/shares), while `pmiprof record` records the same process:
# --batch -n 3 --format csv gives three tables; each gives work_a/b/c within
# 5 points of 50/30/20; their sum agrees with `report` of the recording
# within 3 points; --format json parses with the same rows; --by process
# shows the workload's pid; a workload that ends first ends top with its
# status and a last refresh.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (perf events on another process)"
have_perf_sw || skip_all "perf_event_open not usable here"

"$WORKLOADS/shares" 30 >/dev/null &
wl=$!
"$PMIPROF" record -q -F 2000 -e cpu-clock -p "$wl" -o "$TMPD/t.data" 2>"$TMPD/rec.err" &
rec=$!
sleep 0.5
"$PMIPROF" top -p "$wl" -e cpu-clock -F 2000 --by function --batch -n 3 -d 2 --format csv \
	>"$TMPD/top.csv" 2>"$TMPD/err"; rc=$?
kill -INT "$rec"; wait "$rec"
[ $rc -eq 0 ] && ok "top --batch -n 3 --format csv exits 0" || not_ok "top --batch" "$(cat "$TMPD/err")"

python3 - "$TMPD/top.csv" >"$TMPD/shares" <<'PY'
import csv, sys
tables = [t for t in open(sys.argv[1]).read().split('\n\n') if t.strip()]
print(len(tables))
tot = {}
for t in tables:
    rows = list(csv.DictReader(t.splitlines()))
    n = sum(int(r['samples']) for r in rows)
    s = {r['name']: int(r['samples']) for r in rows}
    print(' '.join('%.2f' % (100.0 * s.get(f, 0) / max(n, 1)) for f in ('work_a', 'work_b', 'work_c')), n)
    for f, k in s.items():
        tot[f] = tot.get(f, 0) + k
n = sum(tot.values())
print(' '.join('%.2f' % (100.0 * tot.get(f, 0) / max(n, 1)) for f in ('work_a', 'work_b', 'work_c')), n)
PY
{ read -r ntables; for i in 1 2 3; do read -r a[$i] b[$i] c[$i] n[$i]; done; read -r ta tb tc tn; } <"$TMPD/shares"
[ "$ntables" = 3 ] && ok "three CSV tables" || not_ok "three CSV tables" "$(cat "$TMPD/top.csv")"
for i in 1 2 3; do
	echo "# refresh $i: work_a ${a[$i]} %, work_b ${b[$i]} %, work_c ${c[$i]} % of ${n[$i]} samples"
	perl -e 'exit(abs($ARGV[0]-50) <= 5 && abs($ARGV[1]-30) <= 5 && abs($ARGV[2]-20) <= 5 ? 0 : 1)' \
		"${a[$i]}" "${b[$i]}" "${c[$i]}" && ok "refresh $i: 50/30/20 within 5 points" ||
		not_ok "refresh $i: 50/30/20 within 5 points" "${a[$i]} ${b[$i]} ${c[$i]}"
done

"$PMIPROF" report -i "$TMPD/t.data" -f csv >"$TMPD/report.csv" 2>/dev/null
python3 - "$TMPD/report.csv" >"$TMPD/rep" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith('#'))]
s = {r['symbol']: int(r['samples']) for r in rows}
n = sum(s.values())
print(' '.join('%.2f' % (100.0 * s.get(f, 0) / max(n, 1)) for f in ('work_a', 'work_b', 'work_c')), n)
PY
read -r ra rb rc rn <"$TMPD/rep"
echo "# top's 3 refreshes: $ta/$tb/$tc of $tn samples; record + report: $ra/$rb/$rc of $rn"
perl -e 'exit(abs($ARGV[0]-$ARGV[3]) <= 3 && abs($ARGV[1]-$ARGV[4]) <= 3 && abs($ARGV[2]-$ARGV[5]) <= 3 ? 0 : 1)' \
	"$ta" "$tb" "$tc" "$ra" "$rb" "$rc" && ok "top's shares = record + report's within 3 points" ||
	not_ok "top = record + report" "top $ta/$tb/$tc, report $ra/$rb/$rc"

"$PMIPROF" top -p "$wl" -F 1000 --batch -n 1 -d 1 --format json >"$TMPD/top.json" 2>"$TMPD/err"
python3 - "$TMPD/top.json" "$wl" <<'PY' && ok "--format json: one object per refresh, the workload's pid" || not_ok "--format json" "$(cat "$TMPD/top.json" "$TMPD/err")"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(objs) == 1 and objs[0]['refresh'] == 1 and objs[0]['by'] == 'process'
row = objs[0]['rows'][0]
assert row['key'] == int(sys.argv[2]) and row['name'] == 'shares' and row['percent'] == 100.0
assert 'cpu-clock' in row['rates'] and objs[0]['time_based'] in (True, False)
PY
"$PMIPROF" top -p "$wl" -F 1000 --batch -n 1 -d 1 >"$TMPD/top.txt" 2>"$TMPD/err"
grep -Eq "^ +$wl +[0-9]+ +100.00 .* shares$" "$TMPD/top.txt" && ok "--batch table: the process row" ||
	not_ok "--batch table" "$(cat "$TMPD/top.txt")"
kill "$wl"; wait "$wl" 2>/dev/null

# A workload that ends before -n N: top ends with its status, after a last refresh.
"$PMIPROF" top --batch -n 100 -d 1 -F 1000 --format csv -- sh -c "$WORKLOADS/shares 1.5; exit 3" \
	>"$TMPD/end.csv" 2>"$TMPD/err"; rc=$?
nt=$(grep -c '^refresh,' "$TMPD/end.csv")
[ $rc -eq 3 ] && [ "$nt" -ge 2 ] && ok "a workload that ends first: its status (3), $nt refreshes" ||
	not_ok "workload ends first" "rc $rc, $nt tables; $(cat "$TMPD/err")"
done_testing
