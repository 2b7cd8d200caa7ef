#!/usr/bin/env bash
# annotate's per-instruction shares against perf annotate's on the same
# program: two recordings of tests/workloads/annotate_lines (deterministic
# loops), one by pmiprof, one by perf record with cpu-clock; for every
# instruction of work() holding >= 5 % in either, the shares agree within
# 2 points, and annotate's instruction text at each of work()'s addresses
# is objdump's (perf annotate prints objdump's AT&T text; capstone adds
# size suffixes, so mnemonics are compared without them).  And annotate of
# perf's own perf.data gives perf annotate's count at every address.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v objdump >/dev/null || skip_all "binutils (objdump) not installed"
bin=$WORKLOADS/annotate_lines
"$PMIPROF" record -q -c 100000 -o "$TMPD/t.data" -- "$bin" -n 300 >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && ok "pmiprof record" || not_ok "pmiprof record" "$(cat "$TMPD/err")"
perf record -q --buildid-mmap -e cpu-clock -c 100000 -o "$TMPD/perf.data" -- "$bin" -n 300 >/dev/null 2>"$TMPD/perr"; rc=$?
[ $rc -eq 0 ] && ok "perf record" || not_ok "perf record" "$(cat "$TMPD/perr")"
perf annotate -i "$TMPD/perf.data" --stdio --show-nr-samples -s work >"$TMPD/perf.txt" 2>"$TMPD/perr"
"$PMIPROF" annotate -i "$TMPD/t.data" work -f csv >"$TMPD/insn.csv" 2>"$TMPD/err"
python3 - "$TMPD/perf.txt" "$TMPD/insn.csv" >"$TMPD/cmp" <<'PY'
import csv, re, sys
perf = {}
for l in open(sys.argv[1]):
    m = re.match(r'\s*(\d+)\s*:\s+([0-9a-f]+):\s+(\S+)', l)
    if m:
        perf[int(m.group(2), 16)] = (int(m.group(1)), m.group(3))
ours = {int(r['address'], 16): (int(r['samples']), r['instruction'].split()[0])
        for r in csv.DictReader(open(sys.argv[2]))}
pt = sum(v[0] for v in perf.values()) or 1
ot = sum(v[0] for v in ours.values()) or 1
worst, n = 0.0, 0
for a in set(perf) | set(ours):
    p = 100.0 * perf.get(a, (0, ''))[0] / pt
    o = 100.0 * ours.get(a, (0, ''))[0] / ot
    if p >= 5 or o >= 5:
        n += 1
        d = abs(p - o)
        print('# 0x%x perf %.2f %% pmiprof %.2f %%' % (a, p, o))
        worst = max(worst, d)
# mnemonics: objdump's (perf's text) equals capstone's without its size suffix
bad = 0
for a, (c, mn) in perf.items():
    ours_mn = ours.get(a, (0, None))[1]
    if ours_mn is None:
        continue
    if not (ours_mn == mn or (ours_mn[:-1] == mn and ours_mn[-1] in 'bwlq')):
        bad += 1
        print('# 0x%x objdump %s pmiprof %s' % (a, mn, ours_mn))
print('%d %.2f %d %d %d' % (n, worst, len(perf), len(set(perf) & set(ours)), bad))
PY
grep '^#' "$TMPD/cmp"
read -r n worst nperf common bad < <(grep -v '^#' "$TMPD/cmp")
[ "${nperf:-0}" -gt 10 ] && ok "perf annotate printed work()'s $nperf instructions" || not_ok "perf annotate output" "$(head -20 "$TMPD/perf.txt"; cat "$TMPD/perr")"
[ "${n:-0}" -ge 2 ] && perl -e 'exit($ARGV[0] <= 2 ? 0 : 1)' "$worst" &&
	ok "$n hot instructions: shares within 2 points of perf annotate (worst $worst)" ||
	not_ok "shares against perf annotate" "n=$n worst=$worst"
[ "${common:-0}" = "${nperf:-x}" ] && ok "the same addresses as objdump" || not_ok "addresses" "$common of $nperf"
[ "${bad:-1}" = 0 ] && ok "the same mnemonics as objdump" || not_ok "mnemonics" "$bad differ"
# The same perf.data read by pmiprof (docs/perf-data.md): every address's count is perf's.
"$PMIPROF" annotate -i "$TMPD/perf.data" work -f csv >"$TMPD/perf_insn.csv" 2>"$TMPD/err"
python3 - "$TMPD/perf.txt" "$TMPD/perf_insn.csv" <<'PY' && ok "annotate -i perf.data: every address's samples equal perf annotate's" || not_ok "annotate of perf.data" "$(cat "$TMPD/err"; head -5 "$TMPD/perf_insn.csv")"
import csv, re, sys
perf = {}
for l in open(sys.argv[1]):
    m = re.match(r'\s*(\d+)\s*:\s+([0-9a-f]+):', l)
    if m:
        perf[int(m.group(2), 16)] = int(m.group(1))
ours = {int(r['address'], 16): int(r['samples']) for r in csv.DictReader(open(sys.argv[2]))}
sys.exit(0 if perf and perf == ours else 1)
PY
done_testing
