#!/usr/bin/env bash
# Static checks of kernel/ (host only, no guest; issue 22 item 12):
#  - no kernel source or header includes a file under tests/ (pmu.h
#    included tests/unit/kshim.h for the user-space build; the test build
#    now includes its shim itself, before the kernel headers);
#  - no kernel log message format is longer than 170 characters: longer
#    ones are split into a problem line and a remedy line (checkpatch
#    does not flag long strings, so this does; the longest were 189-202).
#  - the test knobs (issue 36 item 5) exist only in the test build: every
#    "test build only" parameter is inside #ifdef PMIPROF_TEST_KNOBS, and
#    the module make module built has none of them (modinfo), while
#    make module-test's has them all.
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
# every module_param in a PMIPROF_TEST_KNOBS block, and every "test build only" one in one
outside=$(awk '/^#ifdef PMIPROF_TEST_KNOBS/ { t = 1 } /^#endif/ { t = 0 }
	/MODULE_PARM_DESC\(.*test (build )?only/ && !t { print FILENAME ":" FNR ": " $0 }' "$src"/*.c)
inside=$(awk '/^#ifdef PMIPROF_TEST_KNOBS/ { t = 1 } /^#endif/ { t = 0 }
	/^module_param\(/ && t { n++ } END { print n + 0 }' "$src"/*.c)
[ -z "$outside" ] && [ "$inside" -ge 3 ] &&
	ok "test-only parameters only under #ifdef PMIPROF_TEST_KNOBS ($inside there)" ||
	not_ok "test-only parameters only under #ifdef PMIPROF_TEST_KNOBS" "$outside (inside: $inside)"
knobs='start_walk_delay_ms start_walk_add_delay_ms fail_next_resume'
prod=
for m in "$PMIPROF_BUILD/kernel/pmiprof.ko" "$PMIPROF_TOP/kernel/pmiprof.ko"; do
	[ -f "$m" ] && { prod=$m; break; }
done
if [ -z "${PMIPROF_KERNEL_SRC:-}" ] && [ -n "$prod" ] && command -v modinfo >/dev/null; then
	have=$(modinfo -F parm "$prod" | cut -d: -f1 | tr '\n' ' ')
	bad=$(for k in $knobs; do case " $have " in *" $k "*) echo "$k" ;; esac; done)
	[ -z "$bad" ] && ok "make module's pmiprof.ko has no test knob (parameters: $have)" ||
		not_ok "make module's pmiprof.ko has no test knob" "$prod has: $bad"
else
	skip "make module's pmiprof.ko has no test knob" "no module built (make module) or no modinfo"
fi
test_ko=$PMIPROF_BUILD/test-knobs/kernel/pmiprof.ko
if [ -z "${PMIPROF_KERNEL_SRC:-}" ] && [ -f "$test_ko" ] && command -v modinfo >/dev/null; then
	have=$(modinfo -F parm "$test_ko" | cut -d: -f1 | tr '\n' ' ')
	miss=$(for k in $knobs; do case " $have " in *" $k "*) ;; *) echo "$k" ;; esac; done)
	[ -z "$miss" ] && ok "make module-test's pmiprof.ko has every test knob" ||
		not_ok "make module-test's pmiprof.ko has every test knob" "missing: $miss"
else
	skip "make module-test's pmiprof.ko has every test knob" "not built (make module-test)"
fi
done_testing
