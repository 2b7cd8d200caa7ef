#!/usr/bin/env bash
# tests/run runs each test script directly, so a script committed without
# its executable bit fails in a fresh clone with "Permission denied" (t532
# did once); every tests/{e2e,vm,fuzz,bench} script must be mode 100755 in git.
. "$(dirname "$0")/../lib.sh"
command -v git >/dev/null && git -C "$PMIPROF_TOP" rev-parse >/dev/null 2>&1 ||
	skip_all "not a git checkout"
bad=$(git -C "$PMIPROF_TOP" ls-files -s tests/e2e tests/vm tests/fuzz tests/bench |
	awk '$4 ~ /\/(t|b)[0-9][^\/]*\.sh$|\/run$/ && $1 != "100755" { print $4 }')
n=$(git -C "$PMIPROF_TOP" ls-files tests/e2e tests/vm tests/fuzz tests/bench |
	grep -cE '/(t|b)[0-9][^/]*\.sh$|/run$')
[ -z "$bad" ] && ok "all $n test and bench scripts are executable in git" ||
	not_ok "test scripts executable in git" "$bad"
done_testing
