#!/usr/bin/env bash
# pmiprof doctor --selftest on this host: the JSON is well-formed and holds
# the machine and every check; without a hardware PMU the hardware checks
# skip with a reason and perf.no_pmu_fallback passes; without /dev/pmiprof
# every module check skips with a reason; text format, -o FILE, bad options.
. "$(dirname "$0")/../lib.sh"

[ -x "$PMIPROF" ] || skip_all "pmiprof not built"
command -v python3 >/dev/null || skip_all "python3 not installed (make deps)"

"$PMIPROF" doctor --selftest --format json -o "$TMPD/st.json" 2>"$TMPD/err"
rc=$?
[ $rc -le 1 ] && ok "doctor --selftest -o exits 0 or 1 ($rc)" || not_ok "doctor --selftest exits 0 or 1" "$rc" "$(cat "$TMPD/err")"
python3 -m json.tool "$TMPD/st.json" >/dev/null && ok "JSON well-formed (python3 -m json.tool)" ||
	not_ok "JSON well-formed" "$(head -c 2000 "$TMPD/st.json")"
q() { python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
$1" "$TMPD/st.json" "${@:2}"; }
q 'm = d["machine"]
sys.exit(0 if all(k in m for k in ("cpu_model", "stepping", "microcode", "kernel", "pmu_version",
	"gp_counters", "fixed_counters", "hybrid", "hypervisor", "module")) else 1)' &&
	ok "machine: cpu model/stepping, microcode, kernel, PMU version, counters, hybrid, hypervisor, module" ||
	not_ok "machine fields" "$(head -c 1500 "$TMPD/st.json")"
uname_r=$(uname -r)
q 'sys.exit(0 if sys.argv[2] in d["machine"]["kernel"] else 1)' "$uname_r" &&
	ok "machine.kernel names this kernel ($uname_r)" || not_ok "machine.kernel names this kernel"
q 'sys.exit(0 if all(c["verdict"] in ("pass", "fail", "skip") and c["name"] for c in d["checks"])
	and all(c.get("reason") for c in d["checks"] if c["verdict"] == "skip") else 1)' &&
	ok "every check has a verdict, every skip a reason" || not_ok "every check has a verdict, every skip a reason"
n=$(q 'print(len(d["checks"]))')
[ "${n:-0}" -ge 14 ] && ok "all checks listed ($n)" || not_ok "all checks listed" "$n"
q 's = d["summary"]; sys.exit(0 if s["pass"] + s["fail"] + s["skip"] == len(d["checks"]) else 1)' &&
	ok "summary adds up" || not_ok "summary adds up"

verdict() { q 'print(" ".join(c["verdict"] for c in d["checks"] if c["name"] == sys.argv[2]))' "$1"; }
if ! have_perf_hw; then
	for c in perf.instructions perf.branches perf.llc_misses; do
		[ "$(verdict $c)" = skip ] && ok "$c skips without a PMU" || not_ok "$c skips without a PMU" "$(verdict $c)"
	done
	if have_perf_sw; then
		[ "$(verdict perf.no_pmu_fallback)" = pass ] && ok "perf.no_pmu_fallback passes: cpu-clock counts" ||
			not_ok "perf.no_pmu_fallback passes" "$(grep -A5 no_pmu "$TMPD/st.json")"
		[ "$(verdict perf.windows_x_period)" = pass ] &&
			ok "perf.windows_x_period passes: task-clock windows x period = its counted total" ||
			not_ok "perf.windows_x_period passes" "$(grep -A5 windows_x_period "$TMPD/st.json")"
		[ "$(verdict perf.pmi_interrupts)" = skip ] && grep -q 'not the PMU.s interrupt' "$TMPD/st.json" &&
			ok "perf.pmi_interrupts skips without a PMU, with the reason" ||
			not_ok "perf.pmi_interrupts skips without a PMU" "$(grep -A5 perf.pmi_interrupts "$TMPD/st.json")"
	else
		skip "perf.no_pmu_fallback" "perf_event_open refused here"
	fi
else
	[ "$(verdict perf.no_pmu_fallback)" = skip ] && ok "perf.no_pmu_fallback skips with a PMU" ||
		not_ok "perf.no_pmu_fallback skips with a PMU"
	for c in perf.instructions perf.branches; do
		[ "$(verdict $c)" = pass ] && ok "$c matches its count by construction within 1 %" ||
			not_ok "$c matches its count by construction" "$(grep -A5 "\"$c\"" "$TMPD/st.json")"
	done
fi
if [ ! -e /dev/pmiprof ]; then
	q 'sys.exit(0 if all(c["verdict"] == "skip" for c in d["checks"] if c["name"].startswith("module.")) else 1)' &&
		ok "without /dev/pmiprof every module check skips" || not_ok "without /dev/pmiprof every module check skips"
	grep -q 'not loaded' "$TMPD/st.json" && ok "module.device's reason says the module is not loaded" ||
		not_ok "module.device's reason says the module is not loaded"
fi

out=$("$PMIPROF" doctor --selftest --backend perf 2>&1)
rc=$?
echo "$out" | sed 's/^/#   /'
echo "$out" | grep -Eq '^  (PASS|FAIL|SKIP)  perf\.instructions' && ok "text format: one line per check" ||
	not_ok "text format: one line per check" "$out"
echo "$out" | grep -q 'module\.' && not_ok "--backend perf runs no module check" || ok "--backend perf runs no module check"
echo "$out" | grep -Eq '^selftest: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' && ok "text ends with the summary" ||
	not_ok "text ends with the summary" "$out"
if ! have_perf_hw; then
	echo "$out" | grep -A1 'SKIP  perf.instructions' | grep -q 'reason: perf_event_open(instructions)' &&
		ok "a skip's reason follows its line" || not_ok "a skip's reason follows its line" "$out"
fi
"$PMIPROF" doctor --selftest --backend module --format text -o "$TMPD/st.txt" >"$TMPD/stdout" 2>&1
[ ! -s "$TMPD/stdout" ] && grep -q '^selftest: ' "$TMPD/st.txt" && ! grep -q 'perf\.' "$TMPD/st.txt" &&
	ok "-o FILE writes there, nothing on stdout; --backend module only module checks" ||
	not_ok "-o FILE writes there" "$(cat "$TMPD/stdout" "$TMPD/st.txt")"

for bad in "--backend gpu" "--format xml" "--bogus" "-o" "extra"; do
	# shellcheck disable=SC2086
	err=$("$PMIPROF" doctor --selftest $bad 2>&1 >/dev/null)
	rc=$?
	err=${err%%$'\n'*}
	[ $rc = 2 ] && [ -n "$err" ] && ok "'--selftest $bad': usage error, exit 2 ($err)" ||
		not_ok "'--selftest $bad': usage error, exit 2" "rc $rc: $err"
done
"$PMIPROF" doctor --selftest -o /nonexistent/dir/x.json 2>"$TMPD/err"
rc=$?
[ $rc = 1 ] && grep -q 'cannot write /nonexistent/dir/x.json' "$TMPD/err" && ok "unwritable -o: exit 1 with the path" ||
	not_ok "unwritable -o: exit 1 with the path" "rc $rc: $(cat "$TMPD/err")"
"$PMIPROF" doctor --help | grep -q -- '--selftest' && ok "doctor --help documents --selftest" ||
	not_ok "doctor --help documents --selftest"
done_testing
