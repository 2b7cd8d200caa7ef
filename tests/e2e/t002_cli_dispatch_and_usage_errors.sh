#!/usr/bin/env bash
# The one binary dispatches subcommands from its table, answers --help,
# --version and `help CMD`, and gives usage errors (exit 2) for unknown
# commands and options.
. "$(dirname "$0")/../lib.sh"
out=$("$PMIPROF" --help); rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q '^ *record ' && echo "$out" | grep -q '^ *report ' \
	&& ok "--help lists record and report" || not_ok "--help lists record and report" "$out"
for c in record report dump list doctor plot stat; do
	if echo "$out" | grep -q "^ *$c "; then
		"$PMIPROF" help "$c" | grep -qi 'usage\|synopsis' && ok "help $c prints its manual" || not_ok "help $c prints its manual"
	else
		skip "help $c prints its manual" "command $c not in this build"
	fi
done
"$PMIPROF" --version | grep -Eq '^pmiprof [0-9]+\.[0-9]+' && ok "--version prints the version" || not_ok "--version prints the version"
"$PMIPROF" frobnicate >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 2 ] && grep -q "not a pmiprof command" "$TMPD/err" && ok "unknown command: exit 2 with message" || not_ok "unknown command: exit 2 with message" "rc=$rc" "$(cat "$TMPD/err")"
"$PMIPROF" reprot >/dev/null 2>"$TMPD/err"
grep -q "Did you mean 'report'" "$TMPD/err" && ok "misspelt command gets a suggestion" || not_ok "misspelt command gets a suggestion" "$(cat "$TMPD/err")"
"$PMIPROF" --bogus >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok "unknown global option: exit 2" || not_ok "unknown global option: exit 2" "rc=$rc"
for c in record report dump; do
	if echo "$out" | grep -q "^ *$c "; then
		"$PMIPROF" "$c" --no-such-option >/dev/null 2>&1; rc=$?
		[ $rc -eq 2 ] && ok "$c --no-such-option: exit 2" || not_ok "$c --no-such-option: exit 2" "rc=$rc"
	fi
done
done_testing
