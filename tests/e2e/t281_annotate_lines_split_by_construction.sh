#!/usr/bin/env bash
# annotate on a workload whose work() spends 3:1 on two source lines by
# construction (tests/workloads/annotate_lines.c: LINE_A in work() itself,
# LINE_H in mix(), an always-inlined helper): --by line gives 75/25 within
# 3 points, the helper's line carries the samples of its code inside work()
# with the inline chain, per-instruction rows add up to the function, a
# stripped copy of the binary (found with --symfs, same build-id) gives the
# same per-instruction counts without lines, and the outputs parse.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v strip >/dev/null || skip_all "binutils (strip) not installed"
bin=$WORKLOADS/annotate_lines
src=$PMIPROF_TOP/tests/workloads/annotate_lines.c
la=$(grep -n 'LINE_A' "$src" | tail -1 | cut -d: -f1)
lh=$(grep -n 'LINE_H' "$src" | tail -1 | cut -d: -f1)
# --no-buildid-cache: the stripped-copy check below reads the trace through
# --symfs (a lookup behind the build-id cache); a cached original of the same
# build-id would be found first and give lines.
"$PMIPROF" record -q --no-buildid-cache -o "$TMPD/t.data" -- "$bin" -n 300 >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && ok "record annotate_lines" || not_ok "record annotate_lines" "$(cat "$TMPD/err")"

"$PMIPROF" annotate -i "$TMPD/t.data" work --by line -f csv >"$TMPD/lines.csv" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && ok "annotate --by line csv" || not_ok "annotate --by line csv" "$(cat "$TMPD/err")"
head -1 "$TMPD/lines.csv" | grep -q '^function,dso,source_file,source_line,inline,samples,percent,cpu-clock,' &&
	ok "line CSV heading" || not_ok "line CSV heading" "$(head -1 "$TMPD/lines.csv")"
python3 - "$TMPD/lines.csv" "$la" "$lh" >"$TMPD/split" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
la, lh = int(sys.argv[2]), int(sys.argv[3])
a = sum(int(r['samples']) for r in rows if int(r['source_line']) == la)
h = [r for r in rows if int(r['source_line']) == lh]
hs = sum(int(r['samples']) for r in h)
inl = h[0]['inline'] if h else ''
src = h[0]['source'] if h else ''
print(a, hs, 100.0 * a / max(a + hs, 1), inl.replace(' ', '_') or '-', 'LINE_H' in src)
PY
read -r a h share inl srcok <"$TMPD/split"
echo "# LINE_A $a samples, LINE_H $h samples: LINE_A share $share % (expect 75), inline chain '$inl'"
perl -e 'exit(abs($ARGV[0] - 75) <= 3 ? 0 : 1)' "$share" && ok "line split $share % = 75 +- 3" ||
	not_ok "line split $share % = 75 +- 3" "$a / $h"
[ "${h:-0}" -gt 500 ] && ok "the inlined helper's line carries its samples ($h)" || not_ok "inlined helper's line has samples" "$h"
case "$inl" in mix_\(annotate_lines.c:*\)) ok "the helper's line names its inline chain ($inl)" ;;
	*) not_ok "inline chain of LINE_H" "$inl" ;; esac
[ "$srcok" = True ] && ok "the source text is beside the line" || not_ok "source text" "$(cat "$TMPD/lines.csv")"

# report --sort srcline (perf's spelling) has the same per-line counts.
"$PMIPROF" report -i "$TMPD/t.data" --sort srcline -f csv >"$TMPD/srcline.csv" 2>/dev/null
python3 - "$TMPD/srcline.csv" "$TMPD/lines.csv" <<'PY' && ok "report --sort srcline: annotate --by line's counts" || not_ok "report --sort srcline" "$(head -5 "$TMPD/srcline.csv")"
import csv, sys
rep = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith('#'))]
got = {r['srcline'].rsplit(':', 1)[1]: int(r['samples']) for r in rep if r['symbol'] == 'work' and r['srcline']}
ann = {r['source_line']: int(r['samples']) for r in csv.DictReader(open(sys.argv[2])) if int(r['samples'])}
sys.exit(0 if got == ann and ann else 1)
PY
"$PMIPROF" report -i "$TMPD/t.data" --by line -f csv 2>/dev/null | grep -v '^#' >"$TMPD/byline.csv"
grep -v '^#' "$TMPD/srcline.csv" | cmp -s - "$TMPD/byline.csv" && [ -s "$TMPD/byline.csv" ] &&
	ok "report --by line = --sort srcline" || not_ok "report --by line" "$(head -3 "$TMPD/byline.csv")"

