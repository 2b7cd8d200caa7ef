#!/usr/bin/env bash
# make dkms-src lays out the DKMS source tree, and dkms add + build turns it
# into pmiprof.ko for Debian's 6.1 headers, in private dkms/source trees
# (--dkmstree/--sourcetree: the system's DKMS state is not touched).
# Host only, no guest.  Skipped without dkms or the 6.1 headers.
. "$(dirname "$0")/../lib.sh"
command -v dkms >/dev/null || skip_all "dkms not installed (make deps)"
kver=$(ls -d /lib/modules/6.1.*-amd64/build 2>/dev/null | sort -V | tail -n 1 | cut -d/ -f4)
[ -n "$kver" ] || skip_all "no Debian 6.1 headers (linux-headers-6.1*-amd64)"
ver=$(sed -n 's/^VERSION *:= *//p' "$PMIPROF_TOP/Makefile")

make -s -C "$PMIPROF_TOP" dkms-src DESTDIR="$TMPD" DKMS_SRCDIR=/src/pmiprof-$ver >"$TMPD/make.log" 2>&1 &&
	ok "make dkms-src installs the source tree" || not_ok "make dkms-src installs the source tree" "$(cat "$TMPD/make.log")"
src=$TMPD/src/pmiprof-$ver
[ -f "$src/dkms.conf" ] && grep -q "^PACKAGE_VERSION=\"$ver\"$" "$src/dkms.conf" &&
	ok "dkms.conf carries the version ($ver)" || not_ok "dkms.conf carries the version" "$(cat "$src/dkms.conf" 2>/dev/null)"
[ -f "$src/include/pmiprof/abi.h" ] && [ -f "$src/Kbuild" ] && [ -f "$src/task.c" ] &&
	ok "source tree has Kbuild, the sources and include/pmiprof/abi.h" ||
	not_ok "source tree has Kbuild, the sources and include/pmiprof/abi.h" "$(ls -R "$src")"
mkdir -p "$TMPD/tree"
dkms --dkmstree "$TMPD/tree" --sourcetree "$TMPD/src" add -m pmiprof -v "$ver" >"$TMPD/add.log" 2>&1 &&
	ok "dkms add" || not_ok "dkms add" "$(cat "$TMPD/add.log")"
dkms --dkmstree "$TMPD/tree" --sourcetree "$TMPD/src" build -m pmiprof -v "$ver" -k "$kver" \
	>"$TMPD/build.log" 2>&1 && ok "dkms build for $kver" ||
	not_ok "dkms build for $kver" "$(tail -n 30 "$TMPD/build.log"; cat "$TMPD/tree/pmiprof/$ver/build/make.log" 2>/dev/null | tail -n 30)"
ko=$(find "$TMPD/tree/pmiprof/$ver/$kver" -name 'pmiprof.ko*' 2>/dev/null | head -n 1)
if [ -n "$ko" ] && modinfo "$ko" >"$TMPD/modinfo" 2>&1; then
	grep -q "^vermagic: *$kver " "$TMPD/modinfo" && ok "built pmiprof.ko has vermagic $kver" ||
		not_ok "built pmiprof.ko has vermagic $kver" "$(cat "$TMPD/modinfo")"
else
	not_ok "built pmiprof.ko has vermagic $kver" "no module in $TMPD/tree"
fi
done_testing
