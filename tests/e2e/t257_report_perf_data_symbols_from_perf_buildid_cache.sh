#!/usr/bin/env bash
# A perf.data whose binary is gone from its recorded path is still named from
# perf's build-id cache (docs/perf-data.md): `perf buildid-cache -a` puts the
# binary in $HOME/.debug/.build-id/xx/rest/elf, which report looks up by the
# recorded build-id, also under $PERF_BUILDID_DIR; without the cache the rows
# are [unknown] (so the names came from there).  Private HOME and cache: the
# machine's ~/.debug is left alone (perf record -N).
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v perf >/dev/null || skip_all "perf not installed (linux-perf)"
[ -x "$WORKLOADS/shares" ] || skip_all "workload shares not built"
mkdir -p "$TMPD/bin" "$TMPD/home" "$TMPD/empty"
cp "$WORKLOADS/shares" "$TMPD/bin/shares"
perf record --buildid-mmap -N -q -e cpu-clock -c 200000 -o "$TMPD/m.data" -- "$TMPD/bin/shares" 1 \
	>/dev/null 2>"$TMPD/err" || skip_all "perf record failed: $(head -1 "$TMPD/err")"
HOME=$TMPD/home perf buildid-cache -a "$TMPD/bin/shares" >/dev/null 2>"$TMPD/err"
bid=$(readelf -n "$TMPD/bin/shares" | awk '/Build ID/ { print $3 }')
[ -e "$TMPD/home/.debug/.build-id/${bid:0:2}/${bid:2}/elf" ] &&
	ok "perf buildid-cache -a put the binary in the cache (.build-id/${bid:0:2}/${bid:2}/elf)" ||
	not_ok "perf buildid-cache -a put the binary in the cache" "$(cat "$TMPD/err")" "$(find "$TMPD/home" | head)"
rm "$TMPD/bin/shares"

# names NAME ENV...: the symbols of --by symbol with the environment given
names() {
	env "$@" "$PMIPROF" report -q -i "$TMPD/m.data" --by symbol --format csv 2>/dev/null |
		awk -F, 'NR > 1 && $2 > 5 { print $3 }' | sort | tr '\n' ' '
}
got=$(names HOME="$TMPD/home")
[ "$got" = "work_a work_b work_c " ] && ok "named from \$HOME/.debug: $got" \
	|| not_ok "named from \$HOME/.debug" "got: $got"
got=$(names HOME="$TMPD/empty" PERF_BUILDID_DIR="$TMPD/home/.debug")
[ "$got" = "work_a work_b work_c " ] && ok "named from \$PERF_BUILDID_DIR: $got" \
	|| not_ok "named from \$PERF_BUILDID_DIR" "got: $got"
got=$(names HOME="$TMPD/empty")
case "$got" in
*work_a*) not_ok "without the cache the rows are [unknown]" "got: $got" ;;
*unknown*) ok "without the cache the rows are [unknown]" ;;
*) not_ok "without the cache the rows are [unknown]" "got: $got" ;;
esac
done_testing
