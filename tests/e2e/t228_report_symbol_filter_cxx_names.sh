#!/usr/bin/env bash
# --symbol NAME on a C++ function (issue 21): the row is named
# "ns::hot_cxx(int)", and --symbol matched only the whole name, so
# "--symbol ns::hot_cxx" showed 0 samples with no hint.  A pattern now
# also matches the name without its parameter list; a filter that keeps
# nothing names the symbols that contain its text.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
command -v g++ >/dev/null || skip_all "g++ not installed"
cat >"$TMPD/a.cc" <<'CXX'
#include <cstdio>
#include <ctime>
namespace ns {
__attribute__((noinline)) unsigned long hot_cxx(int n)
{
	unsigned long x = 1;
	for (long i = 0; i < 40000000L * n; i++) {
		x = x * 6364136223846793005ul + 1;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}
}
int main() { printf("%lu\n", ns::hot_cxx(3)); }
CXX
g++ -O1 -g -o "$TMPD/a" "$TMPD/a.cc" || skip_all "g++ cannot build the test program"
"$PMIPROF" record -q -o "$TMPD/t.data" -- "$TMPD/a" >/dev/null 2>"$TMPD/err" || { not_ok "record" "$(cat "$TMPD/err")"; done_testing; }
rows() { "$PMIPROF" report -i "$TMPD/t.data" --format csv "$@" 2>"$TMPD/err" | awk -F, 'NR > 1 { print $3 }'; }
rows | grep -qxF 'ns::hot_cxx(int)' && ok "the row is ns::hot_cxx(int)" || not_ok "the row is ns::hot_cxx(int)" "$(rows | head -3)"
[ "$(rows --symbol 'ns::hot_cxx')" = "ns::hot_cxx(int)" ] && ok "--symbol ns::hot_cxx matches it without its parameters" ||
	not_ok "--symbol ns::hot_cxx matches it without its parameters" "$(rows --symbol ns::hot_cxx)" "$(cat "$TMPD/err")"
[ "$(rows --symbol 'ns::hot_cxx(int)')" = "ns::hot_cxx(int)" ] && ok "the whole name still matches" || not_ok "the whole name still matches"
[ -z "$(rows --symbol 'ns::hot')" ] && ok "a pattern is not a prefix match" || not_ok "a pattern is not a prefix match" "$(rows --symbol ns::hot)"
rows --symbol hot_cxx >/dev/null
grep -q "names containing it: 'ns::hot_cxx(int)'" "$TMPD/err" && ok "a filter that keeps nothing names ns::hot_cxx(int)" ||
	not_ok "a filter that keeps nothing names ns::hot_cxx(int)" "$(cat "$TMPD/err")"
done_testing
