#!/usr/bin/env bash
# Symbolizing a module that has no local debug file (the vDSO, a stripped
# binary) makes libdw's standard lookup dlopen libdebuginfod (curl, gnutls,
# kerberos: ~25 libraries) to ask servers, which cannot answer without
# DEBUGINFOD_URLS: report skips that, and still finds local debug files.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open of software events not permitted here"
[ -e /usr/lib/x86_64-linux-gnu/libdebuginfod.so.1 ] || ls /lib*/*/libdebuginfod.so.1 >/dev/null 2>&1 ||
	skip_all "libdebuginfod.so.1 not installed: nothing libdw could dlopen"
"$PMIPROF" record -q -o "$TMPD/t.data" -- "$WORKLOADS/threads2" 0.3 >/dev/null 2>&1 ||
	skip_all "pmiprof record failed"
# the trace maps the vDSO and threads2 calls clock_gettime: the vDSO is symbolized
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/a.csv" 2>/dev/null
grep -q ',\[vdso\],' "$TMPD/a.csv" || skip_all "no vDSO sample in this recording"
env -u DEBUGINFOD_URLS LD_DEBUG=files "$PMIPROF" report -i "$TMPD/t.data" --format csv 2>"$TMPD/ld.txt" >"$TMPD/b.csv"
! grep -q 'file=libdebuginfod' "$TMPD/ld.txt" && ok "no libdebuginfod dlopen without DEBUGINFOD_URLS" ||
	not_ok "no libdebuginfod dlopen without DEBUGINFOD_URLS" "$(grep 'file=libdebuginfod' "$TMPD/ld.txt" | head -2)"
cmp -s "$TMPD/a.csv" "$TMPD/b.csv" && ok "same profile" || not_ok "same profile"
# a debug file by build-id is still found (libc's, when libc6-dbg is installed)
libc=$(awk -F, '$4 ~ /^libc\.so/ { print $3; exit }' "$TMPD/a.csv")
bid=$(readelf -n /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null | awk '/Build ID/ { print $3 }')
if [ -n "$bid" ] && [ -f "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ]; then
	env -u DEBUGINFOD_URLS strace -f -e trace=openat -o "$TMPD/st.txt" "$PMIPROF" report -i "$TMPD/t.data" >/dev/null 2>&1
	if [ -s "$TMPD/st.txt" ] && [ -n "$libc" ]; then
		grep -q "${bid:2}.debug" "$TMPD/st.txt" && ok "libc's debug file is still opened by build-id" ||
			not_ok "libc's debug file is still opened by build-id"
	else
		skip "libc's debug file is still opened by build-id" "no strace or no libc sample"
	fi
else
	skip "libc's debug file is still opened by build-id" "libc6-dbg not installed"
fi
done_testing
