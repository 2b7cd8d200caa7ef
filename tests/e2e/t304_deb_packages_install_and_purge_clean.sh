#!/usr/bin/env bash
# make deb (debian/, dpkg-buildpackage -us -uc -b; docs/packaging.md) builds
# pmiprof, pmiprof-dkms, libpmiprof-region0 and libpmiprof-region-dev at the
# Makefile's VERSION, and lintian finds no error in them.  They are installed
# with dpkg -i ON THIS MACHINE, not in a debootstrap root (a root would take
# minutes and the network), and purged with dpkg -P, from an EXIT trap too, so
# the machine is left as it was even when a check fails.  Installed: the
# installed pmiprof's doctor sees the udev rule, the group and the DKMS
# source; record -- true works (SKIP without perf_event_open); pkg-config
# --cflags pmiprof-region works and a program built with its flags runs
# against the installed library; the unit is installed and enabled, not
# started; the group pmiprof exists.  DKMS: the module is built for each
# installed kernel with headers; the running kernel (a custom VM kernel here)
# may have none: then DKMS skips it, the installation still succeeds and that
# check is a SKIP.  Purged: no file dpkg -L listed, no DKMS tree or module, no
# unit symlink or deb-systemd-helper state, no group (unless it was there
# before), modules.dep as before, no package left; a signing key DKMS made
# (/var/lib/dkms/mok.*, at its first build on a machine) is removed too.  About 2 to 4 minutes (the build about 1, the
# DKMS build of the module about 1 per kernel with headers).
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (dpkg -i, dpkg -P)"
for c in dpkg-buildpackage dh dh_dkms dkms pkg-config cc; do
	command -v "$c" >/dev/null || skip_all "$c not installed (make deps)"
done
cd "$PMIPROF_TOP" || exit 1
dpkg-checkbuilddeps >"$TMPD/bd" 2>&1 || skip_all "build dependencies missing: $(cat "$TMPD/bd")"
pkgs="pmiprof pmiprof-dkms libpmiprof-region0 libpmiprof-region-dev"
# installed, half-installed or with config files left: anything but not-installed
installed() {
	local s
	s=$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)
	[ -n "$s" ] && [ "${s:1:1}" != n ]
}
for p in $pkgs; do
	installed "$p" && skip_all "$p is installed already: this test would remove it"
done
version=$(make -s --no-print-directory version)
# Another apt or dpkg may hold the lock for a while: wait for it (2 min at most).
dpkg_wait() {
	local out
	for _ in $(seq 60); do
		out=$("$@" 2>&1) && { printf '%s\n' "$out"; return 0; }
		printf '%s\n' "$out" | grep -q 'lock' || { printf '%s\n' "$out"; return 1; }
		sleep 2
	done
	printf '%s\n' "$out"
	return 1
}
group_before=$(getent group pmiprof)
# DKMS makes itself a module-signing key pair at its first build (dkms 3):
# one the test made goes with the packages.
mok_before=$(ls /var/lib/dkms/mok.key /var/lib/dkms/mok.pub 2>/dev/null)
# depmod rewrites the kernels' module indexes at install and purge: as before, after.
cat /lib/modules/*/modules.dep 2>/dev/null | md5sum >"$TMPD/dep.before"
cleanup() {
	local p left=
	for p in $pkgs; do installed "$p" && left="$left $p"; done
	[ -n "$left" ] && { echo "# cleanup: purging$left"; dpkg_wait dpkg -P $left >/dev/null 2>&1; }
	# the postrm removes an empty group pmiprof: put back one that was here before
	if [ -n "$group_before" ] && ! getent group pmiprof >/dev/null; then
		groupadd --system -g "$(echo "$group_before" | cut -d: -f3)" pmiprof
	fi
	[ -z "$mok_before" ] && rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
	rm -rf "$TMPD"
}
trap cleanup EXIT

# --- build
start=$(date +%s)
if make -s deb DEBDIR="$TMPD/deb" LINTIAN=0 >"$TMPD/make.log" 2>&1; then
	ok "make deb builds the packages ($(($(date +%s) - start)) s)"
else
	not_ok "make deb" "$(tail -n 30 "$TMPD/make.log")"
	done_testing
fi
debs=
for p in $pkgs; do
	f=$(ls "$TMPD"/deb/"${p}"_"${version}"_*.deb 2>/dev/null)
	if [ -f "$f" ]; then
		debs="$debs $f"
		echo "# $(basename "$f"): $(stat -c %s "$f") bytes"
	else
		not_ok "$p package built" "$(ls "$TMPD/deb")"
	fi
done
[ "$(dpkg-deb -f "$TMPD/deb/pmiprof_${version}_amd64.deb" Version 2>/dev/null)" = "$version" ] &&
	ok "the packages' version is the Makefile's ($version)" ||
	not_ok "version" "$(dpkg-deb -f "$TMPD/deb/pmiprof_${version}_amd64.deb" Version 2>&1)"
if command -v lintian >/dev/null; then
	lintian --fail-on error --display-level '>=warning' "$TMPD"/deb/*.changes >"$TMPD/lintian" 2>&1 &&
		ok "lintian: no errors ($(grep -c '^W:' "$TMPD/lintian") warnings)" ||
		not_ok "lintian reports errors" "$(cat "$TMPD/lintian")"
else
	skip "lintian: no errors" "lintian not installed (make deps)"
fi

# --- install
# shellcheck disable=SC2086
if dpkg_wait dpkg -i $debs >"$TMPD/install.log" 2>&1; then
	ok "dpkg -i installs the four packages"
else
	not_ok "dpkg -i" "$(tail -n 40 "$TMPD/install.log")"
	done_testing
fi
for p in $pkgs; do dpkg -L "$p"; done | sort -u >"$TMPD/listed"
echo "# dpkg -L: $(wc -l <"$TMPD/listed") paths"
# DKMS: every kernel with a build tree gets the module; the others are skipped by DKMS.
sed -n '/Building for/,$p' "$TMPD/install.log" | grep -iE 'building for|skipped|error|done' | sed 's/^/# dkms: /'
for m in /lib/modules/*; do
	k=${m##*/}
	st=$(dkms status -m pmiprof -v "$version" -k "$k" 2>/dev/null)
	if [ -e "/lib/modules/$k/build" ]; then
		echo "$st" | grep -q ': installed' && ls /lib/modules/"$k"/updates/dkms/pmiprof.ko* >/dev/null 2>&1 &&
			ok "DKMS built and installed pmiprof.ko for $k (headers present)" ||
			not_ok "DKMS module for $k" "status: $st" "$(cat /var/lib/dkms/pmiprof/"$version"/build/make.log 2>/dev/null | tail -n 20)"
	fi
