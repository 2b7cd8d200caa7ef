#!/usr/bin/env bash
# Two traces concatenated (cat a b > c) are not merged: reading stops at the
# second prologue, said on stderr, in the report header and in dump's stats;
# the report is exactly that of the first trace, with none of the second's
# samples (same events, so the chunks would otherwise decode).  Also when the
# first trace's last chunk is cut and its stated size runs into the second.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] && [ -x "$WORKLOADS/callgraph" ] || skip_all "workloads not built"

rec() { "$PMIPROF" record -q -o "$1" -- "${@:2}" >/dev/null 2>"$TMPD/rec" ||
	{ not_ok "record ${*:2}" "$(cat "$TMPD/rec")"; done_testing; }; }
rec "$TMPD/a.data" "$WORKLOADS/shares" 1
rec "$TMPD/b.data" "$WORKLOADS/callgraph"
asz=$(stat -c %s "$TMPD/a.data")
bsz=$(stat -c %s "$TMPD/b.data")
samples() { sed -n 's/^# duration [0-9.]* s, \([0-9]*\) samples.*/\1/p' "$1"; }

"$PMIPROF" report -i "$TMPD/a.data" >"$TMPD/a.out" 2>/dev/null
cat "$TMPD/a.data" "$TMPD/b.data" >"$TMPD/c.data"
"$PMIPROF" report -i "$TMPD/c.data" >"$TMPD/c.out" 2>"$TMPD/c.err"; rc=$?
na=$(samples "$TMPD/a.out"); nc=$(samples "$TMPD/c.out")
[ $rc -eq 0 ] && [ -n "$na" ] && [ "$na" = "$nc" ] && ! grep -q leaf_shared "$TMPD/c.out" &&
	cmp -s <(grep -v '^#' "$TMPD/a.out") <(grep -v '^#' "$TMPD/c.out") &&
	ok "cat a b: the report is a's ($na samples), none of b's" ||
	not_ok "cat a b: the report is a's" "rc=$rc samples a=$na c=$nc" "$(grep -m3 leaf_shared "$TMPD/c.out")"
grep -q "c.data: offset $asz: a second pmiprof trace starts here (files concatenated?): only the first recording is read; its $bsz bytes are ignored" "$TMPD/c.err" &&
	grep -q "warning: .*c.data holds a second recording from offset $asz" "$TMPD/c.err" &&
	! grep -q 'bad magic' "$TMPD/c.err" &&
	ok "cat a b: stderr names the second trace, its offset and size, no 'bad magic'" ||
	not_ok "cat a b: stderr names the second trace" "$(cat "$TMPD/c.err")"
grep -q "^# WARNING: a second recording follows at offset $asz" "$TMPD/c.out" &&
	ok "cat a b: the report header says the second recording was not read" ||
	not_ok "cat a b: the report header says so" "$(head -12 "$TMPD/c.out")"
"$PMIPROF" dump -i "$TMPD/c.data" >"$TMPD/d.out" 2>/dev/null
grep -q "^# second trace at offset $asz: $bsz bytes not read" "$TMPD/d.out" &&
	ok "dump: the stats name the second trace" || not_ok "dump: the stats name the second trace" "$(tail -3 "$TMPD/d.out")"

# a cut first trace: its last chunk's stated size runs into b
{ head -c $((asz - 100)) "$TMPD/a.data"; cat "$TMPD/b.data"; } >"$TMPD/e.data"
"$PMIPROF" report -i "$TMPD/e.data" >"$TMPD/e.out" 2>"$TMPD/e.err"; rc=$?
ne=$(samples "$TMPD/e.out")
[ $rc -eq 0 ] && [ -n "$ne" ] && [ "$ne" -le "$na" ] && ! grep -q leaf_shared "$TMPD/e.out" &&
	grep -q "offset $((asz - 100)): a second pmiprof trace starts here" "$TMPD/e.err" &&
	ok "cut a + b: a's readable part only ($ne of $na samples), the second trace named" ||
	not_ok "cut a + b: a's readable part only" "rc=$rc samples $ne (a $na)" "$(cat "$TMPD/e.err")" \
	"$(grep -m3 leaf_shared "$TMPD/e.out")"
done_testing
