#!/usr/bin/env bash
# record -g keeps, of the 64 leaf-word bytes at SP, only the words that can
# be return addresses: every nonzero word of every fp USTACK lies inside an
# executable mapping recorded in the trace (the others were zeroed), and the
# one word the report's leaf fix-up needs survives: samples in leaf_heavy (a
# frameless leaf called from main) still carry a return address into main.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v nm >/dev/null || skip_all "nm (binutils) not installed"
trap 'rm -rf "$TMPD"' EXIT
wl=$WORKLOADS/callgraph
"$PMIPROF" record -g -o "$TMPD/t.data" -- "$wl" 2>"$TMPD/err" || not_ok "record -g runs" "$(cat "$TMPD/err")"
"$PMIPROF" dump -i "$TMPD/t.data" >"$TMPD/d" 2>"$TMPD/derr" || not_ok "dump reads the trace" "$(cat "$TMPD/derr")"
# symbol value and size (hex) of leaf_heavy and main in the executable
sym() { nm -S "$wl" | awk -v s="$1" '$4 == s { print $1, $2; exit }'; }
read -r lh_v lh_s < <(sym leaf_heavy)
read -r mn_v mn_s < <(sym main)
[ -n "$lh_v" ] && [ -n "$mn_v" ] || skip_all "no symbols leaf_heavy/main in $wl"
HEX='function hex(s,  i, v) { s = tolower(s); sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }'
awk -v wl="$wl" -v lhv="$lh_v" -v lhs="$lh_s" -v mnv="$mn_v" -v mns="$mn_s" "$HEX"'
	function field(name,  i) { for (i = 1; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2); return "" }
	function in_exec(a,  i) { for (i = 0; i < nx; i++) if (a >= xs[i] && a < xe[i]) return 1; return 0 }
	/ mmap / && hex(field("prot")) % 8 >= 4 {
		s = hex(field("start")); xs[nx] = s; xe[nx++] = s + hex(field("len"))
		# the executable: file offsets map to symbol values (vaddr == offset in the segment)
		if (index($0, "path=\"" wl "\"")) {
			base = s - hex(field("pgoff"))
			lh_lo = base + hex(lhv); lh_hi = lh_lo + hex(lhs)
			mn_lo = base + hex(mnv); mn_hi = mn_lo + hex(mns)
		}
	}
	/ sample / { ip = hex(field("ip")); next }
	/ ustack / && / regs=0x1c0 / && / words=/ {
		ustacks++
		n = split(field("words"), w, ",")
		into_main = 0
		for (i = 1; i <= n; i++) {
			a = hex(w[i])
			if (!a) { zero++; continue }
			nonzero++
			if (!in_exec(a)) { bad++; if (!first_bad) first_bad = w[i] }
			if (a >= mn_lo && a < mn_hi) into_main = 1
		}
		if (lh_lo && ip >= lh_lo && ip < lh_hi) { in_leaf++; kept += into_main }
	}
	END { printf "%d %d %d %d %d %d %s\n", ustacks, nonzero, zero, bad, in_leaf, kept, first_bad ? first_bad : "-" }' \
	"$TMPD/d" >"$TMPD/n"
read -r ustacks nonzero zero bad in_leaf kept first_bad <"$TMPD/n"
[ "${ustacks:-0}" -gt 500 ] && ok "leaf-word USTACKs printed word by word ($ustacks)" ||
	not_ok "leaf-word USTACKs printed word by word" "$ustacks ($(grep -m1 ' ustack ' "$TMPD/d"))"
[ "${nonzero:-0}" -gt "$ustacks" ] && ok "$nonzero nonzero words kept, $zero zeroed or zero" ||
	not_ok "nonzero words kept" "$nonzero nonzero, $zero zero in $ustacks USTACKs"
[ "${bad:-1}" -eq 0 ] && ok "every nonzero word lies in an executable mapping" ||
	not_ok "every nonzero word lies in an executable mapping" "$bad outside, e.g. $first_bad"
[ "${in_leaf:-0}" -gt 100 ] && ok "$in_leaf samples in leaf_heavy" || not_ok "samples in leaf_heavy" "$in_leaf"
[ $((kept * 100)) -ge $((in_leaf * 95)) ] &&
	ok "leaf_heavy's return address into main kept in $kept of $in_leaf samples" ||
	not_ok "leaf_heavy's return address into main kept" "$kept of $in_leaf"
done_testing
