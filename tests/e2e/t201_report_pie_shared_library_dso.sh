#!/usr/bin/env bash
# Symbolization of a PIE that spends most of its time in a shared library
# (pie_libcall -> libpmwork.so via an $ORIGIN rpath): both functions are
# attributed, each to its own DSO, in the 3:1 ratio built into the workload.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
[ -x "$WORKLOADS/pie_libcall" ] || skip_all "workload pie_libcall not built"
"$PMIPROF" record -q -o "$TMPD/t.data" -- "$WORKLOADS/pie_libcall" >/dev/null 2>"$TMPD/err" \
	&& ok "record pie_libcall" || not_ok "record pie_libcall" "$(cat "$TMPD/err")"
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/p.csv" 2>"$TMPD/err"
row() { awk -F, -v f="$1" '$3 == f { print $2, $4; exit }' "$TMPD/p.csv"; }
read -r lib_pct lib_dso <<<"$(row pmwork_lib_spin)"
read -r pie_pct pie_dso <<<"$(row pie_local_spin)"
[ "$lib_dso" = libpmwork.so ] && ok "pmwork_lib_spin in libpmwork.so" \
	|| not_ok "pmwork_lib_spin in libpmwork.so" "got: '$lib_dso'" "$(head -5 "$TMPD/p.csv")"
[ "$pie_dso" = pie_libcall ] && ok "pie_local_spin in the PIE" \
	|| not_ok "pie_local_spin in the PIE" "got: '$pie_dso'" "$(head -5 "$TMPD/p.csv")"
awk -v l="${lib_pct:-0}" -v p="${pie_pct:-0}" 'BEGIN { r = l / (l + p + 1e-9); exit !(r > 0.68 && r < 0.82) }' \
	&& ok "library:PIE share ${lib_pct}:${pie_pct} is about 3:1" \
	|| not_ok "library:PIE share ${lib_pct:-?}:${pie_pct:-?} is about 3:1"
"$PMIPROF" report -i "$TMPD/t.data" --by dso --format csv >"$TMPD/d.csv" 2>/dev/null
grep -q '/libpmwork\.so,' "$TMPD/d.csv" \
	&& ok "--by dso lists libpmwork.so" || not_ok "--by dso lists libpmwork.so" "$(cat "$TMPD/d.csv")"
done_testing
