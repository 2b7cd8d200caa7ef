#!/usr/bin/env bash
# A C++ program's functions appear demangled in the report (as perf shows
# them), and --no-demangle shows the symbol table's mangled names.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open of software events not permitted here"
command -v g++ >/dev/null || skip_all "g++ not installed"
cat >"$TMPD/spin.cc" <<'CXX'
#include <chrono>
namespace work {
struct Spinner {
	__attribute__((noinline)) unsigned long spin(int rounds)
	{
		volatile unsigned long x = 0;
		for (int i = 0; i < rounds; i++)
			x = x + i * 7;
		return x;
	}
};
}
int main()
{
	work::Spinner s;
	auto t0 = std::chrono::steady_clock::now();
	while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(600))
		s.spin(100000);
	return 0;
}
CXX
g++ -O1 -g -o "$TMPD/spin" "$TMPD/spin.cc" || skip_all "g++ cannot build the test program"
"$PMIPROF" record -q -o "$TMPD/t.data" -- "$TMPD/spin" >/dev/null 2>&1
"$PMIPROF" report -i "$TMPD/t.data" --format csv >"$TMPD/r.csv" 2>/dev/null
grep -qF 'work::Spinner::spin(int)' "$TMPD/r.csv" &&
	ok "C++ method reported demangled: work::Spinner::spin(int)" || not_ok "C++ method reported demangled" "$(head -5 "$TMPD/r.csv")"
top=$(sed -n 2p "$TMPD/r.csv")
case "$top" in *"work::Spinner::spin(int)"*) ok "the spinning method is the top row" ;; *) not_ok "the spinning method is the top row" "$top" ;; esac
"$PMIPROF" report -i "$TMPD/t.data" --format csv --no-demangle >"$TMPD/m.csv" 2>/dev/null
grep -q '_ZN4work7Spinner4spinEi' "$TMPD/m.csv" && ! grep -q 'work::Spinner' "$TMPD/m.csv" &&
	ok "--no-demangle keeps the mangled name" || not_ok "--no-demangle keeps the mangled name" "$(head -3 "$TMPD/m.csv")"
done_testing
