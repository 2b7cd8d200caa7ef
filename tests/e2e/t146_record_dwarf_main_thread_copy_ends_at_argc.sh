#!/usr/bin/env bash
# --call-graph dwarf: a main thread's stack copy is stored only up to exec's
# argc (the process's start_stack): argv, the environment and auxv above it
# are most of every copy taken near main and no unwinder reads them.  The
# copies of random_sort (main -> fill_and_sort -> qsort -> cmp: well under
# 1 KiB of frames) stay small and all end at the same address (argc's), the
# recorder says how much it left out, and the report still unwinds every
# sample to a root.  A long environment makes the difference plain.  The
# copies repeat from sample to sample, so the chunks are deflated with LZ77
# matching: under 200 bytes per sample in the file (Huffman-only coding
# took ~390, perf.data ~8400).
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
trap 'rm -rf "$TMPD"' EXIT
PAD=$(head -c 3000 /dev/zero | tr '\0' x)
PMIPROF_T146_PAD=$PAD "$PMIPROF" record --call-graph dwarf -o "$TMPD/t.data" -- "$WORKLOADS/random_sort" 1 \
	>/dev/null 2>"$TMPD/err" || not_ok "record --call-graph dwarf runs" "$(cat "$TMPD/err")"
grep -Eq 'stack copies: [0-9.]+ MB above main threads. initial frames' "$TMPD/err" &&
	ok "record says how much of the copies it left out" || not_ok "record says what it left out" "$(cat "$TMPD/err")"
"$PMIPROF" dump -i "$TMPD/t.data" >"$TMPD/d" 2>/dev/null
HEX='function hex(s,  i, v) { s = tolower(s); sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }'
awk "$HEX"'
	/ ustack / { for (i = 1; i <= NF; i++) { if ($i ~ /^sp=/) sp = hex(substr($i, 4)); if ($i ~ /^size=/) sz = substr($i, 6) + 0 }
		u++; bytes += sz; if (sz < 8192) top[sprintf("%.0f", sp + sz)]++ }
	END { for (t in top) if (top[t] > at) at = top[t]
		printf "%d %d %d\n", u, u ? bytes / u : 0, at }' "$TMPD/d" >"$TMPD/n"
read -r u avg at <"$TMPD/n"
[ "${u:-0}" -gt 200 ] && ok "enough user stacks ($u)" || not_ok "enough user stacks" "$u"
[ "${avg:-99999}" -lt 2048 ] && ok "copies average $avg bytes (< 2 KiB; the environment alone is 3 KB)" ||
	not_ok "copies average < 2 KiB" "$avg bytes; $(grep -o 'size=[0-9]*' "$TMPD/d" | sort | uniq -c | sort -rn | head -3)"
[ $((at * 100)) -ge $((u * 95)) ] && ok "$at of $u copies end at the same address (argc)" ||
	not_ok "copies end at argc" "$at of $u"
"$PMIPROF" report -i "$TMPD/t.data" --children >"$TMPD/r" 2>&1
n=$(sed -n 's/^# duration [0-9.]* s, \([0-9]*\) samples.*/\1/p' "$TMPD/r")
bps=$(( $(stat -c %s "$TMPD/t.data") / ${n:-1} ))
[ "$bps" -lt 200 ] && ok "trace takes $bps bytes per sample (< 200)" ||
	not_ok "trace takes < 200 bytes per sample" "$bps bytes, $n samples"
pct=$(sed -n 's/.* have one; \([0-9.]*\)% of those reached a root.*/\1/p' "$TMPD/r")
awk -v p="${pct:-0}" 'BEGIN { exit !(p >= 99) }' && ok "report: $pct% of the stacks reach a root" ||
	not_ok "report: stacks reach a root" "$(grep -A1 'call stacks:' "$TMPD/r")"
grep -Eq '^ +[0-9.]+% +[0-9.]+% +[0-9]+ .* main \[random_sort\]' "$TMPD/r" && ok "main has a children row" ||
	not_ok "main has a children row" "$(head -30 "$TMPD/r")"
done_testing
