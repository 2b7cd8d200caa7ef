#!/usr/bin/env bash
# A stripped Debian library without its -dbgsym package (liblzma, under
# xz -9 -T1): its samples are not one [unknown] row but one row per
# function of its unwind table, "[unknown] 0xADDR <nearest .dynsym+0xOFF>"
# (as objdump names an address), so its hot spots stay distinguishable:
# each ADDR starts an .eh_frame entry of liblzma (PLT stubs are one [plt]
# row, as in every DSO), the rows add up to the
# --by dso total, and the stripped files share one warning line.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v xz >/dev/null && command -v readelf >/dev/null || skip_all "xz or readelf not installed"
lib=$(ldd "$(command -v xz)" | awk '/liblzma/ { print $3 }')
[ -n "$lib" ] || skip_all "xz is not linked with liblzma"
readelf -SW "$lib" | grep -q ' \.symtab ' && skip_all "liblzma is not stripped here"
bid=$(readelf -n "$lib" | awk '/Build ID/ { print $3 }')
[ -e "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ] && skip_all "liblzma's debug info is installed"
head -c 1500000 /dev/urandom | base64 >"$TMPD/in.txt"
"$PMIPROF" record -q -o "$TMPD/t.data" -- xz -9 -T1 -k -c "$TMPD/in.txt" >/dev/null 2>"$TMPD/err" ||
	{ not_ok "record xz" "$(cat "$TMPD/err")"; done_testing; }
base=$(basename "$(readlink -f "$lib")")
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/p.csv" 2>"$TMPD/err"
awk -F, -v d="$base" 'NR > 1 && $4 == d { print $3 }' "$TMPD/p.csv" >"$TMPD/rows"
n=$(grep -c '^\[unknown\]' "$TMPD/rows")
[ "$n" -ge 2 ] && ok "liblzma: $n [unknown] rows, not one" || not_ok "liblzma: several [unknown] rows ($n)" "$(head "$TMPD/p.csv")"
bad=$(grep -v '^\[unknown\] 0x[0-9a-f]* <lzma_[A-Za-z0-9_]*+0x[0-9a-f]*>$' "$TMPD/rows" | grep -v '^\[unknown\] 0x[0-9a-f]*$' |
	grep -v '^lzma_[A-Za-z0-9_]*$' | grep -vx '\[plt\]')
# [plt]: samples in liblzma's PLT stubs (docs/report.md: one row per DSO); whether
# a sample lands there depends on the run (seen on an Intel Xeon, model 167).
[ -z "$bad" ] && ok "every row is an exported (.dynsym) name, [plt] or [unknown] 0xADDR, with <nearest .dynsym+0xOFF> where one precedes" ||
	not_ok "row format" "$bad"
grep -q '<lzma_' "$TMPD/rows" && ok "rows name their nearest .dynsym symbol" || not_ok "rows name their nearest .dynsym symbol" "$(head -3 "$TMPD/rows")"
# A row inside a function starts at its .eh_frame entry; code no entry covers
# (crtstuff's helpers have none) gets a row per address.
readelf --debug-dump=frames "$lib" 2>/dev/null | sed -n 's/.* FDE .*pc=0*\([0-9a-f]*\)\.\.0*\([0-9a-f]*\).*/\1 \2/p' |
	while read -r lo hi; do echo $((16#$lo)) $((16#$hi)); done >"$TMPD/fdes"
miss=$(sed -n 's/^\[unknown\] 0x\([0-9a-f]*\).*/\1/p' "$TMPD/rows" | sort -u | while read -r a; do
	awk -v a=$((16#$a)) '$1 == a { start = 1 } $1 < a && a < $2 { inside = 1 }
		END { exit !(start || !inside) }' "$TMPD/fdes" || echo "$a"
done)
[ -z "$miss" ] && ok "every row's address starts an .eh_frame entry (a function), or no entry covers it" || not_ok "row addresses are FDE starts" "$miss"
sum=$(awk -F, -v d="$base" 'NR > 1 && $4 == d { s += $1 } END { print s }' "$TMPD/p.csv")
dso=$("$PMIPROF" report -i "$TMPD/t.data" --format csv --by dso 2>/dev/null | awk -F, -v d="$base" 'NR > 1 && $3 ~ d"$" { print $1 }')
[ "$sum" = "$dso" ] && ok "--by dso totals them ($dso samples)" || not_ok "--by dso totals them" "rows $sum, dso $dso"
[ "$(grep -c 'outside every symbol' "$TMPD/err")" -eq 1 ] && ok "one warning line for the stripped files" ||
	not_ok "one warning line for the stripped files" "$(cat "$TMPD/err")"
done_testing