# Instruction rows: every sampled address is one row, and they add up to the function.
"$PMIPROF" annotate -i "$TMPD/t.data" work -f csv >"$TMPD/insn.csv" 2>"$TMPD/err"
"$PMIPROF" report -i "$TMPD/t.data" -f csv --symbol work >"$TMPD/report.csv" 2>/dev/null
python3 - "$TMPD/insn.csv" "$TMPD/report.csv" >"$TMPD/sum" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
rep = [r for r in csv.DictReader(l for l in open(sys.argv[2]) if not l.startswith('#'))]
tot = sum(int(r['samples']) for r in rows)
want = sum(int(r['samples']) for r in rep if r['symbol'] == 'work')
addrs = [int(r['address'], 16) for r in rows]
print(tot, want, int(addrs == sorted(addrs)), int(all(r['instruction'] for r in rows)))
PY
read -r tot want sorted named <"$TMPD/sum"
[ "$tot" = "$want" ] && [ "$tot" -gt 0 ] && ok "instruction rows sum to the report's samples of work ($tot)" ||
	not_ok "instruction rows sum" "$tot != $want"
[ "$sorted" = 1 ] && [ "$named" = 1 ] && ok "rows in address order, each with its instruction" ||
	not_ok "rows ordered and disassembled" "$(head -5 "$TMPD/insn.csv")"
grep -q ' -> +0x[0-9a-f]* (back)' <("$PMIPROF" annotate -i "$TMPD/t.data" work 2>/dev/null) &&
	ok "the loop's back-edge is labelled" || not_ok "back-edge label"

# The same trace read through a stripped copy of the binary (same build-id).
mkdir -p "$TMPD/root$(dirname "$bin")"
strip --strip-all -o "$TMPD/root$bin" "$bin"
"$PMIPROF" annotate -i "$TMPD/t.data" --symfs "$TMPD/root" -f csv -n 1 >"$TMPD/stripped.csv" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && ok "annotate through a stripped copy" || not_ok "annotate stripped" "$(cat "$TMPD/err")"
python3 - "$TMPD/insn.csv" "$TMPD/stripped.csv" >"$TMPD/cmp" <<'PY'
import csv, sys
full = {r['address']: int(r['samples']) for r in csv.DictReader(open(sys.argv[1])) if int(r['samples'])}
rows = list(csv.DictReader(open(sys.argv[2])))
strip = {r['address']: int(r['samples']) for r in rows if int(r['samples'])}
print(int(full == strip), int(all(not r['source_file'] for r in rows)), rows[0]['function'].replace(' ', '_') if rows else '-')
PY
read -r same nolines fn <"$TMPD/cmp"
[ "$same" = 1 ] && ok "stripped: the same per-instruction counts ($fn)" || not_ok "stripped per-instruction counts" "$(head -5 "$TMPD/stripped.csv")"
[ "$nolines" = 1 ] && ok "stripped: instructions without lines" || not_ok "stripped has no lines"

# JSON parses and has the same rows; -M intel; a missing source is said once.
"$PMIPROF" annotate -i "$TMPD/t.data" work -f json -M intel >"$TMPD/a.json" 2>/dev/null
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = d["functions"][0]
assert f["function"] == "work" and d["syntax"] == "intel", f["function"]
assert any(i["instruction"].startswith("add rax") for i in f["instructions"]), f["instructions"]
assert sum(i["samples"] for i in f["instructions"]) == f["samples"]
' "$TMPD/a.json" && ok "JSON parses, Intel syntax, rows sum to the function" || not_ok "JSON" "$(head -c 600 "$TMPD/a.json")"
"$PMIPROF" annotate -i "$TMPD/t.data" work >/dev/null 2>"$TMPD/err"
[ ! -s "$TMPD/err" ] && ok "sources found at their recorded path: no warning" || not_ok "no source warning" "$(cat "$TMPD/err")"

