#!/usr/bin/env bash
# A trace recorded by another kernel or boot (its header's boot id differs
# from ours; a 1.1 trace without one from another host) never has its
# kernel addresses named from this machine's /proc/kallsyms: they are
# [unknown] in [kernel.kallsyms] with a note.  The recording boot's kallsyms
# is used when found: --kallsyms FILE, kallsyms/BOOT in a build-id cache,
# or report's own kallsyms cache of that boot.  The traces are real ones
# whose header is rewritten (boot id, host name), as one from elsewhere.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v python3 >/dev/null || skip_all "python3 not installed"
head -1 /proc/kallsyms | grep -qv '^0* ' || skip_all "/proc/kallsyms shows no addresses (kptr_restrict or not root)"
[ -x "$WORKLOADS/dlexec" ] || skip_all "workload dlexec not built"
export HOME=$TMPD/home XDG_CACHE_HOME=$TMPD/cache
mkdir -p "$HOME"
fake=00000000-1111-2222-3333-444444444444
# rewrite SRC DST BOOT [HOST]: new boot id (same length), or drop it and the
# kernel build-id and rename the host (a 1.1 trace from another machine).
rewrite() {
	python3 - "$@" <<'PY'
import struct, sys, zlib
src, dst, boot = sys.argv[1:4]
host = sys.argv[4] if len(sys.argv) > 4 else None
b = bytearray(open(src, 'rb').read())
hsize = struct.unpack_from('<I', b, 12)[0]
out, off = bytearray(), 32
while off < 32 + hsize:
    tag, ln = struct.unpack_from('<II', b, off)
    val = bytes(b[off + 8:off + 8 + ln])
    off += 8 + ((ln + 3) & ~3)
    if tag == 15 and host is None:
        val = boot.encode()
    elif tag in (15, 16):
        continue
    elif tag == 1 and host is not None:
        val = host.encode()
    out += struct.pack('<II', tag, len(val)) + val + b'\0' * ((-len(val)) % 4)
pro = bytearray(b[:32])
struct.pack_into('<I', pro, 12, len(out))
struct.pack_into('<I', pro, 16, zlib.crc32(bytes(out)) & 0xffffffff)
if host is not None:
    struct.pack_into('<H', pro, 10, 1)
open(dst, 'wb').write(bytes(pro) + bytes(out) + bytes(b[32 + hsize:]))
PY
}
"$PMIPROF" record -q -o "$TMPD/t.data" -- "$WORKLOADS/dlexec" >/dev/null 2>"$TMPD/err" ||
	{ not_ok "record" "$(cat "$TMPD/err")"; done_testing; }
"$PMIPROF" dump -i "$TMPD/t.data" | grep -q "^boot id: *\"$(cat /proc/sys/kernel/random/boot_id)\"" &&
	ok "the header records the boot id" || not_ok "the header records the boot id" "$("$PMIPROF" dump -i "$TMPD/t.data" | head -12)"
kernel_rows() { awk -F, '$4 == "[kernel.kallsyms]" { print $3 }' "$1" | sort -u | tr '\n' ' '; }
PMIPROF_KALLSYMS_CACHE=0 "$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/own.csv" 2>/dev/null
own=$(kernel_rows "$TMPD/own.csv")
[ -n "$own" ] && [ "$own" != "[unknown] " ] || skip_all "the recording has no named kernel samples"
ok "own boot: kernel functions named ($(echo "$own" | wc -w) of them)"

rewrite "$TMPD/t.data" "$TMPD/other.data" "$fake"
"$PMIPROF" report -i "$TMPD/other.data" --format csv >"$TMPD/other.csv" 2>"$TMPD/other.err"
[ "$(kernel_rows "$TMPD/other.csv")" = "[unknown] " ] && ok "another boot: no kernel name of this machine's kallsyms" ||
	not_ok "another boot: no kernel name of this machine's kallsyms" "$(grep kernel.kallsyms "$TMPD/other.csv" | head -5)"
grep -q "\[kernel.kallsyms\]: recorded by another kernel or boot .*boot $fake" "$TMPD/other.err" &&
	ok "another boot: a note says why" || not_ok "another boot: a note says why" "$(cat "$TMPD/other.err")"
"$PMIPROF" report -i "$TMPD/other.data" --format csv --kallsyms /proc/kallsyms >"$TMPD/k.csv" 2>/dev/null
[ "$(kernel_rows "$TMPD/k.csv")" = "$own" ] && ok "--kallsyms FILE is used as given" ||
	not_ok "--kallsyms FILE is used as given" "$(kernel_rows "$TMPD/k.csv")"
mkdir -p "$TMPD/bid/kallsyms"
cp /proc/kallsyms "$TMPD/bid/kallsyms/$fake"
"$PMIPROF" report -i "$TMPD/other.data" --format csv --buildid-dir "$TMPD/bid" >"$TMPD/b.csv" 2>/dev/null
[ "$(kernel_rows "$TMPD/b.csv")" = "$own" ] && ok "kallsyms/BOOT of a build-id cache names the recording boot's functions" ||
	not_ok "kallsyms/BOOT of a build-id cache names the recording boot's functions" "$(kernel_rows "$TMPD/b.csv")"
# report's kallsyms cache of an earlier boot of this machine
"$PMIPROF" report -i "$TMPD/t.data" >/dev/null 2>&1
f=$(ls "$XDG_CACHE_HOME"/pmiprof/kallsyms-* 2>/dev/null | head -1)
if [ -n "$f" ]; then
	mv "$f" "$XDG_CACHE_HOME/pmiprof/kallsyms-$fake-$(id -u)-0000000000000000"
	"$PMIPROF" report -i "$TMPD/other.data" --format csv >"$TMPD/c.csv" 2>/dev/null
	[ "$(kernel_rows "$TMPD/c.csv")" = "$own" ] && ok "the kallsyms cache of the recording boot is used" ||
		not_ok "the kallsyms cache of the recording boot is used" "$(kernel_rows "$TMPD/c.csv")"
else
	skip "the kallsyms cache of the recording boot is used" "report wrote no kallsyms cache"
fi
rewrite "$TMPD/t.data" "$TMPD/old.data" - elsewhere
"$PMIPROF" dump -i "$TMPD/old.data" | grep -q '^version: *1\.1' && ! "$PMIPROF" dump -i "$TMPD/old.data" | grep -q '^boot id' &&
	ok "rewritten as a 1.1 trace without boot id" || not_ok "rewritten as a 1.1 trace without boot id"
"$PMIPROF" report -i "$TMPD/old.data" --format csv >"$TMPD/old.csv" 2>"$TMPD/old.err"
[ "$(kernel_rows "$TMPD/old.csv")" = "[unknown] " ] && grep -q 'on elsewhere, boot unknown' "$TMPD/old.err" &&
	ok "a 1.1 trace from another host: no kernel names, a note" ||
	not_ok "a 1.1 trace from another host: no kernel names, a note" "$(kernel_rows "$TMPD/old.csv")" "$(cat "$TMPD/old.err")"
done_testing
