#!/usr/bin/env bash
# Install every Debian package that building, testing, fuzzing, benchmarking,
# the QEMU VM tests and `make deb` (debhelper, dh-dkms, lintian) need (`make deps`).  Idempotent: installs only what is
# missing, runs `apt-get update` only when something is, and says what it does.
set -eu
pkgs=(
	build-essential pkg-config clang libclang-rt-14-dev llvm
	libdw-dev libdebuginfod1 libelf-dev libunwind-dev zlib1g-dev libdeflate-dev libzstd-dev libpfm4-dev libcmocka-dev
	libmicrohttpd-dev libsystemd-dev libcapstone-dev libncurses-dev libcurl4-openssl-dev prometheus
	libgnutls28-dev libyaml-dev libcrypt-dev openssl
	linux-perf libc6-dbg gnuplot-nox hyperfine time valgrind
	libpapi-dev likwid
	golang-go chromium libxml2-utils curl tmux python3 nodejs npm
	qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static cpio kmod
	linux-source-6.1 dkms
	debhelper dh-dkms lintian xxd
)
missing=()
for p in "${pkgs[@]}"; do
	# NodeSource's nodejs carries its own npm and conflicts with Debian's
	[ "$p" = npm ] && command -v npm >/dev/null && continue
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
# npm: the libraries 'report --html' pages embed and the browser driver of
# their tests (report/output/html/package.json, pinned by its lock; docs/html.md).
html_npm() {
	local d
	d="$(dirname "$0")/../report/output/html"
	[ -d "$d/node_modules/uplot" ] && [ -d "$d/node_modules/puppeteer-core" ] && return 0
	command -v npm >/dev/null || { echo "deps: npm missing: report --html and its tests are skipped"; return 0; }
	echo "deps: npm ci in report/output/html"
	(cd "$d" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund)
}
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages already installed"
	html_npm
	exit 0
fi
echo "deps: installing: ${missing[*]}"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
html_npm
echo "deps: done"