done
if [ -e "/lib/modules/$(uname -r)/build" ]; then
	dkms status -m pmiprof -v "$version" -k "$(uname -r)" | grep -q ': installed' &&
		ok "DKMS installed pmiprof.ko for the running kernel" ||
		not_ok "DKMS module for the running kernel" "$(dkms status)"
else
	skip "DKMS module for the running kernel $(uname -r)" "no headers for it: DKMS skipped it and the installation went on"
fi

# --- installed files at work
[ -x /usr/bin/pmiprof ] && [ "$(/usr/bin/pmiprof --version 2>&1 | grep -o "$version")" = "$version" ] &&
	ok "/usr/bin/pmiprof is $version" || not_ok "/usr/bin/pmiprof" "$(/usr/bin/pmiprof --version 2>&1)"
/usr/bin/pmiprof doctor >"$TMPD/doctor" 2>&1
rc=$?
[ "$rc" -eq 0 ] && ok "pmiprof doctor runs (exit 0)" || not_ok "pmiprof doctor exit $rc" "$(cat "$TMPD/doctor")"
# (/lib is /usr/lib on a merged-/usr system; root is not a member: a WARN saying so)
grep -Eq 'install +udev rule (/usr)?/lib/udev/rules.d/60-pmiprof.rules(,| and) group pmiprof' "$TMPD/doctor" &&
	ok "doctor: the udev rule and the group pmiprof are in place" ||
	not_ok "doctor's udev rule and group" "$(grep install "$TMPD/doctor")"
grep -Eq "install +(DKMS source /usr/src/pmiprof-$version/dkms.conf present|pmiprof.ko installed for)" "$TMPD/doctor" &&
	ok "doctor: the DKMS source is installed" || not_ok "doctor's DKMS line" "$(grep install "$TMPD/doctor")"
if have_perf_sw; then
	(cd "$TMPD" && /usr/bin/pmiprof record -q -o "$TMPD/true.data" -- true) >"$TMPD/rec" 2>&1 &&
		/usr/bin/pmiprof report -i "$TMPD/true.data" >"$TMPD/rep" 2>&1 &&
		ok "pmiprof record -- true, then report, from the installed binary" ||
		not_ok "record -- true" "$(cat "$TMPD/rec" "$TMPD/rep" 2>/dev/null | tail -n 20)"
else
	skip "pmiprof record -- true" "perf_event_open not usable here"
fi
unset PKG_CONFIG_PATH PKG_CONFIG_LIBDIR
if pkg-config --cflags pmiprof-region >"$TMPD/pc" 2>&1 &&
   [ "$(pkg-config --modversion pmiprof-region)" = "$version" ]; then
	ok "pkg-config --cflags pmiprof-region works ('$(cat "$TMPD/pc")': /usr/include goes without saying; version $version)"
else
	not_ok "pkg-config --cflags pmiprof-region" "$(cat "$TMPD/pc")"
