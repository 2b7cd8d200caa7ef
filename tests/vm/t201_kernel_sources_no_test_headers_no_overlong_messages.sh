#!/usr/bin/env bash
# Static checks of kernel/ (host only, no guest; issue 22 item 12):
#  - no kernel source or header includes a file under tests/ (pmu.h
#    included tests/unit/kshim.h for the user-space build; the test build
#    now includes its shim itself, before the kernel headers);
#  - no kernel log message format is longer than 170 characters: longer
#    ones are split into a problem line and a remedy line (checkpatch
#    does not flag long strings, so this does; the longest were 189-202).
# PMIPROF_KERNEL_SRC= points it at another tree (to check an old one).
. "$(dirname "$0")/../lib.sh"
src=${PMIPROF_KERNEL_SRC:-$PMIPROF_TOP/kernel}
inc=$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"][^>"]*tests/' "$src"/*.[ch])
[ -z "$inc" ] && ok "no kernel file includes a test file" ||
	not_ok "no kernel file includes a test file" "$inc"
long=$(grep -noE 'pr_(err|warn|info|notice|debug)(_once|_ratelimited)?\("[^"]*"' "$src"/*.c |
	awk -F'"' 'length($2) > 170 { print $1 " " length($2) " characters" }')
n=$(grep -cE 'pr_(err|warn|info|notice)' "$src"/*.c | awk -F: '{ s += $2 } END { print s }')
[ "$n" -gt 20 ] && [ -z "$long" ] && ok "no log message format above 170 characters ($n pr_* calls)" ||
	not_ok "no log message format above 170 characters" "$long"
done_testing