# A program whose source moved after the build: lines still shown, one
# warning; --source-dir finds the file by name.
mkdir -p "$TMPD/src"
cp "$src" "$TMPD/src/moved.c"
cc -O1 -g -fno-omit-frame-pointer -o "$TMPD/moved" "$TMPD/src/moved.c"
"$PMIPROF" record -q -o "$TMPD/m.data" -- "$TMPD/moved" -n 40 >/dev/null 2>&1
mv "$TMPD/src" "$TMPD/elsewhere"
"$PMIPROF" annotate -i "$TMPD/m.data" work --by line >"$TMPD/m.out" 2>"$TMPD/err"
[ "$(grep -c 'source not found' "$TMPD/err")" = 1 ] && grep -q "source not found: $TMPD/src/moved.c" "$TMPD/err" &&
	ok "a moved source is said once, with its path" || not_ok "moved source warning" "$(cat "$TMPD/err")"
grep -q "moved.c:$la" "$TMPD/m.out" && ! grep -q LINE_A "$TMPD/m.out" &&
	ok "its lines are still printed, without text" || not_ok "lines without source" "$(tail -5 "$TMPD/m.out")"
"$PMIPROF" annotate -i "$TMPD/m.data" work --by line --source-dir "$TMPD/elsewhere" >"$TMPD/m.out" 2>"$TMPD/err"
grep -q "moved.c:$la .*LINE_A" "$TMPD/m.out" && [ ! -s "$TMPD/err" ] &&
	ok "--source-dir finds it by name" || not_ok "--source-dir" "$(cat "$TMPD/err"; tail -3 "$TMPD/m.out")"

# A command line holding a newline (python3 -c "...\n...") stays inside the "#" header.
"$PMIPROF" record -q -o "$TMPD/nl.data" -- sh -c 'exit 0
true' >/dev/null 2>&1
"$PMIPROF" report -q -i "$TMPD/nl.data" >"$TMPD/nl.out" 2>/dev/null
awk '/^ *samples /{exit} !/^#/{bad=1} END{exit bad}' "$TMPD/nl.out" &&
	ok "a command line with a newline stays in the # header" || not_ok "newline in the header" "$(head -4 "$TMPD/nl.out")"

# Bad input: clear errors, non-zero exits.
"$PMIPROF" annotate -i "$TMPD/t.data" no_such_function >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && grep -q "no function matching 'no_such_function'" "$TMPD/err" &&
	ok "unknown function: exit 1 with the name" || not_ok "unknown function" "rc=$rc $(cat "$TMPD/err")"
"$PMIPROF" annotate -i "$TMPD/t.data" --by word >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 2 ] && grep -q "expected insn or line" "$TMPD/err" && ok "--by word: usage error" || not_ok "--by word" "rc=$rc"
"$PMIPROF" annotate -i "$TMPD/t.data" -M arm >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 2 ] && ok "-M arm: usage error" || not_ok "-M arm" "rc=$rc"
"$PMIPROF" annotate -i "$TMPD/t.data" --sort cycles >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 2 ] && grep -q "not an event of this trace" "$TMPD/err" && ok "--sort of an event not recorded: usage error" ||
	not_ok "--sort cycles" "rc=$rc $(cat "$TMPD/err")"
"$PMIPROF" annotate -i "$TMPD/none.data" >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && [ -s "$TMPD/err" ] && ok "missing trace: exit 1 with a message" || not_ok "missing trace" "rc=$rc"
"$PMIPROF" help annotate | grep -q -- '--by insn|line' && ok "help annotate" || not_ok "help annotate"
done_testing
