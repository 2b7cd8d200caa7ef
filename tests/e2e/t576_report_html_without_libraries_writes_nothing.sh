#!/usr/bin/env bash
# report --html (and phases --html) in a build without the page's libraries
# (PMIPROF_TEST_NO_HTML_LIBS, as if report/output/html/node_modules had been
# absent at build time): refused before the trace is read or the output file
# opened, so no file (not an empty one) is left, and the message names the
# command that fixes it: make deps && make.
. "$(dirname "$0")/../lib.sh"
have_perf_sw || skip_all "perf_event_open not usable here"
trap 'rm -rf "$TMPD"' EXIT
"$PMIPROF" record -q -o "$TMPD/t.data" -- "$WORKLOADS/callgraph" >/dev/null 2>"$TMPD/err" \
	|| { not_ok "record callgraph" "$(cat "$TMPD/err")"; done_testing; }
for c in report phases; do
	PMIPROF_TEST_NO_HTML_LIBS=1 "$PMIPROF" $c --html -i "$TMPD/t.data" -o "$TMPD/$c.html" \
		>/dev/null 2>"$TMPD/err"; rc=$?
	[ $rc -ne 0 ] && [ ! -e "$TMPD/$c.html" ] \
		&& ok "$c --html without libraries: exit $rc, no output file" \
		|| not_ok "$c --html without libraries writes nothing" "rc=$rc $(ls -l "$TMPD/$c.html" 2>&1)"
	grep -qF "make deps && make" "$TMPD/err" && [ "$(wc -l <"$TMPD/err")" -eq 1 ] \
		&& ok "$c --html: one message naming 'make deps && make'" \
		|| not_ok "$c --html: message names the fix" "$(cat "$TMPD/err")"
done
# checked first: a missing input is not what is reported
PMIPROF_TEST_NO_HTML_LIBS=1 "$PMIPROF" report --html -i "$TMPD/none.data" -o "$TMPD/n.html" \
	>/dev/null 2>"$TMPD/err"
grep -qF "make deps && make" "$TMPD/err" && ! grep -q none.data "$TMPD/err" \
	&& ok "checked before the input is opened" || not_ok "checked before the input" "$(cat "$TMPD/err")"
done_testing
