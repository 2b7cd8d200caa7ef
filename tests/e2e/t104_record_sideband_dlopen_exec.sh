#!/usr/bin/env bash
# Side-band records make late code symbolizable: MMAP of a library dlopen()ed
# after start, COMM(exec) and MMAP of the new image after exec(), build-ids
# when the kernel provides them, and samples inside each of them.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
"$PMIPROF" record -q -o "$TMPD/t.data" -- "$WORKLOADS/dlexec" 0.2 >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 0 ] && ok "record dlopen+exec workload" || not_ok "record dlopen+exec workload" "$(cat "$TMPD/err")"
"$PMIPROF" dump -i "$TMPD/t.data" >"$TMPD/dump" 2>&1
lz=$(awk '$2=="mmap" && /libz/ { for (i = 3; i <= NF; i++) if ($i ~ /^start=/) { sub("start=", "", $i); print $i; exit } }' "$TMPD/dump")
[ -n "$lz" ] && ok "MMAP of the dlopen()ed libz" || not_ok "MMAP of the dlopen()ed libz"
[ "$(grep -c ' comm .*exec' "$TMPD/dump")" -ge 2 ] && ok "COMM exec for start and re-exec" || not_ok "COMM exec twice" "$(grep ' comm ' "$TMPD/dump")"
[ "$(grep -c ' mmap .*workloads/dlexec' "$TMPD/dump")" -ge 2 ] && ok "MMAP of the image after exec" || not_ok "MMAP of the image after exec"
if grep -q ' mmap .*build-id=[0-9a-f]\{40\}' "$TMPD/dump"; then ok "MMAP carries build-ids"
else
	ver=$(uname -r | awk -F. '{print $1 * 1000 + $2}')
	[ "$ver" -lt 5012 ] && skip "MMAP carries build-ids" "kernel < 5.12" || not_ok "MMAP carries build-ids"
fi
if [ -n "$lz" ]; then
	lo=$((lz)); len=$(awk '$2=="mmap" && /libz/ { for (i = 3; i <= NF; i++) if ($i ~ /^len=/) { sub("len=", "", $i); print $i; exit } }' "$TMPD/dump")
	hi=$((lo + len))
	n=$(perl -ne 'BEGIN { ($lo, $hi) = @ARGV; @ARGV = () } $c++ if / sample .*ip=(0x[0-9a-f]+)/ && hex($1) >= $lo && hex($1) < $hi; END { print $c + 0 }' $lo $hi <"$TMPD/dump")
	[ "${n:-0}" -ge 10 ] && ok "samples inside libz ($n)" || not_ok "samples inside libz" "$n"
fi
done_testing
