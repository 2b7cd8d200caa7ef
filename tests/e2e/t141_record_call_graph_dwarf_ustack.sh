#!/usr/bin/env bash
# --call-graph dwarf,SIZE on the workload built without frame pointers: SIZE
# is rounded up to a multiple of 8 like perf (4090 -> 4096), the header says
# dwarf and the size, and user-mode samples carry a USTACK with perf's x86-64
# user register set (mask 0xff0fff) and the stack bytes the kernel copied:
# SIZE, or less when the stack above SP is shorter (main's frame sits near
# the stack top; with ASLR, 1.5 KiB in some runs), then ending at the top.
# No user frames are recorded (exclude_callchain_user, as perf does).
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
trap 'rm -rf "$TMPD"' EXIT
"$PMIPROF" record --call-graph dwarf,4090 -o "$TMPD/t.data" -- "$WORKLOADS/callgraph_nofp" 2>"$TMPD/err" ||
	not_ok "record --call-graph dwarf runs" "$(cat "$TMPD/err")"
grep -q 'call stacks: dwarf, 4096 bytes of user stack' "$TMPD/err" && ok "record says dwarf, 4096 bytes" ||
	not_ok "record says dwarf, 4096 bytes" "$(cat "$TMPD/err")"
"$PMIPROF" dump -i "$TMPD/t.data" >"$TMPD/d" 2>"$TMPD/derr"
grep -Eq '^call graph: +dwarf max-stack 127 dump-size 4096 flags=' "$TMPD/d" && ok "header: dwarf, dump-size 4096" ||
	not_ok "header: dwarf, dump-size 4096" "$(grep -i 'call graph' "$TMPD/d")"
# A copy is SIZE bytes, or shorter when the stack above SP is: then it ends
# at the top of the stack mapping, the same address for every such sample.
HEX='function hex(s,  i, v) { s = tolower(s); sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }'
awk "$HEX"'
	/ sample / { samples++; if ($0 ~ /flags=0x[0-9a-f]*[13579bdf]\(user/) user++ }
	/ ustack / && / regs=0xff0fff / { u++; if ($0 ~ / sp=0x/ && $0 ~ / ip=0x/ && $0 ~ / bp=0x/) regs++
		for (i = 1; i <= NF; i++) { if ($i ~ /^sp=/) sp = hex(substr($i, 4)); if ($i ~ /^size=/) sz = substr($i, 6) + 0 }
		if (sz == 4096) full++; else if (sz < 4096 && sz % 8 == 0) top[sprintf("%.0f", sp + sz)]++ }
	/ stack +id=/ && /u:0x/ { ufr++ }
	END { for (t in top) if (top[t] > at_top) at_top = top[t]
		printf "%d %d %d %d %d %d\n", samples, user, u, full + at_top, regs, ufr }' "$TMPD/d" >"$TMPD/n"
read -r samples user u full regs ufr <"$TMPD/n"
[ "${samples:-0}" -gt 500 ] && ok "enough samples ($samples)" || not_ok "enough samples" "$samples"
[ $((u * 100)) -ge $((user * 95)) ] && ok "USTACK with perf's user registers after $u of $user user samples" ||
	not_ok "USTACK after user samples" "$u of $user"
[ "$regs" = "$u" ] && ok "every USTACK has bp, sp and ip" || not_ok "every USTACK has bp, sp and ip" "$regs of $u"
[ $((full * 100)) -ge $((u * 95)) ] && ok "USTACK holds the requested 4096 bytes or reaches the stack top in $full of $u" ||
	not_ok "USTACK holds 4096 bytes or reaches the stack top" "$full of $u; $(grep -o 'size=[0-9]*' "$TMPD/d" | sort | uniq -c | sort -rn | head -3)"
[ "${ufr:-0}" -eq 0 ] && ok "no user frames from the kernel (exclude_callchain_user)" || not_ok "no user frames" "$ufr stacks"
done_testing
