#!/usr/bin/env bash
# The per-line counts of annotate --by line are what go tool pprof -list
# shows for the same trace exported with report --format pprof (the
# profile's Line entries): flat samples of work()'s two hot lines equal.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v go >/dev/null && go version >/dev/null 2>&1 || skip_all "go not installed (golang-go)"
bin=$WORKLOADS/annotate_lines
src=$PMIPROF_TOP/tests/workloads/annotate_lines.c
"$PMIPROF" record -q -g -o "$TMPD/g.data" -- "$bin" -n 200 >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record -g" "$(cat "$TMPD/err")"; done_testing; }
ok "record -g annotate_lines"
"$PMIPROF" report -q -i "$TMPD/g.data" --format pprof -o "$TMPD/p.pb.gz" 2>"$TMPD/err" &&
	ok "pprof export" || not_ok "pprof export" "$(cat "$TMPD/err")"
"$PMIPROF" annotate -q -i "$TMPD/g.data" work --by line -f csv >"$TMPD/lines.csv" 2>"$TMPD/err" &&
	ok "annotate --by line" || not_ok "annotate --by line" "$(cat "$TMPD/err")"
go tool pprof -sample_index=samples -source_path "$(dirname "$src")" -list '^work$' "$TMPD/p.pb.gz" \
	>"$TMPD/list" 2>"$TMPD/err" && ok "go tool pprof -list work" || not_ok "go tool pprof -list" "$(cat "$TMPD/err")"
python3 - "$TMPD/list" "$TMPD/lines.csv" <<'PY' >"$TMPD/cmp"
import csv, re, sys
pp = {}
for l in open(sys.argv[1]):
    m = re.match(r'\s+(\d+|\.)\s+(\d+|\.)\s+(\d+):', l)
    if m and m.group(1) != '.':
        pp[int(m.group(3))] = int(m.group(1))
ann = {int(r['source_line']): int(r['samples']) for r in csv.DictReader(open(sys.argv[2])) if int(r['samples'])}
print('#', 'pprof', sorted(pp.items()), 'annotate', sorted(ann.items()))
print(int(bool(ann) and pp == ann))
PY
grep '^#' "$TMPD/cmp"
[ "$(grep -v '^#' "$TMPD/cmp")" = 1 ] && ok "pprof -list's flat counts per line equal annotate --by line's" ||
	not_ok "per-line counts" "$(cat "$TMPD/list" | head -20)"
done_testing
