#!/usr/bin/env bash
# Bad input: a truncated or corrupted trace is reported as far as readable
# with a warning saying how much was lost; a deleted binary becomes
# [unknown] rows with a note, never a failure; usage errors exit 2; an
# unreadable trace exits 1 with one message.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"
cp "$WORKLOADS/shares" "$TMPD/shares_copy"
# 3 s at 40 kHz: usually several chunks; a cut in the last one keeps the others.
# --no-buildid-cache: the deleted-binary checks below test the lookup behind
# the build-id cache (the recorded path, gone); a cached copy would name it.
"$PMIPROF" record -q --no-buildid-cache -o "$TMPD/t.data" -F 40000 -- "$TMPD/shares_copy" 3 >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record" "$(cat "$TMPD/err")"; done_testing; }
size=$(stat -c %s "$TMPD/t.data")
chunks=$("$PMIPROF" dump -i "$TMPD/t.data" 2>/dev/null | sed -n 's/.*chunks ok \([0-9]*\).*/\1/p')
head -c $((size - 1)) "$TMPD/t.data" >"$TMPD/cut.data"
"$PMIPROF" report -i "$TMPD/cut.data" >"$TMPD/out" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && ok "truncated trace: exit 0" || not_ok "truncated trace: exit 0 (got $rc)" "$(cat "$TMPD/err")"
grep -q 'damaged.*lost' "$TMPD/err" && ok "truncated trace: warning says how much was lost" \
	|| not_ok "truncated trace warning" "$(cat "$TMPD/err")"
if [ "${chunks:-0}" -ge 2 ]; then
	grep -q 'work_a' "$TMPD/out" && ok "truncated trace: the complete chunks are reported" \
		|| not_ok "complete chunks reported" "$(head -14 "$TMPD/out")"
else
	skip "truncated trace: the complete chunks are reported" "the recording fit in one chunk"
fi
cp "$TMPD/t.data" "$TMPD/bad.data"
printf 'XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX' | dd of="$TMPD/bad.data" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$PMIPROF" report -i "$TMPD/bad.data" >"$TMPD/out" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && grep -q 'lost' "$TMPD/err" && ok "corrupted chunk: exit 0 with a loss warning" \
	|| not_ok "corrupted chunk: exit 0 with a loss warning (rc $rc)" "$(cat "$TMPD/err")"
grep -q 'DAMAGED FILE' "$TMPD/out" && ok "corrupted chunk: table header says DAMAGED FILE" \
	|| not_ok "table header says DAMAGED FILE" "$(head -9 "$TMPD/out")"
rm -f "$TMPD/shares_copy"
"$PMIPROF" report -i "$TMPD/t.data" >"$TMPD/out" 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && ok "deleted binary: exit 0" || not_ok "deleted binary: exit 0 (got $rc)" "$(cat "$TMPD/err")"
grep -qE '\[unknown\] 0x[0-9a-f]+ +shares_copy' "$TMPD/out" && ok "deleted binary: [unknown] 0xOFFSET rows with its DSO" \
	|| not_ok "deleted binary: [unknown] row" "$(head -14 "$TMPD/out")"
grep -q 'shares_copy: cannot read' "$TMPD/err" && ok "deleted binary: a note says why" || not_ok "note" "$(cat "$TMPD/err")"
for args in "--bogus" "--window 9-3" "--time 2,1" "--sort nosuch" "--by planet" "--format xml" "--limit 0" "extra"; do
	# shellcheck disable=SC2086
	"$PMIPROF" report -i "$TMPD/t.data" $args >/dev/null 2>"$TMPD/err"; rc=$?
	[ $rc -eq 2 ] && ok "report $args: usage error, exit 2" || not_ok "report $args: exit 2 (got $rc)" "$(cat "$TMPD/err")"
done
"$PMIPROF" report -i "$TMPD/nonexistent.data" >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$TMPD/err")" -eq 1 ] && ok "missing trace: exit 1, one message" \
	|| not_ok "missing trace: exit 1, one message (rc $rc)" "$(cat "$TMPD/err")"
printf 'not a trace at all, just text\n' >"$TMPD/text.data"
"$PMIPROF" report -i "$TMPD/text.data" >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && ok "not a trace: exit 1" || not_ok "not a trace: exit 1 (rc $rc)" "$(cat "$TMPD/err")"
done_testing
