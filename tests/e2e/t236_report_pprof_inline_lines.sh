#!/usr/bin/env bash
# report --format pprof --inline: inlined functions are Line entries of their
# physical frame's Location, innermost first (profile.proto), as go tool
# pprof reads them.  On tests/workloads/inline_chain.c (see t235) the
# location of path_a's loop has the lines inl_inner, inl_mid at the line
# calling inl_inner, inl_outer at the line calling inl_mid and path_a at the
# line calling inl_outer (the line numbers are read from the source here);
# -traces shows the "(inline)" frames in that order, -top's cum of each
# inlined function equals report --children --inline's children samples,
# and without --inline no location has more than one line.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/inline_chain" ] || skip_all "workload inline_chain not built"
command -v go >/dev/null && go version >/dev/null 2>&1 || skip_all "go not installed (golang-go)"
"$PMIPROF" record -q -g -F 4000 -o "$TMPD/t.data" -- "$WORKLOADS/inline_chain" 2 >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record -g inline_chain" "$(cat "$TMPD/err")"; done_testing; }
ok "record -g inline_chain"
rep() { "$PMIPROF" report -q -i "$TMPD/t.data" --comm inline_chain "$@" 2>>"$TMPD/err"; }
rep --format pprof --inline -o "$TMPD/inl.pb.gz" && rep --format pprof -o "$TMPD/plain.pb.gz" \
	&& ok "pprof with and without --inline" || not_ok "pprof" "$(cat "$TMPD/err")"
SRC=$PMIPROF_TOP/tests/workloads/inline_chain.c
ln() { grep -n -F "$1" "$SRC" | head -1 | cut -d: -f1; }
L_MID=$(ln 'return inl_inner(n, x ^ 0x3c3c)') L_OUTER=$(ln 'return inl_mid(n, x * 7)')
L_A=$(ln 'acc += inl_outer(UNIT') L_B=$(ln 'acc += inl_mid(UNIT')
# -raw locations, one per line: "name:line;name:line;..." innermost first.
locs() {
	go tool pprof -raw "$1" 2>>"$TMPD/err" | sed -n '/^Locations/,/^Mappings/p' | awk '
		/^ *[0-9]+: 0x/ { if (l != "") print l; split($4 " " $5, a, " "); n = a[2]; sub(/.*:/, "", n); l = a[1] ":" n; next }
		/^ +[^ ]/ && l != "" && $0 !~ /^Mappings/ { n = $2; sub(/.*:/, "", n); l = l ";" $1 ":" n }
		END { if (l != "") print l }'
}
locs "$TMPD/inl.pb.gz" >"$TMPD/inl.locs"
want_a="inl_mid:$L_MID;inl_outer:$L_OUTER;path_a:$L_A"
want_b="inl_mid:$L_MID;path_b:$L_B"
grep -q "^inl_inner:[0-9]*;$want_a\$" "$TMPD/inl.locs" \
	&& ok "-raw: path_a's location has the lines inl_inner, $want_a" \
	|| not_ok "-raw: path_a's inline lines" "$(grep inl_ "$TMPD/inl.locs" | head)"
grep -q "^inl_inner:[0-9]*;$want_b\$" "$TMPD/inl.locs" \
	&& ok "-raw: path_b's location has the lines inl_inner, $want_b" \
	|| not_ok "-raw: path_b's inline lines" "$(grep inl_ "$TMPD/inl.locs" | head)"
bad=$(grep '^inl_' "$TMPD/inl.locs" | grep -v ';path_[ab]:[0-9]*$')
[ -z "$bad" ] && ok "-raw: every inlined line is followed by its physical function, last" \
	|| not_ok "inline lines end in the physical function" "$bad"
go tool pprof -traces "$TMPD/inl.pb.gz" 2>>"$TMPD/err" >"$TMPD/traces"
awk '{ sub(/^ *[0-9]* +/, ""); sub(/^ +/, "") } { w[NR] = $0 }
     END { for (i = 1; i + 3 <= NR; i++) if (w[i] == "inl_inner (inline)" && w[i+1] == "inl_mid (inline)" &&
           w[i+2] == "inl_outer (inline)" && w[i+3] == "path_a") exit 0; exit 1 }' "$TMPD/traces" \
	&& ok "-traces: inl_inner (inline), inl_mid (inline), inl_outer (inline), path_a" \
	|| not_ok "-traces inline frames" "$(head -30 "$TMPD/traces")"
go tool pprof -top -nodecount=100000 -sample_index=samples "$TMPD/inl.pb.gz" 2>>"$TMPD/err" >"$TMPD/top"
rep --children --inline --format csv >"$TMPD/ch.csv"
for fn in inl_inner inl_mid inl_outer path_a path_b; do
	mine=$(awk -F, -v f="$fn" '$3 == f { print $7 }' "$TMPD/ch.csv")
	theirs=$(awk -v f="$fn" '$6 == f { print $4 }' "$TMPD/top")
	[ -n "$mine" ] && [ "$mine" = "$theirs" ] && ok "-top cum of $fn = children samples ($mine)" \
		|| not_ok "-top cum of $fn" "pprof '$theirs' vs report '$mine'"
done
locs "$TMPD/plain.pb.gz" >"$TMPD/plain.locs"
multi=$(grep ';' "$TMPD/plain.locs" | head -3)
[ -s "$TMPD/plain.locs" ] && [ -z "$multi" ] && ok "without --inline every location has one line" \
	|| not_ok "without --inline one line per location" "$multi"
[ -s "$TMPD/err" ] && grep -v warning "$TMPD/err" | grep -q . && not_ok "reports without errors" "$(cat "$TMPD/err")"
done_testing
