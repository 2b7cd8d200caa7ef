#!/usr/bin/env bash
# --inline on a C++ program: inlined frames are named from their DWARF
# linkage names, demangled (ns::Acc<unsigned long>::spin(unsigned long,
# unsigned long), not "spin"), nested work -> ns::wrap -> ns::Acc::spin in
# --tree; the flat profile's "inner (inlined in outer)" demangles outer
# (it showed "spin (inlined in _Z4workm)"), and --no-demangle keeps the
# mangled names in both.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open of software events not permitted here"
command -v g++ >/dev/null || skip_all "g++ not installed"
cat >"$TMPD/a.cc" <<'CXX'
#include <cstdint>
#include <cstdio>
namespace ns {
template <typename T> struct Acc {
	__attribute__((always_inline)) inline T spin(T n, T x)
	{
		for (T i = 0; i < n; i++) {
			x = x * 6364136223846793005ull + i;
			__asm__ volatile("" : "+r"(x));
		}
		return x;
	}
};
__attribute__((always_inline)) inline uint64_t wrap(uint64_t n)
{
	Acc<uint64_t> a;
	return a.spin(n, 3) + 1;
}
}
__attribute__((noinline)) uint64_t work(uint64_t n) { return ns::wrap(n); }
int main() { printf("%lu\n", (unsigned long)work(300000000)); }
CXX
g++ -O2 -g -fno-omit-frame-pointer -o "$TMPD/a" "$TMPD/a.cc" || skip_all "g++ cannot build the test program"
"$PMIPROF" record -q -g -F 4000 -o "$TMPD/t.data" -- "$TMPD/a" >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record -g" "$(cat "$TMPD/err")"; done_testing; }
rep() { "$PMIPROF" report -q -i "$TMPD/t.data" --comm a "$@" 2>>"$TMPD/err"; }
SPIN='ns::Acc<unsigned long>::spin(unsigned long, unsigned long)'
rep --tree --inline --format csv >"$TMPD/tree.csv"
p=$(awk -F, -v s=";work(unsigned long);ns::wrap(unsigned long);$SPIN" \
	'{ l = $0; sub(/"$/, "", l) } substr(l, length(l) - length(s) + 1) == s { t += $2 } END { print t + 0 }' "$TMPD/tree.csv")
awk -v p="$p" 'BEGIN { exit !(p > 90) }' && ok "--tree --inline: work -> ns::wrap -> $SPIN ($p%)" \
	|| not_ok "--tree --inline C++ names" "$(cat "$TMPD/tree.csv")"
rep --inline --format csv >"$TMPD/flat.csv"
grep -qF 'spin (inlined in work(unsigned long))' "$TMPD/flat.csv" \
	&& ok "flat --inline: spin (inlined in work(unsigned long))" || not_ok "flat --inline demangles the outer function" "$(head -3 "$TMPD/flat.csv")"
rep --tree --inline --no-demangle --format csv >"$TMPD/m.csv"
grep -q ';_Z4workm;_ZN2ns4wrapEm;_ZN2ns3AccImE4spinEmm' "$TMPD/m.csv" && ! grep -q 'ns::' "$TMPD/m.csv" \
	&& ok "--no-demangle: the inlined frames keep their linkage names" || not_ok "--no-demangle inline names" "$(head -5 "$TMPD/m.csv")"
rep --inline --no-demangle --format csv | grep -qF 'spin (inlined in _Z4workm)' \
	&& ok "--no-demangle flat: spin (inlined in _Z4workm)" || not_ok "--no-demangle flat --inline"
[ -s "$TMPD/err" ] && grep -v warning "$TMPD/err" | grep -q . && not_ok "reports without errors" "$(cat "$TMPD/err")"
done_testing