fi
printf '#include <pmiprof/region.h>\n#include <stdio.h>\nint main(void)\n{\n\tpmiprof_region_begin("r");\n\tpmiprof_region_end("r");\n\tprintf("active %%d\\n", pmiprof_region_active);\n\treturn 0;\n}\n' >"$TMPD/app.c"
# shellcheck disable=SC2046
if cc -o "$TMPD/app" "$TMPD/app.c" $(pkg-config --cflags --libs pmiprof-region) >"$TMPD/cc" 2>&1 &&
   [ "$("$TMPD/app")" = "active 0" ] &&
   ldd "$TMPD/app" | grep -Eq "libpmiprof-region.so.0 => (/usr)?/lib/.*/libpmiprof-region.so.0"; then
	ok "a program built with pkg-config's flags runs on the installed libpmiprof-region.so.0"
else
	not_ok "program on the installed library" "$(cat "$TMPD/cc")" "$(ldd "$TMPD/app" 2>&1)"
fi
[ -f /lib/systemd/system/pmiprof.service ] && grep -q '^ExecStart=/usr/bin/pmiprof daemon' /lib/systemd/system/pmiprof.service &&
	[ -L /etc/systemd/system/multi-user.target.wants/pmiprof.service ] &&
	ok "pmiprof.service installed and enabled (multi-user.target.wants)" ||
	not_ok "unit installed and enabled" "$(ls -l /lib/systemd/system/pmiprof.service /etc/systemd/system/multi-user.target.wants/ 2>&1)"
running=
for e in /proc/[0-9]*/exe; do
	[ "$(readlink "$e" 2>/dev/null)" = /usr/bin/pmiprof ] && running="$running ${e//[^0-9]/}"
done
if [ -z "$running" ] && { [ ! -d /run/systemd/system ] || ! systemctl is-active --quiet pmiprof; }; then
	ok "the daemon was not started (no /usr/bin/pmiprof process$([ -d /run/systemd/system ] || echo '; no systemd as PID 1 here'))"
else
	not_ok "daemon not started" "running: $running"
fi
getent group pmiprof >/dev/null && ok "the group pmiprof exists ($(getent group pmiprof))" ||
	not_ok "group pmiprof"
[ -f /usr/share/doc/pmiprof/examples/pmiprof.conf.example ] && [ -f /usr/share/doc/pmiprof/daemon.md.gz ] &&
	[ -f /usr/share/man/man1/pmiprof.1.gz ] && ok "man page, docs/daemon.md and the example config installed" ||
	not_ok "docs" "$(ls /usr/share/doc/pmiprof 2>&1)"

# --- purge
if dpkg_wait dpkg -P $pkgs >"$TMPD/purge.log" 2>&1; then
	ok "dpkg -P purges the four packages"
else
	not_ok "dpkg -P" "$(tail -n 20 "$TMPD/purge.log")"
fi
left=
while read -r f; do
	[ -d "$f" ] && continue	# directories (/lib, a link to /usr/lib here, too) other packages share
	[ -e "$f" ] || [ -L "$f" ] && left="$left $f"
done <"$TMPD/listed"
for d in /usr/src/pmiprof-"$version" /usr/share/doc/pmiprof /usr/share/doc/pmiprof-dkms /usr/include/pmiprof \
	/var/lib/dkms/pmiprof /etc/systemd/system/multi-user.target.wants/pmiprof.service \
	/var/lib/systemd/deb-systemd-helper-enabled/pmiprof.service \
	/var/lib/systemd/deb-systemd-helper-enabled/multi-user.target.wants/pmiprof.service; do
	[ -e "$d" ] || [ -L "$d" ] && left="$left $d"
done
left="$left $(ls /lib/modules/*/updates/dkms/pmiprof.ko* 2>/dev/null | tr '\n' ' ')"
left=$(echo $left)
[ -z "$left" ] && ok "nothing left: $(wc -l <"$TMPD/listed") listed paths, DKMS tree, modules, unit state" ||
	not_ok "left after purge" "$left"
st=
for p in $pkgs; do installed "$p" && st="$st $p:$(dpkg-query -W -f='${db:Status-Abbrev}' "$p")"; done
[ -z "$st" ] && ok "no package left installed or with config files" || not_ok "dpkg status after purge" "$st"
cat /lib/modules/*/modules.dep 2>/dev/null | md5sum | cmp -s - "$TMPD/dep.before" &&
	ok "the kernels' modules.dep are as before" || not_ok "modules.dep changed" "$(ls -l /lib/modules/*/modules.dep)"
if [ -z "$group_before" ]; then
	getent group pmiprof >/dev/null && not_ok "purge removes the group pmiprof" "$(getent group pmiprof)" ||
		ok "purge removed the group pmiprof (it had no members)"
else
	skip "purge removes the group pmiprof" "it was here before the test (put back if removed)"
fi
done_testing
