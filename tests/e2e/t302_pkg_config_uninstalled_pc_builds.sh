#!/usr/bin/env bash
# The documented 'pkg-config --cflags --libs pmiprof-region' line (docs/regions.md)
# works from the build tree: with PKG_CONFIG_PATH=build, pkg-config picks
# build/pmiprof-region-uninstalled.pc (its convention for uninstalled packages),
# whose flags point at this tree's include/ and build/ (with an rpath), so a
# program compiles, links and runs without 'make install'; under 'pmiprof stat
# --regions' its region is counted.
. "$(dirname "$0")/../lib.sh"
command -v pkg-config >/dev/null || skip_all "pkg-config not installed"
pc=$PMIPROF_BUILD/pmiprof-region-uninstalled.pc
[ -f "$pc" ] && ok "build/pmiprof-region-uninstalled.pc exists" || not_ok "uninstalled .pc" "missing: $pc"
flags=$(PKG_CONFIG_PATH=$PMIPROF_BUILD pkg-config --cflags --libs pmiprof-region 2>&1)
echo "$flags" | grep -q -- "-I$PMIPROF_TOP/include" && ok "cflags name the tree's include/" ||
	not_ok "cflags" "$flags"
cat > "$TMPD/app.c" <<'C'
#include <pmiprof/region.h>
#include <stdio.h>
int main(void)
{
	volatile unsigned long x = 0;
	int i;

	for (i = 0; i < 3; i++) {
		pmiprof_region_begin("pcstep");
		for (unsigned long k = 0; k < 100000; k++)
			x += k;
		pmiprof_region_end("pcstep");
	}
	printf("done %lu\n", (unsigned long)x);
	return 0;
}
C
# Run from another directory: the flags must not depend on the current one.
if (cd "$TMPD" && cc app.c $(PKG_CONFIG_PATH=$PMIPROF_BUILD pkg-config --cflags --libs pmiprof-region) \
	-o app) > "$TMPD/cc.log" 2>&1; then
	ok "cc app.c \$(pkg-config --cflags --libs pmiprof-region) compiles and links"
else
	not_ok "compile and link" "flags: $flags" "$(cat "$TMPD/cc.log")"
fi
out=$(cd / && "$TMPD/app" 2>&1)
[ "$out" = "done 14999850000" ] && ok "the program runs (the .so found through its rpath)" ||
	not_ok "runs" "$out"
if have_perf_sw && [ -x "$TMPD/app" ]; then
	"$PMIPROF" stat --regions -e task-clock -- "$TMPD/app" > /dev/null 2> "$TMPD/stat"
	grep -Eq '^  region pcstep: 3 calls' "$TMPD/stat" && ok "stat --regions counts its region" ||
		not_ok "stat --regions" "$(cat "$TMPD/stat")"
else
	skip "stat --regions counts its region" "perf_event_open not usable here or no program"
fi
done_testing
